import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

// Parsed content is stored once per raw message, not once per recipient (issue 11): a message to 100 recipients
// used to write its text, html, headers and attachment rows 100 times in one transaction.
//  - `contents`: everything parsed from the raw bytes, keyed by the raw's sha256 (like the blob itself).
//  - `content_attachments`: attachment rows per content.
//  - `message_rows`: one small row per (message, recipient): envelope, inbox, sequence, content key.
//  - `messages` and `attachments` become views joining them, with the columns the tables had, so every read
//    (and every API answer) stays as it was; writes go to the tables.
// Existing rows are moved over; copies of one raw message share the content (and the attachment ids) of the
// first copy stored.
const CONTENT_COLUMNS = [
  'from_address',
  'from_name',
  'to_json',
  'cc_json',
  'subject',
  'date',
  'message_id_header',
  'in_reply_to',
  'references_json',
  'size',
  'text_body',
  'html_body',
  'headers_json',
  'attachment_count',
  'otp',
  'primary_link',
  'extraction_json',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('contents')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
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
    .addColumn('text_body', 'text')
    .addColumn('html_body', 'text')
    .addColumn('headers_json', 'text', (c) => c.notNull())
    .addColumn('attachment_count', 'integer', (c) => c.notNull())
    .addColumn('otp', 'text')
    .addColumn('primary_link', 'text')
    .addColumn('extraction_json', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('content_attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('content_sha256', 'text', (c) => c.notNull().references('contents.sha256').onDelete('cascade'))
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('disposition', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .execute();

  // No cascade from contents: a content still referenced cannot be deleted (the garbage collector checks first).
  await db.schema
    .createTable('message_rows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inbox_id', 'text', (c) => c.references('inboxes.id').onDelete('cascade'))
    .addColumn('rcpt', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'integer', (c) => c.notNull())
    .addColumn('mail_from', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull().references('contents.sha256'))
    .execute();

  // PostgreSQL stores begin at the latest schema: no rows from before this migration exist to move (and no rowid).
  if (dialectOf(db) === 'sqlite') await moveRows(db);
  await db.schema.dropTable('attachments').execute();
  await db.schema.dropTable('messages').execute();

  await db.schema.createIndex('message_rows_inbox_seq').on('message_rows').columns(['inbox_id', 'seq']).execute();
  await db.schema.createIndex('message_rows_inbox_received').on('message_rows').columns(['inbox_id', 'received_at']).execute();
  await db.schema
    .createIndex('message_rows_unclaimed')
    .on('message_rows')
    .columns(['rcpt', 'received_at'])
    .where(sql.ref('inbox_id'), 'is', null)
    .execute();
  // Every unclaimed message, oldest first: the total cap (--max-unclaimed) counts them.
  await db.schema
    .createIndex('message_rows_unclaimed_received')
    .on('message_rows')
    .column('received_at')
    .where(sql.ref('inbox_id'), 'is', null)
    .execute();
  await db.schema.createIndex('message_rows_content').on('message_rows').column('content_sha256').execute();
  await db.schema.createIndex('content_attachments_content').on('content_attachments').columns(['content_sha256', 'idx']).execute();
  await db.schema.createIndex('content_attachments_sha').on('content_attachments').column('sha256').execute();

  await sql`create view messages as
    select m.id, m.inbox_id, m.rcpt, m.seq, m.received_at, m.mail_from,
      c.from_address, c.from_name, c.to_json, c.cc_json, c.subject, c.date, c.message_id_header, c.in_reply_to,
      c.references_json, c.size, m.content_sha256 as raw_sha256, c.text_body, c.html_body, c.headers_json,
      c.attachment_count, c.otp, c.primary_link, c.extraction_json, m.source
    from message_rows m join contents c on c.sha256 = m.content_sha256`.execute(db);
  await sql`create view attachments as
    select a.id, m.id as message_id, a.idx, a.filename, a.content_type, a.disposition, a.content_id, a.size, a.sha256
    from message_rows m join content_attachments a on a.content_sha256 = m.content_sha256`.execute(db);
}

async function moveRows(db: Kysely<unknown>): Promise<void> {
  const cols = sql.join(CONTENT_COLUMNS.map((c) => sql.ref(c)));
  // The first copy of each raw message (lowest rowid) provides the shared content and attachment rows.
  await sql`insert into contents (sha256, ${cols})
    select raw_sha256, ${cols} from messages where rowid in (select min(rowid) from messages group by raw_sha256)`.execute(db);
  await sql`insert into content_attachments (id, content_sha256, idx, filename, content_type, disposition, content_id, size, sha256)
    select a.id, m.raw_sha256, a.idx, a.filename, a.content_type, a.disposition, a.content_id, a.size, a.sha256
    from attachments a join messages m on m.id = a.message_id
    where m.rowid in (select min(rowid) from messages group by raw_sha256)`.execute(db);
  await sql`insert into message_rows (id, inbox_id, rcpt, seq, received_at, mail_from, source, content_sha256)
    select id, inbox_id, rcpt, seq, received_at, mail_from, source, raw_sha256 from messages order by rowid`.execute(db);
}
