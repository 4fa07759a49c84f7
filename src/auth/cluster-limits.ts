// Limits that hold across the instances of a cluster (issue 33, README "Scaling out"), on PostgreSQL:
// - `SharedWindows` counts events (requests per key, sends per team) in fixed windows of the `limit_windows` table:
//   every event is one row of one upsert, and the events of one tick of the event loop share that statement — at
//   most one round trip per request, exact while the database answers (no overshoot inside a window).
// - `SharedHolds` shares what each instance holds open (waits per key, per team, in all): each instance counts its
//   own in memory, as on one instance, and once a second writes its counts and reads the other instances' sums in
//   one statement; a check adds the two (no round trip on the request's path). A burst can overshoot by what the
//   other instances admitted since their last exchange (bounded by their own caps), for about a second.
// When the database does not answer, the limits fail open to this instance's own counts (each instance then allows
// what one instance would), and say so in the log once a minute.
import crypto from 'node:crypto';
import type { Logger } from '../log.ts';
import type { LimitRepo, WindowHit } from './limit-repo.ts';

const WARN_EVERY_MS = 60_000;

export class SharedWindows {
  private readonly repo: LimitRepo;
  private readonly log: Logger;
  private readonly now: () => number;
  private queued: Array<WindowHit & { done: (n: number | null) => void }> = [];
  private flushing = false;
  private lastWarn = 0;
  private lastPrune = 0;

  constructor(d: { repo: LimitRepo; log: Logger; now: () => number }) {
    this.repo = d.repo;
    this.log = d.log;
    this.now = d.now;
  }

  /** Counts one event of `key` in `scope`'s window starting at `window`: its count after this one, or null (no database). */
  add(scope: string, key: string, window: number): Promise<number | null> {
    return new Promise((done) => {
      this.queued.push({ scope, key, window, n: 1, done });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, 1000);
      // One row per window: the events of one key in one tick add up, and each gets its own place in the count.
      const rows = new Map<string, WindowHit>();
      for (const h of batch) {
        const id = `${h.scope}\0${h.key}\0${h.window}`;
        const r = rows.get(id);
        if (r) r.n++;
        else rows.set(id, { scope: h.scope, key: h.key, window: h.window, n: 1 });
      }
      const list = [...rows.values()];
      try {
        const after = await this.repo.add(list);
        const place = new Map(list.map((r, i) => [`${r.scope}\0${r.key}\0${r.window}`, after[i]! - r.n]));
        for (const h of batch) {
          const id = `${h.scope}\0${h.key}\0${h.window}`;
          const n = place.get(id)! + 1;
          place.set(id, n);
          h.done(n);
        }
      } catch (e) {
        this.warn(e);
        for (const h of batch) h.done(null);
      }
    }
    this.flushing = false;
    const now = this.now();
    if (now - this.lastPrune > 60_000) {
      this.lastPrune = now;
      this.repo.prune(now - 60 * 60_000).catch(() => undefined);
    }
  }

  private warn(e: unknown): void {
    const now = this.now();
    if (now - this.lastWarn < WARN_EVERY_MS) return;
    this.lastWarn = now;
    this.log.warn('limits could not be counted in the database; each instance counts its own until it answers', { err: e as Error });
  }
}

/** Counts of what the other instances hold open, refreshed by exchanging this instance's own every `intervalMs`. */
export class SharedHolds {
  readonly instance = crypto.randomUUID();
  private readonly repo: LimitRepo;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly mine = new Map<string, number>();
  private readonly released = new Set<string>();
  private elsewhere = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastWarn = 0;
  private exchanges = 0;

  constructor(d: { repo: LimitRepo; log: Logger; intervalMs?: number }) {
    this.repo = d.repo;
    this.log = d.log;
    this.intervalMs = d.intervalMs ?? 1000;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.exchange(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    // What this instance held is given back at once (its rows would otherwise count until they go stale).
    for (const k of this.mine.keys()) this.released.add(k);
    this.mine.clear();
    await this.exchange();
  }

  /** What the other instances hold of `scope`/`key` (as of the last exchange). */
  others(scope: string, key: string): number {
    return this.elsewhere.get(`${scope}\0${key}`) ?? 0;
  }

  /** This instance now holds `n` of `scope`/`key`. */
  set(scope: string, key: string, n: number): void {
    const id = `${scope}\0${key}`;
    if (n > 0) {
      this.mine.set(id, n);
      this.released.delete(id);
    } else if (this.mine.delete(id)) this.released.add(id);
  }

  /** Writes this instance's counts and reads the others' (also run by the timer). */
  exchange(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    const rows = [...this.mine].map(([id, n]) => ({ id, n }));
    for (const id of this.released) rows.push({ id, n: 0 });
    const released = [...this.released];
    this.released.clear();
    // Real time, not the server's clock (tests move that): liveness of the instances' rows.
    const now = Date.now();
    const aliveAfter = now - 10 * this.intervalMs - 5_000;
    try {
      const sums = await this.repo.exchange(
        this.instance,
        rows.map(({ id, n }) => {
          const [scope, key] = id.split('\0') as [string, string];
          return { scope, key, n };
        }),
        now,
        aliveAfter,
      );
      this.elsewhere = new Map(sums.map((s) => [`${s.scope}\0${s.key}`, s.n]));
      if (++this.exchanges % 60 === 0) await this.repo.pruneHolds(aliveAfter);
    } catch (e) {
      for (const id of released) if (!this.mine.has(id)) this.released.add(id);
      // Fail open: only this instance's own counts apply until the database answers again.
      this.elsewhere = new Map();
      if (now - this.lastWarn >= WARN_EVERY_MS) {
        this.lastWarn = now;
        this.log.warn('open waits could not be shared through the database; each instance counts its own until it answers', {
          err: e as Error,
        });
      }
    }
  }
}
