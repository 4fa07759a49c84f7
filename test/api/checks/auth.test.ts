// The auth check on mail received over real SMTP from 127.0.0.1: the session facts ingest records (client address,
// HELO, MAIL FROM, TLS, AUTH user), and SPF/DKIM/DMARC verdicts from them with a fixture zone (--dns-fixtures format)
// or, offline, against a DNS server that does not answer.
// not @cluster: the facts are read from the instance's own store, and the checks run in this process
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { createAuthCheck } from '../../../src/checks/auth/index.ts';
import { parseZone } from '../../../src/checks/auth/zone.ts';
import type { CheckInput, SessionFacts } from '../../../src/checks/types.ts';
import { parseMessage } from '../../../src/mail/parse.ts';
import { SessionFactsRepo } from '../../../src/store/session-facts.ts';
import { startDns, type TestDns } from '../../helpers/dns.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let dns: TestDns;
let inbox: Json;
const keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const half = Math.ceil(publicKey.length / 2);

// The zone as a --dns-fixtures file would hold it: the key split into two strings, like a real zone.
const ZONE = `
; test fixtures
allowed.example.        300 IN TXT "v=spf1 ip4:127.0.0.1 -all"
_dmarc.allowed.example.     IN TXT "v=DMARC1; p=reject"
sel._domainkey.allowed.example IN TXT "v=DKIM1; k=rsa; " "p=${publicKey.slice(0, half)}" "${publicKey.slice(half)}"
forbidden.example           TXT "v=spf1 ip4:192.0.2.10 -all"
_dmarc.forbidden.example    TXT "v=DMARC1; p=reject"
`;

before(async () => {
  dns = await startDns();
  s = await startTestServer(['--dns-server', dns.address, '--dns-timeout-ms', '300', '--mx-host', 'mx.inboxd.test']);
  inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
});
after(async () => {
  await s?.stop();
  await dns?.close();
});

/** Sends over real SMTP from 127.0.0.1 and returns the stored message id. */
async function send(mail: Mail.Options, opts: { helo?: string; auth?: { user: string; pass: string } } = {}): Promise<string> {
  const t = nodemailer.createTransport({
    host: '127.0.0.1',
    port: s.server.smtpPort,
    secure: false,
    ignoreTLS: true,
    name: opts.helo ?? 'client.allowed.example',
    ...(opts.auth ? { auth: opts.auth } : {}),
  });
  try {
    const r = (await t.sendMail({ to: inbox.address, ...mail })) as { response: string };
    const id = /stored as (msg_\w+)/.exec(r.response)?.[1];
    assert.ok(id, r.response);
    return id;
  } finally {
    t.close();
  }
}

