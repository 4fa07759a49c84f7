// Compaction reclaims the segment space of deleted mail, in steps that let ingest go on meanwhile: afterwards every
// remaining message and attachment reads back byte for byte, and mail sent during compaction is stored too.
// not @cluster: compacts the data dir's local blob segment files (a cluster run keeps blobs in S3)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Compactor, compactSegments } from '../../../src/store/compaction.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--segment-size-mb', '1']);
});
after(() => s?.stop());

const segmentDir = () => path.join(s.dataDir, 'blobs', 'segments');
const diskBytes = () => fs.readdirSync(segmentDir()).reduce((n, f) => n + fs.statSync(path.join(segmentDir(), f)).size, 0);
const deps = () => {
  const svc = s.server.parts;
  return {
    segments: svc.blobs.segments!,
    // The index: the main database, or blobs/index.db on PostgreSQL (INBOXD_TEST_DATABASE=postgres).
    sqlite: svc.blobs.segments!.db,
    run: <T>(fn: () => Promise<T>) => svc.writer.run(fn),
    syncWal: () => (svc.blobs.segments!.ownIndex ? svc.blobs.segments!.syncIndex() : svc.store.syncWal()),
    stepBytes: 200_000,
  };
};
const compact = () => compactSegments(deps());

test('deleted mail is reclaimed; kept mail and mail sent meanwhile read back intact', async () => {
  const keep = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const drop = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < 24; i++) {
    const content = crypto.randomBytes(120_000);
    const to = i % 4 === 0 ? keep.address : drop.address;
    if (to === keep.address) files.set(`k${i}.bin`, content);
    await sendMail(s.server.smtpPort, { to, subject: `m${i}`, text: `message ${i}`, attachments: [{ filename: `k${i}.bin`, content }] });
  }
  const before = diskBytes();
  const segmentsBefore = fs.readdirSync(segmentDir()).length;
  assert.ok(segmentsBefore >= 4, `several segments were written (${segmentsBefore})`);
  assert.equal((await s.api(`/v1/inboxes/${drop.inboxId}`, { method: 'DELETE' })).status, 200);

  // Compaction and ingest at the same time.
  const sending = (async () => {
    for (let i = 0; i < 5; i++) await sendMail(s.server.smtpPort, { to: keep.address, subject: `during${i}`, text: `during ${i}` });
  })();
  const result = await compact();
  await sending;
  assert.ok(result.segmentsRemoved > 0 && result.blobsMoved > 0, JSON.stringify(result));
  assert.ok(diskBytes() < before / 2, `space reclaimed: ${before} → ${diskBytes()} bytes`);

  const list = await json(await s.api(`/v1/inboxes/${keep.inboxId}/messages?limit=50`));
  assert.equal(list.items.length, 6 + 5);
  for (const m of list.items as Json[]) {
    const raw = await s.api(`/v1/inboxes/${keep.inboxId}/messages/${m.messageId}/raw`);
    assert.equal(raw.status, 200);
    assert.equal((await raw.arrayBuffer()).byteLength, m.size);
    const atts = await json(await s.api(`/v1/inboxes/${keep.inboxId}/messages/${m.messageId}/attachments`));
    for (const a of atts.items as Json[]) {
      const res = await s.api(`/v1/inboxes/${keep.inboxId}/messages/${m.messageId}/attachments/${a.attachmentId}`);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(files.get(a.filename)!), `${a.filename} intact`);
    }
  }
  // A second run finds nothing more to do.
  const again = await compact();
  assert.equal(again.blobsMoved, 0);

  // The server's periodic runs go through a Compactor: a run under way is not started a second time.
  let runs = 0;
  const c = new Compactor({ ...deps(), onDone: () => runs++ });
  const first = c.run();
  assert.equal(c.run(), first);
  await c.idle();
  assert.equal(runs, 1);
});
