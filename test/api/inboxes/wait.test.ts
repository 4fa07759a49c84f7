// GET /v1/inboxes/:id/wait (CONTRACT §4) and inbox expiry.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { listenerCount, startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let offset = 0;
const clock = { now: () => Date.now() + offset };
before(async () => {
  s = await startTestServer([], {}, { clock });
});
after(async () => {
  await s.stop();
});

const create = async (body: Json = {}) => json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
const send = (to: string, subject: string, from = 'Robot <robot@example.com>') =>
  sendMail(s.server.smtpPort, { to, from, subject, text: subject });

describe('wait', () => {
  test('returns at once when a matching message is already there', async () => {
    const inbox = await create();
    await send(inbox.address, 'already here');
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5`));
    const t0 = Date.now();
    const msg = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5`));
    assert.equal(msg.subject, 'already here');
    assert.ok(Date.now() - t0 < 2000);
  });

  test('blocks until a message arrives', async () => {
    const inbox = await create();
    const pending = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    await new Promise((r) => setTimeout(r, 200));
    await send(inbox.address, 'arrived later');
    assert.equal((await json(await pending)).subject, 'arrived later');
  });

  test('subjectContains and from filter; non-matching mail does not wake the waiter', async () => {
    const inbox = await create();
    const pending = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&subjectContains=CODE&from=github.com`);
    await new Promise((r) => setTimeout(r, 100));
    await send(inbox.address, 'Your code is 123456', 'GitLab <noreply@gitlab.com>');
    await send(inbox.address, 'Weekly digest', 'GitHub <noreply@github.com>');
    await send(inbox.address, 'Your verification code', 'GitHub <noreply@github.com>');
    const msg = await json(await pending);
    assert.equal(msg.subject, 'Your verification code');
  });

  test('since (message id or time) skips older mail; newest matching wins', async () => {
    const inbox = await create();
    await send(inbox.address, 'one');
    const first = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5`));
    await send(inbox.address, 'two');
    await send(inbox.address, 'three');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5&since=${first.messageId}`))).subject, 'three');
    const future = new Date(clock.now() + 60_000).toISOString();
    const r = await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1&since=${encodeURIComponent(future)}`);
    assert.equal((await json(r, 408)).code, 'wait_timeout');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?since=yesterday`), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?since=msg_unknown`), 404)).code, 'not_found');
  });

  test('timeout → 408 wait_timeout problem', async () => {
    const inbox = await create();
    const r = await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1`);
    const body = await json(r, 408);
    assert.equal(body.code, 'wait_timeout');
    assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
  });

  test('timeoutSeconds is validated (0-120, whole number)', async () => {
    const inbox = await create();
    for (const v of ['121', '-1', 'abc', '1.5']) {
      assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=${v}`), 400)).code, 'validation_failed', v);
    }
  });

  test('one message wakes all ten waiters', async () => {
    const inbox = await create();
    const waits = Array.from({ length: 10 }, () => s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`));
    for (let i = 0; i < 50 && listenerCount(s, inbox.inboxId) < 10; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(listenerCount(s, inbox.inboxId), 10);
    await send(inbox.address, 'for everyone');
    const results = await Promise.all(waits.map(async (w) => (await json(await w)).subject));
    assert.deepEqual(results, Array(10).fill('for everyone'));
    assert.equal(listenerCount(s, inbox.inboxId), 0);
  });

  test('a client that disconnects mid-wait frees its waiter', async () => {
    const inbox = await create();
    const ac = new AbortController();
    const p = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=60`, { signal: ac.signal }).catch(() => null);
    for (let i = 0; i < 50 && listenerCount(s, inbox.inboxId) < 1; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(listenerCount(s, inbox.inboxId), 1);
    ac.abort();
    await p;
    for (let i = 0; i < 50 && listenerCount(s, inbox.inboxId) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(listenerCount(s, inbox.inboxId), 0);
  });

  test('deleting the inbox ends its waits with 404', async () => {
    const inbox = await create();
    const p = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    for (let i = 0; i < 50 && listenerCount(s, inbox.inboxId) < 1; i++) await new Promise((r) => setTimeout(r, 20));
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }));
    assert.equal((await json(await p, 404)).code, 'not_found');
  });
});

describe('expiry', () => {
  test('an inbox past its ttlMinutes is removed with its mail and blobs; expired unclaimed mail too', async () => {
    const inbox = await create({ ttlMinutes: 1 });
    const keep = await create({ ttlMinutes: 10 });
    await send(inbox.address, 'short-lived');
    await send('nobody-claims-this@inboxd.test', 'unclaimed');
    const msg = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5`));
    const meta = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { headers: { accept: 'application/json' } }),
    );
    const blob: string = meta.sha256;
    assert.ok(await s.server.parts.blobs.exists(blob));
    offset += 2 * 60_000;
    let swept = await s.server.services.inboxes.sweep();
    assert.ok(swept.inboxes >= 1);
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`)).status, 404);
    assert.equal((await s.api(`/v1/inboxes/${keep.inboxId}`)).status, 200);
    // A shared store (INBOXD_TEST_CLUSTER) keeps an object for the delete grace; the hourly sweep takes it.
    assert.equal(await s.server.parts.blobs.exists(blob), TEST_CLUSTER, 'raw blob removed (kept for the grace on a shared store)');
    offset += 20 * 60_000;
    swept = await s.server.services.inboxes.sweep();
    assert.ok(swept.unclaimed >= 1);
    const late = await create({ localPart: 'nobody-claims-this', ttlMinutes: 60 });
    assert.equal(late.messagesReceived, 0, 'expired unclaimed mail is not claimed');
  });
});
