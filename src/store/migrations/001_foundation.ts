import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo('self-hosted'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin','member')`))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('secret_prefix', 'text', (c) => c.notNull())
    .addColumn('scope_label_prefix', 'text')
    .addColumn('scope_read_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('client_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_used_at', 'integer')
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema.createIndex('api_keys_team').on('api_keys').column('team_id').execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('team_id', 'text')
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('actor_key_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('source_ip', 'text')
    .addColumn('detail', 'text')
    .execute();
  await db.schema.createIndex('audit_events_team_at').on('audit_events').columns(['team_id', 'at']).execute();
}
