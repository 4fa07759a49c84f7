// Custom domains end to end (CONTRACT §10): add → publish in a real DNS server → verify → SMTP mail arrives at an
// inbox on the domain → DKIM signature verifies → restart keeps it served → delete removes it and its mail.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { DEFAULT_TEAM_ID } from '../../../src/store/keys.ts';
import { startDns, type TestDns } from '../../helpers/dns.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

const SECRET = crypto.randomBytes(32).toString('hex');
const DOMAIN = 'mail.example.com';
const ARGS = (dns: TestDns) => ['--dns-server', dns.address, '--mx-host', 'mx.inboxd.test', '--dns-timeout-ms', '500'];

let dns: TestDns;
let dataDir: string;
let s: TestServer;

before(async () => {
  dns = await startDns();
  dataDir = tempDir();
  s = await startTestServer(ARGS(dns), { INBOXD_SECRET_KEY: SECRET }, { dataDir });
});

after(async () => {
  await s?.stop();
  await dns?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function publish(d: Json, skip: string[] = []): void {
  for (const r of d.records as Json[]) {
    if (skip.includes(r.purpose)) continue;
    const existing = (dns.zone.get(r.name) ?? []).filter((x) => x.type !== r.type);
    dns.set(r.name, [...existing, { type: r.type, value: r.value, priority: r.priority }]);
  }
}

const rec = (d: Json, purpose: string) => (d.records as Json[]).find((r) => r.purpose === purpose)!;

let domain: Json;

test('add answers the records to publish; the private key is in no answer, log or audit event', async () => {
  domain = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: ' Mail.Example.COM. ' } }), 201);
  assert.match(domain.domainId, /^dom_/);
  assert.equal(domain.domain, DOMAIN);
  assert.equal(domain.status, 'pending');
  assert.equal(domain.signing, false);
  assert.deepEqual(
    (domain.records as Json[]).map((r) => [r.purpose, r.type, r.name, r.status]),
    [
      ['verification', 'TXT', `_inboxd-verification.${DOMAIN}`, 'unchecked'],
      ['mx', 'MX', DOMAIN, 'unchecked'],
      ['spf', 'TXT', DOMAIN, 'unchecked'],
      ['dkim', 'TXT', `${domain.dkimSelector}._domainkey.${DOMAIN}`, 'unchecked'],
      ['dmarc', 'TXT', `_dmarc.${DOMAIN}`, 'unchecked'],
    ],
  );
  assert.match(domain.dkimSelector, /^inboxd\d{6}$/);
  assert.equal(rec(domain, 'mx').value, 'mx.inboxd.test');
  assert.equal(rec(domain, 'spf').value, 'v=spf1 a:mx.inboxd.test ~all');
  assert.equal(rec(domain, 'dmarc').value, 'v=DMARC1; p=none');
  const p = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(rec(domain, 'dkim').value)![1]!;
  const pub = crypto.createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
  assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);

  const listed = await json(await s.api('/v1/domains'));
  assert.deepEqual(
    listed.items.map((d: Json) => d.domainId),
    [domain.domainId],
  );
  assert.equal(listed.nextCursor, null);
  // Sealed at rest under INBOXD_SECRET_KEY; never in an answer, log line or audit row.
  const db = s.server.parts.store.db;
  const stored = await db.selectFrom('domains').select('dkim_private_key').executeTakeFirstOrThrow();
  assert.match(stored.dkim_private_key, /^sealed:v1:/);
  const audit = JSON.stringify(await db.selectFrom('audit_events').selectAll().execute());
  for (const text of [JSON.stringify(domain), JSON.stringify(listed), s.logs.join('\n'), audit])
    assert.doesNotMatch(text, /PRIVATE KEY|sealed:v1/);
});

test('verify before publishing: every record missing, still pending, mail for the domain refused', async () => {
  const d = await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }));
  assert.equal(d.status, 'pending');
  for (const r of d.records as Json[]) {
    assert.equal(r.status, 'missing', r.purpose);
    assert.equal(r.error, null);
    assert.ok(r.hint);
  }
  await assert.rejects(sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'x', text: 'x' }), /550/);
  const inbox = await s.api('/v1/inboxes', { method: 'POST', json: { address: `bob@${DOMAIN}` } });
  assert.equal(inbox.status, 400);
});

