// Migration 029 (the cluster view's heartbeat rows) goes down and up again on a store that has every migration.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.ts';
import { down, up } from '../../src/store/migrations/029_instances.ts';
import { tempDir } from '../helpers/server.ts';

test('029 down drops the instances table, up makes it again', async () => {
  const dir = tempDir();
  try {
    const store = await openStore(path.join(dir, 'inboxd.db'));
    const tables = async () =>
      (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.db)).rows.map((r) => r.name);
    assert.ok((await tables()).includes('instances'));
    await down(store.db as never);
    assert.ok(!(await tables()).includes('instances'));
    await up(store.db as never);
    assert.ok((await tables()).includes('instances'));
    await store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
