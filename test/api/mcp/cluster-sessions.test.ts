// MCP sessions any instance serves (issue 33): with no sticky balancer at all — a round-robin proxy sending every
// request to the next instance — the official SDK client runs a whole session (initialize, list, calls with progress,
// terminate), the conformance server scenarios pass, a GET stream held on one instance receives the progress of a
// call running on the other, DELETE ends the session on every instance, and the session caps count both instances.
// @cluster
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ROOT } from '../../helpers/cli.ts';
import { json } from '../../helpers/http.ts';
import { connectMcp } from '../../helpers/mcp-tools.ts';
import { type RoundRobin, roundRobin } from '../../helpers/round-robin.ts';
import { ADMIN_KEY, startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;

let s: TestServer;
let rr: RoundRobin;
let urlA = '';
let urlB = '';
before(async () => {
  s = await startTestServer();
  urlA = s.url;
  urlB = s.peer ? `http://127.0.0.1:${s.peer.httpPort}` : s.url;
  rr = await roundRobin(s.peer ? [urlA, urlB] : [urlA]);
});
after(async () => {
  await rr?.stop();
  await s?.stop();
});

const headersFor = (sid?: string, accept = 'application/json, text/event-stream', key = ADMIN_KEY) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
  accept,
  ...(sid ? { 'mcp-session-id': sid } : {}),
});

async function initialize(base: string, accept?: string, key = ADMIN_KEY): Promise<string> {
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: headersFor(undefined, accept, key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'cluster-test', version: '7' } },
    }),
  });
  const text = await init.text();
  assert.equal(init.status, 200, text);
  return init.headers.get('mcp-session-id')!;
}

function progressOf(sse: string, token: string): number[] {
  return sse
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Json)
    .filter((m) => m.method === 'notifications/progress' && m.params.progressToken === token)
    .map((m) => m.params.progress as number);
}

/** Reads a GET stream into `into.text` until aborted. */
function readStream(res: Response, into: { text: string }): Promise<void> {
  return (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        into.text += dec.decode(value);
      }
    } catch {
      // aborted
    }
  })();
}

