// The IMAP mailbox against a real Dovecot (test/helpers/dovecot.ts), through the official MCP SDK client: connect
// (wrong password, server down, credentials never shown or stored in the clear), list/read/triage/digest/settings,
// a draft APPENDed to Drafts (created when missing) and read back with its \Draft flag, idempotency, and a
// 10,000-message folder paged with bounded, ranged FETCH commands (seen on the wire through a recording proxy).
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ImapFlow } from 'imapflow';
import { freePort } from '../../../scripts/bench/lib.ts';
import { type Dovecot, dovecotMissing, rfc822, startDovecot } from '../../helpers/dovecot.ts';
import { callErr, callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { storedIncludes } from '../../helpers/stored.ts';

type Json = Record<string, any>;
const SECRET = 'a'.repeat(64);
const PASSWORD = 'Ada-Imap-Pass-7731';
const BIG = 10_000;
const missing = dovecotMissing();
if (missing) console.log(`# skipped: ${missing}`);

const day = (n: number) => new Date(Date.UTC(2026, 10, 1 + n, 9));
function seedAda(): Buffer[] {
  const html = [
    'From: Letters <news@letters.test>',
    'To: ada@dove.test',
    'Subject: Autumn issue',
    `Date: ${day(4).toUTCString()}`,
    'Message-ID: <news1@letters.test>',
    'List-Unsubscribe: <https://letters.test/unsub>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<html><body><h1>Autumn</h1><p>Leaves &amp; <b>colours</b>.</p></body></html>',
    '--b1',
    'Content-Type: application/pdf; name="issue.pdf"',
    'Content-Disposition: attachment; filename="issue.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 fake pdf bytes').toString('base64'),
    '--b1--',
    '',
  ].join('\r\n');
  return [
    rfc822({
      from: 'bob@dove.test',
      to: 'ada@dove.test',
      subject: 'Lunch?',
      text: 'Are you free for lunch tomorrow?',
      messageId: '<l1@dove.test>',
      date: day(1),
    }),
    rfc822({
      from: 'ada@dove.test',
      to: 'bob@dove.test',
      subject: 'Re: Lunch?',
      text: 'Yes, 12:30 at the usual place.',
      messageId: '<l2@dove.test>',
      inReplyTo: '<l1@dove.test>',
      references: ['<l1@dove.test>'],
      date: day(2),
    }),
    rfc822({
      from: 'no-reply@svc.test',
      to: 'ada@dove.test',
      subject: 'Your sign-in code',
      text: 'Your verification code is 771204.',
      messageId: '<v1@svc.test>',
      date: day(3),
    }),
    Buffer.from(html),
  ];
}
function seedBig(): Buffer[] {
  return Array.from({ length: BIG }, (_, i) =>
    rfc822({
      from: `s${i}@big.test`,
      to: 'big@dove.test',
      subject: `Bulk ${i}`,
      text: `message ${i}`,
      messageId: `<b${i}@big.test>`,
      date: day(0),
    }),
  );
}

