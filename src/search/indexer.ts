// Writing the full-text index. New mail is indexed inside the ingest writer's group-committed transaction (one
// precompiled INSERT per stored content, called from Ingest.accept once its message rows exist), so a message is
// searchable the moment its 250 is sent. Contents queued in `search_pending` (claimed mail, and mail stored before
// migration 014) are indexed by drain(), in small write-queue steps between ingest batches. Rows are deleted with
// their content by a trigger (migration 014). On PostgreSQL the row is a tsvector in `search_docs` (src/search/pg-text.ts),
// upserted by content rowid, and goes with its content by a foreign key.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Logger } from '../log.ts';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { tsvectorLiteral } from './pg-text.ts';
import { type DocSource, hexToken, type SearchDoc, searchDoc } from './text.ts';

export { searchDoc };

const DOC_KEYS = ['sha', 'subject', 'sender', 'rcpts', 'body', 'files', 'scope', 'label'] as const;

/**
 * A content's row carries the scope tokens of at most this many inboxes. A content held by more (the same fixture
 * mailed to a fresh inbox by every CI run) carries SHARED_TOKEN instead, which every scoped query also accepts (see
 * engine.ts scopeExpr): its copies are then told apart by the exact scope in SQL alone. So a copy never costs more
 * than reading SCOPE_INBOXES + 2 index entries and rewriting a row of bounded size, and once the row is shared, nothing.
 */
export const SCOPE_INBOXES = 16;
export const SHARED_TOKEN = 'xmany';

/**
 * The distinct inboxes holding a content, at most SCOPE_INBOXES + 2 of them, by skipping along the
 * message_rows(content_sha256, inbox_id) index (one seek per inbox, never a pass over all the copies).
 */
function inboxesOf(db: Kysely<Database>, sha: unknown) {
  return sql`with recursive s(id, n) as (
      select (select min(inbox_id) from message_rows where content_sha256 = ${sha}), 1
      union all
      select (select min(inbox_id) from message_rows where content_sha256 = ${sha} and inbox_id > s.id), s.n + 1
      from s where s.id is not null and s.n < ${SCOPE_INBOXES + 2}
    )
    select i.team_id, i.id, i.label from s join inboxes i on i.id = s.id`.compile(db);
}

export type ScopeRow = { team_id: string; id: string; label: string | null };

/** The scope tokens and the labels of a content's row: exact up to SCOPE_INBOXES inboxes, else shared. */
function scopeOf(copies: ScopeRow[]): { scope: string[]; labels: string[] } {
  const inboxes = new Map(copies.map((c) => [c.id, c]));
  if (inboxes.size > SCOPE_INBOXES) return { scope: [SHARED_TOKEN], labels: [] };
  const scope = new Set<string>();
  const labels = new Set<string>();
  for (const c of inboxes.values()) {
    scope.add(hexToken('t', c.team_id)).add(hexToken('i', c.id)).add(hexToken('l', c.label));
    if (c.label) labels.add(c.label);
  }
  return { scope: [...scope], labels: [...labels] };
}

function compile(db: Kysely<Database>) {
  return {
    inboxes: precompile(['sha'], (p) => inboxesOf(db, p.sha)),
    insert: precompile(DOC_KEYS, (p) =>
      sql`insert into search_fts (rowid, scope, subject, sender, rcpts, body, files, label)
        select c.rowid, ${p.scope}, ${p.subject}, ${p.sender}, ${p.rcpts}, ${p.body}, ${p.files}, ${p.label}
        from contents c where c.sha256 = ${p.sha}`.compile(db),
    ),
    remove: precompile(['sha'], (p) =>
      sql`delete from search_fts where rowid = (select rowid from contents where sha256 = ${p.sha})`.compile(db),
    ),
  };
}

let stmts: ReturnType<typeof compile> | null = null;

/** The PostgreSQL form: the tsvector is built here. */
function compilePg(db: Kysely<Database>) {
  return {
    inboxes: precompile(['sha'], (p) => inboxesOf(db, p.sha)),
    upsert: precompile(
      ['sha', 'doc'],
      (p) =>
        sql`insert into search_docs (rid, doc) select c.rowid, ${p.doc}::tsvector from contents c where c.sha256 = ${p.sha}
        on conflict (rid) do update set doc = excluded.doc`.compile(db),
      { deferrable: true },
    ),
  };
}

let pgStmts: ReturnType<typeof compilePg> | null = null;

/**
 * Indexes one stored content with the scope of its message rows, in the caller's transaction. `fresh`: the content
 * was inserted by this transaction (else its row exists and is replaced, to add the new copies' scope). `added`: how
 * many inboxes got their first copy of it in this transaction (unknown, as for a claim: the row is rebuilt). A row that
 * was already shared before them stays as it is. `known`: the copies' inboxes when the caller has them (a fresh
 * content's are its own message's), which saves reading them.
 */