describe('no sticky balancer', () => {
  test('the SDK client runs a whole session through a proxy that alternates every request', async () => {
    const { client, transport } = await connectMcp(rr.url, ADMIN_KEY);
    const sid = transport.sessionId!;
    assert.ok(sid);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'svc_wait_and_extract'));
    const created = (await client.callTool({ name: 'svc_create_inbox', arguments: {} })).structuredContent as Json;
    const progress: number[] = [];
    setTimeout(
      () => void s.api(`/v1/inboxes/${created.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp', code: '771203' } }),
      2300,
    );
    const r = await client.callTool(
      { name: 'svc_wait_and_extract', arguments: { inboxId: created.inboxId, timeoutSeconds: 10 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 20_000 },
    );
    assert.equal((r.structuredContent as Json).agent.primaryAction.value, '771203');
    assert.ok(progress.length >= 2, `progress notifications: ${JSON.stringify(progress)}`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! > progress[i - 1]!, 'progress increases');
    await client.ping();
    await transport.terminateSession();
    await client.close();
    const mine = rr.log.filter((l) => l.session === sid);
    if (TEST_CLUSTER) {
      assert.deepEqual(
        new Set(mine.map((l) => l.upstream)),
        new Set([0, 1]),
        `the session's requests went to both instances: ${JSON.stringify(mine.map((l) => [l.method, l.upstream]))}`,
      );
      assert.ok(
        mine.some((l) => l.method === 'DELETE'),
        'the session was terminated through the proxy',
      );
    }
    // Ended everywhere: neither instance knows it any more.
    for (const base of [urlA, urlB]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: headersFor(sid),
        body: '{"jsonrpc":"2.0","id":9,"method":"ping"}',
      });
      assert.equal(res.status, 404, await res.text());
    }
  });

  test('the toolsets chosen at initialize hold on every instance that serves the session', async () => {
    const { client, transport } = await connectMcp(rr.url, ADMIN_KEY, '?toolsets=verify');
    const sid = transport.sessionId!;
    for (let i = 0; i < 4; i++) {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name).sort(),
        ['svc_check_email', 'svc_create_inbox', 'svc_delete_inbox', 'svc_simulate_message', 'svc_verify_signup', 'svc_wait_and_extract'],
        `tools/list number ${i + 1}`,
      );
    }
    for (let i = 0; i < 2; i++) {
      const r = await client.callTool({ name: 'svc_search_messages', arguments: { query: 'x' } });
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /toolset search/);
    }
    await transport.terminateSession();
    await client.close();
    if (TEST_CLUSTER) {
      const mine = rr.log.filter((l) => l.session === sid && l.method === 'POST');
      assert.deepEqual(new Set(mine.map((l) => l.upstream)), new Set([0, 1]), 'both instances served the session');
    }
  });

  test('a GET stream on B receives the progress of a call running on A (JSON-only session: progress only there)', {
    skip: !TEST_CLUSTER && 'needs two instances (INBOXD_TEST_CLUSTER=1)',
  }, async () => {
    const sid = await initialize(urlA, 'application/json');
    const ac = new AbortController();
    const stream = await fetch(`${urlB}/mcp`, { headers: headersFor(sid, 'text/event-stream'), signal: ac.signal });
    assert.equal(stream.status, 200);
    const seen = { text: '' };
    const reading = readStream(stream, seen);
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    setTimeout(() => void s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } }), 2300);
    const res = await fetch(`${urlA}/mcp`, {
      method: 'POST',
      headers: headersFor(sid, 'application/json'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 10 }, _meta: { progressToken: 'x1' } },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.match(await res.text(), /"result"/);
    await new Promise((r) => setTimeout(r, 200));
    const onB = progressOf(seen.text, 'x1');
    assert.ok(onB.length >= 2, `progress of the call on A reached the GET stream on B: ${seen.text.slice(0, 500)}`);
    for (let i = 1; i < onB.length; i++) assert.ok(onB[i]! > onB[i - 1]!);
    // DELETE on A ends B's GET stream too.
    const del = await fetch(`${urlA}/mcp`, { method: 'DELETE', headers: headersFor(sid) });
    assert.equal(del.status, 200);
    const ended = await Promise.race([reading.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))]);
    ac.abort();
    await reading;
    assert.equal(ended, true, "B closed the session's GET stream when A ended it");
  });

  test('the idle sweep of one instance ends a session everywhere, its GET stream on the other included', {
    skip: !TEST_CLUSTER && 'needs two instances (INBOXD_TEST_CLUSTER=1)',
  }, async () => {
    const sid = await initialize(urlA);
    const ac = new AbortController();
    const stream = await fetch(`${urlA}/mcp`, { headers: headersFor(sid, 'text/event-stream'), signal: ac.signal });
    assert.equal(stream.status, 200);
    const reading = readStream(stream, { text: '' });
    // Unused for 31 minutes (the sweep ends sessions idle for 30), as the database sees it.
    await sql`update mcp_sessions set last_seen = last_seen - ${31 * 60_000} where id = ${sid}`.execute(s.server.parts.store.db);
    await s.peer!.mcpSweepIdle();
    const ended = await Promise.race([reading.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))]);
    ac.abort();
    await reading;
    assert.equal(ended, true, "A closed the session's GET stream when B's sweep ended it");
    for (const base of [urlA, urlB]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: headersFor(sid),
        body: '{"jsonrpc":"2.0","id":3,"method":"ping"}',
      });
      assert.equal(res.status, 404, await res.text());
    }
  });

  test('the per-key session cap counts the sessions of both instances', async () => {
    const c = await startTestServer(['--mcp-max-sessions-per-key', '3']);
    try {
      const a = c.url;
      const b = c.peer ? `http://127.0.0.1:${c.peer.httpPort}` : c.url;
      const opened: string[] = [];
      // --mcp-max-sessions-per-key 3: three sessions, spread over the instances, then 429 on either.
      for (let i = 0; i < 3; i++) opened.push(await initialize(i % 2 === 0 ? a : b));
      for (const base of [a, b]) {
        const res = await fetch(`${base}/mcp`, {
          method: 'POST',
          headers: headersFor(),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'over', version: '1' } },
          }),
        });
        assert.equal(res.status, 429, await res.text());
      }
      // Ended on the other instance than the one that opened it: the room is given back over the cluster.
      const del = await fetch(`${b}/mcp`, { method: 'DELETE', headers: headersFor(opened[0]) });
      assert.equal(del.status, 200);
      await initialize(a);
    } finally {
      await c.stop();
    }
  });

  test('the MCP conformance server scenarios pass through the round-robin proxy', { timeout: 240_000 }, async () => {
    const proxy = await roundRobin(s.peer ? [urlA, urlB] : [urlA], { key: ADMIN_KEY });
    try {
      const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            path.join(ROOT, 'node_modules/.bin/conformance'),
            'server',
            '--url',
            `${proxy.url}/mcp`,
            '--expected-failures',
            path.join(ROOT, 'test/fixtures/mcp-conformance-expected-failures.yml'),
          ],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('exit', (code) => resolve({ code, out }));
      });
      assert.equal(r.code, 0, r.out.slice(-4000));
      assert.match(r.out, /✓ server-initialize/);
      if (TEST_CLUSTER) assert.ok(proxy.sent[0]! > 10 && proxy.sent[1]! > 10, `both instances served: ${proxy.sent}`);
    } finally {
      await proxy.stop();
    }
  });
});
