// Opens the SQLite store: checks the file really is a database before touching it, sets WAL and foreign keys,
// and applies pending migrations. Everything above this module speaks Kysely, so the dialect stays a setting.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator, type MigrationProvider } from 'kysely/migration';
import type { Database } from './schema.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { nativeBindingOption } from './sqlite-native.ts';

export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

export interface Store {
  db: Kysely<Database>;
  /** The raw connection, for pragmas, checkpoints and the hot ingest path's prepared statements. */
  sqlite: BetterSqlite3.Database;
  file: string;
  /**
   * Makes every committed transaction durable: one fsync of the WAL file, on the thread pool (the store runs
   * synchronous=NORMAL, so a commit itself only writes; see "Storage and durability" in the README).
   */
  syncWal(): Promise<void>;
  close(): Promise<void>;
}

export async function openStore(file: string): Promise<Store> {
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
    sqlite.pragma('cache_size = -65536');
  } catch (e) {
    sqlite.close();
    throw new StoreOpenError(`cannot prepare database ${file}: ${(e as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    await db.destroy();
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new StoreOpenError(`database migration ${failed ?? ''} failed: ${(error as Error).message}`);
  }
  let closed = false;
  const wal = walSyncer(`${file}-wal`);
  // The WAL file (and a new database file) must be found again after a power loss: their folder entry is synced once.
  syncFolder(path.dirname(file));
  return {
    db,
    sqlite,
    file,
    syncWal: wal.sync,
    async close() {
      if (closed) return;
      closed = true;
      wal.close();
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

/**
 * fsync of the WAL through an fd of our own: fsync flushes the file (the inode), whichever descriptor asks. The fd is
 * opened once the WAL exists and kept: SQLite replaces the WAL file only when the last connection closes (it then
 * deletes it), and this connection stays open for the life of the process (restarts and truncations keep the inode).
 */
function walSyncer(walPath: string) {
  let fd: number | null = null;
  return {
    sync(): Promise<void> {
      if (fd === null) {
        try {
          fd = fs.openSync(walPath, 'r');
        } catch (e) {
          // No WAL yet: nothing has been committed through it.
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve();
          throw e;
        }
      }
      const f = fd;
      return new Promise<void>((res, rej) => fs.fsync(f, (e) => (e ? rej(e) : res())));
    },
    close(): void {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}

function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // a folder that cannot be opened for reading: the next checkpoint's syncs still cover the files themselves
  }
}

export function dbFile(dataDir: string): string {
  return path.join(dataDir, 'inboxd.db');
}
