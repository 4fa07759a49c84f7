// Addresses whose inbox the RCPT check saw in the last seconds, so that on PostgreSQL a stream of mail to one inbox does
// not cost a round trip per recipient when no per-inbox limit (--max-messages-per-inbox) can refuse it.
//
// Why an answer up to TTL_MS old is safe: the RCPT check is the early, polite form of limits the writer enforces again
// in the transaction that stores the mail. Only a positive is kept ("an inbox takes this address"), and with no per-
// inbox limit that always means "welcome". If the inbox was deleted meanwhile (here the cache is cleared at once; on
// another instance it lasts at most TTL_MS), the mail is stored as unclaimed, and the unclaimed limits are counted in
// that same transaction: a refusal then comes at the end of DATA instead of at RCPT. A new inbox is never missed,
// because absence is never kept.
const TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

export class RecentInboxes {
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;

  /** `now`: real time (not a test's frozen clock): the TTL bounds how long a deletion elsewhere takes to be seen. */
  constructor(now: () => number) {
    this.now = now;
  }

  has(address: string): boolean {
    const at = this.seen.get(address);
    if (at === undefined) return false;
    if (this.now() - at < TTL_MS) return true;
    this.seen.delete(address);
    return false;
  }

  add(address: string): void {
    // Oldest first out (a Map keeps insertion order): a flood of addresses cannot grow it past its bound.
    this.seen.delete(address);
    if (this.seen.size >= MAX_ENTRIES) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(address, this.now());
  }

  clear(): void {
    this.seen.clear();
  }
}
