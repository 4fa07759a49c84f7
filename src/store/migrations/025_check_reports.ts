import type { Kysely } from 'kysely';

// Issue #28: message checks. `check_reports` keeps each message's last report (GET …/checks) and serves as the cache
// of reports per message content (sha256 of the raw message), data version (the engine's and each check's rule or
// data version) and options (checks, clients, link mode): the same mail checked again under the same versions and
// options answers from here. A report goes with its message (ON DELETE CASCADE). `inboxes.checks_json` lists the
// checks an inbox runs on every arrival (the `checks` option on create), null for none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('check_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('message_rows.id').onDelete('cascade'))
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('data_version', 'text', (c) => c.notNull())
    .addColumn('options_key', 'text', (c) => c.notNull())
    .addColumn('report_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('check_reports_message').on('check_reports').columns(['message_id', 'created_at']).execute();
  await db.schema
    .createIndex('check_reports_content')
    .on('check_reports')
    .columns(['content_sha256', 'data_version', 'options_key'])
    .execute();
  await db.schema.alterTable('inboxes').addColumn('checks_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inboxes').dropColumn('checks_json').execute();
  await db.schema.dropTable('check_reports').execute();
}
