// Hostile load on waits, full size and with the default caps: 1,900 long-poll GET …/wait waiters (one key at the
// per-key cap of 1,000, raised by flag from the default 500) and 100 verify waiters on one inbox — the server-wide cap of 2,000 — then one several-MB
// message. Every waiter is answered, the next wait is refused with 429 naming the cap it hit, and the server's memory
// stays bounded (the message's JSON is built once, bodies are cut to --wait-max-body-chars).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createInbox, killAll, sleep, startChild } from './lib.ts';

after(killAll);

const GET_WAITERS = [1000, 500, 400]; // per key; the first is at the per-key cap
const VERIFY_WAITERS = 100;
const MAX_RSS_MB = 768;

test('thousands of waiters and one large message: all answered, memory bounded', { timeout: 10 * 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-waiters-'));
  // Every waiter here comes from 127.0.0.1: the per-address HTTP connection cap (256 by default) is lifted so the
  // waiter caps are what is tested (a CI runner with thousands of waits from one host needs the same setting).
  // The keys here are all of one team, one of them a CI farm: its key may hold 1,000 and the team every slot.
  const srv = await startChild(dir, ['--max-http-connections-per-ip', '0', '--max-waiters-per-key', '1000', '--max-waiters-per-team', '0']);
  try {
    const base = `http://127.0.0.1:${srv.http}`;
    const inbox = await createInbox(srv);
    const keys: string[] = [];
    for (let i = 0; i < GET_WAITERS.length + 1; i++) {
      const r = await srv.api('/v1/team/keys', { method: 'POST', json: { label: `waiter-${i}` } });
      assert.equal(r.status, 201);
      keys.push(((await r.json()) as { key: string }).key);
    }
    const verifyKey = keys.pop()!;

    // Reads an answer without keeping it: its status, size and the message id at its start.
    const answer = async (res: Promise<Response>): Promise<{ status: number; bytes: number; head: string }> => {
      const r = await res;
      let bytes = 0;
      let head = '';
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        if (head.length < 200) head += Buffer.from(chunk).toString('utf8', 0, Math.min(chunk.length, 200));
        bytes += chunk.length;
      }
      return { status: r.status, bytes, head };
    };
    const waits = keys.flatMap((key, k) =>
      Array.from({ length: GET_WAITERS[k]! }, () =>
        answer(fetch(`${base}/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=120`, { headers: { authorization: `Bearer ${key}` } })),
      ),
    );
    const verifies = Array.from({ length: VERIFY_WAITERS }, () =>
      fetch(`${base}/v1/agent/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${verifyKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ inboxId: inbox.inboxId, timeoutSeconds: 120 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; verification: { otp: string | null } } })),
    );
    await sleep(5000);
    const refusal = async (key: string, cap: RegExp) => {
      const r = await fetch(`${base}/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=1`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(r.status, 429, await r.clone().text());
      assert.ok(r.headers.get('retry-after'));
      assert.match(((await r.json()) as { detail: string }).detail, cap);
    };
    await refusal(keys[0]!, /--max-waiters-per-key, is 1000/);
    await refusal(keys[2]!, /--max-waiters, is 2000/);

    let peak = srv.rssMb();
    const sampler = setInterval(() => {
      peak = Math.max(peak, srv.rssMb());
    }, 100);
    const big = 'Your verification code is 482913.\n' + 'lorem ipsum dolor sit amet '.repeat(120_000); // ~3.2 MB
    const sent = await srv.api(`/v1/inboxes/${inbox.inboxId}/simulate`, {
      method: 'POST',
      json: { scenario: 'custom', subject: 'Large', text: big, html: `<p>${big}</p>` },
    });
    assert.equal(sent.status, 201, await sent.clone().text());
    const { messageId } = (await sent.json()) as { messageId: string };
    const results = await Promise.all(waits);
    const verified = await Promise.all(verifies);
    clearInterval(sampler);
    peak = Math.max(peak, srv.rssMb());

    assert.equal(results.length, 1900);
    for (const r of results) {
      assert.equal(r.status, 200);
      assert.ok(r.head.includes(messageId), r.head);
    }
    assert.equal(new Set(results.map((r) => r.bytes)).size, 1, 'every waiter got the same answer');
    assert.ok(results[0]!.bytes < 1024 * 1024, `answers are cut: ${results[0]!.bytes} bytes`);
    for (const v of verified) {
      assert.equal(v.status, 200);
      assert.equal(v.body.status, 'verified');
      assert.equal(v.body.verification.otp, '482913');
    }
    assert.ok(peak < MAX_RSS_MB, `peak RSS ${peak} MB (bound ${MAX_RSS_MB} MB)`);
    console.log(`waiters: ${results.length} GET + ${verified.length} verify answered; peak RSS ${peak} MB`);
  } finally {
    await srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
