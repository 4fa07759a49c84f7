import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Sent mail is stored in the sending inbox beside received mail (CONTRACT §9); `direction` tells them apart, and
  // every reader that hands out codes, wakes waits or fires callbacks looks at inbound rows only.
  await sql`alter table message_rows add column direction text not null default 'inbound' check (direction in ('inbound','outbound'))`.execute(
    db,
  );
  await sql`drop view messages`.execute(db);
  await sql`create view messages as
    select m.id, m.inbox_id, m.rcpt, m.seq, m.received_at, m.mail_from,
      c.from_address, c.from_name, c.to_json, c.cc_json, c.subject, c.date, c.message_id_header, c.in_reply_to,
      c.references_json, c.size, m.content_sha256 as raw_sha256, c.text_body, c.html_body, c.headers_json,
      c.attachment_count, c.otp, c.primary_link, c.extraction_json, m.source, m.direction
    from message_rows m join contents c on c.sha256 = m.content_sha256`.execute(db);

  // The outbox: one row per recipient of a sent message. Local recipients are recorded as delivered at once (their
  // copy is stored by the same transaction); relay recipients wait here, due at `next_attempt_at`, until the relay
  // accepts or refuses them for good. The raw bytes are the sender's copy (content_sha256 = its raw blob).
  await db.schema
    .createTable('outbound_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('message_rows.id').onDelete('cascade'))
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('rcpt', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('to','cc','bcc')`))
    .addColumn('route', 'text', (c) => c.notNull().check(sql`route in ('local','relay')`))
    .addColumn('mail_from', 'text', (c) => c.notNull())
    .addColumn('raw_sha256', 'text', (c) => c.notNull())
    .addColumn('sender_domain', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('queued','sent','failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response', 'text')
    .addColumn('next_attempt_at', 'integer')
    .addColumn('local_message_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbound_deliveries_message').on('outbound_deliveries').column('message_id').execute();
  await db.schema
    .createIndex('outbound_deliveries_due')
    .on('outbound_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  await db.schema.createIndex('outbound_deliveries_team_created').on('outbound_deliveries').columns(['team_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbound_deliveries').execute();
}
