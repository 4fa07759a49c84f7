// Opens the store on PostgreSQL (issue 20, CONTRACT §8): Kysely's PostgresDialect over a pg Pool, the same migrations
// as SQLite (PostgresTypesPlugin turns their integer/blob into bigint/bytea). The URL never carries a password (it
// would show in `ps`, shell history and logs): the password comes from INBOXD_DATABASE_PASSWORD or PGPASSWORD.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PostgresTypesPlugin } from './dialect.ts';
import type { PgTarget } from './pg-url.ts';
import { isAppendable, isDeferrable, statementName } from './prepared.ts';
import type { Database } from './schema.ts';

export { type PgTarget, parsePgUrl } from './pg-url.ts';

/**
 * Result parsers for this pool only (pg's global table stays untouched): bigint (int8, what every `integer` column
 * and count(*) becomes) and numeric (sum()) as JavaScript numbers, as SQLite returns them. Times are milliseconds and
 * sizes bytes, far below 2^53.
 */
function poolTypes(): pg.CustomTypesConfig {
  const asNumber = (v: string) => Number(v);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === 20 || oid === 1700 ? asNumber : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export interface PgOpenOptions {
  poolSize: number;
  password?: string;
  /** Seconds to wait for a connection before a start fails. */
  connectTimeoutSeconds?: number;
}

export function pgClientConfig(target: PgTarget, o: { password?: string; connectTimeoutSeconds?: number }): pg.ClientConfig {
  return {
    // pg reads a connection string over every other field, a missing password included: a `password` beside it was
    // dropped, so INBOXD_DATABASE_PASSWORD never reached the server. The password goes into this in-memory copy
    // only; target.url, which messages and the store show, stays without it.
    connectionString: withPassword(target.url, o.password),
    types: poolTypes(),
    application_name: 'inboxd',
    connectionTimeoutMillis: (o.connectTimeoutSeconds ?? 10) * 1000,
    // A COMMIT is durable when it returns (the 250 rule, CONTRACT §2): forced per session whatever the server default.
    options: '-c synchronous_commit=on',
  };
}

/** The URL with `password` as its (percent-encoded) password; unchanged without one (pg then reads PGPASSWORD). */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.href;
}

export function pgClient(target: PgTarget, o: { password?: string; connectTimeoutSeconds?: number }): pg.Client {
  return new pg.Client(pgClientConfig(target, o));
}

export function pgPool(target: PgTarget, o: PgOpenOptions): pg.Pool {
  const pool = new pg.Pool({ ...pgClientConfig(target, o), max: o.poolSize, idleTimeoutMillis: 30_000 });
  // An idle connection dropped by the server (restart, idle timeout) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // A connection lost while checked out between two queries (inside a transaction) emits an error with no pool
  // listener attached: without this it would be an uncaught exception. Its queries fail (and the caller sees that).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function pgKysely(pool: pg.Pool): Kysely<Database> {
  const pipelined = { connect: async () => new PipelinedClient(await pool.connect()), end: () => pool.end() };
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: pipelined as unknown as pg.Pool }),
    plugins: [new PostgresTypesPlugin()],
  });
}

type Values = readonly unknown[] | undefined;

/**
 * A pool connection as Kysely sees it, with two changes on the wire (issue 33):
 * - a precompiled query's text (src/store/prepared.ts) goes as a named prepared statement: parsed and planned once
 *   per connection, then only bound and executed;
 * - inside a transaction, a precompiled write marked deferrable is pipelined: sent at once and answered at once
 *   (its result is read by nobody), so the next statement does not wait a round trip for it. The connection runs
 *   in pg's pipeline mode for the transaction, so statements keep their order on the server. A deferred write's
 *   error is the error of every later statement of the transaction and of COMMIT, which waits for all of them
 *   first: nothing is acknowledged that is not committed.
 */
class PipelinedClient {
  private readonly c: pg.PoolClient & { pipeline: boolean };
  private inTx = false;
  private pending: Array<Promise<unknown>> = [];
  private failed: { error: unknown } | null = null;
  /** Deferred writes not sent yet, in order; the rows of an appendable INSERT gather in its first entry. */
  private buffered: Array<{ text: string; name?: string; rows: unknown[][] }> = [];
  private gathering = new Map<string, { text: string; name?: string; rows: unknown[][] }>();
  /** Deferred writes go out once the caller waits for something else (its other I/O), at the latest at COMMIT. */
  private flushSoon: NodeJS.Immediate | null = null;
  /** BEGIN, until the transaction's first statement goes out (behind it, in one write). */
  private begin: pg.QueryConfig | null = null;

