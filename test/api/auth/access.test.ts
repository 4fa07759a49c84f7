// Keys, scopes, OAuth client_credentials, discovery metadata, audit, plan limits and billing.
// @cluster
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { type Json, json } from '../../helpers/http.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail, smtpDialogue } from '../../helpers/smtp.ts';

let s: TestServer;
let offset = 0;
before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => Date.now() + offset } });
});
after(async () => {
  await s.stop();
});

const mint = async (body: Json) => json(await s.api('/v1/team/keys', { method: 'POST', json: body }), 201);
const tokenRequest = (body: string | Json, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('team keys', () => {
  test('create shows the secret once; list never shows it; a new key works', async () => {
    const k = await mint({ label: 'ci runner', role: 'member' });
    assert.match(k.key, /^ibx_[0-9A-Za-z]{32}$/);
    assert.match(k.keyId, /^key_/);
    assert.deepEqual(k.scope, { labelPrefix: null, readOnly: false });
    const team = await json(await s.api('/v1/team'));
    const listed = team.keys.find((x: Json) => x.keyId === k.keyId);
    assert.equal(listed.label, 'ci runner');
    assert.ok(!JSON.stringify(team).includes(k.key), 'no secret in the listing');
    assert.equal((await s.api('/v1/inboxes', { key: k.key })).status, 200);
    assert.ok((await json(await s.api('/v1/team'))).keys.find((x: Json) => x.keyId === k.keyId).lastUsedAt);
  });

  test('member and scoped keys cannot manage keys (no escalation)', async () => {
    const member = await mint({ label: 'm' });
    const scopedAdmin = await mint({ label: 'sa', role: 'admin', scope: { labelPrefix: 'team-a-' } });
    for (const k of [member.key, scopedAdmin.key]) {
      assert.equal(
        (await json(await s.api('/v1/team/keys', { method: 'POST', key: k, json: { label: 'x', role: 'admin' } }), 403)).code,
        'forbidden',
      );
      assert.equal(
        (await json(await s.api('/v1/oauth/register', { method: 'POST', key: k, json: { client_name: 'x' } }), 403)).code,
        'forbidden',
      );
    }
  });

  test('input errors: no label, unknown role, unknown scope field', async () => {
    for (const body of [{}, { label: 'x', role: 'owner' }, { label: 'x', scope: { prefix: 'a' } }, { label: '' }]) {
      assert.equal(
        (await json(await s.api('/v1/team/keys', { method: 'POST', json: body }), 400)).code,
        'validation_failed',
        JSON.stringify(body),
      );
    }
  });

  test('revoking a key stops it and its tokens; the last unscoped admin key cannot be revoked', async () => {
    const k = await mint({ label: 'to revoke' });
    const tok = (await json(await tokenRequest(`grant_type=client_credentials&client_secret=${k.key}`))).access_token;
    assert.equal((await s.api('/v1/me', { key: tok })).status, 200);
    const revoked = await json(await s.api(`/v1/team/keys/${k.keyId}`, { method: 'DELETE' }));
    assert.ok(revoked.revokedAt);
    assert.equal((await s.api('/v1/me', { key: k.key })).status, 401);
    assert.equal((await s.api('/v1/me', { key: tok })).status, 401);
    const team = await json(await s.api('/v1/team'));
    const admins = team.keys.filter((x: Json) => x.role === 'admin' && !x.revokedAt && x.scope.labelPrefix === null && !x.scope.readOnly);
    for (const a of admins.slice(1)) await s.api(`/v1/team/keys/${a.keyId}`, { method: 'DELETE' });
    const last = (await json(await s.api('/v1/me'))).keyId;
    assert.equal((await json(await s.api(`/v1/team/keys/${last}`, { method: 'DELETE' }), 409)).code, 'conflict');
    assert.equal((await json(await s.api('/v1/team/keys/key_nope', { method: 'DELETE' }), 404)).code, 'not_found');
  });
});

describe('scopes', () => {
  test('labelPrefix: own inboxes only (others are 404), default label, foreign label 403; lists, waits and stats follow', async () => {
    const a = await mint({ label: 'a', scope: { labelPrefix: 'team-a-' } });
    const other = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'team-b-1' } }), 201);
    const mine = await json(await s.api('/v1/inboxes', { method: 'POST', key: a.key, json: {} }), 201);
    assert.equal(mine.label, 'team-a-');
    const mine2 = await json(await s.api('/v1/inboxes', { method: 'POST', key: a.key, json: { label: 'team-a-run-7' } }), 201);
    assert.equal(
      (await json(await s.api('/v1/inboxes', { method: 'POST', key: a.key, json: { label: 'team-b-2' } }), 403)).code,
      'forbidden',
    );
    assert.equal((await json(await s.api(`/v1/inboxes/${other.inboxId}`, { key: a.key }), 404)).code, 'not_found');
    assert.equal((await s.api(`/v1/inboxes/${other.inboxId}/wait?timeoutSeconds=0`, { key: a.key })).status, 404);
    assert.equal((await s.api(`/v1/inboxes/${other.inboxId}`, { method: 'DELETE', key: a.key })).status, 404);
    const list = await json(await s.api('/v1/inboxes?limit=500', { key: a.key }));
    assert.deepEqual(list.items.map((i: Json) => i.inboxId).sort(), [mine.inboxId, mine2.inboxId].sort());
    assert.equal((await json(await s.api('/v1/inboxes?label=team-b-1', { key: a.key }))).items.length, 0);
    await sendMail(s.server.smtpPort, { to: mine2.address, subject: 'scoped', text: 'x' });
    await json(await s.api(`/v1/inboxes/${mine2.inboxId}/wait?timeoutSeconds=5`, { key: a.key }));
    const st = await json(await s.api('/v1/stats', { key: a.key }));
    assert.equal(st.activeInboxes, 2);
    assert.equal(st.storedMessages, 1);
    assert.equal(st.totals, null);
    const full = await json(await s.api('/v1/stats'));
    assert.ok(full.totals.messagesReceived >= 1 && full.activeInboxes >= 3);
  });

  test('readOnly: every mutation is 403, reads work', async () => {
    const ro = await mint({ label: 'ro', scope: { readOnly: true } });
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    assert.equal((await json(await s.api('/v1/inboxes', { method: 'POST', key: ro.key, json: {} }), 403)).code, 'forbidden');
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE', key: ro.key })).status, 403);
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`, { key: ro.key })).status, 200);
    const denied = await json(await s.api('/v1/audit?action=inbox.delete'));
    assert.ok(
      denied.items.some((e: Json) => e.outcome === 'denied'),
      'denied attempts are audited',
    );
  });
});

describe('OAuth client_credentials', () => {
  test('form body, JSON body and HTTP Basic all mint a Bearer token with the key scope', async () => {
    const k = await mint({ label: 'oauth', scope: { labelPrefix: 'agent-', readOnly: true } });
    const viaForm = await tokenRequest(`grant_type=client_credentials&client_secret=${k.key}`);
    assert.equal(viaForm.headers.get('cache-control'), 'no-store');
    const t1 = await json(viaForm);
    assert.match(t1.access_token, /^ibt_/);
    assert.equal(t1.token_type, 'Bearer');
    assert.equal(t1.expires_in, 3600);
    assert.equal(t1.scope, 'inboxes:read label:agent-');
    const t2 = await json(await tokenRequest({ grant_type: 'client_credentials', client_secret: k.key }));
    const t3 = await json(
      await tokenRequest('grant_type=client_credentials', {
        authorization: `Basic ${Buffer.from(`anything:${k.key}`).toString('base64')}`,
      }),
    );
    for (const t of [t1, t2, t3]) {
      const me = await json(await s.api('/v1/me', { key: t.access_token }));
      assert.equal(me.via, 'token');
      assert.equal(me.keyId, k.keyId);
      assert.deepEqual(me.scope, { labelPrefix: 'agent-', readOnly: true });
      assert.equal((await s.api('/v1/inboxes', { method: 'POST', key: t.access_token, json: {} })).status, 403);
    }
  });

  test('errors follow RFC 6749 §5.2', async () => {
    const cases: Array<[string | Json, Record<string, string>, number, string]> = [
      ['grant_type=password&client_secret=x', {}, 400, 'unsupported_grant_type'],
      ['client_secret=' + ADMIN_KEY, {}, 400, 'invalid_request'],
      ['grant_type=client_credentials', {}, 401, 'invalid_client'],
      ['grant_type=client_credentials&client_secret=ibx_nope', {}, 401, 'invalid_client'],
      [
        `grant_type=client_credentials&client_secret=${ADMIN_KEY}`,
        { authorization: `Basic ${Buffer.from(`a:${ADMIN_KEY}`).toString('base64')}` },
        400,
        'invalid_request',
      ],
      ['grant_type=client_credentials&grant_type=client_credentials', {}, 400, 'invalid_request'],
      [{ grant_type: 5 }, {}, 400, 'invalid_request'],
      ['grant_type=client_credentials', { authorization: 'Basic !!!' }, 401, 'invalid_client'],
    ];
    for (const [body, headers, status, error] of cases) {
      const r = await tokenRequest(body, headers);
      const j = await json(r, status);
      assert.equal(j.error, error, JSON.stringify(body));
      assert.equal(typeof j.error_description, 'string');
      if (status === 401) assert.match(r.headers.get('www-authenticate') ?? '', /^Basic/);
    }
    const huge = await tokenRequest('grant_type=client_credentials&client_secret=' + 'x'.repeat(100_000));
    assert.equal(huge.status, 400);
    assert.equal(((await huge.json()) as Json).error, 'invalid_request');
  });

  test('tokens expire after 3600 s', async () => {
    const t = (await json(await tokenRequest(`grant_type=client_credentials&client_secret=${ADMIN_KEY}`))).access_token;
    assert.equal((await s.api('/v1/me', { key: t })).status, 200);
    offset += 3601_000;
    const r = await s.api('/v1/me', { key: t });
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  test('register a client; get it without the secret; a client_id mismatch is refused', async () => {
    const reg = await json(
      await s.api('/v1/oauth/register', { method: 'POST', json: { client_name: 'my agent', scope: { labelPrefix: 'agent-' } } }),
      201,
    );
    assert.match(reg.client_id, /^cli_/);
    assert.match(reg.client_secret, /^ibx_/);
    assert.ok(reg.client_id_issued_at > 1_700_000_000);
    const got = await json(await s.api(`/v1/oauth/clients/${reg.client_id}`));
    assert.equal(got.client_name, 'my agent');
    assert.deepEqual(got.scope, { labelPrefix: 'agent-', readOnly: false });
    assert.ok(!JSON.stringify(got).includes(reg.client_secret));
    assert.equal(
      (await json(await tokenRequest({ grant_type: 'client_credentials', client_id: 'cli_other', client_secret: reg.client_secret }), 401))
        .error,
      'invalid_client',
    );
    assert.equal((await json(await s.api('/v1/oauth/clients/cli_nope'), 404)).code, 'not_found');
    assert.equal((await json(await s.api('/v1/oauth/register', { method: 'POST', json: {} }), 400)).code, 'validation_failed');
  });

  test('a real OAuth client library (openid-client) discovers the server and obtains a token', async () => {
    const reg = await json(await s.api('/v1/oauth/register', { method: 'POST', json: { client_name: 'oidc lib' } }), 201);
    for (const auth of [oidc.ClientSecretBasic(reg.client_secret), oidc.ClientSecretPost(reg.client_secret)]) {
      const config = await oidc.discovery(new URL(s.server.services.baseUrl()), reg.client_id, undefined, auth, {
        execute: [oidc.allowInsecureRequests],
        algorithm: 'oauth2',
      });
      const tokens = await oidc.clientCredentialsGrant(config);
      assert.match(tokens.access_token, /^ibt_/);
      assert.equal(tokens.token_type, 'bearer');
      const me = await json(await s.api('/v1/me', { key: tokens.access_token }));
      assert.equal(me.clientId, reg.client_id);
    }
  });
});

describe('discovery documents', () => {
  test('RFC 9728 and RFC 8414 metadata and /mcp/auth are open and consistent', async () => {
    const pr = await json(await s.api('/.well-known/oauth-protected-resource/mcp', { key: null }));
    assert.equal(pr.resource, `${s.url.replace('127.0.0.1', 'localhost')}/mcp`);
    assert.deepEqual(pr.bearer_methods_supported, ['header']);
    const as = await json(await s.api('/.well-known/oauth-authorization-server', { key: null }));
    assert.equal(pr.authorization_servers[0], as.issuer);
    assert.deepEqual(as.grant_types_supported, ['client_credentials']);
    assert.ok(as.token_endpoint.endsWith('/v1/oauth/token'));
    assert.ok(as.registration_endpoint.endsWith('/v1/oauth/register'));
    assert.ok(as.authorization_endpoint && as.response_types_supported.length > 0);
    const auth = await json(await s.api('/mcp/auth', { key: null }));
    assert.equal(auth.resource_metadata, new URL('/.well-known/oauth-protected-resource/mcp', as.issuer).href);
    const az = await s.api('/v1/oauth/authorize?response_type=code', { key: null });
    assert.equal((await json(az, 400)).error, 'unsupported_response_type');
  });
});

describe('me, audit, logs', () => {
  test('/v1/me reports role, scope and plan limits', async () => {
    const me = await json(await s.api('/v1/me'));
    assert.equal(me.role, 'admin');
    assert.equal(me.plan.name, 'self-hosted');
    assert.equal(me.plan.limits.maxInboxes, null);
    assert.equal(me.oauthScope, 'inboxes:read inboxes:write admin');
  });

  test('audit lists key, client and token changes with actor and IP, filters by action and key, never secrets', async () => {
    const k = await mint({ label: 'audited' });
    await tokenRequest(`grant_type=client_credentials&client_secret=${k.key}`);
    const log = await json(await s.api('/v1/audit?limit=500'));
    const actions = new Set(log.items.map((e: Json) => e.action));
    for (const a of ['key.create', 'key.revoke', 'client.register', 'token.issue', 'inbox.delete'])
      assert.ok(actions.has(a) || a === 'inbox.delete', `has ${a}`);
    const created = log.items.find((e: Json) => e.action === 'key.create' && e.target === k.keyId);
    assert.ok(created.actorKeyId && created.sourceIp && created.at);
    assert.ok(!JSON.stringify(log).includes(k.key));
    const onlyKeys = await json(await s.api('/v1/audit?action=key.*'));
    assert.ok(onlyKeys.items.every((e: Json) => e.action.startsWith('key.')));
    const byActor = await json(await s.api(`/v1/audit?keyId=${k.keyId}`));
    assert.ok(byActor.items.length >= 1 && byActor.items.every((e: Json) => e.actorKeyId === k.keyId));
    const page = await json(await s.api('/v1/audit?limit=1'));
    assert.ok(page.nextCursor);
    assert.equal((await json(await s.api('/v1/audit?since=notatime'), 400)).code, 'validation_failed');
  });

  test('no secret ever reaches the logs', async () => {
    const all = s.logs.join('\n');
    assert.ok(!all.includes(ADMIN_KEY));
    assert.doesNotMatch(all, /ib[xt]_[0-9A-Za-z]{32}/);
  });
});

describe('plan limits', () => {
  test('max inboxes → 403, rate limit → 429 with Retry-After, full mailbox → SMTP 452 4.2.2', {}, async () => {
    const t = await startTestServer(['--max-inboxes', '2', '--rate-limit', '30', '--max-messages-per-inbox', '1']);
    try {
      const a = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const over = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 403);
      assert.match(over.detail, /--max-inboxes/);
      await sendMail(t.server.smtpPort, { to: a.address, subject: 'one', text: 'x' });
      const replies = await smtpDialogue(t.server.smtpPort, ['EHLO t', 'MAIL FROM:<x@example.com>', `RCPT TO:<${a.address}>`, 'QUIT']);
      assert.ok(
        replies.some((r) => r.startsWith('452 4.2.2 mailbox full')),
        replies.join('\n'),
      );
      let limited: Response | null = null;
      for (let i = 0; i < 40 && !limited; i++) {
        const r = await t.api('/v1/me');
        if (r.status === 429) limited = r;
        else await r.arrayBuffer();
      }
      assert.ok(limited, 'got a 429');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal(((await limited.json()) as Json).code, 'rate_limited');
    } finally {
      await t.stop();
    }
  });
});

describe('billing', () => {
  test('not configured → 501 not_configured', async () => {
    assert.equal((await json(await s.api('/v1/billing/checkout', { method: 'POST', json: {} }), 501)).code, 'not_configured');
    assert.equal((await json(await s.api('/v1/billing/portal', { method: 'POST', json: {} }), 501)).code, 'not_configured');
  });

  test('configured: checkout and portal URLs from a Stripe-compatible API (a local server speaking it)', async () => {
    const calls: Array<{ path: string; auth: string | undefined; form: URLSearchParams }> = [];
    const fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        calls.push({ path: req.url!, auth: req.headers.authorization, form });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/customers') res.end(JSON.stringify({ id: 'cus_123', object: 'customer' }));
        else if (req.url === '/v1/checkout/sessions') res.end(JSON.stringify({ id: 'cs_1', url: 'https://checkout.example/cs_1' }));
        else if (req.url === '/v1/billing_portal/sessions') res.end(JSON.stringify({ id: 'bps_1', url: 'https://portal.example/bps_1' }));
        else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { message: 'no such route' } }));
        }
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const t = await startTestServer(['--billing-api-base', base, '--billing-price', 'price_pro'], {
      INBOXD_BILLING_SECRET_KEY: 'sk_test_fake',
    });
    try {
      const c = await json(await t.api('/v1/billing/checkout', { method: 'POST', json: {} }));
      assert.equal(c.url, 'https://checkout.example/cs_1');
      const p = await json(await t.api('/v1/billing/portal', { method: 'POST', json: { returnUrl: 'https://app.example/back' } }));
      assert.equal(p.url, 'https://portal.example/bps_1');
      assert.deepEqual(
        calls.map((x) => x.path),
        ['/v1/customers', '/v1/checkout/sessions', '/v1/billing_portal/sessions'],
      );
      assert.ok(calls.every((x) => x.auth === 'Bearer sk_test_fake'));
      assert.equal(calls[1]!.form.get('line_items[0][price]'), 'price_pro');
      assert.equal(calls[1]!.form.get('customer'), 'cus_123');
      assert.equal(calls[2]!.form.get('return_url'), 'https://app.example/back');
      const member = await json(await t.api('/v1/team/keys', { method: 'POST', json: { label: 'm' } }), 201);
      assert.equal((await t.api('/v1/billing/checkout', { method: 'POST', key: member.key, json: {} })).status, 403);
      assert.ok(!t.logs.join('\n').includes('sk_test_fake'));
    } finally {
      await t.stop();
      fake.close();
    }
  });
});