test('a wrong MX and a missing DKIM record: mismatch, what DNS answered, and no signing', async () => {
  publish(domain, ['dkim']);
  dns.set(DOMAIN, [...dns.zone.get(DOMAIN)!.filter((r) => r.type !== 'MX'), { type: 'MX', value: 'other.example.net', priority: 5 }]);
  const d = await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }));
  assert.equal(d.status, 'pending');
  assert.equal(rec(d, 'mx').status, 'mismatch');
  assert.deepEqual(rec(d, 'mx').foundValues, ['5 other.example.net']);
  assert.match(rec(d, 'mx').hint, /other\.example\.net.*mx\.inboxd\.test/);
  assert.equal(rec(d, 'verification').status, 'found');
  assert.equal(rec(d, 'dkim').status, 'missing');
});

test('published: verified, served by SMTP, inboxes at it, and dkimFor signs mail that mailauth verifies', async () => {
  // MX host case and trailing dot do not matter.
  dns.set(DOMAIN, [...dns.zone.get(DOMAIN)!.filter((r) => r.type !== 'MX'), { type: 'MX', value: 'MX.Inboxd.Test.', priority: 10 }]);
  publish(domain, ['mx']);
  const d = await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }));
  assert.equal(d.status, 'verified', JSON.stringify(d.records));
  for (const r of d.records as Json[]) assert.equal(r.status, 'found', r.purpose);
  // The DKIM key came back split into 255-byte strings and was joined.
  assert.equal(rec(d, 'dkim').foundValues[0], rec(d, 'dkim').value);
  assert.equal(d.signing, true);
  assert.ok(d.verifiedAt);

  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: `bob@${DOMAIN}` } }), 201);
  const sent = await sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'hello custom', text: 'code 123456' });
  assert.match(sent.response, /^250/);
  const msgs = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
  assert.equal(msgs.items.length, 1);
  assert.equal(msgs.items[0].subject, 'hello custom');

  const key = await s.server.services.domains.dkimFor('Mail.Example.com.', DEFAULT_TEAM_ID);
  assert.ok(key);
  assert.equal(key.domainName, DOMAIN);
  assert.equal(key.keySelector, d.dkimSelector);
  assert.equal(await s.server.services.domains.dkimFor('inboxd.test', DEFAULT_TEAM_ID), null);
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: key });
  const info = await t.sendMail({ from: `bob@${DOMAIN}`, to: 'someone@example.org', subject: 'signed', text: 'hi' });
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const verdict = await dkimVerify(info.message as Buffer, { resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') });
  assert.equal(verdict.results[0]?.status.result, 'pass', JSON.stringify(verdict.results[0]?.status));
});

test('an inbox at another team’s verified domain is refused', async () => {
  const other = await otherTeamKey();
  const r = await s.api('/v1/inboxes', { method: 'POST', json: { address: `eve@${DOMAIN}` }, key: other });
  assert.equal(r.status, 400);
  assert.match(await r.text(), /another team/);
});

test('restart keeps the verified domain served and its key usable', async () => {
  await s.stop();
  s = await startTestServer(ARGS(dns), { INBOXD_SECRET_KEY: SECRET }, { dataDir });
  const sent = await sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'after restart', text: 'x' });
  assert.match(sent.response, /^250/);
  assert.ok(await s.server.services.domains.dkimFor(DOMAIN, DEFAULT_TEAM_ID));
  // Unclaimed mail for the domain, removed with it later.
  await sendMail(s.server.smtpPort, { to: `nobody@${DOMAIN}`, subject: 'unclaimed', text: 'x' });
});