  constructor(c: pg.PoolClient) {
    this.c = c as pg.PoolClient & { pipeline: boolean };
  }

  /** Read by Kysely (an undocumented member of pg's Client) to cancel a query. */
  get processID(): number | undefined {
    return (this.c as unknown as { processID?: number }).processID;
  }

  release(err?: Error | boolean): void {
    this.c.release(err);
  }

  query(text: unknown, values?: Values): Promise<pg.QueryResult> {
    // A cursor (Kysely's stream) or anything else that is not a text goes through as it is.
    if (typeof text !== 'string') return this.c.query(text as pg.QueryConfig, values as unknown[]);
    const name = statementName(text);
    const config: pg.QueryConfig = { text, values: values as unknown[], ...(name ? { name } : {}) };
    if (this.inTx) {
      if (text === 'commit') return this.commit(config);
      if (text === 'rollback') return this.rollback(config);
      if (this.failed) return Promise.reject(this.failed.error);
      if (isDeferrable(text)) {
        const rows = [...((values ?? []) as unknown[])];
        const same = isAppendable(text) ? this.gathering.get(text) : undefined;
        if (same) same.rows.push(rows);
        else {
          const entry = { text, ...(name ? { name } : {}), rows: [rows] };
          this.buffered.push(entry);
          if (isAppendable(text)) this.gathering.set(text, entry);
        }
        this.flushSoon ??= setImmediate(() => {
          this.flushSoon = null;
          this.corked(() => this.flush());
        });
        return Promise.resolve({ command: 'INSERT', rowCount: 1, rows: [], oid: 0, fields: [] });
      }
      // The deferred writes and this statement leave in one write to the socket.
      const answered = this.corked(() => {
        this.flush();
        return this.c.query(config);
      });
      // A statement behind a failed deferred write fails with "current transaction is aborted": the cause is that write.
      return answered.catch((e: unknown) => {
        throw this.failed ? this.failed.error : e;
      });
    }
    if (text === 'begin' || text.startsWith('start transaction')) {
      this.inTx = true;
      this.c.pipeline = true;
      // Pipelined as well, and held until the transaction's first statement, which goes in the same write to the
      // socket right behind it (and fails if it did).
      this.begin = config;
      return Promise.resolve({ command: 'BEGIN', rowCount: null, rows: [], oid: 0, fields: [] });
    }
    return this.c.query(config);
  }

