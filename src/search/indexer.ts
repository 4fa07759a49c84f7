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

const DOC_KEYS = ['sha', 'flags', 'subject', 'sender', 'rcpts', 'body', 'files'] as const;

// The scope tokens come from the inboxes of the content's copies, in SQL: t<hex team> i<hex inbox> l<hex label> (see
// text.ts hexToken); the label column holds the labels' words.
function compile(db: Kysely<Database>) {
  return {
    insert: precompile(DOC_KEYS, (p) =>
      sql`insert into search_fts (rowid, scope, subject, sender, rcpts, body, files, label)
        select c.rowid,
          ${p.flags} || coalesce((select group_concat(tok, '') from (select distinct ' t' || lower(hex(i.team_id)) || ' i' || lower(hex(i.id))
            || ' l' || lower(hex(coalesce(i.label, ''))) as tok
            from message_rows m join inboxes i on i.id = m.inbox_id where m.content_sha256 = c.sha256)), ''),
          ${p.subject}, ${p.sender}, ${p.rcpts}, ${p.body}, ${p.files},
          coalesce((select group_concat(distinct i.label) from message_rows m join inboxes i on i.id = m.inbox_id
            where m.content_sha256 = c.sha256), '')
        from contents c where c.sha256 = ${p.sha}`.compile(db),
    ),
    remove: precompile(['sha'], (p) =>
      sql`delete from search_fts where rowid = (select rowid from contents where sha256 = ${p.sha})`.compile(db),
    ),
  };
}

let stmts: ReturnType<typeof compile> | null = null;

/** The PostgreSQL form: the scope of the content's copies is read first, the tsvector is built here. */
function compilePg(db: Kysely<Database>) {
  return {
    scope: precompile(['sha'], (p) =>
      sql`select distinct i.team_id, i.id, i.label from message_rows m join inboxes i on i.id = m.inbox_id
        where m.content_sha256 = ${p.sha}`.compile(db),
    ),
    upsert: precompile(['sha', 'doc'], (p) =>
      sql`insert into search_docs (rid, doc) select c.rowid, ${p.doc}::tsvector from contents c where c.sha256 = ${p.sha}
        on conflict (rid) do update set doc = excluded.doc`.compile(db),
    ),
  };
}

let pgStmts: ReturnType<typeof compilePg> | null = null;

async function indexContentPg(trx: Transaction<Database> | Kysely<Database>, sha: string, doc: SearchDoc): Promise<void> {
  pgStmts ??= compilePg(trx);
  const copies = (await trx.executeQuery<{ team_id: string; id: string; label: string | null }>(pgStmts.scope({ sha }))).rows;
  const scope = new Set<string>();
  const labels = new Set<string>();
  for (const c of copies) {
    scope.add(hexToken('t', c.team_id)).add(hexToken('i', c.id)).add(hexToken('l', c.label));
    if (c.label) labels.add(c.label);
  }
  await trx.executeQuery(pgStmts.upsert({ sha, doc: tsvectorLiteral(doc, [...labels], [...scope]) }));
}

/**
 * Indexes one stored content with the scope of all its message rows, in the caller's transaction. `fresh`: the
 * content was inserted by this transaction (else its row exists and is replaced, to add the new copies' scope).
 */
export async function indexContent(
  trx: Transaction<Database> | Kysely<Database>,
  sha: string,
  doc: SearchDoc,
  fresh: boolean,
): Promise<void> {
  if (dialectOf(trx as never) === 'postgres') return indexContentPg(trx, sha, doc);
  stmts ??= compile(trx);
  if (!fresh) await trx.executeQuery(stmts.remove({ sha }));
  await trx.executeQuery(stmts.insert({ sha, ...doc }));
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
