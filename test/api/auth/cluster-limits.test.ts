// Limits that hold across a cluster (issue 33, README "Scaling out"): through a proxy that alternates every request
// between the two instances, a key limited to N requests per minute gets exactly N, not N per instance — one by one
// and in a concurrent burst — and the per-key waiter cap counts the waits the other instance holds.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { type RoundRobin, roundRobin } from '../../helpers/round-robin.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';

const N = 20;
let s: TestServer;
let rr: RoundRobin;
let urlB = '';
// One moment in the middle of a minute: every request of a test falls in the same window.
const t0 = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
let offset = 0;
before(async () => {
  s = await startTestServer(['--rate-limit', String(N), '--max-waiters-per-key', '2'], {}, { clock: { now: () => t0 + offset } });
  urlB = s.peer ? `http://127.0.0.1:${s.peer.httpPort}` : s.url;
  rr = await roundRobin([s.url, urlB]);
});
after(async () => {
  await rr?.stop();
  await s?.stop();
});

async function newKey(label: string): Promise<string> {
  return (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label, role: 'member' } }), 201)).key as string;
}

const get = (base: string, key: string, p = '/v1/inboxes', signal?: AbortSignal) =>
  fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` }, ...(signal ? { signal } : {}) });

describe('limits over the cluster', () => {
  test(`a key limited to ${N} requests a minute gets ${N} through a round-robin proxy, one by one`, async () => {
    offset = 60_000;
    const key = await newKey('one-by-one');
    const statuses: number[] = [];
    for (let i = 0; i < 2 * N; i++) {
      const res = await get(rr.url, key);
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) assert.ok(Number(res.headers.get('retry-after')) >= 1);
    }
    assert.equal(statuses.filter((x) => x === 200).length, N, JSON.stringify(statuses));
    assert.equal(statuses.filter((x) => x === 429).length, N);
    // The first N were served, the rest refused: counted in order, not per instance.
    assert.deepEqual(statuses.slice(0, N), Array(N).fill(200));
    // MCP calls count against the same limit, on either instance.
    for (const base of [s.url, urlB]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      assert.equal(res.status, 429, await res.text());
    }
    // The next minute the key is served again.
    offset = 120_000;
    assert.equal((await get(rr.url, key)).status, 200);
  });

  test('a concurrent burst over both instances gets exactly the limit', async () => {
    offset = 180_000;
    const key = await newKey('burst');
    const answers = await Promise.all(
      Array.from({ length: 3 * N }, async () => {
        const res = await get(rr.url, key);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.equal(answers.filter((x) => x === 200).length, N, JSON.stringify(answers));
    assert.equal(answers.filter((x) => x === 429).length, 2 * N);
  });

  test('the per-key waiter cap counts the waits held on the other instance', async () => {
    offset = 240_000;
    const key = await newKey('waiter');
    const inbox = await json(await fetch(`${s.url}/v1/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${key}` } }), 201);
    const ac = new AbortController();
    const waits = [0, 1].map(() =>
      get(s.url, key, `/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=20`, ac.signal).then(
        (r) => r.status,
        () => 'aborted',
      ),
    );
    // The other instance hears of them at its next exchange (about a second).
    await new Promise((r) => setTimeout(r, 2500));
    const res = await get(urlB, key, `/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1`);
    const text = await res.text();
    ac.abort();
    await Promise.all(waits);
    assert.equal(res.status, 429, text);
    assert.match(text, /--max-waiters-per-key/);
    if (!TEST_CLUSTER) return;
    // Released on A: B takes a wait again once it has heard.
    await new Promise((r) => setTimeout(r, 2500));
    const again = await get(urlB, key, `/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1`);
    await again.arrayBuffer();
    assert.equal(again.status, 408, 'the wait was taken (and timed out: no mail)');
  });
});
