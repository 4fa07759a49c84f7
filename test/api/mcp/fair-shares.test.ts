// Shared caps are shared fairly (limits set low by flags): no key and no team can take every MCP session or every
// wait slot; a full session table makes room by closing the least recently used idle session; and only the
// --base-url origin, loopback origins and --mcp-allowed-origins may call /mcp from a browser (a DNS-rebinding page,
// whose Origin equals the Host it sends, may not).
// @cluster
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

type Json = Record<string, any>;
let s: TestServer;
before(async () => {
  s = await startTestServer([
    '--mcp-max-sessions',
    '4',
    '--mcp-max-sessions-per-key',
    '2',
    '--mcp-max-sessions-per-team',
    '3',
    '--max-waiters',
    '6',
    '--max-waiters-per-key',
    '2',
    '--max-waiters-per-team',
    '4',
    '--mcp-allowed-origins',
    'https://console.example.com',
  ]);
});
after(async () => {
  await s.stop();
});

async function newKey(label: string, readOnly = false): Promise<string> {
  const r = await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label, role: 'member', ...(readOnly ? { scope: { readOnly: true } } : {}) } }),
    201,
  );
  return r.key as string;
}

let teams = 0;
/** An admin key of a team of its own. */
const otherTeamKey = () => teamAdminKey(s, `fair${++teams}`);

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fair', version: '1' } },
});

/** A raw initialize: the status, the session id and the error message. */
async function init(key: string): Promise<{ status: number; session: string | null; message: string; retryAfter: string | null }> {
  const r = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(initialize()),
  });
  const body = (await r.json()) as Json;
  return {
    status: r.status,
    session: r.headers.get('mcp-session-id'),
    message: body.error?.message ?? '',
    retryAfter: r.headers.get('retry-after'),
  };
}

async function listTools(key: string, session: string): Promise<number> {
  const r = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'application/json',
      'content-type': 'application/json',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await r.body?.cancel();
  return r.status;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), `condition never held (waiters: ${s.server.services.waits.gate.count()})`);
}

