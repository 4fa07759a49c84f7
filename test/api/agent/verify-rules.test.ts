// CONTRACT §4 hardening: which message verify/open/extract use (the newest with a code or link), a result handed out
// once (resend flows), `since`, a timed-out deleteAfter keeping its inbox, and one shape for `from`.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { listenerCount, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});
const post = (path: string, body: Json) => s.api(path, { method: 'POST', json: body });
const newInbox = async (body: Json = {}) => json(await post('/v1/inboxes', body), 201);
const codeMail = async (inboxId: string, code: string) =>
  json(
    await post(`/v1/inboxes/${inboxId}/simulate`, {
      scenario: 'custom',
      from: 'GitHub <noreply@github.com>',
      subject: '[GitHub] Please verify your device',
      text: `Verification code: ${code}\n`,
    }),
    201,
  );
const welcomeMail = async (inboxId: string) =>
  json(
    await post(`/v1/inboxes/${inboxId}/simulate`, {
      scenario: 'custom',
      from: 'GitHub <noreply@github.com>',
      subject: 'Welcome to GitHub',
      text: 'Thanks for joining. We are glad you are here.\n',
    }),
    201,
  );
/** Resolves once `n` waits listen on the inbox, so mail sent next arrives while the call waits. */
async function waiting(inboxId: string, n = 1): Promise<void> {
  for (let i = 0; i < 500 && listenerCount(s, inboxId) < n; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(listenerCount(s, inboxId) >= n, 'the call never started waiting');
}

describe('the newest message with a code or link wins', () => {
  test('a newer welcome mail does not hide the code: verify, extract and open', async () => {
    const inbox = await newInbox({ localPart: 'welcome-after-code' });
    await codeMail(inbox.inboxId, '482913');
    await welcomeMail(inbox.inboxId);
    const x = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract`));
    assert.equal(x.status, 'verified');
    assert.equal(x.verification.otp, '482913');
    const o = await json(await post('/v1/inboxes/open', { localPart: 'welcome-after-code', timeoutSeconds: 5, deleteAfter: false }));
    assert.equal(o.status, 'verified');
    assert.equal(o.verification.otp, '482913');

    const other = await newInbox();
    await codeMail(other.inboxId, '551177');
    await welcomeMail(other.inboxId);
    const v = await json(await post('/v1/agent/verify', { inboxId: other.inboxId, timeoutSeconds: 5 }));
    assert.equal(v.status, 'verified');
    assert.equal(v.verification.otp, '551177');
  });

  test('verify waits past a codeless mail for the code; received only when none had one', async () => {
    const inbox = await newInbox();
    await welcomeMail(inbox.inboxId);
    const pending = post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 20 });
    await waiting(inbox.inboxId);
    await codeMail(inbox.inboxId, '730481');
    const r = await json(await pending);
    assert.equal(r.status, 'verified');
    assert.equal(r.verification.otp, '730481');

    const plain = await newInbox();
    const w = await welcomeMail(plain.inboxId);
    const rec = await json(await post('/v1/agent/verify', { inboxId: plain.inboxId, timeoutSeconds: 1 }));
    assert.equal(rec.status, 'received');
    assert.equal(rec.message.messageId, w.messageId);
    assert.equal(rec.agent.primaryAction.type, 'manual');
  });
});

describe('a verify result is handed out once', () => {
  test('resend: the next verify waits for the new code instead of returning the old one', async () => {
    const inbox = await newInbox();
    const first = await codeMail(inbox.inboxId, '111222');
    const r1 = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 5 }));
    assert.equal(r1.verification.otp, '111222');
    // Nothing new: no stale code, a timeout.
    const again = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1 }));
    assert.equal(again.status, 'timeout');
    const pending = post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 20 });
    await waiting(inbox.inboxId);
    await codeMail(inbox.inboxId, '333444');
    const r2 = await json(await pending);
    assert.equal(r2.verification.otp, '333444');
    // extract is a read: it is not bound by the mark.
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract`))).verification.otp, '333444');
    // since overrides the mark: an ISO time before everything, or the first message's id.
    const old = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1, since: '2000-01-01T00:00:00Z' }));
    assert.equal(old.verification.otp, '333444');
    const after1 = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1, since: first.messageId }));
    assert.equal(after1.verification.otp, '333444');
  });

  test('the hand-out mark is stored: it holds across a restart', async () => {
    const dir = tempDir();
    try {
      const a = await startTestServer([], {}, { dataDir: dir });
      const inbox = await json(await a.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      await json(
        await a.api(`/v1/inboxes/${inbox.inboxId}/simulate`, {
          method: 'POST',
          json: { scenario: 'custom', subject: 'Code', text: 'Your code is 771234.' },
        }),
        201,
      );
      const first = await json(await a.api('/v1/agent/verify', { method: 'POST', json: { inboxId: inbox.inboxId, timeoutSeconds: 5 } }));
      assert.equal(first.verification.otp, '771234');
      await a.stop();
      const b = await startTestServer([], {}, { dataDir: dir });
      try {
        const again = await json(await b.api('/v1/agent/verify', { method: 'POST', json: { inboxId: inbox.inboxId, timeoutSeconds: 1 } }));
        assert.equal(again.status, 'timeout');
      } finally {
        await b.stop();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('since on verify and open: bad values are clear errors', async () => {
    const inbox = await newInbox();
    const unknown = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1, since: 'msg_nope' }), 404);
    assert.equal(unknown.code, 'not_found');
    assert.match(unknown.detail, /since: no message msg_nope/);
    assert.equal(unknown.errors[0].path, 'since');
    const bad = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1, since: 'yesterday' }), 400);
    assert.equal(bad.errors[0].path, 'since');
    const open = await json(await post('/v1/inboxes/open', { timeoutSeconds: 1, since: '2000-01-01T00:00:00Z' }));
    assert.equal(open.status, 'timeout');
  });
});

describe('deleteAfter and timeouts', () => {
  test('a timed-out verify with deleteAfter keeps the inbox; the retry inboxId works and then deletes', async () => {
    const inbox = await newInbox();
    const t = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 1, deleteAfter: true }));
    assert.equal(t.status, 'timeout');
    assert.equal(t.deleted, false);
    assert.equal(t.agent.primaryAction.type, 'retry');
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`)).status, 200);
    await codeMail(inbox.inboxId, '909090');
    const r = await json(await post('/v1/agent/verify', { inboxId: t.agent.primaryAction.value, timeoutSeconds: 5, deleteAfter: true }));
    assert.equal(r.verification.otp, '909090');
    assert.equal(r.deleted, true);
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`)).status, 404);
  });
});

describe('from has one shape', () => {
  test('verify result message.from is {name, address}, as in messages; the OpenAPI says so', async () => {
    const inbox = await newInbox();
    const m = await codeMail(inbox.inboxId, '246810');
    const r = await json(await post('/v1/agent/verify', { inboxId: inbox.inboxId, timeoutSeconds: 5 }));
    assert.deepEqual(r.message.from, { name: 'GitHub', address: 'noreply@github.com' });
    const full = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}`));
    assert.deepEqual(r.message.from, full.from);
    const doc = await json(await s.api('/v1/openapi.json'));
    const schema = doc.paths['/v1/agent/verify'].post.responses['200'].content['application/json'].schema;
    assert.match(JSON.stringify(schema.properties.message), /"from".*"address"/);
  });
});
