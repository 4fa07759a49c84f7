// The queries of the limits a cluster shares (issue 33, migration 028, README "Scaling out"): windowed event counts
// (`limit_windows`, one upsert for every event of a tick) and the counts of what each instance holds open
// (`limit_holds`, written and summed in one statement). PostgreSQL only: on SQLite one instance counts in memory.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';

type LimitTables = {
  limit_windows: { scope: string; key: string; window: number; n: number };
  limit_holds: { scope: string; key: string; instance: string; n: number; seen_at: number };
};

export interface WindowHit {
  scope: string;
  key: string;
  /** The window's start (ms since 1970). */
  window: number;
  /** Events to add. */
  n: number;
}

export class LimitRepo {
  private readonly db: Kysely<Database & LimitTables>;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<LimitTables>();
  }

  /** Adds each hit to its window in one statement; answers each window's count after it (in the order given). */
  async add(hits: readonly WindowHit[]): Promise<number[]> {
    const r = await sql<{ scope: string; key: string; window: string | number; n: string | number }>`
      insert into limit_windows (scope, key, "window", n)
      select * from unnest(${hits.map((h) => h.scope)}::text[], ${hits.map((h) => h.key)}::text[], ${hits.map((h) => h.window)}::bigint[], ${hits.map((h) => h.n)}::bigint[])
      on conflict (scope, key, "window") do update set n = limit_windows.n + excluded.n
      returning scope, key, "window", n`.execute(this.db);
    const after = new Map(r.rows.map((x) => [`${x.scope}\0${x.key}\0${Number(x.window)}`, Number(x.n)]));
    return hits.map((h) => after.get(`${h.scope}\0${h.key}\0${h.window}`) ?? 0);
  }

  /** Forgets windows that started before `before`. */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('limit_windows').where('window', '<', before).execute();
  }

  /**
   * Writes this instance's counts of what it holds (every key it holds something of, and the keys it released since
   * the last exchange, as 0), and answers the sums the other live instances hold (rows refreshed after
   * `aliveAfter`), per scope and key: one statement.
   */
  async exchange(
    instance: string,
    mine: ReadonlyArray<{ scope: string; key: string; n: number }>,
    now: number,
    aliveAfter: number,
  ): Promise<Array<{ scope: string; key: string; n: number }>> {
    const r = await sql<{ scope: string; key: string; n: string | number }>`
      with written as (
        insert into limit_holds (scope, key, instance, n, seen_at)
        select s, k, ${instance}, n, ${now} from unnest(${mine.map((m) => m.scope)}::text[], ${mine.map((m) => m.key)}::text[], ${mine.map((m) => m.n)}::bigint[]) as t(s, k, n)
        on conflict (scope, key, instance) do update set n = excluded.n, seen_at = excluded.seen_at
        returning 1
      )
      select scope, key, sum(n) as n from limit_holds
      where instance <> ${instance} and seen_at >= ${aliveAfter} and n > 0
      group by scope, key`.execute(this.db);
    return r.rows.map((x) => ({ scope: x.scope, key: x.key, n: Number(x.n) }));
  }

  /** Forgets released holds and the rows of instances that stopped refreshing theirs. */
  async pruneHolds(aliveAfter: number): Promise<void> {
    await this.db
      .deleteFrom('limit_holds')
      .where((eb) => eb.or([eb('n', '<=', 0), eb('seen_at', '<', aliveAfter)]))
      .execute();
  }
}
