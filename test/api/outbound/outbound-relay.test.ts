// Send through a real SMTP relay on loopback (smtp-server recording what it acknowledges): the received bytes carry
// the headers, threading headers and attachments, and a DKIM signature that mailauth verifies against the key
// published by a DNS server on 127.0.0.1 (dns2). Relay down → queued, retried, delivered after it returns, also
// across a restart; 550 → failed with the relay's text; 4xx → retried.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import dns2 from 'dns2';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser } from 'mailparser';
import { type Json, json } from '../../helpers/http.ts';
import { startRelay, type TestRelay } from '../../helpers/relay.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const FAST = { tuning: { retryDelaysMs: [100, 100, 100, 100, 100] }, relayTimeoutMs: 5_000 };

/** TXT character-strings hold at most 255 bytes: longer values (a DKIM key) are split (research §0). */
const chunks = (v: string): string[] => v.match(/.{1,255}/g) ?? [''];

async function startDns(zone: Record<string, string>): Promise<{ port: number; close: () => Promise<void> }> {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      const q = request.questions[0]!;
      const value = zone[q.name.toLowerCase()];
      if (value !== undefined && q.type === dns2.Packet.TYPE.TXT)
        response.answers.push({
          name: q.name,
          type: dns2.Packet.TYPE.TXT,
          class: dns2.Packet.CLASS.IN,
          ttl: 60,
          data: chunks(value),
        } as never);
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (server.addresses().udp as AddressInfo).port;
  return { port, close: () => server.close() };
}

async function waitUntil<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const deliveries = async (s: TestServer, inboxId: string, messageId: string): Promise<Json[]> =>
  (await json(await s.api(`/v1/inboxes/${inboxId}/messages/${messageId}`))).deliveries as Json[];

