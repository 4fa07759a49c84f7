// Events per minute per key (--rate-limit: requests per API key; --max-sends-per-minute: sends per team), counted in
// one-minute windows in memory.
import { AppError } from '../errors.ts';

export class RateLimiter {
  private readonly perMinute: number;
  private readonly now: () => number;
  /** The 429 text: what was counted, e.g. `this key made more than 600 requests this minute (--rate-limit)`. */
  private readonly overLimit: (perMinute: number) => string;
  private window = 0;
  private counts = new Map<string, number>();

  constructor(
    perMinute: number,
    now: () => number,
    overLimit: (perMinute: number) => string = (n) => `this key made more than ${n} requests this minute (--rate-limit)`,
  ) {
    this.perMinute = perMinute;
    this.now = now;
    this.overLimit = overLimit;
  }

  /** Counts one event of `key`; throws 429 with Retry-After when the key is over its limit (0 = no limit). */
  hit(key: string): void {
    if (this.perMinute <= 0) return;
    const now = this.now();
    const window = Math.floor(now / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
      throw new AppError('rate_limited', `${this.overLimit(this.perMinute)}; retry in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }
}
