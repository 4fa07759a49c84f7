// The search service's own queries: whether the store holds one team (the sole-team shortcut of a scope), and one
// search on PostgreSQL in its own transaction under statement_timeout (the time budget enforced by the database).
// The other queries of search live beside the work they serve: index writes in indexer.ts, the embeddings queue in
// embed-queue.ts, the search itself in run.ts and engine.ts.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';
import { type RunRequest, type RunResult, runSearch } from './run.ts';

export class SearchRepo {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Whether the store has at most one team (reads at most two rows). */
  async soleTeam(): Promise<boolean> {
    const r = await this.db.selectFrom('teams').select('id').limit(2).execute();
    return r.length <= 1;
  }

  /**
   * PostgreSQL: runs the search in its own transaction with `statement_timeout` set to the budget; a statement over
   * it fails with SQLSTATE 57014 (query_canceled), which the caller maps.
   */
  runWithStatementTimeout(run: RunRequest, budgetMs: number): Promise<RunResult> {
    return this.db.transaction().execute(async (trx) => {
      await sql.raw(`set local statement_timeout = ${Math.max(1, Math.floor(budgetMs))}`).execute(trx);
      return runSearch(trx, run);
    });
  }
}