test('a DNS outage on re-verify changes nothing; records gone from DNS → pending and no longer served', async () => {
  const saved = new Map(dns.zone);
  const other = await startTestServerNoDns();
  try {
    const d = await json(await other.api('/v1/domains', { method: 'POST', json: { domain: 'outage.example' } }), 201);
    const v = await json(await other.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST' }));
    assert.equal(v.status, 'pending');
    for (const r of v.records as Json[]) {
      assert.equal(r.status, 'missing');
      assert.match(r.error, /DNS lookup of .* failed .*asking 127\.0\.0\.1:\d+.*--dns-server/, r.error);
    }
  } finally {
    await other.stop();
  }
  // A broken DNS server on re-verify of a verified domain: per-record errors, still verified and served.
  dns.failing = true;
  const broken = await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }));
  dns.failing = false;
  assert.equal(broken.status, 'verified');
  assert.equal(broken.signing, true);
  for (const r of broken.records as Json[]) assert.match(r.error, /ESERVFAIL/);
  assert.match((await sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'during outage', text: 'x' })).response, /^250/);
  dns.zone.delete(DOMAIN);
  const d = await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }));
  assert.equal(d.status, 'pending');
  assert.equal(d.signing, false);
  assert.equal(await s.server.services.domains.dkimFor(DOMAIN, DEFAULT_TEAM_ID), null);
  await assert.rejects(sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'x', text: 'x' }), /550/);
  for (const [k, v] of saved) dns.zone.set(k, v);
  assert.equal((await json(await s.api(`/v1/domains/${domain.domainId}/verify`, { method: 'POST' }))).status, 'verified');
});

test('delete: stops serving, removes the inboxes at the domain with their mail, says how many', async () => {
  const inboxId = (await json(await s.api('/v1/inboxes'))).items.find((i: Json) => i.address === `bob@${DOMAIN}`).inboxId;
  const r = await json(await s.api(`/v1/domains/${domain.domainId}`, { method: 'DELETE' }));
  assert.deepEqual(r, { deleted: true, domainId: domain.domainId, domain: DOMAIN, inboxesDeleted: 1, messagesDeleted: 4 });
  await assert.rejects(sendMail(s.server.smtpPort, { to: `bob@${DOMAIN}`, subject: 'x', text: 'x' }), /550/);
  assert.equal((await s.api(`/v1/inboxes/${inboxId}`)).status, 404);
  const left = await s.server.parts.store.db.selectFrom('message_rows').select('id').where('rcpt', 'like', '%@mail.example.com').execute();
  assert.equal(left.length, 0);
  assert.equal((await s.api(`/v1/domains/${domain.domainId}`)).status, 404);
  assert.equal(await s.server.services.domains.dkimFor(DOMAIN, DEFAULT_TEAM_ID), null);
});

test('bad names: IPs, wildcards, too long, single label; names are normalised (case, trailing dot, IDN → punycode)', async () => {
  for (const bad of [
    '192.0.2.1',
    '192.0.2.1.',
    '::1',
    '[::1]',
    '2001:db8::1',
    '*.example.com',
    'a.*.example.com',
    'localhost',
    '',
    ' ',
    'a..example.com',
    '-a.example.com',
    'user@example.com',
    'http://example.com',
    'example.123',
    `${'a'.repeat(64)}.example.com`,
    `${'abcdefghi.'.repeat(25)}example.com`,
  ]) {
    const r = await s.api('/v1/domains', { method: 'POST', json: { domain: bad } });
    const body = await r.text();
    assert.equal(r.status, 400, `${bad}: ${body}`);
    assert.match(body, /validation_failed/);
  }
  const idn = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: 'Bücher.Example.' } }), 201);
  assert.equal(idn.domain, 'xn--bcher-kva.example');
  assert.equal((await s.api('/v1/domains', { method: 'POST', json: { domain: 'xn--bcher-kva.example' } })).status, 409);
  assert.equal((await json(await s.api(`/v1/domains/${idn.domainId}`, { method: 'DELETE' }))).inboxesDeleted, 0);
  assert.equal((await s.api('/v1/domains', { method: 'POST', json: { domain: 'x.example', extra: 1 } })).status, 400);
});

test('two adds of one name at once: one is created, the other is a 409 (the unique name, on either engine)', async () => {
  const [a, b] = await Promise.all([0, 1].map(() => s.api('/v1/domains', { method: 'POST', json: { domain: 'race.example' } })));
  const statuses = [a!.status, b!.status].sort();
  assert.deepEqual(statuses, [201, 409], `${await a!.text()} ${await b!.text()}`);
});

