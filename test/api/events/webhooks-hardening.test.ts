// Inbound webhooks under hostile input (issue 11): providers are off until the operator turns them on, uploads share
// an in-flight byte budget (503 + Retry-After beyond it, 413 from Content-Length at once), JSON is bounded in depth
// and values, recipients are capped as over SMTP, Mailgun signatures must be fresh and are single-use (also across
// a restart), and stored mail says how it came in (`via`). Limits are set low by flags.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig, UsageError } from '../../../src/config.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { RawSmtp, sleep } from '../../stress/lib.ts';

const KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const MAX = 64 * 1024;
const BUDGET = 200_000;

let s: TestServer;
let dir: string;
const args = [
  '--max-message-bytes',
  String(MAX),
  '--inbound-webhooks',
  'raw,mailgun,postmark,ses',
  '--webhook-inflight-bytes',
  String(BUDGET),
];
before(async () => {
  dir = tempDir('inboxd-webhooks-');
  s = await startTestServer(args, { INBOXD_MAILGUN_SIGNING_KEY: KEY }, { dataDir: dir });
});
after(async () => {
  await s.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const hook = (provider: string, init: RequestInit, query = '') =>
  fetch(`${s.url}/webhooks/${provider}${query}`, { method: 'POST', ...init });
const rfc822 = { 'content-type': 'message/rfc822' };
const mime = (to: string, subject: string) =>
  `From: a@acme.example\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${crypto.randomUUID()}@acme.example>\r\n\r\nYour code is 739204.\r\n`;
const create = async () => json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
const messages = async (inboxId: string) => (await json(await s.api(`/v1/inboxes/${inboxId}/messages`), 200)).items as Json[];

function signed(timestamp = Math.floor(Date.now() / 1000), token = crypto.randomBytes(25).toString('hex')) {
  const ts = String(timestamp);
  return {
    timestamp: ts,
    token,
    signature: crypto
      .createHmac('sha256', KEY)
      .update(ts + token)
      .digest('hex'),
  };
}
function mailgun(to: string, message: string, sig = signed()): URLSearchParams {
  return new URLSearchParams({ recipient: to, sender: 'bounce@acme.example', 'body-mime': message, ...sig });
}
const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** Starts an upload that declares `length` bytes and sends only its first bytes; the socket stays open. */
async function holdUpload(length: number | null): Promise<net.Socket> {
  const sock = net.connect(s.server.httpPort, '127.0.0.1');
  sock.on('error', () => undefined);
  await new Promise((r) => sock.once('connect', r));
  const framing = length === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  sock.write(`POST /webhooks/raw HTTP/1.1\r\nHost: x\r\nContent-Type: message/rfc822\r\n${framing}\r\n\r\n`);
  sock.write(length === null ? '5\r\nFrom:\r\n' : 'From:');
  await sleep(100);
  return sock;
}

describe('turning providers on', () => {
  test('a provider not in --inbound-webhooks answers 501 not_configured naming the flag; unknown ones 404', async () => {
    const r = await json(await hook('sendgrid', { body: new FormData() }), 501);
    assert.equal(r.code, 'not_configured');
    assert.match(r.detail, /--inbound-webhooks sendgrid/);
    assert.match((await json(await hook('mandrill', { headers: rfc822, body: 'x' }), 404)).detail, /valid providers/);
  });

  test('by default every provider is off; mailgun cannot be turned on without its signing key', async () => {
    const off = await startTestServer();
    try {
      for (const p of ['raw', 'mailgun', 'sendgrid', 'postmark', 'ses'])
        assert.equal((await json(await fetch(`${off.url}/webhooks/${p}`, { method: 'POST', body: 'x' }), 501)).code, 'not_configured');
    } finally {
      await off.stop();
    }
    assert.throws(
      () => loadConfig(['--inbound-webhooks', 'mailgun'], {}),
      (e) => e instanceof UsageError && /INBOXD_MAILGUN_SIGNING_KEY/.test(e.message),
    );
    assert.throws(() => loadConfig(['--inbound-webhooks', 'raw,mandrill'], {}), /--inbound-webhooks/);
    assert.deepEqual(loadConfig(['--inbound-webhooks', 'all'], { INBOXD_MAILGUN_SIGNING_KEY: 'k' }).inboundWebhooks.length, 5);
  });
});

describe('upload budget', () => {
  test('a body declared over the limit is refused with 413 before it is read', async () => {
    const sock = await holdUpload(BUDGET + 1);
    let answer = '';
    sock.on('data', (d) => (answer += d));
    await new Promise((r) => sock.once('close', r));
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /--webhook-inflight-bytes/);
  });

  test('uploads beyond --webhook-inflight-bytes get 503 with Retry-After; the budget comes back when they end', async () => {
    const inbox = await create();
    const big = await holdUpload(150_000);
    const chunked = await holdUpload(null);
    let answer = '';
    chunked.on('data', (d) => (answer += d));
    await new Promise((r) => chunked.once('close', r));
    assert.match(answer, /^HTTP\/1\.1 503 /, 'an upload of unknown length reserves the whole limit');
    const message = mime(inbox.address, 'x'.repeat(60_000));
    const refused = await hook('raw', { headers: rfc822, body: message });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.match(((await refused.json()) as Json).detail, /too many webhook uploads in progress/);
    assert.equal((await hook('raw', { headers: rfc822, body: mime(inbox.address, 'small') })).status, 200, 'small ones still fit');
    big.destroy();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await hook('raw', { headers: rfc822, body: message })).status;
      if (status !== 200) await sleep(20);
    }
    assert.equal(status, 200);
  });
});

