// Fair shares at full size (issue 25), each with the program's default limits:
// - 4,096 idle keep-alive HTTP connections from 17 loopback addresses fill --max-http-connections; they reconnect
//   when closed. Fresh clients are still served (an idle connection makes room), /health answers within 500 ms
//   throughout, RSS stays under 1 GB.
// - 1,000 idle SMTP sessions from 5 addresses fill --smtp-max-connections; they reconnect when ended. A client from
//   another address keeps delivering, /health stays fast.
// - 8 and 32 receiving hosts that never answer (each behind many inboxes) do not delay a fast host's callbacks.
// Several loopback addresses (127.0.0.x) stand for distinct clients. Needs an open-file limit above ~9,000 for the
// test process (`ulimit -n`; the server child inherits it): it is checked first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createInbox as createCallbackInbox, HoldingReceiver } from '../helpers/receiver.ts';
import { startTestServer } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';
import { createInbox, killAll, pct, probe, RawSmtp, sleep, startChild } from './lib.ts';

after(killAll);

function openFileLimit(): number {
  const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

/** GET /health over a fresh connection from `from`: the status (or '(none)') and how long the answer took. */
function healthOnce(port: number, from: string): Promise<{ status: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('connect', () => s.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const timer = setTimeout(() => s.destroy(), 10_000);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? '(none)', ms: performance.now() - t0 });
    });
  });
}

/** GET /health every `everyMs` over a fresh connection from `from`; every status and latency is kept. */
function pollHealth(port: number, from: string, everyMs = 100): { stop(): Promise<{ statuses: string[]; ms: number[] }> } {
  const statuses: string[] = [];
  const ms: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const r = await healthOnce(port, from);
      statuses.push(r.status);
      ms.push(r.ms);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { statuses, ms };
    },
  };
}

