import { type Kysely, sql } from 'kysely';

// Issue #28: what the SMTP session knew when a message arrived (client address, HELO name, TLS, AUTH user) for the
// auth check (SPF needs the client address and HELO; they exist only during the session). One nullable JSON column on
// the recipient row: written in the same insert ingest already runs (no extra statement on the acknowledgement path),
// null for mail that did not come over SMTP and for mail stored before. The `messages` view is left as it is (its
// column list is fixed): the facts are read from `message_rows` by message id (src/store/session-facts.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table message_rows add column session_json text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table message_rows drop column session_json`.execute(db);
}