export async function indexContent(
  trx: Transaction<Database> | Kysely<Database>,
  sha: string,
  doc: SearchDoc,
  fresh: boolean,
  added = Number.POSITIVE_INFINITY,
  known?: ScopeRow[],
): Promise<void> {
  if (dialectOf(trx as never) === 'postgres') {
    pgStmts ??= compilePg(trx);
    const copies = known ?? (await trx.executeQuery<ScopeRow>(pgStmts.inboxes({ sha }))).rows;
    if (!fresh && copies.length - added > SCOPE_INBOXES) return;
    const { scope, labels } = scopeOf(copies);
    await trx.executeQuery(pgStmts.upsert({ sha, doc: tsvectorLiteral(doc, labels, scope) }));
    return;
  }
  stmts ??= compile(trx);
  const copies = known ?? (await trx.executeQuery<ScopeRow>(stmts.inboxes({ sha }))).rows;
  if (!fresh && copies.length - added > SCOPE_INBOXES) return;
  const { scope, labels } = scopeOf(copies);
  if (!fresh) await trx.executeQuery(stmts.remove({ sha }));
  const { flags, ...text } = doc;
  await trx.executeQuery(stmts.insert({ sha, ...text, scope: [flags, ...scope].join(' '), label: labels.join(',') }));
}

const DRAIN_BATCH = 200;

type PendingRow = DocSource & { rid: number; sha256: string; files: string | null };

/** Indexes the queued rows (claims, older mail) in steps through the write queue. One drain runs at a time. */
export class PendingIndexer {
  private readonly db: Kysely<Database>;
  private readonly writer: IngestWriter;
  private readonly log: Logger;
  private readonly dialect: Dialect;
  private running: Promise<number> | null = null;
  private again = false;

  constructor(d: { db: Kysely<Database>; writer: IngestWriter; log: Logger }) {
    this.db = d.db;
    this.writer = d.writer;
    this.log = d.log;
    this.dialect = dialectOf(d.db as never);
  }

  /** Starts a drain (or schedules one more after the running one); resolves with the rows indexed. */
  drain(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        void this.drain();
      }
    });
    return this.running;
  }

  /** Resolves when no drain is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  private async loop(): Promise<number> {
    let total = 0;
    try {
      // The common case (nothing queued) costs one read, not a turn in the write queue between ingest batches.
      if (!(await this.db.selectFrom('search_pending').select('rid').limit(1).executeTakeFirst())) return 0;
      for (;;) {
        const n = await this.writer.run(() => this.step());
        total += n;
        if (n < DRAIN_BATCH) break;
      }
      if (total > 0) this.log.info('search index caught up', { indexed: total });
    } catch (e) {
      this.log.error('search indexing of queued messages failed; it is retried at the next start or claim', { err: e as Error });
    }
    return total;
  }

  private async step(): Promise<number> {
    if (this.dialect === 'postgres') return this.stepShared();
    const pending = await this.db.selectFrom('search_pending').select('rid').orderBy('rid').limit(DRAIN_BATCH).execute();
    if (pending.length === 0) return 0;
    const rids = pending.map((p) => p.rid);
    const rows = (
      await sql<PendingRow>`select c.rowid as rid, c.sha256, c.subject, c.from_name, c.from_address, c.to_json, c.cc_json,
        c.text_body, c.html_body, c.otp, c.attachment_count,
        (select group_concat(coalesce(a.filename, ''), ' ') from content_attachments a where a.content_sha256 = c.sha256) as files
      from contents c where c.rowid in (${sql.join(rids)})`.execute(this.db)
    ).rows;
    const docs = rows.map((r) => ({ r, doc: searchDoc(r, r.files ? [r.files] : []) }));
    await this.db.transaction().execute(async (trx) => {
      for (const { r, doc } of docs) {
        // Deleting a row that is not there costs a tombstone in a contentless-delete table: only when it is.
        const had = await sql<{ n: number }>`select count(*) as n from search_fts_docsize where id = ${r.rid}`.execute(trx);
        await indexContent(trx, r.sha256, doc, Number(had.rows[0]?.n ?? 0) === 0);
      }
      await trx.deleteFrom('search_pending').where('rid', 'in', rids).execute();
    });
    return rids.length;
  }

  /**
   * PostgreSQL, where several instances drain one queue: the queued rows are taken (deleted, SKIP LOCKED) in the same
   * transaction that indexes them. A claim committing meanwhile queues its content again once this commits (its insert
   * waits on the deleted row), so a newer scope is never dropped; another instance takes other rows.
   */
  private async stepShared(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const taken = await sql<{ rid: number }>`delete from search_pending where rid in (
          select rid from search_pending order by rid limit ${DRAIN_BATCH} for update skip locked
        ) returning rid`.execute(trx);
      const rids = taken.rows.map((p) => Number(p.rid));
      if (rids.length === 0) return 0;
      const rows = (
        await sql<PendingRow>`select c.rowid as rid, c.sha256, c.subject, c.from_name, c.from_address, c.to_json, c.cc_json,
          c.text_body, c.html_body, c.otp, c.attachment_count,
          (select string_agg(coalesce(a.filename, ''), ' ') from content_attachments a where a.content_sha256 = c.sha256) as files
        from contents c where c.rowid in (${sql.join(rids)})`.execute(trx)
      ).rows;
      for (const r of rows) await indexContent(trx, r.sha256, searchDoc(r, r.files ? [r.files] : []), false);
      return rids.length;
    });
  }
}
