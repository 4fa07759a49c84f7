// Limits that hold across a cluster (issue 33, README "Scaling out"): through a proxy that alternates every request
// between the two instances, a key limited to N requests per minute gets exactly N, not N per instance — one by one
// and in a concurrent burst — the per-key waiter cap counts the waits the other instance holds, and the rehearsal
// page's signup is confirmed on either instance, its wrong-code lock-out and the client address's allowance counting
// the attempts made on both.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IP_LIMITS, MAX_WRONG_CODES } from '../../../src/agent/rehearsal.ts';
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

  test('the rehearsal page: a signup on A is checked on B; wrong codes and the address allowance count both', async () => {
    offset = 30 * 60_000;
    const bases = [s.url, urlB];
    const form = (base: string, p: string, fields: Record<string, string>) =>
      fetch(base + p, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const page = await (await form(s.url, '/v1/agent/test/signup', { email: inbox.address })).text();
    const session = /name="session" value="([^"]+)"/.exec(page)![1]!;
    const verified = await json(await s.api('/v1/agent/verify', { method: 'POST', json: { inboxId: inbox.inboxId, timeoutSeconds: 5 } }));
    const code = verified.verification.otp as string;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i < MAX_WRONG_CODES; i++) {
      const text = await (await form(bases[i % 2]!, '/v1/agent/test/confirm', { session, code: wrong })).text();
      assert.match(text, /is not the code we sent/, `attempt ${i} on instance ${i % 2}`);
    }
    const locking = await form(bases[MAX_WRONG_CODES % 2]!, '/v1/agent/test/confirm', { session, code: wrong });
    assert.equal(locking.headers.get('x-inboxd-result'), '423');
    await locking.arrayBuffer();
    for (const base of bases)
      assert.match(await (await form(base, '/v1/agent/test/confirm', { session, code })).text(), /locked after 5 wrong codes/);
    // The address's allowance of wrong attempts, spent on both instances: refused within one attempt per other
    // instance of the limit (README "Scaling out").
    let used = MAX_WRONG_CODES + 2;
    let allowed = used;
    for (let i = 0; used < IP_LIMITS.wrong + 4; i++, used++) {
      const r = await form(bases[i % 2]!, '/v1/agent/test/confirm', { session: `nosuchsession${i}`, code: wrong });
      await r.arrayBuffer();
      if (r.status === 429) continue;
      assert.equal(r.status, 200);
      allowed++;
    }
    assert.ok(allowed <= IP_LIMITS.wrong + 1, `wrong attempts allowed over both instances: ${allowed}`);
  });
});
