// Search (CONTRACT §11): keyword (FTS5, bm25), semantic (embeddings) and hybrid (reciprocal rank fusion), each
// inside the caller's scope. Without an embeddings model, or when the model cannot answer right now, semantic
// and hybrid requests get keyword results with `semantic: false` — never an error. The service applies budgets and
// maps failures; its queries are in repo.ts (and indexer.ts, embed-queue.ts, run.ts for the work they belong to).
import type { Kysely } from 'kysely';
import { BudgetError, type Sandbox } from '../budget/sandbox.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Logger } from '../log.ts';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { EmbedQueue } from './embed-queue.ts';
import { type EmbeddingsConfig, embed, normalize } from './embeddings.ts';
import type { PartialAnswer, SearchScope } from './engine.ts';
import { PendingIndexer } from './indexer.ts';
import { compileQuery, DEFAULT_LIMITS, parseQuery, type QueryLimits } from './query.ts';
import { SearchRepo } from './repo.ts';
import { type RunRequest, type RunResult, runSearch, type SearchCursor, type SearchMode } from './run.ts';

export { FUSED_TOP, type SearchCursor, type SearchMode } from './run.ts';

export interface SearchResult {
  rows: RunResult['rows'];
  next: SearchCursor | null;
  mode: SearchMode;
  semantic: boolean;
  /** Set when the answer holds less than every match (the time budget ran out mid-scan), with why. */
  partial: PartialAnswer | null;
}

/** Search budgets and limits (flags --search-budget-ms, --search-max-terms, --search-max-term-words). */
export interface SearchLimits extends QueryLimits {
  budgetMs: number;
}

export class SearchService {
  private readonly db: Kysely<Database>;
  private readonly repo: SearchRepo;
  private readonly log: Logger;
  private readonly dialect: Dialect;
  readonly pending: PendingIndexer;
  readonly embeddings: EmbedQueue | null;
  private readonly queryVectors = new Map<string, Float32Array>();
  private readonly sandbox: Sandbox | null;
  private readonly sqliteFile: string | null;
  readonly limits: SearchLimits;

  constructor(d: {
    db: Kysely<Database>;
    writer: IngestWriter;
    bus: EventBus;
    log: Logger;
    embeddings?: { cfg: EmbeddingsConfig; retryMs: number } | undefined;
    /** Store.singleton: on PostgreSQL, one instance of the cluster runs the embeddings queue. */
    singleton?: ((job: string, fn: () => Promise<unknown>) => Promise<boolean>) | undefined;
    /** SQLite: searches run in the sandbox's worker threads on their own read-only connection to this file. */
    sandbox?: Sandbox | undefined;
    sqliteFile?: string | undefined;
    limits?: Partial<SearchLimits> | undefined;
  }) {
    this.db = d.db;
    this.repo = new SearchRepo(d.db);
    this.sandbox = d.sandbox ?? null;
    this.sqliteFile = d.sqliteFile ?? null;
    this.limits = { ...DEFAULT_LIMITS, budgetMs: DEFAULT_BUDGET_MS, ...d.limits };
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
    const compiled = compileQuery(parseQuery(req.q, req.now, this.limits), this.dialect);
    const scope = { ...req.scope, soleTeam: await this.soleTeam(req.now) };
    // Later pages keep the ranking of the first one (a keyword first page stays keyword if the model is back).
    const wanted = req.cursor?.m ?? req.mode;
    let qv: Float32Array | null = null;
    if (wanted !== 'keyword' && compiled.text.trim() !== '' && this.embeddings) qv = await this.queryVector(compiled.text);
    const run: RunRequest = {
      scope,
      compiled,
      mode: qv === null ? 'keyword' : wanted,
      limit: req.limit,
      cursor: req.cursor,
      qv,
      model: qv === null ? null : (this.embeddings?.model ?? null),
    };
    const r = await this.runBudgeted(run, Date.now());
    if (r.late)
      throw new AppError(
        'unavailable',
        `the search waited for a free search thread for its whole time budget (${this.limits.budgetMs} ms; other searches are running); retry shortly`,
        { headers: { 'Retry-After': '1' } },
      );
    if (r.partial && r.rows.length === 0)
      throw new AppError('budget_exceeded', `the search ${r.partial.reason.replace(/^the search /, '')} and found nothing yet; ${NARROW}`);
    return { rows: r.rows, next: r.next, mode: r.mode, semantic: r.mode !== 'keyword', partial: r.partial };
  }

  /**
   * Runs the search under the time budget, enforced from outside the work. SQLite: in a sandbox worker (stopped when
   * over, the queue shared fairly between teams); the worker checks three quarters of the budget (from arrival)
   * itself between bounded steps, so a long scan answers what it found (partial) before it would be stopped. PostgreSQL:
   * statement_timeout on the search's own transaction. Over budget: 422 budget_exceeded naming what to narrow.
   */
  private async runBudgeted(run: RunRequest, arrival: number): Promise<RunResult> {
    const { budgetMs } = this.limits;
    if (this.dialect === 'postgres')
      try {
        return await this.repo.runWithStatementTimeout(run, budgetMs);
      } catch (e) {
        if ((e as { code?: string }).code === '57014') throw overBudget(budgetMs);
        throw e;
      }
    // The worker stops itself at three quarters of the budget from the search's arrival (a wait for a worker counts;
    // a search that waited the whole budget away is not started), the sandbox stops the worker at the whole budget.
    const deadlineAt = arrival + budgetMs * 0.75;
    const lateAt = arrival + budgetMs;
    if (!this.sandbox || !this.sqliteFile) return runSearch(this.db, { ...run, deadlineAt });
    try {
      return await this.sandbox.run(
        'search.sqlite',
        { file: this.sqliteFile, req: { ...run, deadlineAt, lateAt } },
        { owner: run.scope.teamId, timeoutMs: budgetMs },
      );
    } catch (e) {
      if (e instanceof BudgetError && (e.kind === 'time' || e.kind === 'memory')) throw overBudget(budgetMs, e);
      if (e instanceof BudgetError && (e.kind === 'busy' || e.kind === 'closed'))
        throw new AppError('unavailable', `the search could not run: ${e.message}; retry shortly`, { headers: { 'Retry-After': '1' } });
      if (e instanceof BudgetError) throw new AppError('internal', `the search failed: ${e.message}`);
      throw e;
    }
  }

  private teams: { at: number; sole: boolean } | null = null;
  /** Whether the store has one team (checked at most once a minute; a wrong answer costs speed, never scope). */
  private async soleTeam(now: number): Promise<boolean> {
    if (!this.teams || now - this.teams.at > 60_000) {
      this.teams = { at: now, sole: await this.repo.soleTeam() };
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
}

const DEFAULT_BUDGET_MS = 2000;
const NARROW =
  'narrow it: one inbox (inboxId), label:, after:, rarer or fewer words, or a shorter phrase; the budget is --search-budget-ms';

function overBudget(budgetMs: number, e?: BudgetError): AppError {
  const what = e?.kind === 'memory' ? `needed more than ${e.limit} MB of memory` : `took more than ${budgetMs} ms`;
  return new AppError('budget_exceeded', `the search ${what}, over its budget; ${NARROW}`);
}
