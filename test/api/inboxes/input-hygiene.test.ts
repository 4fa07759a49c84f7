// Malformed credentials and control characters (issue 11): a broken HTTP Basic header on the token endpoint is an
// RFC 6749 §5.2 invalid_client (never a 500), and free-text fields that are stored, matched or logged refuse NUL,
// CR, LF and the other control characters with a 400 naming the field.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64');

describe('HTTP Basic on the token endpoint', () => {
  test('malformed Basic credentials are 401 invalid_client with WWW-Authenticate, never 500', async () => {
    const headers = [
      'Basic %%%',
      'Basic',
      'Basic ',
      'Basic abcde',
      `Basic ${b64('no-colon-here')}`,
      `Basic ${b64(`a:%zz${s.key}`)}`,
      `Basic ${b64(`%E0%A4%A:${s.key}`)}`,
      `Basic ${b64(`a:%ED%A0%80`)}`,
      `Basic ${b64(Buffer.from([0x61, 0x3a, 0xff, 0xfe, 0x00]))}`,
      `Basic ${b64(`a:ibx_with\u0000nul`)}`,
      `Basic ${b64(`a:${'x'.repeat(600)}`)}`,
      `Basic ${'A'.repeat(3000)}`,
    ];
    for (const authorization of headers) {
      const r = await fetch(`${s.url}/v1/oauth/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      const text = await r.text();
      assert.equal(r.status, 401, `${authorization.slice(0, 40)}: ${text}`);
      const j = JSON.parse(text) as Json;
      assert.equal(j.error, 'invalid_client');
      assert.match(j.error_description, /malformed HTTP Basic credentials|unknown|revoked/);
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic/);
    }
    const ok = await fetch(`${s.url}/v1/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${b64(`my%20client:${encodeURIComponent(s.key)}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    assert.equal(ok.status, 200);
  });
});

describe('control characters in free text', () => {
  test('NUL, CR/LF, tab, ESC, DEL and U+2028 in stored or logged fields → 400 naming the field; nothing created', async () => {
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    const before = ((await (await s.api('/v1/team')).json()) as Json).keys.length;
    for (const bad of ['a\u0000b', 'run\r\n1', 'a\tb', 'x\u001b[31m', 'a\u007f', 'a\u2028b']) {
      const cases: Array<[string, RequestInit & { json?: unknown }, string]> = [
        ['/v1/inboxes', { method: 'POST', json: { localPart: `abc${bad}` } }, 'localPart'],
        ['/v1/inboxes', { method: 'POST', json: { address: `abc${bad}@inboxd.test` } }, 'address'],
        ['/v1/inboxes', { method: 'POST', json: { label: `ci-${bad}` } }, 'label'],
        ['/v1/team/keys', { method: 'POST', json: { label: `key ${bad}` } }, 'label'],
        ['/v1/team/keys', { method: 'POST', json: { label: 'k', scope: { labelPrefix: `team${bad}` } } }, 'scope.labelPrefix'],
        ['/v1/oauth/register', { method: 'POST', json: { client_name: `agent ${bad}` } }, 'client_name'],
        [`/v1/inboxes?label=${encodeURIComponent(bad)}`, {}, 'label'],
        [`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1&subjectContains=${encodeURIComponent(bad)}`, {}, 'subjectContains'],
        [`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1&from=${encodeURIComponent(bad)}`, {}, 'from'],
        [`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'custom', subject: `Hi${bad}Bcc: x@y` } }, 'subject'],
        [`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'custom', from: `a@b.example${bad}` } }, 'from'],
      ];
      for (const [path, init, field] of cases) {
        const r = await s.api(path, init);
        const body = (await r.json()) as Json;
        assert.equal(r.status, 400, `${path} ${JSON.stringify(bad)}: ${JSON.stringify(body)}`);
        assert.equal(body.code, 'validation_failed');
        assert.ok(
          body.errors.some((e: Json) => e.path === field),
          `${path}: errors name ${field}: ${JSON.stringify(body.errors)}`,
        );
        assert.ok(body.detail.startsWith(`${field}:`) || body.detail.includes(field), body.detail);
      }
    }
    assert.equal(((await (await s.api('/v1/team')).json()) as Json).keys.length, before, 'no key was created');
    assert.equal(((await (await s.api(`/v1/inboxes/${inbox.inboxId}/messages`)).json()) as Json).items.length, 0, 'nothing simulated');
    // Ordinary text, Unicode included, is fine.
    assert.equal(
      (await s.api('/v1/team/keys', { method: 'POST', json: { label: 'Grüße – CI 🚀', scope: { labelPrefix: 'team-ä/' } } })).status,
      201,
    );
  });
});
