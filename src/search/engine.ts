// Running a compiled query. The scope (team, label prefix, inbox, label) is ANDed in as tokens of the FTS row (one
// row per stored content, with the scope of all its copies), so every query is an intersection of posting lists;
// the contents found are then joined to their message rows under the exact scope in SQL, which alone decides what
// the caller sees (a content shared with another inbox or label matches by token, and is filtered out here).
// Keyword: bm25 over the newest RANK_WINDOW matches (ranking every match of a common word at 1M messages costs
// half a second; the newest matches are what a mail sink is searched for), ties broken by recency.
// Semantic: cosine similarity of the query's vector against the stored int8 vectors of the newest SCAN_CAP
// messages in scope (a bounded exact scan, see README "Search").
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { ftsString, type CompiledQuery } from './query.ts';
import { hexToken } from './text.ts';
import { similarity } from './embeddings.ts';

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
function scopeExpr(scope: SearchScope, hasTerms: boolean): string[] {
  if (scope.inboxId !== undefined) return [`scope : ${ftsString(hexToken('i', scope.inboxId))}`];
  const parts: string[] = [];
  if (scope.label !== undefined) parts.push(`scope : ${ftsString(hexToken('l', scope.label))}`);
  else if (scope.labelPrefix !== null) parts.push(`scope : ${ftsString(hexToken('l', scope.labelPrefix))}*`);
  if (!scope.soleTeam || (parts.length === 0 && !hasTerms)) parts.push(`scope : ${ftsString(hexToken('t', scope.teamId))}`);
  return parts;
}

/** The full MATCH expression: scope AND terms, then each excluded term with NOT. */
export function matchExpr(scope: SearchScope, terms: string | null, not: string[]): string {
  let e = [...scopeExpr(scope, terms !== null), ...(terms ? [`(${terms})`] : [])].join(' AND ');
  for (const n of not) e = `(${e}) NOT (${n})`;
  return e;
}

/** The exact conditions on a message row `m` and its inbox `i`: scope, required labels, dates. */
function rowFilters(scope: SearchScope, q: CompiledQuery) {
  const parts = [sql`i.team_id = ${scope.teamId}`];
  if (scope.inboxId !== undefined) parts.push(sql`m.inbox_id = ${scope.inboxId}`);
  if (scope.labelPrefix !== null) parts.push(sql`i.label >= ${scope.labelPrefix} and i.label < ${`${scope.labelPrefix}\u{10FFFF}`}`);
  if (scope.label !== undefined) parts.push(sql`i.label = ${scope.label}`);
  for (const l of q.labels) parts.push(sql`i.label = ${l}`);
  if (q.after !== null) parts.push(sql`m.received_at >= ${q.after}`);
  if (q.before !== null) parts.push(sql`m.received_at < ${q.before}`);
  return sql.join(parts, sql` and `);
}

// Weights per column: scope, subject, sender, rcpts, body, files, label.
const BM25 = sql.raw('bm25(search_fts, 0, 4, 2, 1.5, 1, 2, 1)');
/** bm25 reads every posting of every phrase of the query (for its IDF): above this many, newest first instead. */
export const BM25_MAX_POSTINGS = 20_000;

async function postingsAtMost(db: Kysely<Database>, expr: string, max: number): Promise<boolean> {
  const r = await sql<{
    n: number;
  }>`select count(*) as n from (select rowid from search_fts where search_fts match ${expr} limit ${max + 1})`.execute(db);
  return Number(r.rows[0]?.n ?? 0) <= max;
}

export type Ranking = 'bm25' | 'newest';