const summary = (r: { statuses: string[]; ms: number[] }) => {
  const slowest = r.ms
    .map((ms, i) => ({ ms, i }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map((x) => `#${x.i} ${Math.round(x.ms)} ms`);
  return `${r.statuses.length} /health polls: ${r.statuses.filter((s) => s === '200').length} × 200, p50 ${pct(r.ms, 50)} ms, max ${pct(r.ms, 100)} ms (slowest: ${slowest.join(', ')})`;
};

describe('HTTP: idle keep-alive connections from a few addresses', () => {
  test('4,096 idle connections from 17 addresses: other clients are still served', { timeout: 10 * 60_000 }, async () => {
    const ADDRESSES = Array.from({ length: 17 }, (_, i) => `127.0.1.${i + 1}`);
    const TOTAL = 4096;
    assert.ok(openFileLimit() > TOTAL * 2 + 1000, `ulimit -n is ${openFileLimit()}: raise it above ${TOTAL * 2 + 1000}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-conns-http-'));
    const srv = await startChild(dir);
    let running = true;
    let closed = 0;
    let reconnects = 0;
    const held = new Set<net.Socket>();
    /** An idle keep-alive connection: one request answered, then nothing; when closed, it comes back. */
    const hold = (from: string): Promise<void> =>
      new Promise((resolve) => {
        const s = net.connect({ port: srv.http, host: '127.0.0.1', localAddress: from });
        let got = '';
        let answered = false;
        s.on('error', () => undefined);
        s.on('connect', () => s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'));
        s.on('data', (d) => {
          got += d.toString('latin1');
          if (!answered && /\r\n\r\n[\s\S]*\}/.test(got)) {
            answered = true;
            held.add(s);
            resolve();
          }
        });
        s.on('close', () => {
          held.delete(s);
          if (answered) closed++;
          resolve();
          if (running)
            setTimeout(() => {
              if (!running) return;
              reconnects++;
              void hold(from);
            }, 100);
        });
      });
    await healthOnce(srv.http, '127.0.2.1'); // warm-up: the first request compiles the route
    const health = pollHealth(srv.http, '127.0.2.1');
    try {
      const t0 = performance.now();
      for (let i = 0; i < TOTAL; i += 256)
        await Promise.all(Array.from({ length: Math.min(256, TOTAL - i) }, (_, k) => hold(ADDRESSES[(i + k) % ADDRESSES.length]!)));
      const fillS = (performance.now() - t0) / 1000;
      const heldAfterFill = held.size;
      // Fresh clients meanwhile: one request from each of 20 other addresses, and an API call.
      const fresh: string[] = [];
      for (let i = 0; i < 20; i++) fresh.push((await healthOnce(srv.http, `127.0.4.${i + 1}`)).status);
      const api = (await srv.api('/v1/inboxes', { method: 'POST', json: {} }).catch(() => null))?.status ?? 0;
      await sleep(10_000);
      const rss = srv.rssMb();
      const polled = await health.stop();
      running = false;
      console.log(
        `  HTTP: ${heldAfterFill} idle connections held after ${fillS.toFixed(1)} s (${held.size} at the end, ${closed} closed to make room, ${reconnects} reconnects); ${summary(polled)}; fresh clients ${fresh.filter((s) => s === '200').length}/20 × 200; POST /v1/inboxes ${api}; RSS ${rss} MB`,
      );
      assert.equal(api, 201);
      assert.ok(heldAfterFill >= TOTAL - 64, `the idle connections filled the cap (${heldAfterFill})`);
      assert.deepEqual(
        fresh.filter((st) => st !== '200'),
        [],
        'every fresh client was served',
      );
      assert.deepEqual(
        polled.statuses.filter((s) => s !== '200'),
        [],
        'every /health answered 200',
      );
      assert.ok(pct(polled.ms, 100) <= 500, `every /health within 500 ms (max ${pct(polled.ms, 100)} ms)`);
      assert.ok(rss < 1024, `RSS ${rss} MB`);
    } finally {
      running = false;
      await health.stop();
      for (const s of held) s.destroy();
      await srv.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SMTP: idle sessions from a few addresses', () => {
  test('1,000 idle sessions from 5 addresses: a client from another address keeps delivering', { timeout: 10 * 60_000 }, async () => {
    const ADDRESSES = ['127.0.3.1', '127.0.3.2', '127.0.3.3', '127.0.3.4', '127.0.3.5'];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-conns-smtp-'));
    const srv = await startChild(dir);
    let running = true;
    let reclaimed = 0;
    let refused = 0;
    const held = new Set<RawSmtp>();
    const hold = async (from: string): Promise<void> => {
      const s = new RawSmtp(srv.smtp, { localAddress: from });
      const greeting = await s.reply(30_000);
      if (greeting.startsWith('220') && (await s.cmd('EHLO hold.example', 30_000)).startsWith('250')) {
        held.add(s);
        while (!s.closed) await sleep(200);
        held.delete(s);
        if (s.lines.some((l) => /^421 4\.7\.0 .*idle session/.test(l))) reclaimed++;
      } else {
        refused++;
        s.destroy();
      }
      if (running) {
        await sleep(200);
        if (running) return hold(from);
      }
    };
    await healthOnce(srv.http, '127.0.2.1'); // warm-up: the first request compiles the route
    const health = pollHealth(srv.http, '127.0.2.1');
    try {
      const inbox = await createInbox(srv);
      const holders = ADDRESSES.flatMap((a) => Array.from({ length: 200 }, () => hold(a)));
      for (let i = 0; i < 300 && held.size < 1000; i++) await sleep(100);
      const heldAfterFill = held.size;
      const p = probe(srv.smtp, inbox.address, 200);
      await sleep(15_000);
      const { replies, ms } = await p.stop();
      const rss = srv.rssMb();
      const polled = await health.stop();
      running = false;
      for (const s of held) s.destroy();
      await Promise.all(holders);
      console.log(
        `  SMTP: ${heldAfterFill} idle sessions held; ${replies.length} probe deliveries from another address, ${replies.filter((r) => r.startsWith('250')).length} × 250, p50 ${pct(ms, 50)} ms, max ${pct(ms, 100)} ms; ${reclaimed} idle sessions ended with 421 to make room, ${refused} reconnects refused; ${summary(polled)}; RSS ${rss} MB`,
      );
      assert.ok(heldAfterFill >= 990, `the idle sessions filled the cap (${heldAfterFill})`);
      assert.ok(
        replies.length > 10 && replies.every((r) => r.startsWith('250')),
        `probe replies: ${replies.filter((r) => !r.startsWith('250')).slice(0, 3)}`,
      );
      assert.deepEqual(
        polled.statuses.filter((s) => s !== '200'),
        [],
      );
      assert.ok(pct(polled.ms, 100) <= 500, `every /health within 500 ms (max ${pct(polled.ms, 100)} ms)`);
      assert.ok(rss < 1024, `RSS ${rss} MB`);
    } finally {
      running = false;
      await health.stop();
      for (const s of held) s.destroy();
      await srv.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('callbacks: many slow receiving hosts', () => {
  for (const SLOW_HOSTS of [8, 32]) {
    test(`${SLOW_HOSTS} hosts that never answer do not delay a fast host's callbacks`, { timeout: 10 * 60_000 }, async () => {
      const PATHS = 10;
      const FAST = 20;
      const slow: HoldingReceiver[] = [];
      for (let i = 0; i < SLOW_HOSTS; i++) {
        const r = new HoldingReceiver(true);
        await r.start();
        slow.push(r);
      }
      const fast = new HoldingReceiver(false);
      await fast.start();
      // The program's own limits and 10 s attempt timeout.
      const s = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks', '--log-level', 'warn']);
      try {
        const slowInboxes = [];
        for (const r of slow) for (let p = 0; p < PATHS; p++) slowInboxes.push(await createCallbackInbox(s, `${r.url}/hook/${p}`));
        const fastInboxes = [];
        for (let i = 0; i < FAST; i++) fastInboxes.push(await createCallbackInbox(s, `${fast.url}/fast/${i}`));
        for (const inbox of slowInboxes) await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'slow', text: 'x' });
        // The slow hosts hold all 64 workers (8 each × 8 or more hosts) before the fast host's mail comes in.
        while (slow.reduce((n, r) => n + r.held.length, 0) < 64) await sleep(20);
        const healthMs: number[] = [];
        const sentAt: number[] = [];
        for (const inbox of fastInboxes) {
          sentAt.push(performance.now());
          await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'fast', text: 'x' });
          const t = performance.now();
          assert.equal((await fetch(`${s.url}/health`)).status, 200);
          healthMs.push(performance.now() - t);
        }
        await fast.waitFor(FAST);
        const byPath = new Map(fast.paths.map((p, i) => [p, fast.arrivedAt[i]!]));
        const delays = fastInboxes.map((_, i) => byPath.get(`/fast/${i}`)! - sentAt[i]!);
        const rss = Math.round(process.memoryUsage().rss / 1048576);
        console.log(
          `  callbacks, ${SLOW_HOSTS} slow hosts × ${PATHS} inboxes: fast host's ${FAST} callbacks after p50 ${pct(delays, 50)} ms, max ${pct(delays, 100)} ms (from its mail being sent); /health max ${pct(healthMs, 100)} ms; lanes ${JSON.stringify(s.server.services.callbacks.lanes())}; RSS ${rss} MB`,
        );
        assert.ok(pct(delays, 100) < 5_000, `every fast callback within 5 s (max ${pct(delays, 100)} ms)`);
        assert.ok(pct(healthMs, 100) <= 500);
        for (const r of slow) assert.ok(r.held.length <= 8, 'a slow host holds at most its share');
      } finally {
        await s.stop();
        for (const r of slow) await r.stop();
        await fast.stop();
      }
    });
  }
});
