import { sql, type Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import { dialectOf } from '../dialect.ts';
import { linksOf, MAX_PARTICIPANTS, mergeParticipants, parseSubject, participantsOf } from '../../mail/threads.ts';

// Threads (CONTRACT §9, src/threads/): a `threads` row per conversation of an inbox, `thread_refs` mapping every
// Message-ID an inbox has seen (own or only referenced: a phantom) to its thread, and `message_rows.thread_id`,
// shown by the `messages` view. Mail already stored is threaded here, oldest first, by the same rules as ingest
// (an in-memory pass per inbox, written out at the end, so this file does not depend on later schema changes).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('threads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('base_subject', 'text', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull())
    .addColumn('participants_json', 'text', (c) => c.notNull())
    .addColumn('first_message_at', 'integer', (c) => c.notNull())
    .addColumn('last_message_at', 'integer', (c) => c.notNull())
    .addColumn('last_message_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  // PostgreSQL: text compares byte-wise as on SQLite (collate "C", like the schema builder's columns there), and no
  // `without rowid` (its tables have none).
  const pg = dialectOf(db) === 'postgres';
  const text = sql.raw(pg ? 'text collate "C"' : 'text');
  await sql`create table thread_refs (
    inbox_id ${text} not null references inboxes(id) on delete cascade,
    message_id ${text} not null,
    thread_id ${text} not null,
    phantom integer not null,
    primary key (inbox_id, message_id)
  ) ${sql.raw(pg ? '' : 'without rowid')}`.execute(db);

  await db.schema.alterTable('message_rows').addColumn('thread_id', 'text').execute();

  await recreateMessagesView(db);
  await threadStoredMail(db);
  // Indexes last: building them once is faster than keeping them up to date row by row during the backfill.
  await db.schema.createIndex('threads_inbox_activity').on('threads').columns(['inbox_id', 'last_message_at', 'id']).execute();
  await db.schema.createIndex('threads_inbox_subject').on('threads').columns(['inbox_id', 'base_subject', 'last_message_at']).execute();
  await db.schema.createIndex('threads_team_activity').on('threads').columns(['team_id', 'last_message_at', 'id']).execute();
  await db.schema.createIndex('thread_refs_thread').on('thread_refs').column('thread_id').execute();
  await db.schema.createIndex('message_rows_thread').on('message_rows').columns(['thread_id', 'seq']).execute();
}

/**
 * The `messages` view again, now with thread_id: every recipient-row column (the content key renamed raw_sha256)
 * joined with every content column, as the tables are at this point (so columns other migrations added stay in).
 */
async function recreateMessagesView(db: Kysely<unknown>): Promise<void> {
  const columns = async (table: string) =>
    (dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
      : await sql<{ name: string }>`select name from pragma_table_info(${table}) order by cid`.execute(db)
    ).rows.map((r) => r.name);
  const rowCols = (await columns('message_rows')).filter((c) => c !== 'content_sha256');
  const contentCols = (await columns('contents')).filter((c) => c !== 'sha256' && !rowCols.includes(c));
  const select = [
    ...rowCols.map((c) => sql`m.${sql.ref(c)}`),
    sql`m.content_sha256 as raw_sha256`,
    ...contentCols.map((c) => sql`c.${sql.ref(c)}`),
  ];
  await sql`drop view messages`.execute(db);
  await sql`create view messages as select ${sql.join(select)} from message_rows m join contents c on c.sha256 = m.content_sha256`.execute(
    db,
  );
}

interface Stored {
  id: string;
  received_at: number;
  message_id_header: string | null;
  in_reply_to: string | null;
  references_json: string;
  subject: string;
  from_address: string | null;
  to_json: string;
  cc_json: string;
}

interface Conversation {
  id: string;
  subject: string;
  key: string;
  rows: string[];
  participants: string[];
  first: number;
  last: number;
  lastId: string;
  /** Set when merged into another conversation (refs are repointed lazily, through this). */
  into?: Conversation;
}

function live(c: Conversation): Conversation {
  while (c.into) c = c.into;
  return c;
}

/** Rows written per statement, and rows gathered before they are written (bounds memory on a big store). */
const CHUNK = 200;
const FLUSH_ROWS = 20_000;