describe('fair shares', {
  skip: TEST_CLUSTER && "reads one instance's own counts; across instances: test/api/auth/cluster-limits.test.ts",
}, () => {
  test('MCP sessions: per-key and per-team shares; a full table reclaims the least recently used idle session', async () => {
    const reader = await newKey('reader', true);
    const second = await newKey('second', true);
    const a1 = await init(reader);
    const a2 = await init(reader);
    assert.equal(a1.status, 200);
    assert.equal(a2.status, 200);
    const a3 = await init(reader);
    assert.equal(a3.status, 429);
    assert.match(a3.message, /--mcp-max-sessions-per-key, is 2/);
    assert.match(a3.message, /DELETE \/mcp/);
    assert.equal(a3.retryAfter, '5');
    assert.equal((await init(second)).status, 200);
    const team = await init(second);
    assert.equal(team.status, 429);
    assert.match(team.message, /--mcp-max-sessions-per-team, is 3/);

    // A call in flight on the reader's oldest session: busy sessions are not reclaimed.
    const other = await otherTeamKey();
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {}, key: other }), 201);
    const client = await mcpClient(s.url, other);
    // The table is full now (reader 2, second 1, this client 1); a1 is now used more recently than a2.
    assert.equal(await listTools(reader, a1.session!), 200);
    const third = await otherTeamKey();
    const fresh = await init(third);
    assert.equal(fresh.status, 200, fresh.message);
    // The least recently used idle session was closed to make room: a2, not a1.
    assert.equal(await listTools(reader, a2.session!), 404);
    assert.equal(await listTools(reader, a1.session!), 200);

    // Every session busy: 503 saying so. Each key waits on an inbox of its own team.
    const inboxOf = async (key: string) =>
      (await json(await s.api('/v1/inboxes', { method: 'POST', json: {}, key }), 201)).inboxId as string;
    const hold = async (key: string, session: string) => {
      const id = key === reader ? (await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201)).inboxId : await inboxOf(key);
      const done = fetch(`${s.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'svc_wait_for_message', arguments: { inboxId: id, timeoutSeconds: 30 } },
        }),
      }).then((r) => r.text());
      return { id, done };
    };
    const waiting = client.callTool(
      { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 30 } },
      undefined,
      { timeout: 60_000 },
    );
    await until(() => s.server.services.waits.gate.count() === 1);
    const holders = [await hold(reader, a1.session!), await hold(third, fresh.session!)];
    // `second`'s one session is idle: it is the one reclaimed; then all four are busy.
    await until(() => s.server.services.waits.gate.count() === 3);
    const fourth = await otherTeamKey();
    const c1 = await init(fourth);
    assert.equal(c1.status, 200, c1.message);
    holders.push(await hold(fourth, c1.session!));
    await until(() => s.server.services.waits.gate.count() === 4);
    const full = await init(await otherTeamKey());
    assert.equal(full.status, 503);
    assert.match(full.message, /--mcp-max-sessions\) have a call in flight/);
    assert.equal(full.retryAfter, '5');
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' }, key: other }), 201);
    const keys = [reader, third, fourth];
    for (const [i, h] of holders.entries()) {
      const key = keys[i]!;
      await json(
        await s.api(`/v1/inboxes/${h.id}/simulate`, { method: 'POST', json: { scenario: 'otp' }, ...(key === reader ? {} : { key }) }),
        201,
      );
      assert.match(await h.done, /"structuredContent"/);
    }
    assert.equal(((await waiting) as Json).isError, undefined);
    await client.close();
  });

  test('waits: one or two keys of a team fill their shares, another team still waits', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const k1 = await newKey('w1', true);
    const k2 = await newKey('w2', true);
    const k3 = await newKey('w3', true);
    const wait = (key: string) => s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`, { key });
    const held = [wait(k1), wait(k1)];
    await until(() => s.server.services.waits.gate.count() === 2);
    const perKey = await json(await wait(k1), 429);
    assert.match(perKey.detail, /--max-waiters-per-key, is 2/);
    held.push(wait(k2), wait(k2));
    await until(() => s.server.services.waits.gate.count() === 4);
    const perTeam = await json(await wait(k3), 429);
    assert.match(perTeam.detail, /--max-waiters-per-team, is 4/);
    // A key of another team still gets a slot.
    const other = await otherTeamKey();
    const mine = await json(await s.api('/v1/inboxes', { method: 'POST', json: {}, key: other }), 201);
    const theirs = s.api(`/v1/inboxes/${mine.inboxId}/wait?timeoutSeconds=30`, { key: other });
    await until(() => s.server.services.waits.gate.count() === 5);
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } }), 201);
    await json(await s.api(`/v1/inboxes/${mine.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' }, key: other }), 201);
    for (const r of await Promise.all(held)) assert.equal(r.status, 200);
    assert.equal((await theirs).status, 200);
  });
});

describe('MCP Origin', () => {
  /** A raw POST with the Host and Origin a browser would send (fetch may not set Host). */
  function post(host: string, origin: string): Promise<number> {
    const u = new URL(s.url);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host,
            origin,
            authorization: `Bearer ${s.key}`,
            accept: 'application/json',
            'content-type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
  }

  test('a rebinding page (Origin equal to Host) is refused; the base-url origin, loopback and allowed origins are not', async () => {
    const port = new URL(s.url).port;
    assert.equal(await post(`rebind.attacker.example:${port}`, `http://rebind.attacker.example:${port}`), 403);
    assert.equal(await post(`127.0.0.1:${port}`, 'https://evil.example'), 403);
    assert.equal(await post(`127.0.0.1:${port}`, 'null'), 403);
    assert.equal(await post(`127.0.0.1:${port}`, s.server.services.baseUrl()), 200);
    assert.equal(await post(`127.0.0.1:${port}`, 'http://localhost:5173'), 200);
    assert.equal(await post(`127.0.0.1:${port}`, 'https://console.example.com'), 200);
    assert.equal(await post(`127.0.0.1:${port}`, 'https://console.example.com:8443'), 403);
  });

  test('--mcp-allowed-origins takes origins only, and the share flags whole numbers', () => {
    assert.deepEqual(loadConfig(['--mcp-allowed-origins', 'https://A.example.com, http://b.example:8080']).mcpAllowedOrigins, [
      'https://a.example.com',
      'http://b.example:8080',
    ]);
    assert.throws(() => loadConfig(['--mcp-allowed-origins', 'https://a.example.com/app']), /--mcp-allowed-origins: .*without a path/);
    assert.throws(() => loadConfig(['--mcp-allowed-origins', 'a.example.com']), /--mcp-allowed-origins: .*http\(s\):\/\/host/);
    assert.throws(() => loadConfig(['--mcp-max-sessions-per-key', '-1']), /--mcp-max-sessions-per-key: .*0 or more/);
    assert.throws(() => loadConfig(['--max-waiters-per-team', '1.5']), /--max-waiters-per-team: .*whole number/);
    assert.throws(() => loadConfig(['--mcp-max-sessions', '0']), /--mcp-max-sessions: .*at least 1/);
  });
});