/** A TCP proxy in front of Dovecot that keeps every command line the client sent. */
async function recordingProxy(port: number) {
  const lines: string[] = [];
  const srv = net.createServer((down) => {
    const up = net.connect(port, '127.0.0.1');
    let buf = '';
    down.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
      up.write(d);
    });
    up.pipe(down);
    up.on('error', () => down.destroy());
    down.on('error', () => up.destroy());
    down.on('close', () => up.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { port: (srv.address() as net.AddressInfo).port, lines, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

const setSize = (set: string) =>
  set.split(',').reduce((n, part) => {
    const [a, b] = part.split(':');
    if (b === '*' || a === '*') return Number.POSITIVE_INFINITY;
    return n + (b === undefined ? 1 : Math.abs(Number(b) - Number(a)) + 1);
  }, 0);

describe('IMAP mailbox (Dovecot)', { skip: missing ?? false }, () => {
  let dc: Dovecot;
  let s: TestServer;
  let mcp: Client;
  let adaId: string;
  before(async () => {
    dc = await startDovecot([
      { user: 'ada@dove.test', password: PASSWORD, seed: seedAda() },
      { user: 'big@dove.test', password: 'big-pass', seed: seedBig() },
    ]);
    s = await startTestServer([], { INBOXD_SECRET_KEY: SECRET });
    mcp = await mcpClient(s.url, ADMIN_KEY);
  });
  after(async () => {
    await mcp?.close();
    await s?.stop();
    if (process.env.DOVECOT_LOG) console.log(fs.readFileSync(path.join(dc.dir, 'dovecot.log'), 'utf8'));
    await dc?.stop();
  });

  const imap = (extra: Json = {}) => ({
    provider: 'imap',
    host: dc.host,
    port: dc.port,
    secure: false,
    user: 'ada@dove.test',
    password: PASSWORD,
    ...extra,
  });

  test('wrong password: a clear 400 naming the server, nothing stored', async () => {
    const r = await s.api('/v1/providers/mailbox/accounts', { method: 'POST', json: imap({ password: 'wrong-password-99' }) });
    assert.equal(r.status, 400);
    const body = await r.text();
    assert.match(body, new RegExp(`IMAP server 127\\.0\\.0\\.1:${dc.port} refused the login of ada@dove\\.test`));
    assert.ok(!body.includes('wrong-password-99'));
    assert.deepEqual((await callOk(mcp, 'svc_gmail_list_accounts')).items, []);
  });

  test('server down: 503 naming host:port, nothing stored', async () => {
    const port = await freePort();
    const msg = await callErr(mcp, 'svc_gmail_connect', imap({ port }));
    assert.match(msg, new RegExp(`cannot reach the IMAP server 127\\.0\\.0\\.1:${port}`));
    const r = await s.api('/v1/providers/mailbox/accounts', { method: 'POST', json: imap({ port }) });
    assert.equal(r.status, 503);
    assert.deepEqual((await callOk(mcp, 'svc_gmail_list_accounts')).items, []);
  });

  test('connect: the login is checked, the account stored sealed; the password is in no answer, log line or database file', async () => {
    const acc = await callOk(mcp, 'svc_gmail_connect', imap({ label: 'Ada' }));
    adaId = acc.id;
    assert.match(adaId, /^pac_/);
    assert.equal(acc.provider, 'imap');
    assert.equal(acc.address, 'ada@dove.test');
    const st = await callOk(mcp, 'svc_gmail_status');
    assert.equal(st.configured, true);
    assert.equal(st.defaultAccount, adaId);
    const answers = JSON.stringify([
      acc,
      st,
      await callOk(mcp, 'svc_gmail_list_accounts'),
      await (await s.api('/v1/providers/mailbox')).json(),
    ]);
    assert.ok(!answers.includes(PASSWORD));
    assert.ok(!s.logs.join('\n').includes(PASSWORD));
    assert.ok(await storedIncludes(s, 'ada@dove.test'), 'the check sees what is stored');
    assert.ok(!(await storedIncludes(s, PASSWORD)));
  });

  test('SMTP settings are checked too: an unreachable SMTP server stores nothing; a working one (inboxd’s own listener) is kept', async () => {
    const port = await freePort();
    const msg = await callErr(
      mcp,
      'svc_gmail_connect',
      imap({ smtpHost: '127.0.0.1', smtpPort: port, smtpUser: 'ada', smtpPassword: 'smtp-pw-1' }),
    );
    assert.match(msg, new RegExp(`cannot reach the SMTP server 127\\.0\\.0\\.1:${port}`));
    assert.equal((await callOk(mcp, 'svc_gmail_list_accounts')).items.length, 1);
    const again = await callOk(
      mcp,
      'svc_gmail_connect',
      imap({ label: 'Ada', smtpHost: '127.0.0.1', smtpPort: s.server.smtpPort, smtpUser: 'ada', smtpPassword: 'smtp-pw-1' }),
    );
    assert.equal(again.id, adaId, 'connecting the same mailbox again replaces its settings and keeps its id');
    assert.ok(!(await storedIncludes(s, 'smtp-pw-1')));
  });

  test('a key scoped to a label prefix may not read a connected mailbox, only the local one', async () => {
    const r = await s.api('/v1/team/keys', { method: 'POST', json: { label: 'scoped', scope: { labelPrefix: 'ci-' } } });
    const scoped = await mcpClient(s.url, ((await r.json()) as Json).key);
    try {
      assert.match(await callErr(scoped, 'svc_gmail_list_threads', {}), /scoped to labels starting with "ci-"/);
      assert.match(await callErr(scoped, 'svc_gmail_read_thread', { accountId: adaId, threadId: 'x' }), /scoped/);
      assert.equal((await callOk(scoped, 'svc_gmail_list_threads', { accountId: 'local' })).provider, 'local');
    } finally {
      await scoped.close();
    }
  });

  test('list, read (HTML as text, attachments listed), triage and digest on the IMAP mailbox', async () => {
    const list = await callOk(mcp, 'svc_gmail_list_threads', {});
    assert.equal(list.provider, 'imap');
    assert.deepEqual(
      list.items.map((t: Json) => [t.subject, t.messageCount]),
      [
        ['Autumn issue', 1],
        ['Your sign-in code', 1],
        ['Lunch?', 2],
      ],
    );
    const news = await callOk(mcp, 'svc_gmail_read_thread', { threadId: list.items[0].threadId });
    assert.match(news.messages[0].text, /Autumn[\s\S]*Leaves & colours\./);
    assert.ok(!/<b>|<p>/.test(news.messages[0].text));
    assert.deepEqual(news.messages[0].attachments, [
      { filename: 'issue.pdf', contentType: 'application/pdf', size: news.messages[0].attachments[0].size },
    ]);
    assert.ok(news.messages[0].attachments[0].size > 0);
    assert.equal('content' in news.messages[0].attachments[0], false);
    const lunch = await callOk(mcp, 'svc_gmail_read_thread', { threadId: list.items[2].threadId });
    assert.deepEqual(
      lunch.messages.map((m: Json) => [m.from.address, m.fromMe]),
      [
        ['bob@dove.test', false],
        ['ada@dove.test', true],
      ],
    );
    const q = await callOk(mcp, 'svc_gmail_list_threads', { query: 'verification' });
    assert.deepEqual(
      q.items.map((t: Json) => t.subject),
      ['Your sign-in code'],
    );
    const tri = await callOk(mcp, 'svc_gmail_triage', { accountId: adaId });
    const by = Object.fromEntries(tri.items.map((t: Json) => [t.subject, t]));
    assert.equal(by['Autumn issue'].category, 'newsletter');
    assert.equal(by['Your sign-in code'].category, 'verification');
    assert.equal(by['Your sign-in code'].evidence.code, '771204');
    assert.equal(by['Lunch?'].category, 'waiting');
    const dg = await callOk(mcp, 'svc_gmail_digest', { since: day(0).toISOString() });
    assert.equal(dg.total, 3);
    assert.deepEqual(
      dg.groups.map((g: Json) => g.category),
      ['verification', 'waiting', 'newsletter'],
    );
    await callOk(mcp, 'svc_gmail_set_settings', { accountId: adaId, signature: 'Ada L.' });
    assert.equal((await callOk(mcp, 'svc_gmail_get_settings', { accountId: adaId })).signature, 'Ada L.');
    assert.match(await callErr(mcp, 'svc_gmail_list_threads', { folder: 'NoSuchFolder' }), /no such folder/i);
  });

  test('execute_gmail_draft: APPEND to Drafts (created when missing) with \\Draft, threaded; a replay adds no second draft', async () => {
    const lunch = (await callOk(mcp, 'svc_gmail_list_threads', { query: 'lunch' })).items[0];
    const args = { threadId: lunch.threadId, text: 'See you at 12:30!', idempotencyKey: 'imap-draft-1' };
    const d = await callOk(mcp, 'svc_workspace_execute_gmail_draft', args);
    assert.equal(d.provider, 'imap');
    assert.equal(d.location, 'Drafts');
    assert.match(d.draftId, /^Drafts:\d+$/);
    assert.deepEqual(d.to, ['bob@dove.test']);
    assert.equal(d.subject, 'Re: Lunch?');
    assert.deepEqual(await callOk(mcp, 'svc_workspace_execute_gmail_draft', args), d);
    const c = new ImapFlow({ host: dc.host, port: dc.port, secure: false, auth: { user: 'ada@dove.test', pass: PASSWORD }, logger: false });
    await c.connect();
    try {
      const list = await c.list();
      assert.equal(list.find((l) => l.path === 'Drafts')?.specialUse, '\\Drafts');
      await c.mailboxOpen('Drafts');
      const msgs = await c.fetchAll('1:*', { flags: true, envelope: true, source: true });
      assert.equal(msgs.length, 1, 'one draft, the replay added none');
      assert.ok(msgs[0]!.flags!.has('\\Draft'));
      assert.equal(msgs[0]!.envelope!.inReplyTo, '<l2@dove.test>');
      const src = msgs[0]!.source!.toString();
      assert.match(src, /References: <l1@dove\.test> <l2@dove\.test>/);
      assert.match(src, /See you at 12:30!\r?\n\r?\n-- \r?\nAda L\./);
    } finally {
      await c.logout();
    }
  });

  test('a 10,000-message folder: paged newest first, every FETCH bounded to the page (no 1:*), every message reachable', async () => {
    const proxy = await recordingProxy(dc.port);
    try {
      const acc = await callOk(mcp, 'svc_gmail_connect', {
        provider: 'imap',
        host: '127.0.0.1',
        port: proxy.port,
        secure: false,
        user: 'big@dove.test',
        password: 'big-pass',
      });
      assert.match(await callErr(mcp, 'svc_gmail_list_threads', {}), /say which with accountId/);
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      let first: Json | undefined;
      do {
        const r = await s.api(
          `/v1/providers/mailbox/threads?accountId=${acc.id}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(r.status, 200);
        const page = (await r.json()) as Json;
        first ??= page;
        for (const t of page.items) seen.add(t.subject);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      assert.equal(pages, BIG / 100);
      assert.equal(seen.size, BIG);
      assert.equal(first!.items[0].subject, `Bulk ${BIG - 1}`);
      const fetches = proxy.lines.filter((l) => / UID FETCH /i.test(l));
      assert.equal(fetches.length, pages);
      for (const f of fetches) assert.ok(setSize(f.split(' ')[3]!) <= 100, f);
    } finally {
      await proxy.close();
    }
  });

  test('disconnect (REST only) forgets the account and its settings', async () => {
    const r = await s.api(`/v1/providers/mailbox/accounts/${adaId}`, { method: 'DELETE' });
    assert.equal(r.status, 200);
    const ids = (await callOk(mcp, 'svc_gmail_list_accounts')).items.map((a: Json) => a.id);
    assert.ok(!ids.includes(adaId));
    assert.equal((await s.api(`/v1/providers/mailbox/accounts/${adaId}`, { method: 'DELETE' })).status, 404);
  });
});
