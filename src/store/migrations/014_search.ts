import { sql, type Kysely } from 'kysely';

// Full-text search (issue 14, src/search/). One FTS row per message row (per recipient), keyed by the
// message row's rowid, so the scope (team, inbox, label) and the has: flags are tokens of the row itself and a
// scoped query is an intersection of posting lists, never a join (research wave2 §3: 1 ms against 720 ms at 1M).
// Contentless (the text lives in `contents` already; snippets are cut from it), with contentless_delete so rows
// can be removed. unicode61 with diacritics folded; CJK runs are split into words before they reach it
// (src/search/text.ts), so no trigram index is needed.
//
// Deletion needs no code on any delete path: triggers remove the row with its message row (inbox delete
// cascades, message delete, expiry sweeps). A claimed message (unclaimed mail handed to a new inbox) changes
// scope: the trigger drops its row and queues it in `search_pending`, which src/search/ re-indexes; mail stored
// before this migration is queued the same way.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create virtual table search_fts using fts5(
    scope, subject, sender, rcpts, body, files, label,
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
  )`.execute(db);
  await sql`create table search_pending (rid integer primary key)`.execute(db);
  await sql`create trigger search_row_deleted after delete on message_rows begin
    delete from search_fts where rowid = old.rowid;
    delete from search_pending where rid = old.rowid;
  end`.execute(db);
  await sql`create trigger search_row_moved after update of inbox_id on message_rows begin
    delete from search_fts where rowid = old.rowid;
    insert or ignore into search_pending (rid) select new.rowid where new.inbox_id is not null;
  end`.execute(db);
  await sql`insert into search_pending (rid) select rowid from message_rows where inbox_id is not null`.execute(db);

  // Semantic search: one vector per stored content (shared by its recipients), L2-normalised and quantised to
  // int8 (a compact BLOB, scanned exactly within the query's scope); and how far each model's embedding of the
  // contents table has come (a durable queue: contents past `last_rowid` are still to be embedded).
  await sql`create table search_vectors (
    content_sha256 text primary key,
    model text not null,
    vec blob not null
  ) without rowid`.execute(db);
  await sql`create table search_embed_state (
    model text primary key,
    dim integer,
    last_rowid integer not null default 0
  )`.execute(db);
  await sql`create trigger search_content_deleted after delete on contents begin
    delete from search_vectors where content_sha256 = old.sha256;
  end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists search_content_deleted`.execute(db);
  await sql`drop trigger if exists search_row_moved`.execute(db);
  await sql`drop trigger if exists search_row_deleted`.execute(db);
  await sql`drop table if exists search_embed_state`.execute(db);
  await sql`drop table if exists search_vectors`.execute(db);
  await sql`drop table if exists search_pending`.execute(db);
  await sql`drop table if exists search_fts`.execute(db);
}