describe('through a relay, DKIM-signed', () => {
  let relay: TestRelay;
  let s: TestServer;
  let dns: { port: number; close: () => Promise<void> };
  const keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKey = (keys.publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');

  before(async () => {
    relay = await startRelay();
    dns = await startDns({ 'sel1._domainkey.inboxd.test': `v=DKIM1; k=rsa; p=${publicKey}` });
    s = await startTestServer(
      ['--smtp-relay', relay.url, '--smtp-relay-tls-insecure'],
      {},
      {
        outbound: {
          ...FAST,
          dkimFor: (domain) =>
            domain === 'inboxd.test'
              ? {
                  domainName: 'inboxd.test',
                  keySelector: 'sel1',
                  privateKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
                }
              : null,
        },
      },
    );
  });
  after(async () => {
    await s.stop();
    await relay.close();
    await dns.close();
  });

  test('the relay receives the message: headers, attachments, envelope with bcc, STARTTLS, a DKIM signature that verifies', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const sent = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/send`, {
        method: 'POST',
        json: {
          to: 'Zoë Ümlaut <zoe@example.com>',
          cc: ['carl@example.org'],
          bcc: 'hidden@example.net',
          subject: 'Quartalsbericht — Ärger? 📎',
          text: 'Hallo Zoë,\nanbei der Bericht.',
          html: '<p>Hallo Zoë, anbei der <b>Bericht</b>.</p>',
          replyTo: 'team@example.com',
          attachments: [
            { filename: 'bericht.pdf', contentType: 'application/pdf', contentBase64: Buffer.from('%PDF-1.4 fake').toString('base64') },
          ],
        },
      }),
      202,
    );
    assert.deepEqual(
      sent.recipients.map((r: Json) => [r.address, r.kind, r.route, r.state]),
      [
        ['zoe@example.com', 'to', 'relay', 'queued'],
        ['carl@example.org', 'cc', 'relay', 'queued'],
        ['hidden@example.net', 'bcc', 'relay', 'queued'],
      ],
    );
    await relay.whenReceived(1);
    const got = relay.received[0]!;
    assert.equal(got.from, inbox.address);
    assert.deepEqual([...got.to].sort(), ['carl@example.org', 'hidden@example.net', 'zoe@example.com']);
    assert.equal(got.secure, true, 'STARTTLS was offered, so it is used');
    const text = got.raw.toString();
    assert.doesNotMatch(text, /hidden@example\.net/i, 'Bcc is not in the bytes');
    const parsed = await simpleParser(got.raw);
    assert.equal(parsed.subject, 'Quartalsbericht — Ärger? 📎');
    assert.equal(parsed.from?.value[0]?.address, inbox.address);
    assert.equal(parsed.messageId, sent.rfcMessageId);
    assert.deepEqual(
      (parsed.to as { value: Array<{ address: string; name: string }> }).value.map((v) => [v.name, v.address]),
      [['Zoë Ümlaut', 'zoe@example.com']],
    );
    assert.equal(parsed.replyTo?.value[0]?.address, 'team@example.com');
    assert.equal(parsed.attachments.length, 1);
    assert.equal(parsed.attachments[0]!.filename, 'bericht.pdf');
    assert.equal(parsed.attachments[0]!.content.toString(), '%PDF-1.4 fake');
    assert.match(parsed.text ?? '', /anbei der Bericht/);

    const resolver = new Resolver();
    resolver.setServers([`127.0.0.1:${dns.port}`]);
    const verdict = await dkimVerify(got.raw, { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') } as never);
    const r = verdict.results[0] as Json;
    assert.equal(r.status.result, 'pass', JSON.stringify(r.status));
    assert.equal(r.signingDomain, 'inboxd.test');
    assert.equal(r.selector, 'sel1');

    const states = await waitUntil('all sent', async () => {
      const d = await deliveries(s, inbox.inboxId, sent.messageId);
      return d.every((x) => x.state === 'sent') && d;
    });
    assert.equal(states.length, 3);
    assert.match(states[0]!.response, /^250/);
  });

  test('a reply to external mail goes to the relay with In-Reply-To and References', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const original = Buffer.from(
      `From: Ann <ann@example.com>\r\nTo: ${inbox.address}\r\nCc: bob@example.com\r\nSubject: RE: Your order\r\nMessage-ID: <orig-2@example.com>\r\nReferences: <orig-1@example.com>\r\n\r\nWhere is it?\r\n`,
    );
    const [d] = await s.server.parts.ingest.accept({
      raw: original,
      rcpts: [inbox.address],
      mailFrom: 'ann@example.com',
      source: 'smtp',
    });
    const before = relay.received.length;
    const sent = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/reply`, {
        method: 'POST',
        json: { messageId: d!.messageId, replyAll: true, text: 'On its way.' },
      }),
      202,
    );
    assert.equal(sent.subject, 'RE: Your order');
    await relay.whenReceived(before + 1);
    const got = relay.received[before]!;
    assert.deepEqual([...got.to].sort(), ['ann@example.com', 'bob@example.com']);
    const parsed = await simpleParser(got.raw);
    assert.equal(parsed.inReplyTo, '<orig-2@example.com>');
    assert.deepEqual(parsed.references, ['<orig-1@example.com>', '<orig-2@example.com>']);
    assert.equal(parsed.subject, 'RE: Your order');
  });

  test('550 for one recipient: failed with the relay text; the others are sent; 451 is retried', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    let deferred = 0;
    relay.refuse = (rcpt) => {
      if (rcpt === 'nobody@example.com') return '550 5.1.1 nobody: no such user here';
      if (rcpt === 'later@example.com' && deferred++ < 2) return '451 4.3.0 try again later';
      return null;
    };
    try {
      const sent = await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/send`, {
          method: 'POST',
          json: { to: ['nobody@example.com', 'ok@example.com', 'later@example.com'], text: 'x' },
        }),
        202,
      );
      const states = await waitUntil('final states', async () => {
        const d = await deliveries(s, inbox.inboxId, sent.messageId);
        return d.every((x) => x.state !== 'queued') && d;
      });
      const by = Object.fromEntries(states.map((x) => [x.address, x]));
      assert.equal(by['nobody@example.com'].state, 'failed');
      assert.match(by['nobody@example.com'].response, /550 5\.1\.1 nobody: no such user here/);
      assert.equal(by['nobody@example.com'].attempts, 1);
      assert.equal(by['ok@example.com'].state, 'sent');
      assert.equal(by['later@example.com'].state, 'sent');
      assert.equal(by['later@example.com'].attempts, 3);
    } finally {
      relay.refuse = () => null;
    }
  });
});

describe('relay down', () => {
  test('queued, retried, delivered once after it returns, nothing lost across a restart', async () => {
    // Take a free port, then leave it closed: the relay is down.
    const probe = await startRelay();
    const port = probe.port;
    await probe.close();
    const dataDir = tempDir();
    let s = await startTestServer(
      ['--smtp-relay', `smtp://127.0.0.1:${port}`, '--smtp-relay-tls-insecure'],
      {},
      { dataDir, outbound: FAST },
    );
    let relay: TestRelay | null = null;
    try {
      const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const local = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const sent = await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/send`, {
          method: 'POST',
          json: { to: ['far@example.com', local.address], text: 'hello' },
        }),
        202,
      );
      const far = sent.recipients.find((r: Json) => r.address === 'far@example.com');
      assert.equal(far.state, 'queued');
      assert.equal(sent.recipients.find((r: Json) => r.address === local.address).state, 'sent');
      // At least two attempts fail (connection refused) and the delivery stays queued with the error.
      const failing = await waitUntil('failed attempts', async () => {
        const d = (await deliveries(s, inbox.inboxId, sent.messageId)).find((x) => x.address === 'far@example.com')!;
        return d.attempts >= 2 && d;
      });
      assert.equal(failing.state, 'queued');
      assert.match(failing.response, /ECONNECTION|ECONNREFUSED|connect/i);
      await s.stop();

      relay = await startRelay(port);
      s = await startTestServer(['--smtp-relay', `smtp://127.0.0.1:${port}`, '--smtp-relay-tls-insecure'], {}, { dataDir, outbound: FAST });
      await relay.whenReceived(1);
      const done = await waitUntil('sent', async () => {
        const d = (await deliveries(s, inbox.inboxId, sent.messageId)).find((x) => x.address === 'far@example.com')!;
        return d.state === 'sent' && d;
      });
      assert.ok(done.attempts >= 3);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(relay.received.length, 1, 'delivered exactly once');
      assert.deepEqual(relay.received[0]!.to, ['far@example.com']);
    } finally {
      await s.stop();
      await relay?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a temporary failure past the last retry becomes failed', async () => {
    const probe = await startRelay();
    const port = probe.port;
    await probe.close();
    const s = await startTestServer(['--smtp-relay', `smtp://127.0.0.1:${port}`], {}, { outbound: { tuning: { retryDelaysMs: [50] } } });
    try {
      const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const sent = await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/send`, { method: 'POST', json: { to: 'x@example.com', text: 'x' } }),
        202,
      );
      const d = await waitUntil('failed', async () => {
        const x = (await deliveries(s, inbox.inboxId, sent.messageId))[0]!;
        return x.state === 'failed' && x;
      });
      assert.equal(d.attempts, 2);
      assert.equal(d.nextAttemptAt, null);
    } finally {
      await s.stop();
    }
  });
});

describe('relay certificate', () => {
  test('a relay whose STARTTLS certificate does not verify gets nothing: queued, the TLS error in response', async () => {
    const relay = await startRelay();
    const s = await startTestServer(['--smtp-relay', relay.url], {}, { outbound: { tuning: { retryDelaysMs: [60_000] } } });
    try {
      const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const sent = await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/send`, { method: 'POST', json: { to: 'x@example.com', text: 'x' } }),
        202,
      );
      const d = await waitUntil('a failed attempt', async () => {
        const x = (await deliveries(s, inbox.inboxId, sent.messageId))[0]!;
        return x.attempts >= 1 && x;
      });
      assert.equal(d.state, 'queued');
      assert.match(d.response, /certificate/i);
      assert.equal(relay.received.length, 0);
    } finally {
      await s.stop();
      await relay.close();
    }
  });
});
