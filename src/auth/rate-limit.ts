// Events per minute per key (--rate-limit: requests per API key; --max-sends-per-minute: sends per team), counted in
// one-minute windows: in memory on one instance; on PostgreSQL in the database, so the limit holds across the
// instances of a cluster (src/auth/cluster-limits.ts; the database unreachable: this instance's own count applies).
import { AppError } from '../errors.ts';
import type { SharedWindows } from './cluster-limits.ts';

/** Where a cluster counts: the shared windows and this limiter's scope in them ('rate', 'send'). */
export interface SharedCount {
  windows: SharedWindows;
  scope: string;
}

export class RateLimiter {
  private readonly perMinute: number;
  private readonly now: () => number;
  /** The 429 text: what was counted, e.g. `this key made more than 600 requests this minute (--rate-limit)`. */
  private readonly overLimit: (perMinute: number) => string;
  private readonly shared: SharedCount | null;
  private window = 0;
  private counts = new Map<string, number>();

  constructor(
    perMinute: number,
    now: () => number,
    overLimit: (perMinute: number) => string = (n) => `this key made more than ${n} requests this minute (--rate-limit)`,
    shared: SharedCount | null = null,
  ) {
    this.perMinute = perMinute;
    this.now = now;
    this.overLimit = overLimit;
    this.shared = shared;
  }

  /**
   * Counts one event of `key`; throws (or, counted in the database, rejects) 429 with Retry-After when the key is over
   * its limit (0 = no limit). On one instance it answers at once, without a promise.
   */
  hit(key: string): undefined | Promise<void> {
    if (this.perMinute <= 0) return;
    const now = this.now();
    const window = Math.floor(now / 60_000);
    if (!this.shared) return this.check(now, window, this.countHere(window, key));
    return this.shared.windows
      .add(this.shared.scope, key, window * 60_000)
      .then((n) => this.check(now, window, n ?? this.countHere(window, key)));
  }

  private countHere(window: number, key: string): number {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }

  private check(now: number, window: number, n: number): undefined {
    if (n > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
      throw new AppError('rate_limited', `${this.overLimit(this.perMinute)}; retry in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }
}