async function inputOf(messageId: string, rawOverride?: Buffer): Promise<CheckInput> {
  const res = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${messageId}/raw`);
  assert.equal(res.status, 200);
  const raw = rawOverride ?? Buffer.from(await res.arrayBuffer());
  const parsed = await parseMessage(raw);
  const facts = (await new SessionFactsRepo(s.server.parts.store.db).get(messageId)) as SessionFacts | null;
  return {
    raw,
    parsed,
    html: parsed.html,
    text: parsed.text,
    facts,
    options: { clients: [], links: { mode: 'static', includeVerificationLinks: false } },
    signal: AbortSignal.timeout(20_000),
  };
}

const withFixtures = createAuthCheck({ fixtures: parseZone(ZONE), dnsServer: '127.0.0.1:9', dnsTimeoutMs: 300 });

describe('session facts', () => {
  test('SMTP mail keeps the client address, HELO, MAIL FROM, TLS and AUTH user', async () => {
    const id = await send(
      { from: 'a@allowed.example', envelope: { from: 'bounce@allowed.example', to: [inbox.address] }, subject: 'facts', text: 'x' },
      { helo: 'client.allowed.example', auth: { user: 'ci-user', pass: 'anything' } },
    );
    const facts = await new SessionFactsRepo(s.server.parts.store.db).get(id);
    assert.ok(facts);
    assert.equal(facts.clientIp, '127.0.0.1');
    assert.equal(facts.helo, 'client.allowed.example');
    assert.equal(facts.mailFrom, 'bounce@allowed.example');
    assert.equal(facts.tls, false);
    assert.equal(facts.authUser, 'ci-user');
    assert.ok(Math.abs(Date.parse(facts.receivedAt) - Date.now()) < 60_000);
  });

  test('mail that did not come over SMTP has no facts, and the check says SPF was not evaluated', async () => {
    const raw = Buffer.from('From: a@allowed.example\r\nTo: x@inboxd.test\r\nSubject: sim\r\n\r\nhello\r\n');
    const [d] = await s.server.parts.ingest.accept({ raw, rcpts: [inbox.address], mailFrom: 'a@allowed.example', source: 'simulate' });
    assert.equal(await new SessionFactsRepo(s.server.parts.store.db).get(d!.messageId), null);
    const r = await withFixtures.run(await inputOf(d!.messageId));
    assert.equal(r.meta?.spf, 'none');
    assert.ok(r.findings.some((f) => f.rule === 'spf-no-session'));
  });
});

describe('auth verdicts with a fixture zone', () => {
  test('a DKIM-signed mail from an allowed client passes SPF, DKIM and DMARC; a changed body fails DKIM', async () => {
    const id = await send({
      from: 'Shop <news@allowed.example>',
      envelope: { from: 'bounce@allowed.example', to: [inbox.address] },
      subject: 'Your order',
      text: 'Your order 1234 has shipped.',
      dkim: { domainName: 'allowed.example', keySelector: 'sel', privateKey },
    });
    const input = await inputOf(id);
    const r = await withFixtures.run(input);
    assert.deepEqual([r.meta?.spf, r.meta?.dkim, r.meta?.dmarc], ['pass', 'pass', 'pass'], JSON.stringify(r.findings));
    assert.equal(r.status, 'passed');
    assert.equal(r.findings.filter((f) => f.rule.startsWith('sender-dkim')).length, 0);

    const raw = input.raw.toString('latin1').replace('has shipped', 'was cancelled');
    const changed = await withFixtures.run(await inputOf(id, Buffer.from(raw, 'latin1')));
    assert.equal(changed.meta?.dkim, 'fail');
    assert.equal(changed.status, 'failed');
    assert.ok(changed.findings.some((f) => f.rule === 'dkim-fail' && f.severity === 'error'));
    // SPF does not look at the body; DMARC still passes through the aligned SPF pass.
    assert.equal(changed.meta?.spf, 'pass');
  });

  test('a client the SPF record forbids fails SPF and, unsigned, DMARC', async () => {
    const id = await send({
      from: 'news@forbidden.example',
      envelope: { from: 'bounce@forbidden.example', to: [inbox.address] },
      subject: 'x',
      text: 'y',
    });
    const r = await withFixtures.run(await inputOf(id));
    assert.equal(r.meta?.spf, 'fail');
    assert.equal(r.meta?.dmarc, 'fail');
    assert.equal(r.meta?.dkim, 'none');
    assert.equal(r.status, 'failed');
    const rules = r.findings.map((f) => f.rule);
    for (const want of ['spf-fail', 'dmarc-fail', 'dkim-none']) assert.ok(rules.includes(want), rules.join(','));
  });

  test('sender requirements: bulk mail without one-click unsubscribe, no Message-ID/Date', async () => {
    const raw = Buffer.from(
      'From: news@allowed.example\r\nTo: x@inboxd.test\r\nSubject: weekly\r\nPrecedence: bulk\r\nList-Unsubscribe: <mailto:u@allowed.example>\r\n\r\nhi\r\n',
    );
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: s.server.smtpPort,
      secure: false,
      ignoreTLS: true,
      name: 'c.allowed.example',
    });
    const r0 = (await t.sendMail({ envelope: { from: 'b@allowed.example', to: [inbox.address] }, raw })) as { response: string };
    t.close();
    const id = /stored as (msg_\w+)/.exec(r0.response)![1]!;
    const r = await withFixtures.run(await inputOf(id));
    const rules = r.findings.map((f) => f.rule);
    for (const want of ['sender-one-click-unsubscribe', 'sender-message-id', 'sender-date'])
      assert.ok(rules.includes(want), rules.join(','));
  });
});

describe('offline', () => {
  test('no fixtures and a DNS server that does not answer: temperror, never fail', async () => {
    // A UDP socket that reads questions and never answers (a black hole on loopback).
    const hole = dgram.createSocket('udp4');
    await new Promise<void>((r) => hole.bind(0, '127.0.0.1', r));
    const port = (hole.address() as { port: number }).port;
    try {
      const offline = createAuthCheck({ dnsServer: `127.0.0.1:${port}`, dnsTimeoutMs: 200 });
      const id = await send({
        from: 'news@allowed.example',
        envelope: { from: 'bounce@allowed.example', to: [inbox.address] },
        subject: 'offline',
        text: 'z',
        dkim: { domainName: 'allowed.example', keySelector: 'sel', privateKey },
      });
      const r = await offline.run(await inputOf(id));
      assert.deepEqual([r.meta?.spf, r.meta?.dkim, r.meta?.dmarc], ['temperror', 'temperror', 'temperror'], JSON.stringify(r.meta));
      assert.notEqual(r.status, 'failed');
      assert.ok(r.findings.every((f) => f.severity !== 'error'));
    } finally {
      hole.close();
    }
  });
});

describe('custom domains', () => {
  test('mail signed with a custom domain’s key verifies from inboxd’s own record while DNS is failing', async () => {
    const DOMAIN = 'own.example.com';
    const d = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: DOMAIN } }), 201);
    for (const r of d.records as Json[]) {
      const existing = (dns.zone.get(r.name) ?? []).filter((x) => x.type !== r.type);
      dns.set(r.name, [...existing, { type: r.type, value: r.value, priority: r.priority }]);
    }
    const verified = await json(await s.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST', json: {} }));
    assert.equal(verified.status, 'verified', JSON.stringify(verified.records));
    const domains = s.server.services.domains;
    const row = await s.server.parts.store.db.selectFrom('domains').select('team_id').where('name', '=', DOMAIN).executeTakeFirstOrThrow();
    const key = await domains.dkimFor(DOMAIN, row.team_id ?? '');
    assert.ok(key, 'the verified domain signs');
    const id = await send({ from: `news@${DOMAIN}`, subject: 'own key', text: 'signed by inboxd’s key', dkim: key });
    dns.failing = true;
    try {
      const check = createAuthCheck({
        known: async (name) => {
          const v = await domains.dkimKeyRecord(name);
          return v ? [v] : null;
        },
        dnsServer: dns.address,
        dnsTimeoutMs: 300,
      });
      const r = await check.run(await inputOf(id));
      assert.equal(r.meta?.dkim, 'pass', JSON.stringify(r.meta));
      // Everything else needed DNS, which fails: temperror, not fail.
      assert.equal(r.meta?.spf, 'temperror');
      // Without the custom-domain layer the same key lookup hits the failing DNS.
      const without = await createAuthCheck({ dnsServer: dns.address, dnsTimeoutMs: 300 }).run(await inputOf(id));
      assert.equal(without.meta?.dkim, 'temperror');
    } finally {
      dns.failing = false;
    }
    assert.equal(await domains.dkimKeyRecord(`other._domainkey.${DOMAIN}`), null);
  });
});
