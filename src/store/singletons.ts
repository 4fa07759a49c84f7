// Jobs that must run once per cluster on PostgreSQL (expiry sweep, audit retention, monitors, orphan sweep): each
// job is led by the instance holding its session advisory lock, taken with pg_try_advisory_lock on one dedicated
// connection and kept while that connection lives. An instance that stops or dies drops its connection, the server
// frees its locks, and another instance takes the job over at its next tick. No lease table, no clock skew.
import type pg from 'pg';

/** A stable 64-bit lock key per job name (the first 8 bytes of its sha256, as a signed bigint text). */
async function lockKey(job: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(`inboxd:${job}`).digest().readBigInt64BE(0).toString();
}

export class Singletons {
  private readonly connect: () => pg.Client;
  private client: Promise<pg.Client> | null = null;
  private readonly held = new Set<string>();
  private closed = false;

  constructor(connect: () => pg.Client) {
    this.connect = connect;
  }

  private conn(): Promise<pg.Client> {
    this.client ??= (async () => {
      const c = this.connect();
      c.on('error', () => this.drop(c));
      c.on('end', () => this.drop(c));
      await c.connect();
      return c;
    })().catch((e: unknown) => {
      this.client = null;
      throw e;
    });
    return this.client;
  }

  /** The connection went away: the server released its locks, so this instance leads nothing any more. */
  private drop(c: pg.Client): void {
    this.held.clear();
    void this.client?.then((cur) => {
      if (cur === c) this.client = null;
    });
  }

  /** Whether this instance leads `job` (taking the lead when free). False, not an error, when the database is away. */
  async leads(job: string): Promise<boolean> {
    if (this.closed) return false;
    if (this.held.has(job)) return true;
    try {
      const c = await this.conn();
      const r = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [await lockKey(job)]);
      if (r.rows[0]?.ok) this.held.add(job);
      return this.held.has(job);
    } catch {
      return false;
    }
  }

  /** The jobs this instance leads now, by name. */
  leading(): string[] {
    return [...this.held].sort();
  }

  async run(job: string, fn: () => Promise<unknown>): Promise<boolean> {
    if (!(await this.leads(job))) return false;
    await fn();
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.held.clear();
    const c = await this.client?.catch(() => null);
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