/**
 * One page of keyword hits (`limit + 1` rows when more follow), from `offset` in the ranking of the newest `window`
 * matches with rowid <= `hi` (pinned by the first page, so mail arriving meanwhile does not shift later pages).
 * Ranking: bm25 (`score` = -bm25, higher is better), ties newest first, when every phrase of the query matches at
 * most BM25_MAX_POSTINGS stored messages. bm25 reads each phrase's whole posting list for its IDF, so a word found in
 * most mail would cost a pass over the index per query (~40 ms per such word at 1M messages) to order rows that all
 * contain it: such queries, and queries of operators only, come newest first (score 0), which costs O(page).
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
): Promise<{ hits: Hit[]; hi: number; ranking: Ranking }> {
  const expr = matchExpr(scope, q.match, q.not);
  const hiFilter = hi !== undefined ? sql`and f.rowid <= ${hi}` : sql``;
  let ranking: Ranking = q.match ? 'bm25' : 'newest';
  if (ranking === 'bm25')
    for (const p of [...scopeExpr(scope, true), ...q.parts, ...q.not])
      if (!(await postingsAtMost(db, p, maxPostings))) {
        ranking = 'newest';
        break;
      }
  const score = ranking === 'bm25' ? sql`-${BM25}` : sql`0`;
  const run = (w: number) =>
    sql<{ rid: number; cid: number; id: string; score: number }>`
    select m.rowid as rid, c.cid, m.id, c.score from (
      select f.rowid as cid, ${score} as score from search_fts f
      where search_fts match ${expr} ${hiFilter}
      order by f.rowid desc limit ${w}
    ) c cross join contents ct on ct.rowid = c.cid
    cross join message_rows m on m.content_sha256 = ct.sha256
    cross join inboxes i on i.id = m.inbox_id
    where ${rowFilters(scope, q)}
    order by c.score desc, m.rowid desc limit ${limit + 1} offset ${offset}`.execute(db);
  // Newest first needs only the top of the window; the whole window is read if the exact filters dropped too many.
  const small = Math.min(window, (offset + limit + 1) * 2 + 50);
  let rows = (await run(ranking === 'newest' ? small : window)).rows;
  if (ranking === 'newest' && small < window && rows.length < limit + 1) rows = (await run(window)).rows;
  const newest = rows.reduce((m, r) => Math.max(m, r.cid), 0);
  return { hits: rows.map((r) => ({ rid: r.rid, id: r.id, score: r.score })), hi: hi ?? newest, ranking };
}

/** Semantic ranking of the newest SCAN_CAP contents in scope that pass the query's operators, per message row. */
export async function semanticRank(
  db: Kysely<Database>,
  scope: SearchScope,
  q: CompiledQuery,
  model: string,
  qv: Float32Array,
  top: number,
  hi?: number,
): Promise<{ hits: Hit[]; hi: number }> {
  const expr = matchExpr(scope, q.filter, q.not);
  const hiFilter = hi !== undefined ? sql`and rowid <= ${hi}` : sql``;
  const rows = await sql<{ rid: number; cid: number; id: string; vec: Buffer }>`
    select m.rowid as rid, c.cid, m.id, v.vec from (
      select rowid as cid from search_fts where search_fts match ${expr} ${hiFilter} order by rowid desc limit ${SCAN_CAP}
    ) c cross join contents ct on ct.rowid = c.cid
    cross join search_vectors v on v.content_sha256 = ct.sha256 and v.model = ${model}
    cross join message_rows m on m.content_sha256 = ct.sha256
    cross join inboxes i on i.id = m.inbox_id
    where ${rowFilters(scope, q)}`.execute(db);
  const scored: Hit[] = [];
  let newest = 0;
  for (const r of rows.rows) {
    newest = Math.max(newest, r.cid);
    if (r.vec.byteLength !== qv.length) continue;
    const v = new Int8Array(r.vec.buffer, r.vec.byteOffset, r.vec.byteLength);
    scored.push({ rid: r.rid, id: r.id, score: similarity(qv, v) });
  }
  scored.sort((a, b) => b.score - a.score || b.rid - a.rid);
  return { hits: scored.slice(0, top), hi: hi ?? newest };
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
