import { sql, type Kysely } from 'kysely';

// Full-text search (issue 14, src/search/). One FTS row per stored content (the parsed message, shared by all its
// recipients since migration 004), keyed by the content's rowid: a message to 100 inboxes is indexed once. The
// scope of its copies (team, inbox, label tokens) and the has: flags are tokens of the row, so a scoped query is an
// intersection of posting lists, never a scan (research wave2 §3: 1 ms against 720 ms at 1M); the rows it finds are
// then joined to their message rows under the exact scope in SQL (src/search/engine.ts), so a stale or shared
// token can widen nothing. Contentless (the text lives in `contents`; snippets are cut from it), with
// contentless_delete so rows can be removed. unicode61 with diacritics folded; Chinese and Japanese are cut into
// character pairs before they reach it (src/search/text.ts).
//
// The row goes with its content (trigger below): the content goes when its last message goes, on every delete path.
// A claim (unclaimed mail handed to a new inbox) adds a scope: the trigger queues the content in `search_pending`,
// which src/search/ re-indexes; contents stored before this migration are queued the same way.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create virtual table search_fts using fts5(
    scope, subject, sender, rcpts, body, files, label,
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
  )`.execute(db);
  await sql`create table search_pending (rid integer primary key)`.execute(db);
  await sql`create trigger search_row_moved after update of inbox_id on message_rows when new.inbox_id is not null begin
    insert or ignore into search_pending (rid) select rowid from contents where sha256 = new.content_sha256;
  end`.execute(db);
  await sql`insert into search_pending (rid) select c.rowid from contents c
    where exists (select 1 from message_rows m where m.content_sha256 = c.sha256 and m.inbox_id is not null)`.execute(db);

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
    delete from search_fts where rowid = old.rowid;
    delete from search_pending where rid = old.rowid;
    delete from search_vectors where content_sha256 = old.sha256;
  end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists search_content_deleted`.execute(db);
  await sql`drop trigger if exists search_row_moved`.execute(db);
  await sql`drop table if exists search_embed_state`.execute(db);
  await sql`drop table if exists search_vectors`.execute(db);
  await sql`drop table if exists search_pending`.execute(db);
  await sql`drop table if exists search_fts`.execute(db);
}
