import { sql, type Kysely } from 'kysely';

// Mailbox and calendar provider accounts (CONTRACT §15, src/providers/). One row per connected account of a team;
// `secret` holds the credentials sealed with INBOXD_SECRET_KEY (src/lib/sealed.ts, bound to the row id) and is never
// returned; `config_json` holds what is not secret (host, port, base URL, calendar URL…).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('provider_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('mailbox','calendar')`))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('config_json', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('connected','error')`))
    .addColumn('last_error', 'text')
    .addColumn('last_sync_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('provider_accounts_identity')
    .on('provider_accounts')
    .columns(['team_id', 'kind', 'provider', 'address'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('provider_accounts').execute();
}
