// Release: a captured message sent on to real addresses through the operator's relay (a real SMTP server on loopback,
// test/helpers/relay.ts): the bytes unchanged, the envelope new, only to addresses --release-allow names (403 for the
// rest, nothing sent), 501 without a relay, audited, the targets' state on the message, and the MCP tool.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { callErr, callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startRelay, type TestRelay } from '../../helpers/relay.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendRaw } from '../../helpers/smtp.ts';

const FAST = { tuning: { retryDelaysMs: [100, 100, 100] }, relayTimeoutMs: 5_000 };

async function waitUntil<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const RAW = [
  'From: Shop <shop@app.test>',
  'To: customer@inboxd.test',
  'Subject: Your receipt',
  'Message-ID: <receipt-1@app.test>',
  'Date: Fri, 27 Nov 2026 08:00:00 +0000',
  'DKIM-Signature: v=1; a=rsa-sha256; d=app.test; s=x; b=AAAA',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Total: 42 EUR',
  '',
].join('\r\n');

describe('release through the relay', () => {
  let relay: TestRelay;
  let s: TestServer;
  let captured: { inboxId: string; messageId: string; address: string };

  before(async () => {
    relay = await startRelay();
    s = await startTestServer(
      ['--smtp-relay', relay.url, '--smtp-relay-tls-insecure', '--release-allow', '*@staging.example.com, qa@corp.test'],
      {},
      { outbound: FAST },
    );
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    await sendRaw(s.server.smtpPort, RAW, inbox.address, 'shop@app.test');
    const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    captured = { inboxId: inbox.inboxId, messageId: list.items[0].messageId, address: inbox.address };
  });
  after(async () => {
    await s.stop();
    await relay.close();
  });

  const release = (to: unknown, key?: string) =>
    s.api(`/v1/inboxes/${captured.inboxId}/messages/${captured.messageId}/release`, {
      method: 'POST',
      json: { to },
      ...(key ? { key } : {}),
    });

  test('the relay receives the captured bytes unchanged, the envelope names the targets; audited; state on the message', async () => {
    const r = await json(await release(['Dev <dev@staging.example.com>', 'qa@corp.test']), 202);
    assert.equal(r.messageId, captured.messageId);
    assert.deepEqual(
      r.recipients.map((x: Json) => [x.address, x.route, x.state]),
      [
        ['dev@staging.example.com', 'relay', 'queued'],
        ['qa@corp.test', 'relay', 'queued'],
      ],
    );
    await relay.whenReceived(1);
    const got = relay.received.at(-1)!;
    assert.deepEqual(got.to.sort(), ['dev@staging.example.com', 'qa@corp.test']);
    assert.equal(got.from, captured.address, 'the envelope sender is the inbox address');
    const raw = Buffer.from(await (await s.api(`/v1/inboxes/${captured.inboxId}/messages/${captured.messageId}/raw`)).arrayBuffer());
    assert.ok(got.raw.equals(raw), 'the relay got the stored bytes exactly (no DKIM signature added, no Resent-* header)');

    const msg = await waitUntil('the releases to be recorded as sent', async () => {
      const m = await json(await s.api(`/v1/inboxes/${captured.inboxId}/messages/${captured.messageId}`));
      return m.deliveries?.every((d: Json) => d.state === 'sent') ? m : null;
    });
    assert.equal(msg.direction, 'inbound');
    assert.equal(msg.deliveries.length, 2);
    const audit = await json(await s.api('/v1/audit?action=message.release'));
    assert.ok(
      audit.items.some((e: Json) => e.target === captured.messageId && e.outcome === 'ok'),
      JSON.stringify(audit.items),
    );
  });

  test('an address the operator did not allow: 403, nothing sent (not even to the allowed ones)', async () => {
    const before = relay.received.length;
    const r = await json(await release(['dev@staging.example.com', 'ceo@example.com']), 403);
    assert.match(
      r.detail,
      /ceo@example\.com is not an allowed release target \(--release-allow: \*@staging\.example\.com, qa@corp\.test\)/,
    );
    // * does not cross the @ or a dot boundary into another domain.
    await json(await release('dev@evil.test@staging.example.com'), 400);
    await json(await release('dev@staging.example.com.evil.test'), 403);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(relay.received.length, before);
    const denied = await json(await s.api('/v1/audit?action=message.release'));
    assert.ok(denied.items.some((e: Json) => e.outcome !== 'ok'));
  });

  test('validation and scope: an unknown message is 404, no target 400, a read-only key 403', async () => {
    await json(
      await s.api(`/v1/inboxes/${captured.inboxId}/messages/msg_nope/release`, { method: 'POST', json: { to: 'qa@corp.test' } }),
      404,
    );
    await json(await release([]), 400);
    await json(await release('not an address'), 400);
    const ro = await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } }), 201);
    await json(await release('qa@corp.test', ro.key), 403);
  });

  test('MCP: svc_release_message releases, and refuses a target not allowed', async () => {
    const c = await mcpClient(s.url, s.key);
    try {
      const before = relay.received.length;
      const ok = await callOk(c, 'svc_release_message', { inboxId: captured.inboxId, messageId: captured.messageId, to: ['qa@corp.test'] });
      assert.equal(ok.recipients[0].address, 'qa@corp.test');
      await relay.whenReceived(before + 1);
      const err = await callErr(c, 'svc_release_message', {
        inboxId: captured.inboxId,
        messageId: captured.messageId,
        to: ['x@gmail.com'],
      });
      assert.match(err, /not an allowed release target/);
    } finally {
      await c.close();
    }
  });
});

describe('release switched off', () => {
  test('no --release-allow: 403 saying how to turn it on; no relay: 501', async () => {
    const relay = await startRelay();
    const withRelay = await startTestServer(['--smtp-relay', relay.url, '--smtp-relay-tls-insecure'], {}, { outbound: FAST });
    const noRelay = await startTestServer(['--release-allow', '*']);
    try {
      for (const [s, status, re] of [
        [withRelay, 403, /release is off on this server.*--release-allow/],
        [noRelay, 501, /--smtp-relay/],
      ] as const) {
        const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
        await sendRaw(s.server.smtpPort, RAW, inbox.address, 'a@app.test');
        const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
        const r = await json(
          await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${list.items[0].messageId}/release`, {
            method: 'POST',
            json: { to: 'a@b.test' },
          }),
          status,
        );
        assert.match(r.detail, re);
      }
      assert.equal(relay.received.length, 0);
    } finally {
      await withRelay.stop();
      await noRelay.stop();
      await relay.close();
    }
  });
});
