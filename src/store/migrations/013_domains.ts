import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Custom mail domains (CONTRACT §10). `name` is unique across teams: one domain has one owner. The expected DNS
  // records are derived from these columns and the current settings (--mx-host, the relay), never stored, so a
  // corrected setting shows up in the next answer; `checks_json` keeps what the last verify found.
  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','verified')`))
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('dkim_selector', 'text', (c) => c.notNull())
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    // PEM, or AES-256-GCM sealed under INBOXD_SECRET_KEY (src/lib/sealed.ts).
    .addColumn('dkim_private_key', 'text', (c) => c.notNull())
    // 1 when the DKIM and SPF records matched at the last verify: only then does outbound mail get signed.
    .addColumn('signing_ready', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checks_json', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('created_by_key', 'text')
    .addColumn('verified_at', 'integer')
    .addColumn('checked_at', 'integer')
    .execute();
  await db.schema.createIndex('domains_team').on('domains').columns(['team_id', 'created_at']).execute();
}