async function insertRows(db: Kysely<unknown>, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values = rows.slice(i, i + CHUNK).map((r) => sql`(${sql.join(r)})`);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${sql.join(values)}`.execute(db);
  }
}

async function threadStoredMail(db: Kysely<unknown>): Promise<void> {
  // Written in multi-row statements: a store of 100,000 messages is threaded in seconds, not minutes.
  const threadRows: unknown[][] = [];
  const placed: unknown[][] = [];
  const refRows: unknown[][] = [];
  await sql`create temp table thread_of (id text primary key, thread_id text not null)`.execute(db);
  const flush = async () => {
    await insertRows(
      db,
      'threads',
      [
        'id',
        'inbox_id',
        'team_id',
        'subject',
        'base_subject',
        'message_count',
        'participants_json',
        'first_message_at',
        'last_message_at',
        'last_message_id',
        'created_at',
      ],
      threadRows.splice(0),
    );
    await insertRows(db, 'thread_refs', ['inbox_id', 'message_id', 'thread_id', 'phantom'], refRows.splice(0));
    await insertRows(db, 'thread_of', ['id', 'thread_id'], placed.splice(0));
    await sql`update message_rows set thread_id = (select t.thread_id from thread_of t where t.id = message_rows.id)
      where id in (select id from thread_of)`.execute(db);
    await sql`delete from thread_of`.execute(db);
  };
  const inboxes = (await sql<{ id: string; team_id: string }>`select id, team_id from inboxes order by id`.execute(db)).rows;
  const now = Date.now();
  for (const inbox of inboxes) {
    const rows = (
      await sql<Stored>`select m.id, m.received_at, c.message_id_header, c.in_reply_to, c.references_json, c.subject,
        c.from_address, c.to_json, c.cc_json
        from message_rows m join contents c on c.sha256 = m.content_sha256
        where m.inbox_id = ${inbox.id} order by m.seq, m.received_at, m.id`.execute(db)
    ).rows;
    if (rows.length === 0) continue;
    const refs = new Map<string, { thread: Conversation; phantom: boolean }>();
    const bySubject = new Map<string, Conversation>();
    const made: Conversation[] = [];
    for (const r of rows) {
      let parsedRefs: string[] = [];
      try {
        const v: unknown = JSON.parse(r.references_json);
        if (Array.isArray(v)) parsedRefs = v.filter((x): x is string => typeof x === 'string');
      } catch {
        // threads by its other headers
      }
      const { own, parents } = linksOf(r.message_id_header, r.in_reply_to, parsedRefs);
      const s = parseSubject(r.subject);
      const participants = participantsOf(r.from_address, r.to_json, r.cc_json);
      const found = new Set<Conversation>();
      const ownRef = own ? refs.get(own) : undefined;
      if (ownRef) found.add(live(ownRef.thread));
      let linked = 0;
      for (const p of parents) {
        const hit = refs.get(p);
        if (hit) {
          found.add(live(hit.thread));
          linked++;
        }
      }
      let t: Conversation | undefined;
      if (found.size === 0) {
        const cand = s.reply && s.key ? bySubject.get(s.key) : undefined;
        t = cand && live(cand);
      } else {
        const all = [...found];
        t = all.reduce((a, b) => (b.rows.length > a.rows.length || (b.rows.length === a.rows.length && b.first < a.first) ? b : a));
        for (const o of all) {
          if (o === t) continue;
          if (o.first < t.first) [t.subject, t.key] = [o.subject, o.key];
          for (const id of o.rows) t.rows.push(id);
          t.participants = mergeParticipants(t.participants, o.participants);
          t.first = Math.min(t.first, o.first);
          if (o.last > t.last) [t.last, t.lastId] = [o.last, o.lastId];
          o.into = t;
        }
      }
      if (!t) {
        t = {
          id: newId('thr'),
          subject: r.subject,
          key: s.key,
          rows: [],
          participants: participants.slice(0, MAX_PARTICIPANTS),
          first: r.received_at,
          last: r.received_at,
          lastId: r.id,
        };
        made.push(t);
      } else {
        if (ownRef?.phantom && linked === 0) [t.subject, t.key] = [r.subject, s.key];
        t.participants = mergeParticipants(t.participants, participants);
        t.first = Math.min(t.first, r.received_at);
        if (r.received_at >= t.last) [t.last, t.lastId] = [r.received_at, r.id];
      }
      t.rows.push(r.id);
      if (t.key) bySubject.set(t.key, t);
      if (own) refs.set(own, { thread: t, phantom: false });
      for (const p of parents) if (!refs.has(p)) refs.set(p, { thread: t, phantom: true });
    }
    for (const t of made) {
      if (t.into) continue;
      threadRows.push([
        t.id,
        inbox.id,
        inbox.team_id,
        t.subject,
        t.key,
        t.rows.length,
        JSON.stringify(t.participants),
        t.first,
        t.last,
        t.lastId,
        now,
      ]);
      for (const id of t.rows) placed.push([id, t.id]);
    }
    for (const [mid, v] of refs) refRows.push([inbox.id, mid, live(v.thread).id, v.phantom ? 1 : 0]);
    if (threadRows.length + placed.length + refRows.length > FLUSH_ROWS) await flush();
  }
  await flush();
  await sql`drop table thread_of`.execute(db);
}
