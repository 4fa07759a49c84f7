import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inboxes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text')
    .addColumn('service', 'text')
    .addColumn('ttl_minutes', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('callback_secret', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('created_by_key', 'text')
    .addColumn('message_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('inboxes_team_label').on('inboxes').columns(['team_id', 'label', 'created_at']).execute();
  await db.schema.createIndex('inboxes_team_created').on('inboxes').columns(['team_id', 'created_at']).execute();
  await db.schema.createIndex('inboxes_expires').on('inboxes').column('expires_at').execute();

  // One row per (message, recipient inbox). inbox_id is null while the mail is unclaimed (CONTRACT §2).
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inbox_id', 'text', (c) => c.references('inboxes.id').onDelete('cascade'))
    .addColumn('rcpt', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'integer', (c) => c.notNull())
    .addColumn('mail_from', 'text')
    .addColumn('from_address', 'text')
    .addColumn('from_name', 'text')
    .addColumn('to_json', 'text', (c) => c.notNull())
    .addColumn('cc_json', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('date', 'integer')
    .addColumn('message_id_header', 'text')
    .addColumn('in_reply_to', 'text')
    .addColumn('references_json', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('raw_sha256', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text')
    .addColumn('html_body', 'text')
    .addColumn('headers_json', 'text', (c) => c.notNull())
    .addColumn('attachment_count', 'integer', (c) => c.notNull())
    .addColumn('otp', 'text')
    .addColumn('primary_link', 'text')
    .addColumn('extraction_json', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_inbox_seq').on('messages').columns(['inbox_id', 'seq']).execute();
  await db.schema.createIndex('messages_inbox_received').on('messages').columns(['inbox_id', 'received_at']).execute();
  await db.schema
    .createIndex('messages_unclaimed')
    .on('messages')
    .columns(['rcpt', 'received_at'])
    .where(sql.ref('inbox_id'), 'is', null)
    .execute();
  await db.schema.createIndex('messages_raw').on('messages').column('raw_sha256').execute();

  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('disposition', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attachments_message').on('attachments').columns(['message_id', 'idx']).execute();
  await db.schema.createIndex('attachments_sha').on('attachments').column('sha256').execute();

  // Monotonic counters for GET /v1/stats, per team ('' = not yet claimed by any team).
  await db.schema
    .createTable('counters')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('counters_pk', ['team_id', 'name'])
    .execute();
}
