// The retry schedule shared by everything inboxd delivers with retries: callbacks (CONTRACT §5) and outbound mail
// through the relay (CONTRACT §9, src/outbound/). One schedule, one rule for when it is used up.

/** Delays before attempts 2-6: about 5 s, 30 s, 2 min, 10 min, 30 min (6 attempts in all). */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000];

/**
 * After attempt number `attempt` (1-based) failed at `at` and may be retried: when the next attempt is due, or null
 * when the schedule is used up (the delivery is then given up).
 */
export function nextRetryAt(attempt: number, delays: readonly number[], at: number): number | null {
  return attempt > delays.length ? null : at + delays[attempt - 1]!;
}
