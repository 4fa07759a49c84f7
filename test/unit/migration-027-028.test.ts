// Migrations 027 (MCP sessions of a cluster) and 028 (cluster limits, rehearsal signups) go down and up again, on
// SQLite and, with INBOXD_TEST_DATABASE=postgres, on PostgreSQL.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { PostgresTypesPlugin } from '../../src/store/dialect.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { freshDatabase, TEST_ON_POSTGRES, tempDir } from '../helpers/server.ts';

const TABLES = ['mcp_sessions', 'limit_windows', 'limit_holds', 'rehearsal_sessions'];

async function tables(db: Kysely<any>, postgres: boolean): Promise<string[]> {
  const r = postgres
    ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
  return r.rows
    .map((x) => x.name)
    .filter((n) => TABLES.includes(n))
    .sort();
}

async function downAndUp(db: Kysely<any>, postgres: boolean): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  assert.equal((await migrator.migrateToLatest()).error, undefined);
  assert.deepEqual(await tables(db, postgres), [...TABLES].sort());
  const down = await migrator.migrateTo('026_session_facts');
  assert.equal(down.error, undefined);
  // Every later migration goes down first (029 and on), then 028 and 027.
  const later = Object.keys(MIGRATIONS)
    .filter((n) => n > '026_session_facts')
    .sort()
    .reverse();
  assert.deepEqual(
    down.results?.map((r) => `${r.migrationName} ${r.direction} ${r.status}`),
    later.map((n) => `${n} Down Success`),
  );
  assert.ok(later.includes('027_mcp_sessions') && later.includes('028_cluster_limits'));
  assert.deepEqual(await tables(db, postgres), []);
  assert.equal((await migrator.migrateToLatest()).error, undefined);
  assert.deepEqual(await tables(db, postgres), [...TABLES].sort());
}

test('027 and 028 go down and up again on SQLite', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path.join(tempDir(), 'inboxd.db')) }) });
  try {
    await downAndUp(db, false);
  } finally {
    await db.destroy();
  }
});

test('027 and 028 go down and up again on PostgreSQL', { skip: !TEST_ON_POSTGRES && 'INBOXD_TEST_DATABASE=postgres' }, async () => {
  const db = new Kysely<any>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: await freshDatabase(), max: 1 }) }),
    plugins: [new PostgresTypesPlugin()],
  });
  try {
    await downAndUp(db, true);
  } finally {
    await db.destroy();
  }
});
