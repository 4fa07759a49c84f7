// A raw download must never promise more bytes than it sends: the Content-Length comes from the bytes actually in
// the blob store, not from the size recorded at ingest, and a segment cut shorter than its index (damaged by hand,
// an older copy restored) is a clean 500 before any byte, instead of a response that hangs after a short body.
// not @cluster: cuts a local blob segment file short (a cluster run keeps blobs in S3)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let inbox: Json;
before(async () => {
  s = await startTestServer();
  inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
});
after(() => s.stop());

async function deliver(subject: string): Promise<Json> {
  await sendMail(s.server.smtpPort, { to: inbox.address, subject, text: `body of ${subject}` });
  return json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&includeBody=false`));
}

test('a wrong size recorded for the message does not change the Content-Length of its raw download', async () => {
  const msg = await deliver('size drift');
  const rawUrl = `/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`;
  const meta = await json(await s.api(rawUrl, { headers: { accept: 'application/json' } }));
  await sql`update contents set size = size + 1000 where sha256 = ${meta.sha256}`.execute(s.server.parts.store.db);
  const res = await s.api(rawUrl, { signal: AbortSignal.timeout(5000) });
  assert.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  assert.equal(Number(res.headers.get('content-length')), body.length);
  assert.equal(body.length, meta.size, 'the bytes stored, all of them');
  assert.match(body.toString(), /Subject: size drift/);
});

test('a segment cut short under an indexed blob answers 500 naming the message, at once', {
  skip: TEST_CLUSTER ? 'segments are local: a cluster run keeps blobs in S3' : false,
}, async () => {
  const msg = await deliver('cut short');
  await s.server.parts.writer.drained();
  const segments = path.join(s.dataDir, 'blobs', 'segments');
  const last = fs.readdirSync(segments).sort().at(-1)!;
  const file = path.join(segments, last);
  fs.truncateSync(file, fs.statSync(file).size - 10);
  const res = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { signal: AbortSignal.timeout(5000) });
  assert.equal(res.status, 500);
  const p = (await res.json()) as Json;
  assert.match(p.detail, new RegExp(`the raw message of ${msg.messageId} is missing from the blob store`));
});
