// Small leaks of issue #25, each with its own server: C1 controls (NEL) in header fields of a send; a DKIM key left
// readable in inboxd.db after it was sealed; credentials echoed in a provider's error text; other teams' addresses
// told apart from unused ones; and the open rehearsal page mailing inboxes under --smtp-auth required.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startDns } from '../../helpers/dns.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

const NEL = '\u0085';

const otherTeamKey = (s: TestServer) => teamAdminKey(s, 'other');

describe('C1 control characters in header fields of a send', () => {
  test('NEL (U+0085) and other C1 controls in subject, names, replyTo or a file name → 400 naming the field, nothing stored', async () => {
    const s = await startTestServer();
    try {
      const a = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const b = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const base = { to: b.address, subject: 'hello', text: 'x' };
      const cases: Array<[string, Json]> = [
        ['subject', { ...base, subject: `Invoice${NEL}Bcc: victim@example.org` }],
        ['subject', { ...base, subject: 'C1 \u009b control' }],
        ['to', { ...base, to: `Eve${NEL}X <${b.address}>` }],
        ['replyTo', { ...base, replyTo: `R${NEL} <r@example.org>` }],
        ['cc', { ...base, cc: [`C${NEL} <c@example.org>`] }],
      ];
      for (const [field, body] of cases) {
        const r = await json(await s.api(`/v1/inboxes/${a.inboxId}/send`, { method: 'POST', json: body }), 400);
        assert.equal(r.errors[0].path.split('.')[0], field, JSON.stringify(r));
      }
      const att = await json(
        await s.api(`/v1/inboxes/${a.inboxId}/send`, {
          method: 'POST',
          json: { ...base, attachments: [{ filename: `a${NEL}.txt`, contentBase64: 'aGVsbG8=' }] },
        }),
        400,
      );
      assert.match(att.errors[0].path, /^attachments/);
      assert.equal((await json(await s.api(`/v1/inboxes/${a.inboxId}/messages`))).items.length, 0);
      assert.equal((await json(await s.api(`/v1/inboxes/${b.inboxId}/messages`))).items.length, 0);

      // A reply takes its subject from received mail: controls there become spaces, never part of the header.
      await sendMail(s.server.smtpPort, { from: b.address, to: a.address, subject: `Order${NEL}42`, text: 'x' });
      const got = (await json(await s.api(`/v1/inboxes/${a.inboxId}/messages`))).items[0];
      const reply = await json(
        await s.api(`/v1/inboxes/${a.inboxId}/reply`, {
          method: 'POST',
          json: { messageId: got.messageId, text: 'ok' },
        }),
        202,
      );
      assert.equal(reply.subject, 'Re: Order 42');
    } finally {
      await s.stop();
    }
  });
});

