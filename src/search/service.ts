// Search (CONTRACT §11): keyword (FTS5, bm25), semantic (embeddings) and hybrid (reciprocal rank fusion), each
// inside the caller's scope. Without an embeddings model, or when the model cannot answer right now, semantic
// and hybrid requests get keyword results with `semantic: false` — never an error.
import type { Kysely } from 'kysely';
import type { EventBus } from '../events/bus.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Logger } from '../log.ts';
import { SUMMARY_COLUMNS, type MessageSummaryRow } from '../store/messages.ts';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { EmbedQueue } from './embed-queue.ts';
import { embed, type EmbeddingsConfig, normalize } from './embeddings.ts';
import { fuse, type Hit, keywordPage, type SearchScope, semanticRank } from './engine.ts';
import { PendingIndexer } from './indexer.ts';
import { compileQuery, parseQuery } from './query.ts';
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

export interface SearchResult {
  rows: Array<{ row: MessageSummaryRow; snippet: string | null; score: number }>;
  next: SearchCursor | null;
  mode: SearchMode;
  semantic: boolean;
}

export class SearchService {
  private readonly db: Kysely<Database>;
  private readonly log: Logger;
  private readonly dialect: Dialect;
  readonly pending: PendingIndexer;
  readonly embeddings: EmbedQueue | null;
  private readonly queryVectors = new Map<string, Float32Array>();

  constructor(d: {
    db: Kysely<Database>;
    writer: IngestWriter;
    bus: EventBus;
    log: Logger;
    embeddings?: { cfg: EmbeddingsConfig; retryMs: number } | undefined;
    /** Store.singleton: on PostgreSQL, one instance of the cluster runs the embeddings queue. */
    singleton?: ((job: string, fn: () => Promise<unknown>) => Promise<boolean>) | undefined;
  }) {
    this.db = d.db;
    this.log = d.log;
    this.dialect = dialectOf(d.db as never);
    this.pending = new PendingIndexer({ db: d.db, writer: d.writer, log: d.log });
    this.embeddings = d.embeddings
      ? new EmbedQueue({ db: d.db, writer: d.writer, log: d.log, singleton: d.singleton, ...d.embeddings })
      : null;
    // Published after commit. New mail is embedded. Claimed mail (queued by a trigger) is indexed: a claim hands
    // an inbox created a moment ago its first messages, so only an inbox's first message (seq 1) costs a look at
    // the queue — never each message of a busy inbox.
    let soon: NodeJS.Immediate | null = null;
    let drain = false;
    d.bus.subscribeAll((e) => {
      if (e.type !== 'message.received') return;
      if (e.message.seq === 1) drain = true;
      if (soon || (!drain && !this.embeddings)) return;
      soon = setImmediate(() => {
        soon = null;
        if (drain) void this.pending.drain();
        drain = false;
        this.embeddings?.kick();
      });
    });
  }

  async start(): Promise<void> {
    void this.pending.drain();
    await this.embeddings?.start();
  }

  async stop(): Promise<void> {
    await this.embeddings?.stop();
    await this.pending.idle();
  }

  async search(req: {
    scope: SearchScope;
    q: string;
    mode: SearchMode;
    limit: number;
    cursor?: SearchCursor | undefined;
    now: number;
  }): Promise<SearchResult> {
    const compiled = compileQuery(parseQuery(req.q, req.now), this.dialect);
    const { limit, cursor } = req;
    const scope = { ...req.scope, soleTeam: await this.soleTeam(req.now) };
    const offset = cursor?.o ?? 0;
    const hi = cursor?.hi;
    // Later pages keep the ranking of the first one (a keyword first page stays keyword if the model is back).
    const wanted = cursor?.m ?? req.mode;
    let qv: Float32Array | null = null;
    if (wanted !== 'keyword' && compiled.text.trim() !== '' && this.embeddings) qv = await this.queryVector(compiled.text);
    let hits: Hit[];
    let next: SearchCursor | null = null;
    let mode: SearchMode = wanted;
    if (qv === null || this.embeddings === null) {
      mode = 'keyword';
      const page = await keywordPage(this.db, scope, compiled, limit, offset, hi);
      hits = page.hits.slice(0, limit);
      if (page.hits.length > limit) next = { o: offset + limit, hi: page.hi, m: mode };
    } else {
      const sem = await semanticRank(this.db, scope, compiled, this.embeddings.model, qv, mode === 'hybrid' ? HYBRID_DEPTH : FUSED_TOP, hi);
      let ranked = sem.hits;
      let newest = sem.hi;
      if (mode === 'hybrid') {
        const kw = compiled.match ? await keywordPage(this.db, scope, compiled, HYBRID_DEPTH, 0, hi) : { hits: [], hi: 0 };
        ranked = fuse([kw.hits.slice(0, HYBRID_DEPTH), sem.hits]);
        newest = hi ?? Math.max(newest, kw.hi);
      }
      ranked = ranked.slice(0, FUSED_TOP);
      hits = ranked.slice(offset, offset + limit);
      if (offset + limit < ranked.length) next = { o: offset + limit, hi: newest, m: mode };
    }
    const rows = await this.rowsOf(hits.map((h) => h.id));
    return {
      rows: hits.flatMap((h) => {
        const r = rows.get(h.id);
        if (!r) return [];
        const body = bodyText(r.text_body, r.html_body);
        const snip = snippet(body, compiled.terms) ?? snippet(r.subject, compiled.terms);
        const { text_body: _t, html_body: _h, ...row } = r;
        return [{ row, snippet: snip, score: Math.round(h.score * 1e6) / 1e6 }];
      }),
      next,
      mode,
      semantic: mode !== 'keyword',
    };
  }

  private teams: { at: number; sole: boolean } | null = null;
  /** Whether the store has one team (checked at most once a minute; a wrong answer costs speed, never scope). */
  private async soleTeam(now: number): Promise<boolean> {
    if (!this.teams || now - this.teams.at > 60_000) {
      const r = await this.db.selectFrom('teams').select('id').limit(2).execute();
      this.teams = { at: now, sole: r.length <= 1 };
    }
    return this.teams.sole;
  }

  /** The query's vector (cached per text), or null when the model cannot give one now. */
  private async queryVector(text: string): Promise<Float32Array | null> {
    const q = this.embeddings!;
    const cached = this.queryVectors.get(text);
    if (cached) return cached;
    try {
      const [v] = await embed(q.cfg, [text.slice(0, 2000)]);
      if (!v || (q.dim !== null && v.length !== q.dim)) {
        this.log.warn('the embeddings model answered a query vector of the wrong size; keyword results given', {
          model: q.model,
          expected: q.dim,
          got: v?.length ?? 0,
        });
        return null;
      }
      const n = normalize(v);
      if (this.queryVectors.size >= 256) this.queryVectors.delete(this.queryVectors.keys().next().value!);
      this.queryVectors.set(text, n);
      return n;
    } catch (e) {
      this.log.warn('the embeddings model could not embed the query; keyword results given', {
        model: q.model,
        error: (e as Error).message,
      });
      return null;
    }
  }

  private async rowsOf(ids: string[]): Promise<Map<string, MessageSummaryRow & { text_body: string | null; html_body: string | null }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('messages')
      .select([...SUMMARY_COLUMNS, 'text_body', 'html_body'])
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.id, r]));
  }
}
