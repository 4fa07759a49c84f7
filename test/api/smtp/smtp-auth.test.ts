// SMTP AUTH as users configure it (--smtp-auth any|required|off), sink mode (--accept-any-domain) and the mail-in log.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { smtpDialogue } from '../../helpers/smtp.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const plain = (user: string, pass: string) => `AUTH PLAIN ${b64(`\0${user}\0${pass}`)}`;

async function sendWithAuth(port: number, user: string, pass: string, to: string) {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, auth: { user, pass } });
  try {
    return await t.sendMail({ from: 'app@staging.example', to, subject: 'Your code is 482913', text: 'code 482913' });
  } finally {
    t.close();
  }
}
const createInbox = async (s: TestServer, body: Json = {}, key?: string) =>
  json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201);
const mint = async (s: TestServer, body: Json): Promise<string> =>
  (await json(await s.api('/v1/team/keys', { method: 'POST', json: body }), 201)).key;
const logLines = (s: TestServer) => s.logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Json);

describe('--smtp-auth any (default)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  test('EHLO offers AUTH PLAIN LOGIN without STARTTLS, and any user and password deliver', async () => {
    const ehlo = await smtpDialogue(s.server.smtpPort, ['EHLO app', 'QUIT']);
    assert.ok(
      ehlo.some((l) => /^250[- ]AUTH PLAIN LOGIN/.test(l)),
      ehlo.join('\n'),
    );
    const inbox = await createInbox(s);
    const sent = await sendWithAuth(s.server.smtpPort, 'smtp-user', 'whatever password', inbox.address);
    assert.match(sent.response, /^250 /);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`))).subject, 'Your code is 482913');
  });

  test('raw AUTH PLAIN and AUTH LOGIN are accepted', async () => {
    const r1 = await smtpDialogue(s.server.smtpPort, ['EHLO app', plain('u', 'p'), 'QUIT']);
    assert.ok(
      r1.some((l) => l.startsWith('235 ')),
      r1.join('\n'),
    );
    const r2 = await smtpDialogue(s.server.smtpPort, ['EHLO app', 'AUTH LOGIN', b64('u'), b64('p'), 'QUIT']);
    assert.ok(
      r2.some((l) => l.startsWith('235 ')),
      r2.join('\n'),
    );
  });
});

describe('--smtp-auth off', () => {
  test('AUTH is not offered', async () => {
    const s = await startTestServer(['--smtp-auth', 'off']);
    try {
      const ehlo = await smtpDialogue(s.server.smtpPort, ['EHLO app', 'QUIT']);
      assert.ok(!ehlo.some((l) => l.includes('AUTH')), ehlo.join('\n'));
    } finally {
      await s.stop();
    }
  });
});

describe('--smtp-auth required', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--smtp-auth', 'required']);
  });
  after(() => s.stop());

  test('MAIL without AUTH is refused with 530 5.7.0', async () => {
    const inbox = await createInbox(s);
    const r = await smtpDialogue(s.server.smtpPort, ['EHLO app', 'MAIL FROM:<a@b.example>', 'QUIT']);
    assert.ok(
      r.some((l) => l.startsWith('530 5.7.0 authentication required')),
      r.join('\n'),
    );
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: s.server.smtpPort, secure: false, ignoreTLS: true });
    try {
      await assert.rejects(t.sendMail({ from: 'a@b.example', to: inbox.address, text: 'x' }), (e: Error & { responseCode?: number }) => {
        assert.equal(e.responseCode, 530);
        return true;
      });
    } finally {
      t.close();
    }
  });

  test('a password that is not a valid key is refused with 535 5.7.8 (PLAIN and LOGIN)', async () => {
    const r1 = await smtpDialogue(s.server.smtpPort, ['EHLO app', plain('user', 'secret'), 'QUIT']);
    assert.ok(
      r1.some((l) => l.startsWith('535 5.7.8 authentication failed')),
      r1.join('\n'),
    );
    const r2 = await smtpDialogue(s.server.smtpPort, [
      'EHLO app',
      'AUTH LOGIN',
      b64('user'),
      b64('ibx_NotAKeyAtAll0000000000000000000'),
      'QUIT',
    ]);
    assert.ok(
      r2.some((l) => l.startsWith('535 5.7.8 ')),
      r2.join('\n'),
    );
    const inbox = await createInbox(s);
    await assert.rejects(sendWithAuth(s.server.smtpPort, 'user', 'secret', inbox.address), (e: Error & { responseCode?: number }) => {
      assert.equal(e.responseCode, 535);
      return true;
    });
    const refused = logLines(s).find((l) => l.msg === 'smtp auth refused');
    assert.ok(refused && refused.level === 'info' && refused.remote === '127.0.0.1', JSON.stringify(refused));
    assert.ok(!s.logs.some((l) => l.includes('secret')), 'the password is never logged');
  });

  test('an API key as the password (any user name) delivers, over nodemailer and raw AUTH LOGIN', async () => {
    const inbox = await createInbox(s);
    const sent = await sendWithAuth(s.server.smtpPort, 'anything', s.key, inbox.address);
    assert.match(sent.response, /^250 /);
    const r = await smtpDialogue(s.server.smtpPort, [
      'EHLO app',
      'AUTH LOGIN',
      b64('apikey'),
      b64(s.key),
      'MAIL FROM:<a@b.example>',
      `RCPT TO:<${inbox.address}>`,
      'DATA',
      'Subject: second\r\n\r\nhello\r\n.',
      'QUIT',
    ]);
    assert.ok(
      r.some((l) => l.startsWith('250 2.6.0 stored as msg_')),
      r.join('\n'),
    );
    const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    assert.equal(list.items.length, 2);
  });

  test('a read-only key is refused; a scoped key delivers only inside its scope or to unclaimed addresses', async () => {
    const ro = await mint(s, { label: 'ro', scope: { readOnly: true } });
    const r = await smtpDialogue(s.server.smtpPort, ['EHLO app', plain('u', ro), 'QUIT']);
    assert.ok(
      r.some((l) => /^535 5\.7\.8 .*read-only/.test(l)),
      r.join('\n'),
    );

    const scoped = await mint(s, { label: 'run', role: 'member', scope: { labelPrefix: 'run-1' } });
    const mine = await createInbox(s, { label: 'run-1-a' });
    const other = await createInbox(s, { label: 'run-2-a' });
    assert.match((await sendWithAuth(s.server.smtpPort, 'u', scoped, mine.address)).response, /^250 /);
    assert.match((await sendWithAuth(s.server.smtpPort, 'u', scoped, 'nobody-yet@inboxd.test')).response, /^250 /);
    const d = await smtpDialogue(s.server.smtpPort, [
      'EHLO app',
      plain('u', scoped),
      'MAIL FROM:<a@b.example>',
      `RCPT TO:<${other.address}>`,
      'QUIT',
    ]);
    assert.ok(
      d.some((l) => /^550 5\.7\.1 key key_\w+ may not deliver to /.test(l)),
      d.join('\n'),
    );
  });

  test('a send to a local address obeys the same rule: the scoped key cannot plant mail in another scope by POST …/send', async () => {
    const scoped = await mint(s, { label: 'run-send', role: 'member', scope: { labelPrefix: 'run-7' } });
    const from = await createInbox(s, { label: 'run-7-from' });
    const mine = await createInbox(s, { label: 'run-7-to' });
    const other = await createInbox(s, { label: 'run-8-x' });
    const send = (to: string) =>
      s.api(`/v1/inboxes/${from.inboxId}/send`, { method: 'POST', key: scoped, json: { to, subject: 's', text: 'code 123456' } });
    assert.equal((await send(mine.address)).status, 202);
    assert.equal((await send('nobody-yet-7@inboxd.test')).status, 202, 'unclaimed addresses, as over SMTP');
    const refused = await send(other.address);
    assert.equal(refused.status, 403);
    assert.match(
      ((await refused.json()) as Json).detail,
      /may not deliver to .*outside the key's team or label scope \(--smtp-auth required\); nothing was sent/,
    );
    assert.equal((await json(await s.api(`/v1/inboxes/${other.inboxId}/messages`))).items.length, 0, 'nothing stored for it');
  });
});

describe('--accept-any-domain and the mail-in log', () => {
  let sink: TestServer;
  let strict: TestServer;
  before(async () => {
    sink = await startTestServer(['--accept-any-domain', '--inbound-webhooks', 'raw']);
    strict = await startTestServer();
  });
  after(async () => {
    await sink.stop();
    await strict.stop();
  });

  test('off by default: other domains are refused at RCPT and at inbox creation; the refusal is logged at info', async () => {
    const r = await smtpDialogue(strict.server.smtpPort, ['EHLO x', 'MAIL FROM:<a@b.example>', 'RCPT TO:<user@gmail.com>', 'QUIT']);
    assert.ok(r.some((l) => l.startsWith('550 5.7.1 relaying denied')));
    await json(await strict.api('/v1/inboxes', { method: 'POST', json: { address: 'qa@customer.example' } }), 400);
    const line = logLines(strict).find((l) => l.msg === 'smtp recipient refused');
    assert.ok(line, strict.logs.join('\n'));
    assert.equal(line.level, 'info');
    assert.equal(line.remote, '127.0.0.1');
    assert.match(line.reason, /relaying denied/);
  });

  test('on: mail to any domain is kept and an inbox at any domain receives it', async () => {
    const inbox = await createInbox(sink, { address: 'QA@Customer.example' });
    assert.equal(inbox.address, 'qa@customer.example');
    const sent = await sendWithAuth(sink.server.smtpPort, 'u', 'p', 'qa@customer.example');
    assert.match(sent.response, /^250 /);
    const msg = await json(await sink.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`));
    assert.equal(msg.subject, 'Your code is 482913');
    const later = await sendWithAuth(sink.server.smtpPort, 'u', 'p', 'someone@gmail.com');
    assert.match(later.response, /^250 /, 'kept (unclaimed), not relayed');
    await json(await sink.api('/v1/inboxes', { method: 'POST', json: { address: 'bad@not_a_domain' } }), 400);
  });

  test('on: inbound webhooks keep mail for any domain too', async () => {
    const inbox = await createInbox(sink, { address: 'hooks@partner.example' });
    const raw = 'From: a@b.example\r\nTo: hooks@partner.example\r\nSubject: via webhook\r\n\r\nhi\r\n';
    const r = await fetch(`${sink.url}/webhooks/raw`, { method: 'POST', headers: { 'content-type': 'message/rfc822' }, body: raw });
    assert.ok(r.status < 300, await r.text());
    assert.equal((await json(await sink.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`))).subject, 'via webhook');
  });

  test('each stored message is logged at info with ids, size and sender domain, never its body or code', async () => {
    const inbox = await createInbox(strict);
    await sendWithAuth(strict.server.smtpPort, 'u', 'p', inbox.address);
    const line = logLines(strict).find((l) => l.msg === 'smtp message stored' && l.inboxIds?.includes(inbox.inboxId));
    assert.ok(line, strict.logs.join('\n'));
    assert.equal(line.level, 'info');
    assert.match(line.messageIds[0], /^msg_/);
    assert.equal(line.senderDomain, 'staging.example');
    assert.ok(line.size > 0);
    assert.ok(!strict.logs.some((l) => l.includes('482913')), 'no body or code in the log');
    assert.ok(logLines(strict).some((l) => l.msg === 'smtp connection' && l.level === 'debug'));
  });
});
