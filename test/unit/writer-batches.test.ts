// The writer's group commit is bounded: messages that arrive together still share transactions, but no
// transaction holds more than the message or byte bound, so one burst cannot hold the thread for long.
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

test('a burst is committed in bounded transactions, in order, each message once', async () => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'inboxd.db'));
  try {
    const log = createLogger({ level: 'silent', format: 'json' });
    const deps = { db: store.db, blobs: new LocalBlobStore(path.join(dir, 'blobs')), messages: new MessageRepo(store.db), log };
    const byCount = new IngestWriter({ ...deps, maxBatchMessages: 4 });
    const seen: number[] = [];
    const jobs = Array.from({ length: 10 }, (_, i) => byCount.store({ blobs: [], weight: 1, insert: async () => seen.push(i) }));
    await Promise.all(jobs);
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(byCount.maxBatch, 4);
    assert.equal(byCount.commits, 3);

    const byBytes = new IngestWriter({ ...deps, maxBatchBytes: 1000 });
    await Promise.all(Array.from({ length: 6 }, () => byBytes.store({ blobs: [], weight: 400, insert: async () => undefined })));
    assert.equal(byBytes.maxBatch, 2, 'two of 400 bytes fit in 1000, three do not');
    assert.equal(byBytes.commits, 3);
    // A single message over the bound is still committed (alone).
    await byBytes.store({ blobs: [], weight: 5000, insert: async () => undefined });
    assert.equal(byBytes.commits, 4);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
