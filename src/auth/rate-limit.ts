// Requests per minute per key (--rate-limit), counted in one-minute windows in memory.
import { AppError } from '../errors.ts';

export class RateLimiter {
  private readonly perMinute: number;
  private readonly now: () => number;
  private window = 0;
  private counts = new Map<string, number>();

  constructor(perMinute: number, now: () => number) {
    this.perMinute = perMinute;
    this.now = now;
  }

  /** Counts one request of `keyId`; throws 429 with Retry-After when the key is over its limit. */
  hit(keyId: string): void {
    if (this.perMinute <= 0) return;
    const now = this.now();
    const window = Math.floor(now / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const n = (this.counts.get(keyId) ?? 0) + 1;
    this.counts.set(keyId, n);
    if (n > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
      throw new AppError(
        'rate_limited',
        `this key made more than ${this.perMinute} requests this minute (--rate-limit); retry in ${retryAfter} s`,
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    }
  }
}