describe('DKIM keys sealed after the fact', () => {
  test('once INBOXD_SECRET_KEY sealed them, no plain private key is left in the bytes of inboxd.db or its WAL', {
    skip: TEST_ON_POSTGRES && 'the bytes of the SQLite file (README "DKIM keys" says what PostgreSQL keeps)',
  }, async () => {
    const dns = await startDns();
    const dir = tempDir();
    const args = ['--dns-server', dns.address, '--mx-host', 'mx.inboxd.test', '--dns-timeout-ms', '500'];
    let t: TestServer | null = null;
    try {
      t = await startTestServer(args, {}, { dataDir: dir });
      const d = await json(await t.api('/v1/domains', { method: 'POST', json: { domain: 'scrub.example' } }), 201);
      for (const r of d.records as Json[]) {
        const existing = (dns.zone.get(r.name) ?? []).filter((x) => x.type !== r.type);
        dns.set(r.name, [...existing, { type: r.type, value: r.value, priority: r.priority }]);
      }
      // Each verify rewrites the row, plain key and all: old copies land in freed space.
      for (let i = 0; i < 3; i++) await json(await t.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST' }));
      const pem = (await t.server.parts.store.db.selectFrom('domains').select('dkim_private_key').executeTakeFirstOrThrow())
        .dkim_private_key;
      // A line of the key's base64 body: present in the file while the key is stored plainly.
      const line = pem.split('\n')[5]!;
      assert.equal(line.length, 64);
      await t.stop();
      t = null;
      const bytes = () =>
        ['inboxd.db', 'inboxd.db-wal']
          .map((f) => path.join(dir, f))
          .filter((f) => fs.existsSync(f))
          .map((f) => fs.readFileSync(f).toString('latin1'))
          .join('');
      assert.ok(bytes().includes(line), 'the plain key is in the file before sealing');
      t = await startTestServer(args, { INBOXD_SECRET_KEY: crypto.randomBytes(32).toString('hex') }, { dataDir: dir });
      assert.ok(t.logs.some((l) => /sealed DKIM private keys/.test(l)));
      // While the server runs (the sealing commit sits in the WAL until a checkpoint) and after it stopped.
      assert.ok(!bytes().includes(line), 'a plain copy of the sealed key is still in inboxd.db');
      await t.stop();
      t = null;
      assert.ok(!bytes().includes(line), 'a plain copy of the sealed key is still in inboxd.db after a stop');
    } finally {
      await t?.stop();
      await dns.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A fake IMAP server whose login refusal quotes the command it got, password included. */
async function echoingImap(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((sock) => {
    sock.write('* OK [CAPABILITY IMAP4rev1] fake ready\r\n');
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const [tag, cmd] = line.split(' ');
        if (!tag || !cmd) continue;
        const c = cmd.toUpperCase();
        if (c === 'CAPABILITY') sock.write(`* CAPABILITY IMAP4rev1\r\n${tag} OK done\r\n`);
        else if (c === 'LOGIN' || c === 'AUTHENTICATE')
          sock.write(`${tag} NO [AUTHENTICATIONFAILED] Invalid credentials: ${line.slice(tag.length + 1)}\r\n`);
        else if (c === 'LOGOUT') sock.end(`* BYE\r\n${tag} OK bye\r\n`);
        else sock.write(`${tag} OK done\r\n`);
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A fake token endpoint whose refusal quotes the form it got (refresh token and client secret URL-encoded in it). */
async function echoingTokenEndpoint(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const sent = new URLSearchParams(body);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'invalid_grant',
          error_description: `token ${sent.get('refresh_token')} is revoked (request was ${body})`,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/token`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('provider errors', () => {
  test('a server that echoes the password or refresh token in its refusal: the answer quotes it without them', async () => {
    const imap = await echoingImap();
    const token = await echoingTokenEndpoint();
    const s = await startTestServer(['--google-token-url', token.url, '--gmail-api-base', 'http://127.0.0.1:9'], {
      INBOXD_SECRET_KEY: 'c'.repeat(64),
    });
    try {
      const password = 'Pa55word-0f-the-mailbox+/=';
      const r1 = await s.api('/v1/providers/mailbox/accounts', {
        method: 'POST',
        json: { provider: 'imap', host: '127.0.0.1', port: imap.port, secure: false, user: 'ada', password },
      });
      const t1 = await r1.text();
      assert.equal(r1.status, 400, t1);
      assert.match(t1, /Invalid credentials/, 'the server’s own words are still quoted');
      assert.ok(!t1.includes('Pa55word'), t1);
      assert.match(t1, /\[redacted\]/);

      const refreshToken = '1//0refresh-token-of-ada/with+chars==';
      const clientSecret = 'GOCSPX-client-secret-value';
      const r2 = await s.api('/v1/providers/mailbox/accounts', {
        method: 'POST',
        json: { provider: 'gmail', clientId: 'client-id.apps', clientSecret, refreshToken },
      });
      const t2 = await r2.text();
      assert.equal(r2.status, 400, t2);
      assert.match(t2, /invalid_grant/);
      for (const secret of [refreshToken, encodeURIComponent(refreshToken), clientSecret, 'refresh-token-of-ada'])
        assert.ok(!t2.includes(secret), `${secret} in ${t2}`);
      assert.ok(!s.logs.some((l) => l.includes('Pa55word') || l.includes('refresh-token-of-ada')));
    } finally {
      await s.stop();
      await imap.close();
      await token.close();
    }
  });
});

describe("other teams' addresses", () => {
  test('a send to another team’s address is described exactly like one to an address nobody has', async () => {
    const s = await startTestServer();
    try {
      const other = await otherTeamKey(s);
      const theirs = await json(await s.api('/v1/inboxes', { method: 'POST', json: { localPart: 'their-inbox' }, key: other }), 201);
      const mine = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const view = async (to: string) => {
        const r = await json(
          await s.api(`/v1/inboxes/${mine.inboxId}/send`, { method: 'POST', json: { to, subject: 's', text: 'x' } }),
          202,
        );
        const { address: _a, deliveredMessageId, ...rest } = r.recipients[0];
        return { ...rest, deliveredMessageId: /^msg_/.test(deliveredMessageId) };
      };
      const toTheirs = await view(theirs.address);
      const toNobody = await view('nobody-here@inboxd.test');
      assert.deepEqual(toTheirs, toNobody);
      assert.ok(!JSON.stringify(toTheirs).includes(theirs.inboxId));
      // Their inbox did get the mail (delivery is unchanged), and my own inboxes are still named.
      assert.equal((await json(await s.api(`/v1/inboxes/${theirs.inboxId}/messages`, { key: other }))).items.length, 1);
      const own = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const r = await json(
        await s.api(`/v1/inboxes/${mine.inboxId}/send`, { method: 'POST', json: { to: own.address, subject: 's', text: 'x' } }),
        202,
      );
      assert.match(r.recipients[0].response, new RegExp(own.inboxId));
      assert.match(r.recipients[0].deliveredMessageId, /^msg_/);

      // The same for a key scoped to a label prefix and an inbox of its own team outside that prefix.
      const scoped = (
        await json(
          await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ci', role: 'member', scope: { labelPrefix: 'ci-' } } }),
          201,
        )
      ).key;
      const ciInbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'ci-1' }, key: scoped }), 201);
      const outside = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'prod' } }), 201);
      const scopedView = async (to: string) => {
        const r = await json(
          await s.api(`/v1/inboxes/${ciInbox.inboxId}/send`, { method: 'POST', json: { to, subject: 's', text: 'x' }, key: scoped }),
          202,
        );
        const { address: _a, deliveredMessageId, ...rest } = r.recipients[0];
        return { ...rest, deliveredMessageId: /^msg_/.test(deliveredMessageId) };
      };
      assert.deepEqual(await scopedView(outside.address), await scopedView('nobody-else@inboxd.test'));

      // Routes taking ids: another team's inbox and message answer as ones that never existed.
      await sendMail(s.server.smtpPort, {
        to: theirs.address,
        subject: 'hello',
        text: 'x',
        attachments: [{ filename: 'a.txt', content: 'a' }],
      });
      const theirMsg = (await json(await s.api(`/v1/inboxes/${theirs.inboxId}/messages`, { key: other }))).items[0];
      const ghost = { inbox: 'inb_0000000000000000000000', msg: 'msg_0000000000000000000000' };
      const probe = async (m: string, p: string, body?: Json) => {
        const r = await s.api(p, { method: m, ...(body ? { json: body } : {}) });
        return `${r.status} ${(await r.text()).replaceAll(theirs.inboxId, 'I').replaceAll(ghost.inbox, 'I').replaceAll(theirMsg.messageId, 'M').replaceAll(ghost.msg, 'M')}`;
      };
      for (const [m, p, body] of [
        ['GET', '/v1/inboxes/{i}'],
        ['GET', '/v1/inboxes/{i}/messages'],
        ['GET', '/v1/inboxes/{i}/messages/{m}'],
        ['GET', '/v1/inboxes/{i}/messages/{m}/raw'],
        ['GET', '/v1/inboxes/{i}/messages/{m}/attachments'],
        ['GET', '/v1/inboxes/{i}/extract'],
        ['GET', '/v1/inboxes/{i}/wait?timeoutSeconds=0'],
        ['POST', '/v1/inboxes/{i}/send', { to: 'x@inboxd.test', subject: 's', text: 'x' }],
        ['POST', '/v1/inboxes/{i}/reply', { messageId: '{m}', text: 'x' }],
        ['POST', '/v1/inboxes/{i}/simulate', { scenario: 'otp' }],
        ['POST', '/v1/agent/verify', { inboxId: '{i}', timeoutSeconds: 1 }],
        ['DELETE', '/v1/inboxes/{i}/messages/{m}'],
        ['DELETE', '/v1/inboxes/{i}'],
      ] as Array<[string, string, Json?]>) {
        const fill = (v: string, i: string, msg: string) => v.replace('{i}', i).replace('{m}', msg);
        const withIds = (i: string, msg: string) => probe(m, fill(p, i, msg), body && JSON.parse(fill(JSON.stringify(body), i, msg)));
        assert.equal(await withIds(theirs.inboxId, theirMsg.messageId), await withIds(ghost.inbox, ghost.msg), `${m} ${p}`);
      }
      assert.equal((await json(await s.api(`/v1/inboxes/${theirs.inboxId}/messages`, { key: other }))).items.length, 2, 'untouched');

      // The open rehearsal page answers the same for an inbox's address as for an unused one.
      const signup = async (email: string) => {
        const page = await (
          await fetch(`${s.url}/v1/agent/test/signup`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ email }).toString(),
          })
        ).text();
        return page.replace(/value="[0-9a-f]+"/, 'value="S"').replace(email, 'A');
      };
      assert.equal(await signup(theirs.address), await signup('nobody-here@inboxd.test'));
    } finally {
      await s.stop();
    }
  });
});

describe('rehearsal page under --smtp-auth required', () => {
  test('the keyless signup mails no inbox: 403 naming the setting and the keyed alternative', async () => {
    const s = await startTestServer(['--smtp-auth', 'required']);
    try {
      const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const r = await fetch(`${s.url}/v1/agent/test/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: inbox.address }).toString(),
      });
      assert.equal(r.status, 403);
      assert.match(await r.text(), /--smtp-auth required.*autotest/);
      assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items.length, 0);
    } finally {
      await s.stop();
    }
  });
});
