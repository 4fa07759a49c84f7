// Monitors (CONTRACT §13) as one service: create (under the team's cap), list, delete, run on demand (one at a time
// per team) and the scheduler that runs due monitors every tick. A monitor watches one inbox, so a scoped key sees
// the monitors of its inboxes. The scheduler reads time from the injected clock, so tests move it and call tick().
// Built once by the composition root, which starts and stops it.

import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import { decodeCursor } from '../lib/cursor.ts';
import type { Logger } from '../log.ts';
import type { Dialect } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { MonitorRepo } from './monitor-repo.ts';
import { inTurns, type MonitorKind, type MonitorLimits, type MonitorParams, runMonitor, type TickBudget } from './monitors.ts';
import { type MonitorRow, type MonitorRunRow, wsId } from './tables.ts';

/** Due monitors looked at per tick (id and team only); more stay due for the next tick. */
const DUE_SCAN = 10_000;
/** Monitors a listing shows. */
const LIST_MAX = 500;

const yieldNow = () => new Promise<void>((r) => setImmediate(r));

export interface NewMonitor {
  name: string;
  kind: MonitorKind;
  inboxId: string;
  from?: string | undefined;
  subjectContains?: string | undefined;
  textContains?: string | undefined;
  withinMinutes?: number | undefined;
  hours?: number | undefined;
  intervalSeconds: number;
  enabled: boolean;
}

export interface MonitorDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  now: () => number;
  log: Logger;
  inboxes: Pick<InboxService, 'get'>;
  limits: MonitorLimits;
  /** --max-monitors-per-team */
  maxPerTeam: number;
  /** Aborted when the server begins to stop: a tick starts no more runs. */
  shutdown: AbortSignal;
}

export class MonitorService {
  private readonly d: MonitorDeps;
  private readonly repo: MonitorRepo;
  /** Teams with a run on demand in progress. */
  private readonly manualRuns = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<MonitorRunRow[]> | null = null;

  constructor(d: MonitorDeps) {
    this.d = d;
    this.repo = new MonitorRepo(d.db, d.dialect);
  }

  async create(p: Principal, input: NewMonitor): Promise<MonitorRow> {
    const inbox = await this.d.inboxes.get(p, input.inboxId);
    const now = this.d.now();
    const params: MonitorParams = { inboxId: inbox.id };
    for (const k of ['from', 'subjectContains', 'textContains', 'withinMinutes', 'hours'] as const)
      if (input[k] !== undefined) (params as unknown as Record<string, unknown>)[k] = input[k];
    const row: MonitorRow = {
      id: wsId('mon'),
      team_id: p.teamId,
      name: input.name,
      kind: input.kind,
      params_json: JSON.stringify(params),
      interval_seconds: input.intervalSeconds,
      enabled: input.enabled ? 1 : 0,
      next_run_at: now + input.intervalSeconds * 1000,
      last_run_at: null,
      last_status: null,
      created_at: now,
      created_by: p.keyId,
    };
    const cap = this.d.maxPerTeam;
    if (!(await this.repo.insertUnderCap(row, cap)))
      throw new AppError(
        'conflict',
        `this team already has ${cap} monitors, the most a team may have (--max-monitors-per-team); delete one (DELETE /v1/workspace/monitors/:id) or ask the operator to raise --max-monitors-per-team`,
      );
    return row;
  }

  /** The team's monitors this key can see, oldest first. */
  async list(p: Principal): Promise<MonitorRow[]> {
    const out: MonitorRow[] = [];
    for (const m of await this.repo.list(p.teamId, LIST_MAX)) if (await this.maySee(p, m)) out.push(m);
    return out;
  }

  /** Deletes the monitor and all of its runs; the scheduler stops running it at once. */
  async delete(p: Principal, id: string): Promise<MonitorRow> {
    const m = await this.visible(p, id);
    await this.repo.delete(m.id);
    return m;
  }

