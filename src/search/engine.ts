// Running a compiled query. The scope (team, label prefix, inbox, label) is ANDed in as tokens of the FTS row (one
// row per stored content, with the scope of all its copies), so every query is an intersection of posting lists;
// the contents found are then joined to their message rows under the exact scope in SQL, which alone decides what
// the caller sees (a content shared with another inbox or label matches by token, and is filtered out here).
// Keyword: bm25 over the newest RANK_WINDOW matches (ranking every match of a common word at 1M messages costs
// half a second; the newest matches are what a mail sink is searched for), ties broken by recency.
// Semantic: cosine similarity of the query's vector against the stored int8 vectors of the newest SCAN_CAP
// messages in scope (a bounded exact scan, see README "Search").
// On PostgreSQL the same steps run against `search_docs` (a tsvector per content, GIN-indexed; src/search/pg-text.ts):
// `doc @@ tsquery` instead of MATCH, ts_rank_cd instead of bm25, and plain joins where SQLite is told the join order.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { similarity } from './embeddings.ts';
import { RANK_WEIGHTS } from './pg-text.ts';
import { type CompiledQuery, scopeToken } from './query.ts';
import { hexToken } from './text.ts';

export const RANK_WINDOW = 5000;
export const SCAN_CAP = 20_000;

export interface SearchScope {
  teamId: string;
  /** The key's label scope: labels starting with this (null: every label). */
  labelPrefix: string | null;
  inboxId?: string | undefined;
  /** Exact label (the `label` parameter). */
  label?: string | undefined;
  /** The team is the only one in the store: its token would match every row and is left out of the MATCH. */
  soleTeam?: boolean | undefined;
}

export interface Hit {
  rid: number;
  id: string;
  score: number;
}

/**
 * The narrowest scope tokens: an inbox's token alone (it implies the team and label), else the label or prefix and
 * the team. bm25 reads the whole posting list of every phrase of the MATCH (for its IDF), so a token that matches
 * nearly every row costs a pass over the index; the exact scope is enforced in SQL anyway (rowFilters).
 */
function scopeExpr(scope: SearchScope, hasTerms: boolean, dialect: Dialect): string[] {
  const tok = (t: string, prefix = false) => scopeToken(t, dialect, prefix);
  if (scope.inboxId !== undefined) return [tok(hexToken('i', scope.inboxId))];
  const parts: string[] = [];
  if (scope.label !== undefined) parts.push(tok(hexToken('l', scope.label)));
  else if (scope.labelPrefix !== null) parts.push(tok(hexToken('l', scope.labelPrefix), true));
  if (!scope.soleTeam || (parts.length === 0 && !hasTerms)) parts.push(tok(hexToken('t', scope.teamId)));
  return parts;
}

/** The full MATCH expression (a tsquery on PostgreSQL): scope AND terms, then each excluded term with NOT. */
export function matchExpr(scope: SearchScope, terms: string | null, not: string[], dialect: Dialect = 'sqlite'): string {
  const pg = dialect === 'postgres';
  let e = [...scopeExpr(scope, terms !== null, dialect), ...(terms ? [`(${terms})`] : [])].join(pg ? ' & ' : ' AND ');
  for (const n of not) e = pg ? `(${e}) & !(${n})` : `(${e}) NOT (${n})`;
  return e;
}

/**
 * The contents matching `expr`, newest first, at most `limit`, as `cid` (the content's rowid) and `score`: the FTS5
 * table on SQLite, `search_docs` on PostgreSQL. `rank`: the terms to rank by (null: score 0, newest first).
 */
function candidates(dialect: Dialect, expr: string, rank: string | null, hi: number | undefined, limit: number): RawBuilder<unknown> {
  if (dialect === 'postgres') {
    const hiFilter = hi !== undefined ? sql`and d.rid <= ${hi}` : sql``;
    const newest = sql`select d.rid from search_docs d where d.doc @@ ${expr}::tsquery ${hiFilter} order by d.rid desc limit ${limit}`;
    if (rank === null) return sql`select n.rid as cid, 0 as score from (${newest}) n`;
    // Ranked in a second step: only the window's documents are read whole for ts_rank_cd.
    return sql`select n.rid as cid, ts_rank_cd(${RANK_WEIGHTS}::float4[], r.doc, ${rank}::tsquery) as score
      from (${newest}) n join search_docs r on r.rid = n.rid`;
  }
  const score = rank === null ? sql`0` : sql`-${BM25}`;
  const hiFilter = hi !== undefined ? sql`and f.rowid <= ${hi}` : sql``;
  return sql`select f.rowid as cid, ${score} as score from search_fts f
      where search_fts match ${expr} ${hiFilter} order by f.rowid desc limit ${limit}`;
}

