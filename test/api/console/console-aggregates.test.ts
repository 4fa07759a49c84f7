// GET /v1/console/summary and /v1/console/inboxes/:id: counts, top labels and recent mail from real SMTP mail, bounded
// to the key's label scope; read-only keys may use them; callback secrets stay redacted for non-admin keys.
// @cluster
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

type Json = Record<string, any>;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('console aggregates', () => {
  let s: TestServer;
  let gone: http.Server;
  let goneUrl = '';
  let ciKey = '';
  let roKey = '';
  const inboxes: Record<string, { inboxId: string; address: string }> = {};

  async function get(path: string, key = s.key): Promise<{ status: number; body: Json }> {
    const r = await s.api(path, { key });
    return { status: r.status, body: (await r.json()) as Json };
  }

  before(async () => {
    // A callback target that answers 410 Gone: the delivery is given up at once (a failing callback).
    gone = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(410).end());
    });
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/hook?token=s3cret-value`;
    s = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks']);
    const create = async (name: string, body: Json) => {
      const r = await s.api('/v1/inboxes', { method: 'POST', json: body });
      assert.equal(r.status, 201);
      inboxes[name] = (await r.json()) as { inboxId: string; address: string };
    };
    await create('a1', { label: 'ci-a' });
    await create('a2', { label: 'ci-a', callbackUrl: goneUrl });
    await create('b', { label: 'ci-b' });
    await create('other', { label: 'other-x' });
    await create('nolabel', {});
    const mint = async (body: Json) => {
      const r = await s.api('/v1/team/keys', { method: 'POST', json: body });
      assert.equal(r.status, 201);
      return ((await r.json()) as { key: string }).key;
    };
    ciKey = await mint({ label: 'ci', scope: { labelPrefix: 'ci-' } });
    roKey = await mint({ label: 'ro', scope: { readOnly: true } });
    const port = s.server.smtpPort;
    await sendMail(port, { to: inboxes.a1!.address, subject: 'Your code', text: 'Your verification code is 482913' });
    await sendMail(port, { to: inboxes.a1!.address, subject: 'Newsletter', text: 'Nothing to verify here, just news.' });
    await sendMail(port, { to: inboxes.a2!.address, subject: 'Your code', text: 'Your verification code is 771204' });
    await sendMail(port, { to: inboxes.b!.address, subject: 'Hello', text: 'plain hello' });
    await sendMail(port, { to: inboxes.other!.address, subject: 'Secret other', text: 'Your verification code is 111222' });
    await sendMail(port, { to: inboxes.other!.address, subject: 'Secret other 2', text: 'Your verification code is 333444' });
    await sendMail(port, { to: inboxes.other!.address, subject: 'Secret other 3', text: 'Your verification code is 555666' });
    // Wait for the 410 to be recorded.
    for (let i = 0; i < 250; i++) {
      const c = await get(`/v1/inboxes/${inboxes.a2!.inboxId}/callbacks`);
      if (c.body.items.length > 0) break;
      await sleep(20);
    }
  });
  after(async () => {
    await s.stop();
    await new Promise<void>((r) => gone.close(() => r()));
  });

  test('summary for the unscoped admin: counts, top labels, failing callbacks, recent activity', async () => {
    const { status, body } = await get('/v1/console/summary');
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.scope, { labelPrefix: null });
    assert.deepEqual(body.inboxes, { total: 5, withCallback: 1 });
    assert.equal(body.messages.received, 7);
    assert.equal(body.messages.receivedToday, 7);
    assert.equal(body.messages.verified, 5);
    assert.equal(body.messages.verifiedToday, 5);
    assert.equal(body.callbacks.failed, 1);
    assert.equal(body.callbacks.failing, 1);
    assert.deepEqual(body.topLabels, [
      { label: 'ci-a', inboxes: 2, messages: 3 },
      { label: 'other-x', inboxes: 1, messages: 3 },
      { label: 'ci-b', inboxes: 1, messages: 1 },
    ]);
    assert.equal(body.recentActivity.length, 7);
    assert.equal(body.recentActivity[0].subject, 'Secret other 3', 'newest first');
    assert.equal(body.recentActivity[0].address, inboxes.other!.address);
    assert.equal(body.recentActivity[0].label, 'other-x');
    assert.match(body.dayStartedAt, /T00:00:00\.000Z$/);
  });

  test('a key scoped to ci- sees only ci-* inboxes, mail and callbacks', async () => {
    const { status, body } = await get('/v1/console/summary', ciKey);
    assert.equal(status, 200);
    assert.deepEqual(body.scope, { labelPrefix: 'ci-' });
    assert.deepEqual(body.inboxes, { total: 3, withCallback: 1 });
    assert.equal(body.messages.received, 4);
    assert.equal(body.messages.verified, 2);
    assert.deepEqual(
      body.topLabels.map((l: Json) => l.label),
      ['ci-a', 'ci-b'],
    );
    assert.equal(body.recentActivity.length, 4);
    assert.ok(body.recentActivity.every((m: Json) => m.label.startsWith('ci-')));
    assert.doesNotMatch(JSON.stringify(body), /Secret other|other-x/);
    const out = await get(`/v1/console/inboxes/${inboxes.other!.inboxId}`, ciKey);
    assert.equal(out.status, 404, 'an inbox outside the scope does not exist for this key');
    assert.equal((await get(`/v1/console/inboxes/${inboxes.nolabel!.inboxId}`, ciKey)).status, 404);
  });

  test('the summary limits recent and labels', async () => {
    const { body } = await get('/v1/console/summary?recent=2&labels=1');
    assert.equal(body.recentActivity.length, 2);
    assert.equal(body.topLabels.length, 1);
    assert.equal((await get('/v1/console/summary?recent=0')).status, 400);
    assert.equal((await get('/v1/console/summary?bogus=1')).status, 400);
  });

  test('inbox detail: the inbox, recent messages with counts, callback deliveries and attempts', async () => {
    const { status, body } = await get(`/v1/console/inboxes/${inboxes.a2!.inboxId}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.inbox.inboxId, inboxes.a2!.inboxId);
    assert.equal(body.messages.counts.received, 1);
    assert.equal(body.messages.counts.verified, 1);
    assert.equal(body.messages.recent[0].verification.otp, '771204');
    assert.equal(body.callbacks.callbackUrl, goneUrl, 'the admin sees the full URL');
    assert.equal(body.callbacks.deliveries.failed, 1);
    assert.equal(body.callbacks.recentAttempts[0].statusCode, 410);
    assert.equal(body.callbacks.recentAttempts[0].url, goneUrl);
    assert.equal(body.threads.length, 1, 'its one message is one thread');
    assert.equal(body.threads[0].messageCount, 1);
    assert.equal(body.threads[0].lastMessageId, body.messages.recent[0].messageId);
    const one = await get(`/v1/console/inboxes/${inboxes.a1!.inboxId}?limit=1`);
    assert.equal(one.body.messages.recent.length, 1);
    assert.equal(one.body.threads.length, 1, 'limit bounds the threads too');
    assert.equal(one.body.messages.counts.received, 2);
    assert.equal(one.body.callbacks.callbackUrl, null);
    assert.equal((await get('/v1/console/inboxes/inb_doesnotexist')).status, 404);
  });

  test('a read-only key may use both; callback URL secrets are redacted for it', async () => {
    const sum = await get('/v1/console/summary', roKey);
    assert.equal(sum.status, 200);
    assert.equal(sum.body.messages.received, 7);
    const { status, body } = await get(`/v1/console/inboxes/${inboxes.a2!.inboxId}`, roKey);
    assert.equal(status, 200);
    assert.doesNotMatch(JSON.stringify(body), /s3cret-value/);
    assert.match(body.callbacks.callbackUrl, /^http:\/\/127\.0\.0\.1:\d+\/hook\?/);
  });

  test('without a key: 401', async () => {
    assert.equal((await s.api('/v1/console/summary', { key: null })).status, 401);
    assert.equal((await s.api(`/v1/console/inboxes/${inboxes.a1!.inboxId}`, { key: null })).status, 401);
  });
});
