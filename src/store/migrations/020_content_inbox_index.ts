import type { Kysely } from 'kysely';

// Issue #25: a stranger who mails the same bytes again and again made every new copy re-index the content with the
// scope of all its earlier copies (filling 10,000 copies took 22.8 s on the ingest thread, growing with the square).
// Ingest now skips the re-index when the receiving inboxes already held a copy, which this index answers at once; it
// also serves every lookup by content alone (its first column), so it replaces message_rows_content.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('message_rows_content_inbox').on('message_rows').columns(['content_sha256', 'inbox_id']).execute();
  await db.schema.dropIndex('message_rows_content').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('message_rows_content').on('message_rows').column('content_sha256').execute();
  await db.schema.dropIndex('message_rows_content_inbox').execute();
}
