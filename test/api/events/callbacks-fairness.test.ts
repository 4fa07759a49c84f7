// Callback fairness: one receiving host that never answers, reached through many different URL paths, takes at
// most its per-host share of the delivery workers; another host's callbacks are all delivered meanwhile. And more
// slow hosts than the workers can hold (issue 25: 8 hosts × 8 places filled all 64) still leave them free: attempts
// unanswered past the stall time move to the slow lane.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInbox, HoldingReceiver } from '../../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const PER_HOST = 2;
const SLOW_INBOXES = 8;
const FAST_INBOXES = 4;

describe('callback concurrency per receiving host', () => {
  let slow: HoldingReceiver;
  let fast: HoldingReceiver;
  let s: TestServer;
  before(async () => {
    slow = new HoldingReceiver(true);
    fast = new HoldingReceiver(false);
    await slow.start();
    await fast.start();
    s = await startTestServer(
      ['--allow-http-callbacks', '--allow-private-callbacks'],
      {},
      {
        events: { callbacks: { maxConcurrent: 4, maxPerTarget: PER_HOST, attemptTimeoutMs: 120_000 } },
      },
    );
  });
  after(async () => {
    await s.stop();
    await slow.stop();
    await fast.stop();
  });

  test('a slow host on many paths cannot starve a fast host', async () => {
    // Same host:port, spelled with different paths, queries and letter case: one host.
    const slowInboxes = [];
    for (let i = 0; i < SLOW_INBOXES; i++) {
      const url = i % 2 ? `${slow.url}/hook/${i}?token=${i}` : slow.url.replace('http://', 'HTTP://') + `/other/${i}`;
      slowInboxes.push(await createInbox(s, url));
    }
    const fastInboxes = [];
    for (let i = 0; i < FAST_INBOXES; i++) fastInboxes.push(await createInbox(s, `${fast.url}/fast/${i}`));

    for (const inbox of slowInboxes) await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'slow', text: 'x' });
    await slow.waitFor(PER_HOST);
    for (const inbox of fastInboxes) await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'fast', text: 'x' });

    await fast.waitFor(FAST_INBOXES);
    assert.equal(fast.paths.length, FAST_INBOXES);
    // The slow host still has only its share open; the rest of its deliveries wait their turn.
    assert.equal(slow.held.length, PER_HOST);
    assert.equal(slow.paths.length, PER_HOST);

    // Released, the slow host gets all of its deliveries, still at most PER_HOST at a time.
    while (slow.paths.length < SLOW_INBOXES) {
      slow.release();
      await slow.waitFor(Math.min(slow.paths.length + 1, SLOW_INBOXES));
      assert.ok(slow.held.length <= PER_HOST);
    }
    slow.release();
    assert.equal(new Set(slow.paths).size, SLOW_INBOXES);
  });

  test('when places are scarce, a host not served lately goes before the next of one just served', async () => {
    const a = new HoldingReceiver(true);
    const b = new HoldingReceiver(true);
    await a.start();
    await b.start();
    const one = await startTestServer(
      ['--allow-http-callbacks', '--allow-private-callbacks'],
      {},
      {
        events: { callbacks: { maxConcurrent: 1, maxPerTarget: 1, attemptTimeoutMs: 120_000 } },
      },
    );
    try {
      const inA = [];
      for (let i = 0; i < 3; i++) inA.push(await createInbox(one, `${a.url}/a/${i}`));
      const inB = await createInbox(one, `${b.url}/b`);
      await sendMail(one.server.smtpPort, { to: inA[0]!.address, subject: 'a0', text: 'x' });
      await a.waitFor(1);
      for (const inbox of [inA[1]!, inA[2]!, inB]) await sendMail(one.server.smtpPort, { to: inbox.address, subject: 'q', text: 'x' });
      // All four deliveries are queued (one in flight), due in the order A, A, B.
      while ((await one.server.parts.deliveries.pendingCount()) < 4) await new Promise((r) => setTimeout(r, 20));
      a.release();
      await b.waitFor(1);
      assert.equal(a.paths.length, 1, 'B, never served, got the free place before A was served again');
      b.release();
      for (let n = 2; n <= 3; n++) {
        await a.waitFor(n);
        a.release();
      }
    } finally {
      await one.stop();
      await a.stop();
      await b.stop();
    }
  });

  test('a slow host that recovers gets its whole backlog, not only the attempts in flight', async () => {
    const host = new HoldingReceiver(true);
    await host.start();
    const one = await startTestServer(
      ['--allow-http-callbacks', '--allow-private-callbacks'],
      {},
      { events: { callbacks: { maxConcurrent: 8, maxPerTarget: 4, attemptTimeoutMs: 120_000, stalledAfterMs: 300, maxStalled: 16 } } },
    );
    try {
      const inboxes = [];
      for (let p = 0; p < 10; p++) inboxes.push(await createInbox(one, `${host.url}/hook/${p}`));
      for (const inbox of inboxes) await sendMail(one.server.smtpPort, { to: inbox.address, subject: 'backlog', text: 'x' });
      // Its first attempts go unanswered past the stall time: the host is marked slow (half its places).
      await host.waitFor(4);
      await new Promise((r) => setTimeout(r, 600));
      // It recovers: every attempt from now on is answered at once, and the rest of its backlog must follow.
      const deadline = performance.now() + 15_000;
      while (new Set(host.paths).size < 10 && performance.now() < deadline) {
        host.release();
        await new Promise((r) => setTimeout(r, 20));
      }
      host.release();
      assert.equal(new Set(host.paths).size, 10, `arrived: ${[...new Set(host.paths)].join(' ')}`);
    } finally {
      await one.stop();
      await host.stop();
    }
  });

  test('more slow hosts than the workers hold: the callbacks of a fast host still arrive quickly', async () => {
    const SLOW_HOSTS = 6; // × 2 places each = 12, three times the 4 workers
    const slowHosts: HoldingReceiver[] = [];
    for (let i = 0; i < SLOW_HOSTS; i++) {
      const r = new HoldingReceiver(true);
      await r.start();
      slowHosts.push(r);
    }
    const quick = new HoldingReceiver(false);
    await quick.start();
    const one = await startTestServer(
      ['--allow-http-callbacks', '--allow-private-callbacks'],
      {},
      { events: { callbacks: { maxConcurrent: 4, maxPerTarget: 2, attemptTimeoutMs: 120_000, stalledAfterMs: 300, maxStalled: 16 } } },
    );
    try {
      const slowInboxes = [];
      for (const r of slowHosts) for (let p = 0; p < 3; p++) slowInboxes.push(await createInbox(one, `${r.url}/hook/${p}`));
      const quickInbox = await createInbox(one, `${quick.url}/quick`);
      for (const inbox of slowInboxes) await sendMail(one.server.smtpPort, { to: inbox.address, subject: 'slow', text: 'x' });
      // Every worker is taken by a slow host before the fast host's message comes in.
      while (slowHosts.reduce((n, r) => n + r.held.length, 0) < 4) await new Promise((r) => setTimeout(r, 20));
      const t0 = performance.now();
      await sendMail(one.server.smtpPort, { to: quickInbox.address, subject: 'quick', text: 'x' });
      const arrived = await Promise.race([
        quick.waitFor(1).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 15_000)),
      ]);
      assert.ok(arrived, 'the fast host got its callback while the slow hosts still hold theirs (the attempts time out after 120 s)');
      assert.ok(performance.now() - t0 < 15_000);
      // Each slow host holds at most its share; the slow lane holds them, not the workers.
      for (const r of slowHosts) assert.ok(r.held.length <= 2);
      const lanes = one.server.services.callbacks.lanes();
      assert.ok(lanes.stalled <= 16 && lanes.workers <= 4, JSON.stringify(lanes));
      for (const r of slowHosts) r.release();
      for (const r of slowHosts)
        while (r.paths.length < 3) {
          await r.waitFor(r.paths.length + 1);
          r.release();
        }
      for (const r of slowHosts) assert.equal(new Set(r.paths).size, 3);
    } finally {
      await one.stop();
      for (const r of slowHosts) await r.stop();
      await quick.stop();
    }
  });
});