test('conflicts: a configured --domain, the same domain twice, another team’s domain', async () => {
  const configured = await s.api('/v1/domains', { method: 'POST', json: { domain: 'INBOXD.test' } });
  assert.equal(configured.status, 409);
  assert.match(await configured.text(), /already served/);
  const first = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: 'twice.example' } }), 201);
  const again = await s.api('/v1/domains', { method: 'POST', json: { domain: 'Twice.Example' } });
  assert.equal(again.status, 409);
  assert.match(await again.text(), new RegExp(first.domainId));
  const other = await otherTeamKey();
  const theirs = await s.api('/v1/domains', { method: 'POST', json: { domain: 'twice.example' }, key: other });
  assert.equal(theirs.status, 409);
  assert.match(await theirs.text(), /another team/);
  // The other team sees neither the domain nor its id.
  assert.deepEqual((await json(await s.api('/v1/domains', { key: other }))).items, []);
  assert.equal((await s.api(`/v1/domains/${first.domainId}/verify`, { method: 'POST', key: other })).status, 404);
  assert.equal((await s.api(`/v1/domains/${first.domainId}`, { method: 'DELETE', key: other })).status, 404);
});

test('non-admin keys get 403 on every domain route; unknown ids 404', async () => {
  const member = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'm', role: 'member' } }), 201)).key;
  const scoped = (
    await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 's', role: 'admin', scope: { labelPrefix: 'ci-' } } }), 201)
  ).key;
  for (const key of [member, scoped]) {
    assert.equal((await s.api('/v1/domains', { method: 'POST', json: { domain: 'no.example' }, key })).status, 403);
    assert.equal((await s.api('/v1/domains', { key })).status, 403);
    assert.equal((await s.api('/v1/domains/dom_x/verify', { method: 'POST', key })).status, 403);
    assert.equal((await s.api('/v1/domains/dom_x', { method: 'DELETE', key })).status, 403);
  }
  for (const [method, p] of [
    ['GET', '/v1/domains/dom_unknown'],
    ['POST', '/v1/domains/dom_unknown/verify'],
    ['DELETE', '/v1/domains/dom_unknown'],
  ] as const) {
    const r = await s.api(p, { method });
    assert.equal(r.status, 404);
    assert.match(await r.text(), /no domain dom_unknown/);
  }
});

test('without INBOXD_SECRET_KEY keys are stored plainly (and said so); a later key seals them; a changed key stops signing only', async () => {
  const dir = tempDir();
  try {
    let t = await startTestServer(ARGS(dns), {}, { dataDir: dir });
    const d = await json(await t.api('/v1/domains', { method: 'POST', json: { domain: 'plain.example' } }), 201);
    publish(d);
    assert.equal((await json(await t.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST' }))).signing, true);
    const row = async () => ({
      k: (await t.server.parts.store.db.selectFrom('domains').select('dkim_private_key').executeTakeFirstOrThrow()).dkim_private_key,
    });
    assert.match((await row()).k, /^-----BEGIN PRIVATE KEY-----/);
    await t.stop();
    t = await startTestServer(ARGS(dns), {}, { dataDir: dir });
    assert.ok(t.logs.some((l) => /stored unencrypted/.test(l)));
    await t.stop();
    t = await startTestServer(ARGS(dns), { INBOXD_SECRET_KEY: SECRET }, { dataDir: dir });
    assert.match((await row()).k, /^sealed:v1:/);
    assert.ok(await t.server.services.domains.dkimFor('plain.example', DEFAULT_TEAM_ID));
    await t.stop();
    t = await startTestServer(ARGS(dns), { INBOXD_SECRET_KEY: crypto.randomBytes(32).toString('base64') }, { dataDir: dir });
    assert.ok(t.logs.some((l) => /cannot be opened with the current INBOXD_SECRET_KEY/.test(l)));
    assert.equal(await t.server.services.domains.dkimFor('plain.example', DEFAULT_TEAM_ID), null);
    const v = await json(await t.api(`/v1/domains/${d.domainId}`));
    assert.equal(v.status, 'verified');
    assert.equal(v.signing, false);
    assert.match(v.signingNote, /cannot be opened/);
    // Still served: inbound mail does not need the key.
    assert.match((await sendMail(t.server.smtpPort, { to: 'x@plain.example', subject: 'x', text: 'x' })).response, /^250/);
    await t.stop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const otherTeamKey = () => teamAdminKey(s, 'other', { keyId: 'key_otherteamadmin' });

/** A server whose --dns-server is a loopback port nobody answers on. */
async function startTestServerNoDns(): Promise<TestServer> {
  const dgram = await import('node:dgram');
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  const port = sock.address().port;
  await new Promise<void>((r) => sock.close(() => r()));
  return startTestServer(['--dns-server', `127.0.0.1:${port}`, '--dns-timeout-ms', '200']);
}
