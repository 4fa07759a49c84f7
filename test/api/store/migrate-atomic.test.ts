// A new SQLite database is migrated in one transaction: a migration that fails leaves the file as it was (no half
// schema for the next start to trip over), the start fails naming the migration, and the next start migrates it.
// not @cluster: the SQLite file's migration (PostgreSQL's run is one transaction in Kysely's Migrator already)
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openStore, StoreOpenError } from '../../../src/store/db.ts';
import { tempDir } from '../../helpers/server.ts';

const tables = (file: string): string[] => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
};

test('a failed migration leaves nothing behind and the next start migrates the file', async () => {
  const file = path.join(tempDir('migrate-atomic'), 'inboxd.db');
  // A table in the way of the first migration's third table (after `teams` and `api_keys`).
  const pre = new BetterSqlite3(file);
  pre.exec('create table audit_events (x integer)');
  pre.close();

  await assert.rejects(openStore(file), (err: Error) => {
    assert.ok(err instanceof StoreOpenError);
    assert.match(err.message, /database migration 001_foundation failed: table "audit_events" already exists/);
    return true;
  });
  assert.deepEqual(tables(file), ['audit_events'], 'neither the first tables nor the migration log were kept');

  const fix = new BetterSqlite3(file);
  fix.exec('drop table audit_events');
  fix.close();
  const store = await openStore(file);
  try {
    const names = tables(file);
    for (const t of ['teams', 'api_keys', 'audit_events', 'kysely_migration']) assert.ok(names.includes(t), t);
  } finally {
    await store.close();
  }
});
