// Opens the store: SQLite by default (checks the file really is a database before touching it, sets WAL and foreign
// keys), or PostgreSQL with --database (src/store/pg.ts); both apply pending migrations. Everything above this module
// speaks Kysely, so the dialect stays a setting.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { type MigrationProvider, Migrator } from 'kysely/migration';
import type pg from 'pg';
import type { Dialect } from './dialect.ts';
import { MIGRATIONS } from './migrations/index.ts';
import type { PgOpenOptions, PgTarget } from './pg.ts';
import type { Database } from './schema.ts';
import { Singletons } from './singletons.ts';
import { nativeBindingOption } from './sqlite-native.ts';
import { syncFolder, walSyncer } from './wal.ts';

export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * SQLite only (absent on PostgreSQL): the raw connection, for the segment index (src/store/segments.ts) and
   * compaction, which exist on SQLite only; on PostgreSQL blobs are files (or S3) and need neither.
   */
  sqlite?: BetterSqlite3.Database;
  /** The SQLite file, or the PostgreSQL URL (password-free by construction). */
  file: string;
  /** PostgreSQL only: a new client outside the pool, with the pool's settings (the event bus's LISTEN connection). */
  newPgClient?: () => pg.Client;
  /**
   * Runs a job that must run once per cluster (sweeps, schedulers): on PostgreSQL only on the instance that holds
   * the job's advisory lock (held until it stops or loses its connection; another instance takes over then); on
   * SQLite always (one data dir, one server). Resolves to whether it ran.
   */
  singleton(job: string, fn: () => Promise<unknown>): Promise<boolean>;
  /** The jobs `singleton` runs here now (the cluster view): the advisory locks held on PostgreSQL, every job run on SQLite. */
  leading(): string[];
  /** Bytes the database occupies (the file and its WAL; pg_database_size on PostgreSQL). */
  sizeBytes(): Promise<number>;
  /**
   * Makes every committed transaction durable: one fsync of the WAL file, on the thread pool (the store runs
   * synchronous=NORMAL, so a commit itself only writes; see "Storage and durability" in the README).
   */
  syncWal(): Promise<void>;
  close(): Promise<void>;
}

/** The SQLite store: its raw connection is always there. */
export interface SqliteStore extends Store {
  sqlite: BetterSqlite3.Database;
}

export async function openStore(file: string): Promise<SqliteStore> {
  const exists = fs.existsSync(file);
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file, { ...nativeBindingOption(), fileMustExist: exists });
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${file}: ${(e as Error).message}`);
  }
  try {
    // A read that fails on a file that is not SQLite, before any write (WAL switch, migration) could alter it.
    sqlite.pragma('schema_version', { simple: true });
  } catch (e) {
    sqlite.close();
    throw new StoreOpenError(
      `${file} is not a usable inboxd database (${(e as Error).message}); it was left untouched — move it away or point --data-dir elsewhere`,
    );
  }
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('temp_store = MEMORY');
    // 16 MB of page cache (was 64): it fills during a burst of mail and glibc keeps it afterwards. 100,000 messages
    // were stored as fast with 16 as with 64 MB, and RSS a minute later was 48 MB lower; searches read through their
    // own connection (src/search/worker-task.ts).
    sqlite.pragma('cache_size = -16384');
  } catch (e) {
    sqlite.close();
    throw new StoreOpenError(`cannot prepare database ${file}: ${(e as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  await migrate(db, sqlite);
  let closed = false;
  const wal = walSyncer(`${file}-wal`);
  const ran = new Set<string>();
  // The WAL file (and a new database file) must be found again after a power loss: their folder entry is synced once.
  syncFolder(path.dirname(file));
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    file,
    singleton: async (job, fn) => {
      ran.add(job);
      await fn();
      return true;
    },
    leading: () => [...ran].sort(),
    sizeBytes: async () => [file, `${file}-wal`].reduce((n, f) => n + (fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0),
    syncWal: wal.sync,
    async close() {
      if (closed) return;
      closed = true;
      wal.close();
      await db.destroy();
    },
  };
}

async function migrate(db: Kysely<Database>, sqlite?: BetterSqlite3.Database): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };
  // On PostgreSQL the Migrator serialises concurrent starts itself (an advisory lock around the run) and runs the
  // migrations in one transaction. Kysely runs SQLite's statement by statement (each its own commit); one transaction
  // around the whole run makes a new database faster (15 instead of 22 ms here), and a failed migration leaves nothing.
  sqlite?.exec('BEGIN IMMEDIATE');
  let outcome: Awaited<ReturnType<Migrator['migrateToLatest']>> | undefined;
  try {
    outcome = await new Migrator({ db, provider }).migrateToLatest();
    if (sqlite?.inTransaction && !outcome.error) sqlite.exec('COMMIT');
  } catch (e) {
    outcome = { error: e };
  } finally {
    if (sqlite?.inTransaction) sqlite.exec('ROLLBACK');
  }
  const { error, results } = outcome;
  if (error) {
    await db.destroy();
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new StoreOpenError(`database migration ${failed ?? ''} failed: ${(error as Error).message}`);
  }
}