/** SQLite is told the join order (CROSS JOIN); PostgreSQL plans it (and has no CROSS JOIN … ON). */
const joinKw = (dialect: Dialect) => sql.raw(dialect === 'postgres' ? 'join' : 'cross join');

/** The exact conditions on a message row `m` and its inbox `i`: scope, required labels, dates. */
function rowFilters(scope: SearchScope, q: CompiledQuery) {
  const parts = [sql`i.team_id = ${scope.teamId}`];
  if (scope.inboxId !== undefined) parts.push(sql`m.inbox_id = ${scope.inboxId}`);
  if (scope.labelPrefix !== null) parts.push(sql`i.label >= ${scope.labelPrefix} and i.label < ${`${scope.labelPrefix}\u{10FFFF}`}`);
  if (scope.label !== undefined) parts.push(sql`i.label = ${scope.label}`);
  for (const l of q.labels) parts.push(sql`i.label = ${l}`);
  for (const l of q.notLabels) parts.push(sql`(i.label is null or i.label <> ${l})`);
  if (q.after !== null) parts.push(sql`m.received_at >= ${q.after}`);
  if (q.before !== null) parts.push(sql`m.received_at < ${q.before}`);
  return sql.join(parts, sql` and `);
}

// Weights per column: scope, subject, sender, rcpts, body, files, label.
const BM25 = sql.raw('bm25(search_fts, 0, 4, 2, 1.5, 1, 2, 1)');
/** bm25 reads every posting of every phrase of the query (for its IDF): above this many, newest first instead. */
export const BM25_MAX_POSTINGS = 20_000;

async function postingsAtMost(db: Kysely<Database>, dialect: Dialect, expr: string, max: number): Promise<boolean> {
  const r =
    dialect === 'postgres'
      ? await sql<{
          n: number;
        }>`select count(*) as n from (select 1 from search_docs where doc @@ ${expr}::tsquery limit ${max + 1}) x`.execute(db)
      : await sql<{
          n: number;
        }>`select count(*) as n from (select rowid from search_fts where search_fts match ${expr} limit ${max + 1})`.execute(db);
  return Number(r.rows[0]?.n ?? 0) <= max;
}

export type Ranking = 'bm25' | 'newest';

/**
 * A time budget the work checks between bounded steps (SQLite: in the search worker, src/search/run.ts). `at` is a
 * wall-clock time (Date.now(): the search is timed from its arrival on the main thread, including its wait for a
 * worker); the steps are sized so that one step stays short even on hostile mail.
 */
export interface Deadline {
  at: number;
}

/** Why an answer holds less than every match: the scan ran out of its time budget. */
export interface PartialAnswer {
  reason: string;
}

/** What one step of a deadline-bound walk aims to cost. */
const STEP_MS = 10;

/**
 * Walks the FTS5 matches of `expr` newest first from rowid `top` down, in steps of at most `size` matches, calling
 * `step(rowids)` until it returns true (enough), the matches run out, or the deadline passes between two steps.
 * Keyset steps (`rowid <= hi … limit n`), not rowid ranges: FTS5 stops a descending walk at its LIMIT but not at a
 * lower rowid bound, so a range step over a common word costs a pass over its whole posting list (measured at
 * 1,000,000 messages: 27 ms for a 64-rowid range of `account`, 0.4 ms for its newest 55 matches by LIMIT), and a
 * walk of many small ranges never ends within the budget. A step still costs at most one pass over the posting lists
 * of the query (when few rows match), and the step size grows while steps are quick and shrinks when one is slow.
 */
export async function walkMatches(
  db: Kysely<Database>,
  expr: string,
  top: number,
  deadline: Deadline,
  step: (rowids: number[]) => Promise<boolean>,
): Promise<'enough' | 'done' | 'timeout'> {
  let size = 64;
  let hi = top;
  while (hi >= 1) {
    if (Date.now() >= deadline.at) return 'timeout';
    const t0 = performance.now();
    const rowids = (
      await sql<{ cid: number }>`select rowid as cid from search_fts where search_fts match ${expr}
        and rowid <= ${hi} order by rowid desc limit ${size}`.execute(db)
    ).rows.map((r) => Number(r.cid));
    if (rowids.length > 0 && (await step(rowids))) return 'enough';
    if (rowids.length < size) return 'done';
    const took = performance.now() - t0;
    hi = rowids[rowids.length - 1]! - 1;
    size = Math.max(8, Math.min(1 << 16, Math.floor(size * Math.min(4, STEP_MS / Math.max(took, 0.1)))));
  }
  return 'done';
}

/** SQLite, chunked: whether at most `max` rows match `expr` (null: the deadline passed before it was known). */
async function postingsAtMostChunked(
  db: Kysely<Database>,
  expr: string,
  max: number,
  top: number,
  deadline: Deadline,
): Promise<boolean | null> {
  let n = 0;
  const end = await walkMatches(db, expr, top, deadline, async (rowids) => {
    n += rowids.length;
    return n > max;
  });
  if (end === 'timeout') return null;
  return n <= max;
}

