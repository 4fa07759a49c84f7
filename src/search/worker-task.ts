// The search task of the sandbox worker (src/workers/sandbox-tasks.ts): one search on SQLite, on the worker's own read-only
// connection to the store (WAL lets it read while the main thread writes), so a costly query never holds the thread
// that serves SMTP and HTTP. The sandbox stops the worker from outside when the search runs past its budget; inside,
// the work goes in bounded steps that check the deadline (src/search/engine.ts walkMatches), so a stopped worker exits
// within one step and a scan that runs out of time can answer what it found, marked partial.
// Loaded only inside the worker: better-sqlite3's native addon is found the way the main thread finds it
// (src/store/sqlite-native.ts: node_modules under plain Node, the extracted SEA asset in the single executable).
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../store/schema.ts';
import { nativeBindingOption } from '../store/sqlite-native.ts';
import { type RunRequest, type RunResult, runSearch } from './run.ts';

let open: { file: string; db: Kysely<Database>; sqlite: BetterSqlite3.Database } | null = null;

function connection(file: string): Kysely<Database> {
  if (open?.file === file && open.sqlite.open) return open.db;
  open?.sqlite.close();
  const sqlite = new BetterSqlite3(file, { ...nativeBindingOption(), readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 2000');
  // A small page cache (4 MB): each search thread has its own connection, and the main one keeps the big cache.
  sqlite.pragma('cache_size = -4096');
  sqlite.pragma('temp_store = MEMORY');
  open = { file, sqlite, db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }) };
  return open.db;
}

/** Runs one search on the SQLite store at `file` (the task's input and output are structured-cloned). */
export function sqliteSearch(input: { file: string; req: RunRequest }): Promise<RunResult> {
  return runSearch(connection(input.file), input.req);
}
