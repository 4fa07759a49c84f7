import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per (message, event) to deliver to a callback URL. Deliberately no foreign key to inboxes: a delivery
  // already queued is still made after its inbox is deleted (open with deleteAfter deletes right after the mail),
  // so it carries its own URL and secret; finished rows of deleted inboxes are pruned.
  await db.schema
    .createTable('callback_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending','delivered','failed','gone','refused')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('callback_deliveries_message_event')
    .unique()
    .on('callback_deliveries')
    .columns(['message_id', 'event'])
    .execute();
  await db.schema.createIndex('callback_deliveries_inbox').on('callback_deliveries').column('inbox_id').execute();
  await db.schema
    .createIndex('callback_deliveries_due')
    .on('callback_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();

  // Every attempt, as listed by GET /v1/inboxes/:id/callbacks.
  await db.schema
    .createTable('callback_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('callback_deliveries.id').onDelete('cascade'))
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('next_retry_at', 'integer')
    .addColumn('delivered', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('callback_attempts_inbox').on('callback_attempts').columns(['inbox_id', 'id']).execute();
  await db.schema.createIndex('callback_attempts_delivery').on('callback_attempts').column('delivery_id').execute();
}