type PageRow = { rid: number; cid: number; id: string; score: number };

/**
 * One page of keyword hits (`limit + 1` rows when more follow), from `offset` in the ranking of the newest `window`
 * matches with rowid <= `hi` (pinned by the first page, so mail arriving meanwhile does not shift later pages).
 * Ranking: bm25 (`score` = -bm25, higher is better), ties newest first, when every phrase of the query matches at
 * most BM25_MAX_POSTINGS stored messages. bm25 reads each phrase's whole posting list for its IDF, so a word found in
 * most mail would cost a pass over the index per query (~40 ms per such word at 1M messages) to order rows that all
 * contain it: such queries, and queries of operators only, come newest first (score 0), which costs O(page).
 * With a `deadline` (SQLite, in the search worker) every walk over the index goes in bounded keyset steps with the
 * deadline checked between them: counting for bm25 may use a quarter of the time left (past it, newest first), and
 * a newest-first scan stopped by the deadline answers what it found so far, marked `partial`.
 */
export async function keywordPage(
  db: Kysely<Database>,
  scope: SearchScope,
  q: CompiledQuery,
  limit: number,
  offset: number,
  hi: number | undefined,
  window = RANK_WINDOW,
  maxPostings = BM25_MAX_POSTINGS,
  deadline?: Deadline,
): Promise<{ hits: Hit[]; hi: number; ranking: Ranking; partial?: PartialAnswer | undefined }> {
  const dialect = dialectOf(db as never);
  const expr = matchExpr(scope, q.match, q.not, dialect);
  // In rowid steps only without phrases: FTS5 reads a phrase's posting lists whole for each statement (measured: a
  // 2-word phrase costs the same over 64 rowids as over 8,000), so steps would repeat that cost, not split it.
  const chunked = deadline !== undefined && dialect === 'sqlite' && q.longest <= 1;
  const top = chunked ? (hi ?? (await newestContent(db))) : 0;
  // PostgreSQL: a query of operators only (has:, label:) ranks every match 0 anyway; it is not read for that.
  let ranking: Ranking = q.match && (dialect === 'sqlite' || q.terms.length > 0) ? 'bm25' : 'newest';
  if (ranking === 'bm25') {
    const counting = chunked ? { at: Date.now() + (deadline.at - Date.now()) / 4 } : null;
    // Phrases are counted as the AND of their words (at least as many rows, no positions read): FTS5 reads a phrase's
    // posting lists whole, and the bm25 statement below reads them again.
    for (const p of [...scopeExpr(scope, true, dialect), ...q.countParts, ...q.not]) {
      const small = counting
        ? await postingsAtMostChunked(db, p, maxPostings, top, counting)
        : await postingsAtMost(db, dialect, p, maxPostings);
      if (small !== true) {
        ranking = 'newest';
        break;
      }
    }
  }
  const join = joinKw(dialect);
  const run = (w: number) =>
    sql<PageRow>`
    select m.rowid as rid, c.cid, m.id, c.score from (
      ${candidates(dialect, expr, ranking === 'bm25' ? q.match : null, hi, w)}
    ) c ${join} contents ct on ct.rowid = c.cid
    ${join} message_rows m on m.content_sha256 = ct.sha256
    ${join} inboxes i on i.id = m.inbox_id
    where ${rowFilters(scope, q)}
    order by c.score desc, m.rowid desc limit ${limit + 1} offset ${offset}`.execute(db);
  if (chunked && ranking === 'newest') return newestChunked(db, scope, q, expr, limit, offset, top, window, deadline);
  // Newest first needs only the top of the window; the whole window is read if the exact filters dropped too many.
  const small = Math.min(window, (offset + limit + 1) * 2 + 50);
  let rows = (await run(ranking === 'newest' ? small : window)).rows;
  if (ranking === 'newest' && small < window && rows.length < limit + 1) rows = (await run(window)).rows;
  const newest = rows.reduce((m, r) => Math.max(m, Number(r.cid)), 0);
  return { hits: rows.map((r) => ({ rid: Number(r.rid), id: r.id, score: Number(r.score) })), hi: hi ?? newest, ranking };
}

