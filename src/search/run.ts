// One search, from a compiled query to the page's rows with their snippets: the work whose cost the query and the
// stored mail decide. On SQLite it runs in the search worker (src/search/worker-task.ts) on its own read-only
// connection, under a deadline it checks between bounded steps, while the main thread enforces the same budget from
// outside (src/search/service.ts); on PostgreSQL it runs on the main thread's pool under statement_timeout.
import type { Kysely } from 'kysely';
import { type MessageSummaryRow, SUMMARY_COLUMNS } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { type Deadline, fuse, type Hit, keywordPage, type PartialAnswer, type SearchScope, semanticRank } from './engine.ts';
import type { CompiledQuery } from './query.ts';
import { bodyText, snippet } from './text.ts';

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

/** Hybrid and semantic answers page through at most this many of the best matches. */
export const FUSED_TOP = 200;
const HYBRID_DEPTH = 100;

/** Where the next page starts: the offset, the newest row ranked (pinned by page 1) and the ranking page 1 used. */
export interface SearchCursor {
  o: number;
  hi: number;
  m: SearchMode;
}

export interface RunRequest {
  scope: SearchScope;
  compiled: CompiledQuery;
  /** The ranking wanted (keyword when `qv` is null). */
  mode: SearchMode;
  limit: number;
  cursor?: SearchCursor | undefined;
  /** The query's embedding (null: keyword only), and the model whose stored vectors it is compared with. */
  qv: Float32Array | null;
  model: string | null;
  /**
   * When the work must stop (Date.now() ms; set on arrival, so a wait for a worker counts), checked between bounded
   * steps (SQLite); undefined: none (PostgreSQL has statement_timeout).
   */
  deadlineAt?: number | undefined;
  /** Past this (Date.now() ms) the search is not started at all: it waited for a worker its whole budget. */
  lateAt?: number | undefined;
}

export interface RunResult {
  /** `inboxAddress`: the address of the inbox the message is in (a hit across inboxes says where it is). */
  rows: Array<{ row: MessageSummaryRow; snippet: string | null; score: number; inboxAddress: string | null }>;
  next: SearchCursor | null;
  mode: SearchMode;
  partial: PartialAnswer | null;
  /** Set when the deadline had passed before the work began (the search waited for a worker all its budget). */
  late?: boolean;
}

export async function runSearch(db: Kysely<Database>, req: RunRequest): Promise<RunResult> {
  const { limit, cursor, compiled, scope } = req;
  const deadline: Deadline | undefined = req.deadlineAt === undefined ? undefined : { at: req.deadlineAt };
  if (req.lateAt !== undefined && Date.now() >= req.lateAt) return { rows: [], next: null, mode: req.mode, partial: null, late: true };
  const offset = cursor?.o ?? 0;
  const hi = cursor?.hi;
  let hits: Hit[];
  let next: SearchCursor | null = null;
  let mode: SearchMode = req.mode;
  let partial: PartialAnswer | undefined;
  if (req.qv === null || req.model === null) {
    mode = 'keyword';
    const page = await keywordPage(db, scope, compiled, limit, offset, hi, undefined, undefined, deadline);
    partial = page.partial;
    hits = page.hits.slice(0, limit);
    if (page.hits.length > limit) next = { o: offset + limit, hi: page.hi, m: mode };
  } else {
    const depth = mode === 'hybrid' ? HYBRID_DEPTH : FUSED_TOP;
    const sem = await semanticRank(db, scope, compiled, req.model, req.qv, depth, hi, deadline);
    partial = sem.partial;
    let ranked = sem.hits;
    let newest = sem.hi;
    if (mode === 'hybrid') {
      const kw = compiled.match
        ? await keywordPage(db, scope, compiled, HYBRID_DEPTH, 0, hi, undefined, undefined, deadline)
        : { hits: [], hi: 0, partial: undefined };
      partial ??= kw.partial;
      ranked = fuse([kw.hits.slice(0, HYBRID_DEPTH), sem.hits]);
      newest = hi ?? Math.max(newest, kw.hi);
    }
    ranked = ranked.slice(0, FUSED_TOP);
    hits = ranked.slice(offset, offset + limit);
    if (offset + limit < ranked.length) next = { o: offset + limit, hi: newest, m: mode };
  }
  const rows = await rowsOf(
    db,
    hits.map((h) => h.id),
  );
  const addresses = await addressesOf(db, [...new Set([...rows.values()].flatMap((r) => (r.inbox_id ? [r.inbox_id] : [])))]);
  return {
    rows: hits.flatMap((h) => {
      const r = rows.get(h.id);
      if (!r) return [];
      const body = bodyText(r.text_body, r.html_body);
      const snip = snippet(body, compiled.terms) ?? snippet(r.subject, compiled.terms);
      const { text_body: _t, html_body: _h, ...row } = r;
      const inboxAddress = (r.inbox_id && addresses.get(r.inbox_id)) ?? null;
      return [{ row, snippet: snip, score: Math.round(h.score * 1e6) / 1e6, inboxAddress }];
    }),
    next,
    mode,
    partial: partial ?? null,
  };
}

async function rowsOf(
  db: Kysely<Database>,
  ids: string[],
): Promise<Map<string, MessageSummaryRow & { text_body: string | null; html_body: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('messages')
    .select([...SUMMARY_COLUMNS, 'text_body', 'html_body'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The addresses of the hits' inboxes (at most one page of them). */
async function addressesOf(db: Kysely<Database>, inboxIds: string[]): Promise<Map<string, string>> {
  if (inboxIds.length === 0) return new Map();
  const rows = await db.selectFrom('inboxes').select(['id', 'address']).where('id', 'in', inboxIds).execute();
  return new Map(rows.map((r) => [r.id, r.address]));
}
