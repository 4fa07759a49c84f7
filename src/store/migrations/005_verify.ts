import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Which message verify (or open, or svc_wait_and_extract) last handed out per inbox, so the next call considers
  // only newer mail (CONTRACT §4: a result is handed out once). Goes with its inbox.
  await db.schema
    .createTable('verify_marks')
    .addColumn('inbox_id', 'text', (c) => c.primaryKey().references('inboxes.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
}