  /**
   * Runs `fn` with the socket corked: pg writes each statement's messages as one chunk (it corks per statement), so
   * a flush of n pipelined statements was n writes to the socket, each a system call; corked, they leave as one.
   */
  private corked<T>(fn: () => T): T {
    const stream = (this.c as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
    stream?.cork?.();
    try {
      return fn();
    } finally {
      stream?.uncork?.();
    }
  }

  /**
   * Sends the deferred writes (pipelined: nothing waits for them here), an appendable INSERT's rows as one statement:
   * before a statement that is answered, at COMMIT, or when the caller's code waits for other I/O (then they run on
   * the server while it waits, e.g. for the batch's blob files).
   */
  private flush(): void {
    if (!this.inTx) return;
    if (this.begin) {
      this.pending.push(
        this.c.query(this.begin).catch((e: unknown) => {
          this.failed ??= { error: e };
        }),
      );
      this.begin = null;
    }
    for (const e of this.buffered) {
      const merged = e.rows.length > 1 ? multiRow(e.text, e.rows.length) : null;
      const configs: pg.QueryConfig[] = merged
        ? [{ text: merged, values: e.rows.flat() }]
        : e.rows.map((r) => ({ text: e.text, values: r, ...(e.name ? { name: e.name } : {}) }));
      for (const config of configs)
        this.pending.push(
          this.c.query(config).catch((err: unknown) => {
            this.failed ??= { error: err };
          }),
        );
    }
    this.buffered = [];
    this.gathering.clear();
  }

  /**
   * COMMIT goes right behind the last deferred writes (one write to the socket, no round trip waited for first), and
   * is answered only once every one of them is: a transaction in which one failed is ended by PostgreSQL as a
   * ROLLBACK (its answer to COMMIT in a failed transaction), and the caller gets that write's error.
   */
  private async commit(config: pg.QueryConfig): Promise<pg.QueryResult> {
    try {
      const committed = this.corked(() => {
        this.flush();
        return this.c.query(config);
      });
      committed.catch(() => undefined); // awaited below, after the writes in front of it
      await Promise.all(this.pending);
      if (this.failed) {
        await committed.catch(() => undefined);
        throw this.failed.error;
      }
      const out = await committed;
      if (out.command !== 'COMMIT') throw new Error(`PostgreSQL answered COMMIT with ${out.command}: the transaction was not committed`);
      return out;
    } finally {
      this.end();
    }
  }

  private async rollback(config: pg.QueryConfig): Promise<pg.QueryResult> {
    // The writes not sent yet are dropped here, before ROLLBACK: none may follow it (they would commit on their own).
    this.discard();
    if (this.begin) {
      // Nothing of the transaction reached the server.
      this.end();
      return { command: 'ROLLBACK', rowCount: null, rows: [], oid: 0, fields: [] };
    }
    try {
      const [out] = await Promise.all([this.c.query(config), ...this.pending]);
      return out as pg.QueryResult;
    } finally {
      this.end();
    }
  }

  /** Drops the deferred writes not sent yet. */
  private discard(): void {
    if (this.flushSoon) clearImmediate(this.flushSoon);
    this.flushSoon = null;
    this.buffered = [];
    this.gathering.clear();
  }

  /** Back to one statement at a time, with nothing in flight. */
  private end(): void {
    this.discard();
    this.begin = null;
    this.inTx = false;
    this.pending = [];
    this.failed = null;
    this.c.pipeline = false;
  }
}

const multiRowTexts = new Map<string, string | null>();

/**
 * `insert into t (a, b) values ($1, $2)` for n rows: `… values ($1, $2), ($3, $4), …`; null when the text is not
 * that plain form (then each row goes as its own statement, in order).
 */
function multiRow(text: string, n: number): string | null {
  const key = `${n}\u0000${text}`;
  let out = multiRowTexts.get(key);
  if (out !== undefined) return out;
  const m = /^(insert into [^;]* values )\((\$1(?:, \$\d+)*)\)$/s.exec(text);
  const k = m ? m[2]!.split(', ').length : 0;
  const plain = m !== null && m[2]!.split(', ').every((p, i) => p === `$${i + 1}`);
  out = plain
    ? m![1]! + Array.from({ length: n }, (_, r) => `(${Array.from({ length: k }, (_, c) => `$${r * k + c + 1}`).join(', ')})`).join(', ')
    : null;
  if (multiRowTexts.size < 4096) multiRowTexts.set(key, out);
  return out;
}

/** A connection failure as one line that names host:port and what to check (never the password). */
export function describePgError(target: PgTarget, e: unknown): string {
  const err = e as Error & { code?: string };
  const at = `PostgreSQL at ${target.where}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `cannot reach ${at} (connection refused): check that PostgreSQL runs and listens there (listen_addresses, port) and that --database names the right host and port`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot reach ${at}: the host name does not resolve; check the host in --database`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${at} (${err.code}): check the network path and firewall to that host and port`;
    case '28P01':
    case '28000':
      return `${at} refused the login of user ${target.user ?? '(default)'} (${err.message}); check the user in --database, pg_hba.conf, and the password in INBOXD_DATABASE_PASSWORD or PGPASSWORD`;
    case '3D000':
      return `${at} has no database "${target.database}"; create it (createdb ${target.database}) or fix the name in --database`;
    case '42501':
      return `${at}: user ${target.user ?? '(default)'} lacks a privilege inboxd needs (${err.message}); it must be able to create tables in database "${target.database}"`;
  }
  // The driver's own words when the server asks for a password and none was given (SCRAM or MD5).
  if (/password must be a string|password must be a non-empty string/i.test(err.message))
    return `${at} asks for the password of user ${target.user ?? '(default)'} and none was given: set INBOXD_DATABASE_PASSWORD (or PGPASSWORD, or a ~/.pgpass line)`;
  if (/timeout/i.test(err.message)) return `cannot reach ${at} within the connect timeout: check that it runs and the network path to it`;
  return `${at}: ${err.message}`;
}
