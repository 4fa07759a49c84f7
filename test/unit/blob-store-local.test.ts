// The local blob store behind the BlobStore interface: without a SQLite handle (a folder several instances share)
// it stores plain content-addressed files through the same stage → sync protocol the ingest writer uses; and both
// layouts read byte ranges (the interface's open(sha, range)).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { test } from 'node:test';
import { BlobMissingError } from '../../src/store/blob-store.ts';
import { sweepStaleBlobs } from '../../src/store/blob-sweep.ts';
import { LocalBlobStore } from '../../src/store/blobs.ts';
import { openStore } from '../../src/store/db.ts';
import { tempDir } from '../helpers/server.ts';

test('without an index: staged blobs are files (once each), durable after sync(), readable whole and by range', async () => {
  const dir = tempDir();
  try {
    const blobs = new LocalBlobStore(path.join(dir, 'blobs'));
    const a = Buffer.from('Subject: a\r\n\r\nfirst blob\r\n');
    const b = Buffer.from('Subject: b\r\n\r\nsecond blob\r\n');
    const sa = LocalBlobStore.hash(a);
    const sb = LocalBlobStore.hash(b);
    const placed = await blobs.stage([
      { sha256: sa, bytes: a },
      { sha256: sb, bytes: b },
      { sha256: sa, bytes: a },
    ]);
    assert.deepEqual(placed, [], 'no index rows to commit without SQLite');
    await blobs.sync();
    assert.ok(fs.existsSync(path.join(dir, 'blobs', sa.slice(0, 2), sa.slice(2))));
    assert.ok((await blobs.exists(sa)) && (await blobs.exists(sb)));
    assert.deepEqual(await blobs.get(sb), b);
    const part = await blobs.open(sa, { start: 9, end: 9 + 4 });
    assert.equal(part.size, 5);
    assert.deepEqual(await buffer(part.stream), a.subarray(9, 14));
    const tail = await blobs.open(sa, { start: a.length - 3, end: a.length + 100 });
    assert.equal(tail.size, 3, 'a range past the end is cut at the end');
    assert.deepEqual(await buffer(tail.stream), a.subarray(a.length - 3));
    await assert.rejects(blobs.open(sa, { start: a.length, end: a.length + 1 }), RangeError);
    await blobs.delete(sa);
    assert.ok(!(await blobs.exists(sa)));
    await assert.rejects(blobs.open(sa), BlobMissingError);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('segments: a byte range of a blob is read from inside its record, never past it', async () => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'inboxd.db'));
  try {
    const blobs = new LocalBlobStore(path.join(dir, 'blobs'), { sqlite: store.sqlite });
    blobs.recover();
    const x = Buffer.from('0123456789abcdefghij');
    const y = Buffer.from('ZYXWVUTSRQ');
    const placed = await blobs.stage([
      { sha256: LocalBlobStore.hash(x), bytes: x },
      { sha256: LocalBlobStore.hash(y), bytes: y },
    ]);
    blobs.index(placed);
    await blobs.sync();
    blobs.settle();
    const r = await blobs.open(LocalBlobStore.hash(x), { start: 15, end: 99 });
    assert.equal(r.size, 5);
    assert.deepEqual(await buffer(r.stream), Buffer.from('fghij'));
    const whole = await blobs.open(LocalBlobStore.hash(y));
    assert.deepEqual(await buffer(whole.stream), y);
    blobs.close();
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without an index: per-file blobs nothing references are swept once older than an hour; younger ones stay', async () => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'inboxd.db'));
  try {
    const blobs = new LocalBlobStore(path.join(dir, 'blobs'));
    const orphan = Buffer.from('written by a batch whose commit failed');
    const young = Buffer.from('written a moment ago');
    await blobs.stage([
      { sha256: LocalBlobStore.hash(orphan), bytes: orphan },
      { sha256: LocalBlobStore.hash(young), bytes: young },
    ]);
    await blobs.sync();
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(blobs.pathOf(LocalBlobStore.hash(orphan)), old, old);
    const collected: string[] = [];
    const collect = async (shas: string[]) => {
      collected.push(...shas);
      for (const sha of shas) await blobs.delete(sha);
      return shas.length;
    };
    const r = await sweepStaleBlobs({ blobs, db: store.db, collect }, { now: Date.now() });
    assert.deepEqual(collected, [LocalBlobStore.hash(orphan)]);
    assert.equal(r.removed, 1);
    assert.ok(!(await blobs.exists(LocalBlobStore.hash(orphan))));
    assert.ok(await blobs.exists(LocalBlobStore.hash(young)), 'younger than an hour: kept');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