async function newestContent(db: Kysely<Database>): Promise<number> {
  const r = await sql<{ n: number | null }>`select max(rowid) as n from search_fts`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** Newest first over the newest `window` matches, in bounded keyset steps (SQLite under a deadline). */
async function newestChunked(
  db: Kysely<Database>,
  scope: SearchScope,
  q: CompiledQuery,
  expr: string,
  limit: number,
  offset: number,
  top: number,
  window: number,
  deadline: Deadline,
): Promise<{ hits: Hit[]; hi: number; ranking: Ranking; partial?: PartialAnswer | undefined }> {
  const need = offset + limit + 1;
  const found: PageRow[] = [];
  let seen = 0;
  const end = await walkMatches(db, expr, top, deadline, async (all) => {
    const cids = all.slice(0, window - seen);
    seen += cids.length;
    if (cids.length > 0) {
      const rows = await sql<PageRow>`select m.rowid as rid, ct.rowid as cid, m.id, 0 as score from contents ct
        cross join message_rows m on m.content_sha256 = ct.sha256
        cross join inboxes i on i.id = m.inbox_id
        where ct.rowid in (${sql.join(cids)}) and ${rowFilters(scope, q)}`.execute(db);
      found.push(...rows.rows);
    }
    return found.length >= need || seen >= window;
  });
  found.sort((a, b) => Number(b.rid) - Number(a.rid));
  const rows = found.slice(offset, need);
  const partial =
    end === 'timeout'
      ? {
          reason: `the search ran out of its time budget after looking through the newest ${seen} matching messages; narrow it (an inbox, label:, after:, rarer words) to see older ones`,
        }
      : undefined;
  return { hits: rows.map((r) => ({ rid: Number(r.rid), id: r.id, score: 0 })), hi: top, ranking: 'newest', partial };
}

/**
 * Semantic ranking of the newest SCAN_CAP contents in scope that pass the query's operators, per message row. With a
 * `deadline` (SQLite) the scan goes in bounded keyset steps; one stopped by the deadline ranks what it read, `partial`.
 */
export async function semanticRank(
  db: Kysely<Database>,
  scope: SearchScope,
  q: CompiledQuery,
  model: string,
  qv: Float32Array,
  top: number,
  hi?: number,
  deadline?: Deadline,
): Promise<{ hits: Hit[]; hi: number; partial?: PartialAnswer | undefined }> {
  const dialect = dialectOf(db as never);
  const expr = matchExpr(scope, q.filter, q.not, dialect);
  const join = joinKw(dialect);
  const scored: Hit[] = [];
  let newest = 0;
  const score = (rows: Array<{ rid: number; cid: number; id: string; vec: Uint8Array }>) => {
    for (const r of rows) {
      newest = Math.max(newest, Number(r.cid));
      if (r.vec.byteLength !== qv.length) continue;
      const v = new Int8Array(r.vec.buffer, r.vec.byteOffset, r.vec.byteLength);
      scored.push({ rid: Number(r.rid), id: r.id, score: similarity(qv, v) });
    }
  };
  const vectorsOf = (cands: RawBuilder<unknown>) =>
    sql<{ rid: number; cid: number; id: string; vec: Uint8Array }>`
    select m.rowid as rid, c.cid, m.id, v.vec from (${cands}) c ${join} contents ct on ct.rowid = c.cid
    ${join} search_vectors v on v.content_sha256 = ct.sha256 and v.model = ${model}
    ${join} message_rows m on m.content_sha256 = ct.sha256
    ${join} inboxes i on i.id = m.inbox_id
    where ${rowFilters(scope, q)}`.execute(db);
  let partial: PartialAnswer | undefined;
  if (deadline !== undefined && dialect === 'sqlite' && q.longest <= 1) {
    const from = hi ?? (await newestContent(db));
    let seen = 0;
    const end = await walkMatches(db, expr, from, deadline, async (all) => {
      const cands = sql`select value as cid from json_each(${JSON.stringify(all.slice(0, SCAN_CAP - seen))})`;
      const rows = (await vectorsOf(cands)).rows;
      const cids = new Set(rows.map((r) => r.cid));
      seen += cids.size;
      score(rows);
      return seen >= SCAN_CAP;
    });
    if (end === 'timeout')
      partial = {
        reason: `the search ran out of its time budget after comparing the newest ${seen} messages by meaning; narrow it (an inbox, label:, after:) to reach older ones`,
      };
    newest = Math.max(newest, from);
  } else score((await vectorsOf(candidates(dialect, expr, null, hi, SCAN_CAP))).rows);
  scored.sort((a, b) => b.score - a.score || b.rid - a.rid);
  return { hits: scored.slice(0, top), hi: hi ?? newest, partial };
}

/** Reciprocal rank fusion (k = 60) of ranked lists; ties go to the newer message. */
export function fuse(lists: Hit[][], k = 60): Hit[] {
  const by = new Map<number, Hit>();
  for (const list of lists)
    list.forEach((h, rank) => {
      const cur = by.get(h.rid) ?? { rid: h.rid, id: h.id, score: 0 };
      cur.score += 1 / (k + rank + 1);
      by.set(h.rid, cur);
    });
  return [...by.values()].sort((a, b) => b.score - a.score || b.rid - a.rid);
}
