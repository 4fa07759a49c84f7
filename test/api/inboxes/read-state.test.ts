// Mark read / unread over REST and MCP (the `\Seen` flag POP3 and IMAP use, issue 32) and clearing an inbox
// (`DELETE /v1/inboxes/:id/messages`): what IMAP sees afterwards, what a read-only key gets, what goes with a clear.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ImapFlow } from 'imapflow';
import { type Json, json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let mcp: Client;
before(async () => {
  s = await startTestServer(['--imap-port', '0']);
  mcp = await mcpClient(s.url, s.key);
});
after(async () => {
  await mcp.close();
  await s.stop();
});

const newInbox = async (): Promise<Json> => json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
const messages = async (id: string): Promise<Json[]> => (await json(await s.api(`/v1/inboxes/${id}/messages`))).items;

async function arrived(id: string, n: number): Promise<Json[]> {
  for (let i = 0; i < 200; i++) {
    const items = await messages(id);
    if (items.length >= n) return items;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`inbox ${id} did not get ${n} messages`);
}

async function imapSeen(address: string): Promise<Map<string, boolean>> {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: s.server.imapPort!,
    secure: false,
    auth: { user: address, pass: s.key },
    logger: false,
  });
  await c.connect();
  try {
    await c.mailboxOpen('INBOX');
    const out = new Map<string, boolean>();
    for await (const m of c.fetch('1:*', { flags: true, envelope: true }))
      out.set(m.envelope?.subject ?? '', m.flags?.has('\\Seen') ?? false);
    return out;
  } finally {
    await c.logout();
  }
}

test('PATCH seen marks read and unread; IMAP sees the flag; MCP svc_mark_message does the same', async () => {
  const box = await newInbox();
  await sendMail(s.server.smtpPort, { to: box.address, subject: 'one', text: 'x' });
  await sendMail(s.server.smtpPort, { to: box.address, subject: 'two', text: 'y' });
  const items = await arrived(box.inboxId, 2);
  const one = items.find((m) => m.subject === 'one')!;
  assert.equal(one.seen, false, 'new mail is unread');

  const marked = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${one.messageId}`, { method: 'PATCH', json: { seen: true } }));
  assert.deepEqual(marked, { messageId: one.messageId, seen: true });
  assert.equal((await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${one.messageId}`))).seen, true);
  assert.deepEqual(Object.fromEntries(await imapSeen(box.address)), { one: true, two: false });

  await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${one.messageId}`, { method: 'PATCH', json: { seen: false } }));
  assert.equal((await imapSeen(box.address)).get('one'), false, 'unread again for IMAP');

  const two = items.find((m) => m.subject === 'two')!;
  const r = await callOk(mcp, 'svc_mark_message', { inboxId: box.inboxId, messageId: two.messageId, seen: true });
  assert.equal(r.seen, true);
  assert.equal((await imapSeen(box.address)).get('two'), true);

  const bad = await s.api(`/v1/inboxes/${box.inboxId}/messages/${two.messageId}`, { method: 'PATCH', json: { seen: 'yes' } });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).detail, /seen must be true \(read\) or false \(unread\)/);
  const missing = await s.api(`/v1/inboxes/${box.inboxId}/messages/msg_nothere`, { method: 'PATCH', json: { seen: true } });
  assert.equal(missing.status, 404);
});

test('a read-only key can neither mark nor clear', async () => {
  const box = await newInbox();
  await sendMail(s.server.smtpPort, { to: box.address, subject: 'ro', text: 'x' });
  const [m] = await arrived(box.inboxId, 1);
  const { key } = await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } }), 201);
  const mark = await s.api(`/v1/inboxes/${box.inboxId}/messages/${m!.messageId}`, { method: 'PATCH', json: { seen: true }, key });
  assert.equal(mark.status, 403);
  const clear = await s.api(`/v1/inboxes/${box.inboxId}/messages`, { method: 'DELETE', key });
  assert.equal(clear.status, 403);
  assert.equal((await messages(box.inboxId)).length, 1);
  assert.equal((await messages(box.inboxId))[0]!.seen, false);
});

test('DELETE …/messages empties the inbox (received and sent, threads gone) and keeps the inbox', async () => {
  const box = await newInbox();
  const other = await newInbox();
  for (let i = 0; i < 3; i++) await sendMail(s.server.smtpPort, { to: box.address, subject: `m${i}`, text: `body ${i}` });
  await sendMail(s.server.smtpPort, { to: other.address, subject: 'keep me', text: 'x' });
  await json(
    await s.api(`/v1/inboxes/${box.inboxId}/send`, { method: 'POST', json: { to: other.address, subject: 'hi', text: 'x' } }),
    202,
  );
  await arrived(box.inboxId, 4);
  await arrived(other.inboxId, 2);

  const r = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages`, { method: 'DELETE' }));
  assert.deepEqual(r, { deleted: 4 });
  assert.equal((await messages(box.inboxId)).length, 0);
  assert.equal((await json(await s.api(`/v1/inboxes/${box.inboxId}/threads`))).items.length, 0);
  assert.equal((await json(await s.api(`/v1/inboxes/${box.inboxId}`))).address, box.address, 'the inbox stays');
  assert.equal((await messages(other.inboxId)).length, 2, 'another inbox is untouched');
  // Mail after the clear arrives as usual.
  await sendMail(s.server.smtpPort, { to: box.address, subject: 'after', text: 'x' });
  assert.equal((await arrived(box.inboxId, 1))[0]!.subject, 'after');
  assert.deepEqual(await json(await s.api(`/v1/inboxes/${other.inboxId}/messages`, { method: 'DELETE' })), { deleted: 2 });
});