describe('JSON bounds', () => {
  test('deeply nested or value-heavy JSON is refused with 400 naming the bound, before parsing', async () => {
    const deep = `{"RawEmail":"x","Headers":${'['.repeat(40)}${']'.repeat(40)}}`;
    assert.match(
      (await json(await hook('postmark', { headers: { 'content-type': 'application/json' }, body: deep }), 400)).detail,
      /nested deeper than 32 levels/,
    );
    const wide = `{"RawEmail":"x","Headers":[${'1,'.repeat(60_000)}1]}`;
    assert.match(
      (await json(await hook('postmark', { headers: { 'content-type': 'application/json' }, body: wide }), 400)).detail,
      /more than 50000 values/,
    );
    const sns = { Type: 'Notification', Message: '['.repeat(1000) + ']'.repeat(1000) };
    const r = await json(await hook('ses', { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(sns) }), 400);
    assert.match(r.detail, /SNS Message is JSON nested deeper/);
    assert.deepEqual(r.errors, [{ path: 'Message', message: r.detail }]);
    const api = await json(
      await s.api('/v1/inboxes', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"label":${'['.repeat(100)}${']'.repeat(100)}}`,
      }),
      400,
    );
    assert.match(api.detail, /nested deeper than 64 levels/);
  });
});

describe('recipients', () => {
  test('more than 100 recipients → 400 naming the limit, nothing stored', async () => {
    const inbox = await create();
    const to = [inbox.address, ...Array.from({ length: 100 }, (_, i) => `r${i}@inboxd.test`)].join(',');
    const r = await json(await hook('raw', { headers: rfc822, body: mime(inbox.address, 'many') }, `?to=${encodeURIComponent(to)}`), 400);
    assert.match(r.detail, /101 recipients; at most 100/);
    const viaMailgun = await json(await hook('mailgun', { headers: form, body: mailgun(to, mime(inbox.address, 'many')).toString() }), 400);
    assert.match(viaMailgun.detail, /at most 100/);
    assert.equal((await messages(inbox.inboxId)).length, 0);
    const hundred = [inbox.address, ...Array.from({ length: 99 }, (_, i) => `r${i}@inboxd.test`)].join(',');
    assert.equal(
      (await hook('raw', { headers: rfc822, body: mime(inbox.address, 'ok') }, `?to=${encodeURIComponent(hundred)}`)).status,
      200,
    );
  });
});

describe('mailgun signatures', () => {
  test('stale or future timestamps are 401; a token is good once, also after a restart; a refused request does not use it up', async () => {
    const inbox = await create();
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [now - 6 * 60, now + 6 * 60]) {
      const r = await json(
        await hook('mailgun', { headers: form, body: mailgun(inbox.address, mime(inbox.address, 'stale'), signed(ts)).toString() }),
        401,
      );
      assert.match(r.detail, /more than 5 minutes from this server's clock/);
    }
    const sig = signed(now - 4 * 60);
    // Not MIME: refused, and the token stays unused so that the provider's retry is taken.
    assert.equal((await hook('mailgun', { headers: form, body: mailgun(inbox.address, 'not a message', sig).toString() })).status, 400);
    const body = mailgun(inbox.address, mime(inbox.address, 'once'), sig).toString();
    assert.equal((await hook('mailgun', { headers: form, body })).status, 200);
    const replay = await json(await hook('mailgun', { headers: form, body }), 401);
    assert.match(replay.detail, /already received/);
    // The same signature on another body (the signature does not cover it) is a replay too.
    const swapped = mailgun(inbox.address, mime(inbox.address, 'swapped'), sig).toString();
    assert.equal((await hook('mailgun', { headers: form, body: swapped })).status, 401);

    await s.stop();
    s = await startTestServer(args, { INBOXD_MAILGUN_SIGNING_KEY: KEY }, { dataDir: dir });
    assert.equal((await hook('mailgun', { headers: form, body })).status, 401, 'remembered across a restart');
    assert.deepEqual(
      (await messages(inbox.inboxId)).map((m) => m.subject),
      ['once'],
    );
  });
});

describe('via', () => {
  test('messages say whether they came by SMTP, simulate or a webhook', async () => {
    const inbox = await create();
    assert.equal((await hook('raw', { headers: rfc822, body: mime(inbox.address, 'hooked') })).status, 200);
    assert.equal(
      (await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'welcome' } })).status < 300,
      true,
    );
    const smtp = new RawSmtp(s.server.smtpPort);
    await smtp.reply();
    await smtp.cmd('EHLO via.example');
    await smtp.cmd('MAIL FROM:<a@example.com>');
    await smtp.cmd(`RCPT TO:<${inbox.address}>`);
    await smtp.cmd('DATA');
    assert.match(await smtp.cmd('Subject: smtp\r\n\r\nhello\r\n.'), /^250 /);
    smtp.destroy();
    const via = (await messages(inbox.inboxId)).map((m) => m.via).sort();
    assert.deepEqual(via, ['simulate', 'smtp', 'webhook:raw']);
    const one = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${(await messages(inbox.inboxId))[0]!.messageId}`), 200);
    assert.equal(typeof one.via, 'string');
  });
});
