// Requests refused before their body is read (a webhook provider that is off → 501, an unknown provider → 404, no key
// on a POST with a body → 401) keep their promise about the connection: with a keep-alive agent, 300 sequential posts
// of each kind get their answer every time, never ECONNRESET (issue 27: half of them failed; the answer said
// `Connection: keep-alive` and the socket was then closed). A body too large to read is answered `Connection: close`.
// not @cluster: counts the connections of one client to one instance
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

interface Outcome {
  socket?: object;
  status?: number;
  connection?: string;
  error?: string;
}

const sockets = new Set<object>();

function post(agent: http.Agent, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<Outcome> {
  const u = new URL(s.url);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: String(res.headers.connection) }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.once('socket', (sock) => sockets.add(sock));
    req.end(body);
  });
}

async function sequential(path: string, status: number, body: Buffer, headers: Record<string, string> = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const errors = new Map<string, number>();
  sockets.clear();
  try {
    for (let i = 0; i < 300; i++) {
      const o = await post(agent, path, body, headers);
      if (o.error !== undefined) errors.set(o.error, (errors.get(o.error) ?? 0) + 1);
      else assert.equal(o.status, status, `${path}: request ${i}`);
    }
  } finally {
    agent.destroy();
  }
  assert.deepEqual(Object.fromEntries(errors), {}, `${path}: failures among 300 sequential keep-alive posts`);
  return sockets.size;
}

const small = Buffer.from(JSON.stringify({ 'body-mime': 'x'.repeat(2000), recipient: 'a@inboxd.test' }));

test('501 for a webhook provider that is off: 300 keep-alive posts, no reset, the connection is kept', async () => {
  const sockets = await sequential('/webhooks/mailgun', 501, small);
  assert.equal(sockets, 1, 'a small refused body is read and dropped, and the one connection reused');
});

test('404 for an unknown webhook provider: 300 keep-alive posts, no reset', async () => {
  const r = await fetch(`${s.url}/webhooks/mailgn`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.match(((await r.json()) as { detail: string }).detail, /no webhook provider "mailgn" \(did you mean mailgun\?\)/);
  assert.equal(await sequential('/webhooks/nope', 404, small), 1);
});

test('401 on a POST with a body and no key: 300 keep-alive posts, no reset', async () => {
  assert.equal(await sequential('/v1/inboxes', 401, Buffer.from(JSON.stringify({ label: 'x'.repeat(3000) }))), 1);
});

test('a refused body too large to read is answered Connection: close, and the next request still works', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    sockets.clear();
    for (let i = 0; i < 20; i++) {
      const o = await post(agent, '/webhooks/mailgun', big);
      assert.equal(o.error, undefined, `request ${i}: ${o.error}`);
      assert.equal(o.status, 501);
      assert.equal(o.connection, 'close', 'the server says it will close the connection');
    }
    assert.equal(sockets.size, 20, 'each on a new connection');
    assert.equal((await post(agent, '/webhooks/nope', small)).status, 404);
  } finally {
    agent.destroy();
  }
});

test('fetch (undici, keep-alive by default): 300 sequential refused posts all get their answer', async () => {
  const failures: string[] = [];
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(`${s.url}/webhooks/mailgun`, { method: 'POST', body: small, headers: { 'content-type': 'application/json' } });
      await r.arrayBuffer();
      assert.equal(r.status, 501);
    } catch (e) {
      failures.push(String((e as Error & { cause?: Error }).cause?.message ?? e));
    }
  }
  assert.deepEqual(failures, []);
});