/**
 * PostgreSQL: checks the server answers (a clear line naming host:port when not), that commits are durable when they
 * return, then migrates. `warn` hears about server settings that weaken durability but are the operator's choice.
 */
export async function openPgStore(target: PgTarget, o: PgOpenOptions & { warn?: (msg: string) => void }): Promise<Store> {
  // The PostgreSQL driver is loaded only when --database asks for it (the SQLite default never evaluates it).
  const { describePgError, pgClient, pgKysely, pgPool } = await import('./pg.ts');
  const pool = pgPool(target, o);
  let settings: { synchronous_commit: string; fsync: string };
  try {
    const c = await pool.connect();
    try {
      const r = await c.query<{ synchronous_commit: string; fsync: string }>(
        "select current_setting('synchronous_commit') as synchronous_commit, current_setting('fsync') as fsync",
      );
      settings = r.rows[0]!;
    } finally {
      c.release();
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new StoreOpenError(`--database: ${describePgError(target, e)}`);
  }
  // Forced on per session by pgClientConfig; a pooler in between (pgbouncer) could still drop it: refuse then.
  if (settings.synchronous_commit === 'off') {
    await pool.end().catch(() => undefined);
    throw new StoreOpenError(
      `--database: PostgreSQL at ${target.where} runs with synchronous_commit=off, so a commit may be lost after inboxd answered 250; connect directly (not through a pooler that drops session options) or set synchronous_commit=on`,
    );
  }
  if (settings.fsync === 'off')
    o.warn?.(`PostgreSQL at ${target.where} runs with fsync=off: a power loss there can lose acknowledged mail`);
  const db = pgKysely(pool);
  try {
    await migrate(db);
  } catch (e) {
    if (e instanceof StoreOpenError) throw e;
    await db.destroy().catch(() => undefined);
    throw new StoreOpenError(`--database: ${describePgError(target, e)}`);
  }
  const singletons = new Singletons(() => pgClient(target, o));
  let closed = false;
  return {
    db,
    dialect: 'postgres',
    file: target.url,
    newPgClient: () => pgClient(target, o),
    singleton: (job, fn) => singletons.run(job, fn),
    leading: () => singletons.leading(),
    async sizeBytes() {
      const r = await sql<{ n: number }>`select pg_database_size(current_database()) as n`.execute(db);
      return Number(r.rows[0]?.n ?? 0);
    },
    // A PostgreSQL COMMIT has returned only once it is durable (synchronous_commit=on): nothing left to sync.
    syncWal: () => Promise.resolve(),
    async close() {
      if (closed) return;
      closed = true;
      await singletons.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query afresh; preparing costs more than running a small statement. The
 * same SQL text always yields the same prepared statement here (bounded, least recently used dropped first).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, max = 512) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(text: string) {
      let stmt = cache.get(text);
      if (stmt) {
        cache.delete(text);
      } else {
        stmt = sqlite.prepare(text);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(text, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

export function dbFile(dataDir: string): string {
  return path.join(dataDir, 'inboxd.db');
}
