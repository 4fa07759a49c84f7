import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per agent run (CONTRACT §14). Steps, services and metadata are small JSON documents rewritten as a
  // whole under `version`, so a concurrent writer is detected instead of silently overwritten.
  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('created_by_key', 'text')
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('goal', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','succeeded','failed','abandoned')`))
    .addColumn('services_json', 'text', (c) => c.notNull())
    .addColumn('steps_json', 'text', (c) => c.notNull())
    .addColumn('metadata_json', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('ttl_minutes', 'integer', (c) => c.notNull())
    .addColumn('retention_minutes', 'integer')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('runs_team_created').on('runs').columns(['team_id', 'created_at']).execute();
  await db.schema.createIndex('runs_expires').on('runs').column('expires_at').execute();

  // The append-only timeline. `ref` makes events recorded from the store (inboxes, mail) idempotent: the
  // timeline is brought up to date from the run's inboxes whenever it is read, so mail that arrived while
  // nobody listened is never missed, and recorded events outlive the inboxes they came from.
  await db.schema
    .createTable('run_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('step_id', 'text')
    .addColumn('ref', 'text')
    .addColumn('data_json', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('run_events_order').on('run_events').columns(['run_id', 'at', 'id']).execute();
  await db.schema.createIndex('run_events_ref').unique().on('run_events').columns(['run_id', 'ref']).execute();

  // An access token minted for one run (svc_issue_access with runId) is narrowed to that run's label.
  await db.schema.alterTable('access_tokens').addColumn('label_prefix', 'text').execute();
}
