// Opens the store on PostgreSQL (issue 20, CONTRACT §8): Kysely's PostgresDialect over a pg Pool, the same migrations
// as SQLite (PostgresTypesPlugin turns their integer/blob into bigint/bytea). The URL never carries a password (it
// would show in `ps`, shell history and logs): the password comes from INBOXD_DATABASE_PASSWORD or PGPASSWORD.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PostgresTypesPlugin } from './dialect.ts';
import type { PgTarget } from './pg-url.ts';
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
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new PostgresTypesPlugin()] });
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
