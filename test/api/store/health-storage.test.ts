// /health reports whether the store can write: 503 {"status":"degraded","reason"} when the data dir's file
// system is short of space (a real statfs; the threshold is raised above what any disk has), 200 otherwise.
// The full-disk and read-only cases on a real tmpfs are in test/e2e/disk-full.test.ts.
// not @cluster: asserts the local blob store and the data dir's free space
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer, TEST_ON_POSTGRES } from '../../helpers/server.ts';

describe('/health and storage', () => {
  test('less free space than --health-min-free-mb → 503 degraded with the reason', async () => {
    const s = await startTestServer(['--health-min-free-mb', String(1024 * 1024 * 1024)]);
    try {
      const r = await s.api('/health', { key: null });
      assert.equal(r.status, 503);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      const body = (await r.json()) as { status: string; reason: string; db: string };
      assert.equal(body.status, 'degraded');
      assert.equal(body.db, 'ok');
      assert.match(body.reason, /MB free on the data dir's file system \(below --health-min-free-mb/);
    } finally {
      await s.stop();
    }
  });

  test('enough space and a writable data dir → 200 ok, naming the database engine and the blob store', async () => {
    const s = await startTestServer(['--health-min-free-mb', '0']);
    try {
      const r = await s.api('/health', { key: null });
      assert.equal(r.status, 200);
      const body = (await r.json()) as { status: string; database: string; blobStore: unknown };
      assert.equal(body.status, 'ok');
      assert.equal(body.database, TEST_ON_POSTGRES ? 'postgres' : 'sqlite');
      assert.deepEqual(body.blobStore, { kind: 'local' });
    } finally {
      await s.stop();
    }
  });
});
