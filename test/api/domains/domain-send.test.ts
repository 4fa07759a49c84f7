// The custom-domain and mail-out features together, as an operator wires them: a domain added, published in a real
// DNS server (dns2 on 127.0.0.1) and verified; an inbox at it sends through a real relay on loopback; the relay gets
// a DKIM signature by the domain's own generated key that mailauth verifies against the published record. Mail from
// an inbox at the configured domain (no key) goes out unsigned, and local delivery to the custom domain needs no relay.
// @cluster
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, test } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { startDns, type TestDns } from '../../helpers/dns.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startRelay, type TestRelay } from '../../helpers/relay.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const DOMAIN = 'send.example.com';
let dns: TestDns;
let relay: TestRelay;
let s: TestServer;

before(async () => {
  dns = await startDns();
  relay = await startRelay();
  s = await startTestServer(
    ['--dns-server', dns.address, '--mx-host', 'mx.inboxd.test', '--smtp-relay', relay.url, '--smtp-relay-tls-insecure'],
    {},
    { outbound: { tuning: { retryDelaysMs: [100, 100, 100] }, relayTimeoutMs: 5_000 } },
  );
});
after(async () => {
  await s?.stop();
  await relay?.close();
  await dns?.close();
});

const verdictOf = async (raw: Buffer): Promise<Json> => {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const v = await dkimVerify(raw, { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') } as never);
  return v.results[0] as Json;
};

test('an inbox at a verified custom domain sends DKIM-signed mail through the relay', async () => {
  const d = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: DOMAIN } }), 201);
  for (const r of d.records as Json[]) {
    const existing = (dns.zone.get(r.name) ?? []).filter((x) => x.type !== r.type);
    dns.set(r.name, [...existing, { type: r.type, value: r.value, priority: r.priority }]);
  }
  const verified = await json(await s.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST', json: {} }));
  assert.equal(verified.status, 'verified', JSON.stringify(verified.records));
  assert.equal(verified.signing, true);

  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: `news@${DOMAIN}` } }), 201);
  const sent = await json(
    await s.api(`/v1/inboxes/${inbox.inboxId}/send`, {
      method: 'POST',
      json: { to: 'reader@example.org', subject: 'Signed by the custom domain', text: 'hello' },
    }),
    202,
  );
  assert.deepEqual(
    sent.recipients.map((r: Json) => [r.address, r.route]),
    [['reader@example.org', 'relay']],
  );
  await relay.whenReceived(1);
  const got = relay.received.at(-1)!;
  assert.equal(got.from, `news@${DOMAIN}`);
  const r = await verdictOf(got.raw);
  assert.equal(r.status.result, 'pass', JSON.stringify(r.status));
  assert.equal(r.signingDomain, DOMAIN);
  assert.equal(r.selector, d.dkimSelector);
});

test('mail from the configured domain (no key of its own) goes out unsigned', async () => {
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const before = relay.received.length;
  await json(
    await s.api(`/v1/inboxes/${inbox.inboxId}/send`, { method: 'POST', json: { to: 'reader@example.org', subject: 'plain', text: 'x' } }),
    202,
  );
  await relay.whenReceived(before + 1);
  assert.doesNotMatch(relay.received.at(-1)!.raw.toString(), /^DKIM-Signature:/im);
});

test('a recipient at the verified custom domain is delivered locally, not relayed', async () => {
  const to = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: `desk@${DOMAIN}` } }), 201);
  const from = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const before = relay.received.length;
  const sent = await json(
    await s.api(`/v1/inboxes/${from.inboxId}/send`, { method: 'POST', json: { to: to.address, subject: 'local', text: 'code 112233' } }),
    202,
  );
  assert.deepEqual(
    sent.recipients.map((r: Json) => [r.route, r.state]),
    [['local', 'sent']],
  );
  const got = await json(await s.api(`/v1/inboxes/${to.inboxId}/wait?timeoutSeconds=5`));
  assert.equal(got.subject, 'local');
  assert.equal(relay.received.length, before);
});
