// Long-poll waits under load, with the caps set low by flags: per-key and server-wide waiter caps (429 naming the
// cap), one read and one JSON per wake-up however many wait, cut bodies and includeBody=false.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--max-waiters-per-key', '3', '--max-waiters', '5', '--wait-max-body-chars', '2048']);
});
after(async () => {
  await s.stop();
});
const post = (path: string, body: Json, key?: string) => s.api(path, { method: 'POST', json: body, ...(key ? { key } : {}) });
const gate = () => s.server.services.waits.gate;
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition never held');
}

describe('waiter caps', () => {
  test('per key, then server-wide: 429 rate_limited with Retry-After naming the cap; slots come back', {
    skip: TEST_CLUSTER && "reads one instance's own counts; across instances: test/api/auth/cluster-limits.test.ts",
  }, async () => {
    const inbox = await json(await post('/v1/inboxes', {}), 201);
    const other = await json(await post('/v1/team/keys', { label: 'second', role: 'member' }), 201);
    const wait = (key?: string) => s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`, key ? { key } : {});
    const mine = [wait(), wait(), wait()];
    await until(() => gate().count() === 3);
    const perKey = await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`);
    const p1 = await json(perKey, 429);
    assert.equal(p1.code, 'rate_limited');
    assert.match(p1.detail, /--max-waiters-per-key, is 3/);
    assert.equal(perKey.headers.get('retry-after'), '5');
    // verify waits count too
    const v = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 30 }), 429);
    assert.match(v.detail, /per-key cap/);
    const theirs = [wait(other.key), wait(other.key)];
    await until(() => gate().count() === 5);
    const total = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`, { key: other.key }), 429);
    assert.match(total.detail, /--max-waiters, is 5/);

    const reads: string[] = [];
    const repo = s.server.parts.messages;
    const get = repo.get.bind(repo);
    repo.get = (inboxId: string, id: string) => {
      reads.push(id);
      return get(inboxId, id);
    };
    try {
      const big = 'x'.repeat(100_000);
      const sent = await json(await post(`/v1/inboxes/${inbox.inboxId}/simulate`, { scenario: 'custom', subject: 'Big', text: big }), 201);
      const answers = await Promise.all([...mine, ...theirs].map(async (p) => json(await p)));
      for (const a of answers) {
        assert.equal(a.messageId, sent.messageId);
        assert.equal(a.truncated, true);
        assert.equal(a.text.length, 2048);
      }
      // One read of the row for five waiters (the answer is built once per wake-up).
      assert.equal(reads.filter((id) => id === sent.messageId).length, 1);
    } finally {
      repo.get = get;
    }
    await until(() => gate().count() === 0);
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=0`)).status, 200);
  });

  test('includeBody=false leaves text, html and headers out; small mail comes whole', async () => {
    const inbox = await json(await post('/v1/inboxes', {}), 201);
    await json(
      await post(`/v1/inboxes/${inbox.inboxId}/simulate`, { scenario: 'custom', subject: 'Small', text: 'Your code is 482913.' }),
      201,
    );
    const lean = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=0&includeBody=false`));
    assert.equal(lean.text, null);
    assert.equal(lean.html, null);
    assert.deepEqual(lean.headers, []);
    assert.equal(lean.truncated, true);
    assert.equal(lean.verification.otp, '482913');
    const whole = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=0`));
    assert.equal(whole.truncated, false);
    assert.match(whole.text, /482913/);
    assert.ok(whole.headers.length > 0);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?includeBody=maybe`), 400)).errors[0].path, 'includeBody');
  });

  test('the limit counts what the JSON answer writes: a body of control characters is cut to it, not to six times it', async () => {
    const inbox = await json(await post('/v1/inboxes', {}), 201);
    const raw = [
      'From: a@example.com',
      `To: ${inbox.address}`,
      'Subject: controls',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${'\u0001\u0002"\\'.repeat(2000)}`,
      '',
    ].join('\r\n');
    await s.server.parts.ingest.accept({ raw: Buffer.from(raw), rcpts: [inbox.address], mailFrom: 'a@example.com', source: 'test' });
    const res = await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=0`);
    const body = await res.text();
    assert.equal(res.status, 200, body);
    const a = JSON.parse(body) as Json;
    assert.equal(a.truncated, true);
    // Four characters that encode to 6 + 6 + 2 + 2 = 16: 2048 encoded characters hold 128 of them.
    assert.ok(JSON.stringify(a.text).length <= 2048 + 2, `text encodes to ${JSON.stringify(a.text).length} characters`);
    assert.ok(a.text.length >= 500, `text kept ${a.text.length} characters`);
  });
});
