// The same bytes mailed again and again (anyone can): the search row of the content is rewritten only when a new
// inbox gets a copy (migration 020, src/ingest/ingest.ts), and every copy stays findable in its own scope.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendRaw } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const RAW = [
  'From: Repeat <repeat@sender.example>',
  'To: whoever@inboxd.test',
  'Subject: Marmalade voucher 7731',
  'Message-ID: <same-bytes@sender.example>',
  'Date: Fri, 27 Nov 2026 01:00:00 +0000',
  '',
  'The very same bytes, every time: a marmalade voucher.',
  '',
].join('\r\n');

async function inboxSearch(inboxId: string, key?: string): Promise<Json> {
  return json(await s.api(`/v1/inboxes/${inboxId}/search?q=marmalade`, key ? { key } : {}));
}

test('repeated copies to the same inbox stay findable; a new inbox getting a copy is added to the scope', async () => {
  const a = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'copies-a' } }), 201);
  const b = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'copies-b' } }), 201);
  const onlyB = await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label: 'b-only', scope: { labelPrefix: 'copies-b' } } }),
    201,
  );
  for (let i = 0; i < 12; i++) await sendRaw(s.server.smtpPort, RAW, a.address);
  assert.equal((await inboxSearch(a.inboxId)).items.length, 12);
  assert.equal((await inboxSearch(b.inboxId)).items.length, 0);
  // B's first copy changes the content's scope: B (and a key that sees only B) must find it.
  await sendRaw(s.server.smtpPort, RAW, b.address);
  assert.equal((await inboxSearch(b.inboxId, onlyB.key)).items.length, 1);
  const scoped = await json(await s.api('/v1/search?q=marmalade', { key: onlyB.key }));
  assert.deepEqual(
    scoped.items.map((i: Json) => i.inboxId),
    [b.inboxId],
  );
  // More copies to both, and one message to both at once: nothing lost, nothing shown twice.
  await sendRaw(s.server.smtpPort, RAW, [a.address, b.address]);
  await sendRaw(s.server.smtpPort, RAW, b.address);
  assert.equal((await inboxSearch(a.inboxId)).items.length, 13);
  assert.equal((await inboxSearch(b.inboxId, onlyB.key)).items.length, 3);
  const all = await json(await s.api('/v1/search?q=marmalade&limit=100'));
  assert.equal(all.items.length, 16);
});
