// The blob store over segments, with per-file blobs from before migration 010 in the same folder: old files stay
// readable, are deduplicated against (the same bytes are not appended again) and deletable; new blobs go to a
// segment, once per batch however often they occur in it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import { LocalBlobStore } from '../../src/store/blobs.ts';
import { openStore } from '../../src/store/db.ts';
import { tempDir } from '../helpers/server.ts';

test('old per-file blobs are read, deduplicated and deleted in place; new ones go to a segment', async () => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'inboxd.db'));
  try {
    const root = path.join(dir, 'blobs');
    const old = Buffer.from('Subject: from before segments\r\n\r\nold\r\n');
    const oldSha = (await new LocalBlobStore(root).put(old)).sha256; // the file layout of earlier versions
    const blobs = new LocalBlobStore(root, { sqlite: store.sqlite });
    blobs.recover();

    assert.deepEqual(await blobs.stage([{ sha256: oldSha, bytes: old }]), [], 'an old file is not appended again');
    assert.ok(blobs.has(oldSha));
    assert.ok((await blobs.get(oldSha)).equals(old));
    const openedOld = await blobs.open(oldSha);
    assert.equal(openedOld.size, old.length);
    assert.equal(await text(openedOld.stream), old.toString());

    const fresh = Buffer.from('Subject: new\r\n\r\nnew\r\n');
    const sha = LocalBlobStore.hash(fresh);
    const placed = await blobs.stage([
      { sha256: sha, bytes: fresh },
      { sha256: sha, bytes: fresh },
    ]);
    assert.equal(placed.length, 1, 'one append for the same bytes twice in a batch');
    store.sqlite.transaction(() => blobs.index(placed))();
    await blobs.sync();
    blobs.settle();
    assert.deepEqual(await blobs.stage([{ sha256: sha, bytes: fresh }]), [], 'indexed: not appended again');
    assert.ok((await blobs.get(sha)).equals(fresh));
    const opened = await blobs.open(sha);
    assert.equal(opened.size, fresh.length);
    assert.equal(await text(opened.stream), fresh.toString());
    assert.equal(fs.readdirSync(path.join(root, 'segments')).length, 1);

    await blobs.delete(oldSha);
    await blobs.delete(sha);
    assert.ok(!fs.existsSync(blobs.pathOf(oldSha)), 'the old file is removed');
    assert.ok(!blobs.has(oldSha) && !blobs.has(sha));
    blobs.close();
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
