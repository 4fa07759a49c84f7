// Custom domains in sink mode with a relay (issue #25): another team's inboxes at a domain made before it was verified
// (possible only through --accept-any-domain) go when the domain is verified; nobody's mail is signed with another
// team's DKIM key; and an inbox may send through the operator's relay only from a --domain, its team's own verified
// domain, or one --relay-from-domains names.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_TEAM_ID } from '../../../src/store/keys.ts';
import { startDns, type TestDns } from '../../helpers/dns.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startRelay, type TestRelay } from '../../helpers/relay.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

const DOMAIN = 'takeover.example';
let dns: TestDns;
let relay: TestRelay;
let s: TestServer;
let other: string;

before(async () => {
  dns = await startDns();
  relay = await startRelay();
  s = await startTestServer(
    [
      '--accept-any-domain',
      '--relay-from-domains',
      'lab.example',
      '--dns-server',
      dns.address,
      '--mx-host',
      'mx.inboxd.test',
      '--smtp-relay',
      relay.url,
      '--smtp-relay-tls-insecure',
    ],
    {},
    { outbound: { tuning: { retryDelaysMs: [100, 100, 100] }, relayTimeoutMs: 5_000 } },
  );
  other = await otherTeamKey();
});
after(async () => {
  await s?.stop();
  await relay?.close();
  await dns?.close();
});

const send = (inboxId: string, key?: string) =>
  s.api(`/v1/inboxes/${inboxId}/send`, {
    method: 'POST',
    json: { to: 'victim@example.org', subject: 'Please confirm', text: 'hello' },
    ...(key ? { key } : {}),
  });

test('sink mode: an inbox at a foreign domain may not send through the relay; a --domain, a listed domain and local sends may', async () => {
  const paypal = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: 'security@paypal.example' }, key: other }), 201);
  const refused = await json(await send(paypal.inboxId, other), 403);
  assert.match(refused.detail, /paypal\.example.*may not send from through the relay.*--relay-from-domains/);
  assert.equal((await json(await s.api(`/v1/inboxes/${paypal.inboxId}/messages`, { key: other }))).items.length, 0, 'nothing stored');

  const lab = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: 'qa@lab.example' }, key: other }), 201);
  await json(await send(lab.inboxId, other), 202);
  const plain = await json(await s.api('/v1/inboxes', { method: 'POST', json: {}, key: other }), 201);
  await json(await send(plain.inboxId, other), 202);
  // No relay involved: an inbox at any domain may still write to an address inboxd serves.
  const local = await json(
    await s.api(`/v1/inboxes/${paypal.inboxId}/send`, {
      method: 'POST',
      json: { to: plain.address, subject: 'local', text: 'x' },
      key: other,
    }),
    202,
  );
  assert.equal(local.recipients[0].route, 'local');
});

test("verifying a domain removes other teams' inboxes at it; their mail and sends are the verifying team's, signed only with its key", async () => {
  // Team B takes an address at the domain before team A verifies it.
  const theirs = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: `billing@${DOMAIN}` }, key: other }), 201);
  assert.equal((await json(await send(theirs.inboxId, other), 403)).code, 'forbidden', 'not their domain: no relay');

  const d = await json(await s.api('/v1/domains', { method: 'POST', json: { domain: DOMAIN } }), 201);
  for (const r of d.records as Json[]) {
    const existing = (dns.zone.get(r.name) ?? []).filter((x) => x.type !== r.type);
    dns.set(r.name, [...existing, { type: r.type, value: r.value, priority: r.priority }]);
  }
  const verified = await json(await s.api(`/v1/domains/${d.domainId}/verify`, { method: 'POST', json: {} }));
  assert.equal(verified.signing, true);

  // B's inbox is gone: B's reads and sends answer 404, as for any inbox that is no longer there.
  assert.equal((await s.api(`/v1/inboxes/${theirs.inboxId}`, { key: other })).status, 404);
  assert.equal((await send(theirs.inboxId, other)).status, 404);
  // B cannot take the address again, and A's key is never handed out for B's mail.
  assert.equal((await s.api('/v1/inboxes', { method: 'POST', json: { address: `billing@${DOMAIN}` }, key: other })).status, 400);
  assert.equal(await s.server.services.domains.dkimFor(DOMAIN, 'team_other'), null);
  assert.ok(await s.server.services.domains.dkimFor(DOMAIN, DEFAULT_TEAM_ID));

  // Mail to the address now waits for team A, who can claim it and send signed.
  assert.match((await sendMail(s.server.smtpPort, { to: `billing@${DOMAIN}`, subject: 'invoice', text: 'x' })).response, /^250/);
  const mine = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: `billing@${DOMAIN}` } }), 201);
  assert.equal((await json(await s.api(`/v1/inboxes/${mine.inboxId}/messages`))).items[0].subject, 'invoice');
  const before = relay.received.length;
  await json(await send(mine.inboxId), 202);
  await relay.whenReceived(before + 1);
  assert.match(relay.received.at(-1)!.raw.toString(), new RegExp(`^DKIM-Signature:[^]*d=${DOMAIN.replace('.', '\\.')}`, 'm'));
});

test("an inbox of another team left at a verified domain (created in a race) may not send, and is never signed with the owner's key", async () => {
  // Written to the store directly: the create route refuses it, only a create racing the verify could leave one.
  const now = Date.now();
  await s.server.parts.store.db
    .insertInto('inboxes')
    .values({
      id: 'inb_racedotherteam000000',
      team_id: 'team_other',
      address: `raced@${DOMAIN}`,
      label: null,
      service: null,
      ttl_minutes: 60,
      expires_at: now + 3_600_000,
      callback_url: null,
      callback_secret: null,
      created_at: now,
      created_by_key: 'key_otherteamadmin',
    })
    .execute();
  const r = await json(await send('inb_racedotherteam000000', other), 403);
  assert.match(r.detail, /another team's verified custom domain/);
});

const otherTeamKey = () => teamAdminKey(s, 'other', { keyId: 'key_otherteamadmin' });