  /** Runs the monitor now (its schedule does not move). One run on demand per team at a time (429 otherwise). */
  async runNow(p: Principal, id: string): Promise<MonitorRunRow> {
    const m = await this.visible(p, id);
    // A run reads mail within its caps; runs on demand of one team are also taken one at a time, so a loop of
    // run-now calls cannot multiply that work.
    if (this.manualRuns.has(m.team_id))
      throw new AppError('rate_limited', 'a monitor of this team is already running on demand; retry when it has finished', {
        headers: { 'Retry-After': '1' },
      });
    this.manualRuns.add(m.team_id);
    try {
      return await runMonitor(this.repo, this.d.limits, this.d.now(), m, 'manual');
    } finally {
      this.manualRuns.delete(m.team_id);
    }
  }

  /**
   * A monitor's stored runs, newest first, after the page `cursor` ended (`{s: seq}`); `limit + 1` rows (the extra one
   * says there is a next page). An unknown monitor is 404 before a bad cursor is 400.
   */
  async runs(p: Principal, id: string, cursor: string | undefined, limit: number): Promise<MonitorRunRow[]> {
    const m = await this.visible(p, id);
    const before = decodeCursor(cursor, (v): v is { s: number } => typeof (v as { s?: unknown })?.s === 'number');
    return this.repo.runs(m.id, before?.s, limit);
  }

  /** The monitor, if it is the team's and (for a scoped key) watches an inbox in its scope; 404 otherwise. */
  private async visible(p: Principal, id: string): Promise<MonitorRow> {
    const m = await this.repo.get(p.teamId, id);
    if (!m || !(await this.maySee(p, m))) throw new AppError('not_found', `no monitor ${id} (GET /v1/workspace/monitors lists yours)`);
    return m;
  }

  /** A scoped key sees a monitor only while its inbox exists and is in the key's scope. */
  private async maySee(p: Principal, m: MonitorRow): Promise<boolean> {
    if (p.scope.labelPrefix === null) return true;
    return this.d.inboxes.get(p, (JSON.parse(m.params_json) as MonitorParams).inboxId).then(
      () => true,
      () => false,
    );
  }

  /** Ticks every `intervalMs` until stopped (SQLite; on PostgreSQL the composition root ticks on one instance). */
  start(intervalMs: number): void {
    this.timer = setInterval(
      () => void this.tick().catch((e: Error) => this.d.log.error('workspace monitor tick failed', { err: e })),
      intervalMs,
    );
    this.timer.unref();
  }

  /**
   * Runs enabled monitors whose time has come, in turns between teams, until the tick's time or byte budget is spent;
   * returns the runs made. Serialised: a slow tick never overlaps the next. Monitors left over stay due.
   */
  tick(): Promise<MonitorRunRow[]> {
    this.running ??= this.due().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async due(): Promise<MonitorRunRow[]> {
    const lim = this.d.limits;
    const started = performance.now();
    const budget: TickBudget = { bytesLeft: lim.tickBytes };
    const now = this.d.now();
    const order = inTurns(await this.repo.due(now, DUE_SCAN));
    const out: MonitorRunRow[] = [];
    for (const [i, d] of order.entries()) {
      if (this.d.shutdown.aborted) break;
      const overTime = performance.now() - started >= lim.tickMs;
      if (overTime || budget.bytesLeft <= 0) {
        this.d.log.warn('workspace monitors left for the next tick', {
          due: order.length - i,
          ran: out.length,
          reason: overTime ? `the tick's ${lim.tickMs} ms (--monitor-tick-ms)` : `the tick's ${lim.tickBytes} bytes (--monitor-tick-bytes)`,
        });
        break;
      }
      const m = await this.repo.stillDue(d.id, now);
      if (!m) continue;
      out.push(await runMonitor(this.repo, lim, this.d.now(), m, 'schedule', budget));
      await yieldNow();
    }
    return out;
  }

  /** Stops the timer and waits for a tick in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}
