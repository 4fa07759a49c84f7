// Migration 007 on a store from before it: pending callback deliveries get their receiving host, so the per-host
// limit and the queue query (which leaves out full hosts) see them after an upgrade.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { openStore } from '../../src/store/db.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { tempDir } from '../helpers/server.ts';

test('007 backfills target_host of pending deliveries', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'inboxd.db');
  try {
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '007'));
    const old = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    const r = await new Migrator({ db: old, provider: { getMigrations: async () => before } }).migrateToLatest();
    assert.equal(r.error, undefined);
    const row = (id: string, url: string, next: number | null) => ({
      id,
      inbox_id: 'inb_x',
      team_id: 'team_default',
      message_id: `msg_${id}`,
      event: 'message.received',
      url,
      secret: 'whsec_x',
      payload: '{}',
      state: next === null ? 'delivered' : 'pending',
      attempts: 0,
      next_attempt_at: next,
      created_at: 1,
      updated_at: 1,
    });
    await old
      .insertInto('callback_deliveries')
      .values([
        row('d1', 'https://User:pw@Hooks.Example.test/a?token=1', 5),
        row('d2', 'http://hooks.example.test.:8080/b', 5),
        row('d3', 'https://done.example.test/c', null),
      ])
      .execute();
    await old.destroy();

    const store = await openStore(file);
    try {
      const rows = await store.db.selectFrom('callback_deliveries').select(['id', 'target_host']).orderBy('id').execute();
      assert.deepEqual(rows, [
        { id: 'd1', target_host: 'hooks.example.test:443' },
        { id: 'd2', target_host: 'hooks.example.test:8080' },
        { id: 'd3', target_host: null },
      ]);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
