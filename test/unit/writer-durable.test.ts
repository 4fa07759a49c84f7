// A batch is acknowledged only once it is durable: store() resolves after the WAL's fsync (and the segment's), a
// burst shares one fsync, and a failed fsync rejects the batch without inserting its rows a second time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { IngestWriter } from '../../src/ingest/writer.ts';
import { createLogger } from '../../src/log.ts';
import { LocalBlobStore } from '../../src/store/blobs.ts';
import { openStore } from '../../src/store/db.ts';
import { MessageRepo } from '../../src/store/messages.ts';
import { tempDir } from '../helpers/server.ts';

test('store() resolves only after the WAL fsync; a burst shares one; a failed fsync rejects once, no retry', async () => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'inboxd.db'));
  const blobs = new LocalBlobStore(path.join(dir, 'blobs'), { sqlite: store.sqlite });
  try {
    const log = createLogger({ level: 'silent', format: 'json' });
    let syncs = 0;
    let release: (() => void) | null = null;
    let fail = false;
    const writer = new IngestWriter({
      db: store.db,
      blobs,
      messages: new MessageRepo(store.db),
      log,
      syncWal: () => {
        syncs++;
        if (fail) return Promise.reject(Object.assign(new Error('EIO: fsync failed'), { code: 'EIO' }));
        return new Promise<void>((r) => {
          release = () => r();
        });
      },
    });
    const bytes = Buffer.from('raw bytes');
    let inserts = 0;
    const job = () => ({
      blobs: [{ sha256: LocalBlobStore.hash(bytes), bytes }],
      insert: async () => ++inserts,
    });
    let done = false;
    const first = writer.store(job()).then((v) => {
      done = true;
      return v;
    });
    for (let i = 0; i < 50 && !release; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(release, 'the WAL fsync was asked for');
    assert.equal(inserts, 1, 'the rows are committed');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(done, false, 'not acknowledged before the fsync completes');
    // Arriving during the fsync: these form the next batch and share its one fsync.
    const burst = Array.from({ length: 5 }, () => writer.store(job()));
    (release as unknown as () => void)();
    release = null;
    assert.equal(await first, 1);
    for (let i = 0; i < 50 && !release; i++) await new Promise((r) => setTimeout(r, 5));
    (release as unknown as () => void)();
    await Promise.all(burst);
    assert.equal(syncs, 2, 'one fsync for the lone message, one for the burst');
    assert.ok(blobs.has(LocalBlobStore.hash(bytes)));

    fail = true;
    const before = inserts;
    await assert.rejects(Promise.all([writer.store(job()), writer.store(job())]), /fsync failed/);
    await writer.drained();
    assert.equal(inserts - before, 2, 'each row inserted once: no one-by-one retry after a failed fsync');
  } finally {
    blobs.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
