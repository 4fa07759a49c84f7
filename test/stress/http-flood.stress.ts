// HTTP flood, long form (issue 11), against a real inboxd in a child process with default limits: up to 20,000 idle
// connections from 20 addresses, 40 concurrent ~50 MB webhook uploads, and 50 MB of deeply nested or value-heavy
// JSON. Throughout, the HTTP port keeps answering (200, or a quick 503 while the caps are full), SMTP keeps accepting
// mail, the idle connections are cut after the header timeout, and the server's RSS stays bounded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type Child, createInbox, deliver, killAll, sleep, startChild } from './lib.ts';

after(killAll);

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function ownFdLimit(): number {
  const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : 1024;
}

/** One GET /health from `localAddress`; the status (503 counts as an answer) or 0 when nothing came back in 20 s. */
function health(port: number, localAddress: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', localAddress, agent: false, timeout: 20_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
  });
}

/** Mail keeps flowing: one complete SMTP delivery must get 250. */
async function smtpWorks(srv: Child, to: string, n: number): Promise<void> {
  const r = await deliver(srv.smtp, to, `Subject: probe ${n}\nFrom: probe@example.com\n\nprobe ${n}\n`, { timeoutMs: 20_000 });
  assert.match(r.reply, /^250 /, `SMTP delivery ${n} during the flood`);
}

async function start(args: string[] = []): Promise<Child> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-http-flood-'));
  dirs.push(dir);
  return startChild(dir, ['--inbound-webhooks', 'raw,postmark', ...args]);
}

test('20,000 idle connections: caps hold, /health answers, SMTP delivers, idle sockets are cut', { timeout: 5 * 60_000 }, async () => {
  const srv = await start();
  const inbox = await createInbox(srv);
  const total = Math.min(20_000, ownFdLimit() - 1000);
  const addresses = Array.from({ length: 20 }, (_, i) => `127.0.1.${i + 1}`);
  const open: net.Socket[] = [];
  let refused = 0;
  let admittedGuess = 0;
  const rss0 = srv.rssMb();
  let peak = rss0;
  const t0 = performance.now();
  for (let i = 0; i < total; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, total - i) }, (_, j) => {
        const s = net.connect({ port: srv.http, host: '127.0.0.1', localAddress: addresses[(i + j) % addresses.length] });
        s.on('error', () => undefined);
        s.on('data', (d) => {
          if (d.toString('latin1').startsWith('HTTP/1.1 503')) refused++;
        });
        open.push(s);
        return new Promise<void>((r) => {
          s.once('connect', () => {
            admittedGuess++;
            r();
          });
          s.once('close', () => r());
        });
      }),
    );
    peak = Math.max(peak, srv.rssMb());
  }
  const openedMs = performance.now() - t0;
  await sleep(500);
  const during = await health(srv.http, '127.0.2.1');
  assert.ok(during.status === 200 || during.status === 503, `/health answered ${during.status} while the caps were full`);
  await smtpWorks(srv, inbox.address, 1);
  const stillOpen = () => open.filter((s) => !s.destroyed && s.readyState === 'open').length;
  // The default header timeout is 10 s: every idle connection the server took is cut by then.
  let after = await health(srv.http, '127.0.2.2');
  for (let i = 0; i < 60 && after.status !== 200; i++) {
    await sleep(500);
    after = await health(srv.http, '127.0.2.2');
  }
  assert.equal(after.status, 200, '/health is served again once the idle connections are cut');
  await smtpWorks(srv, inbox.address, 2);
  peak = Math.max(peak, srv.rssMb());
  console.log(
    `  ${total} idle connections from ${addresses.length} addresses in ${Math.round(openedMs)} ms: ${refused} answered 503, ` +
      `/health during ${during.status} in ${during.ms.toFixed(0)} ms, after ${after.status}; ` +
      `client sockets still open ${stillOpen()}; RSS ${rss0} → peak ${peak} MB`,
  );
  for (const s of open) s.destroy();
  assert.ok(refused > 0, 'connections beyond the caps were refused with 503');
  assert.ok(admittedGuess > 0);
  assert.ok(peak < 600, `RSS peaked at ${peak} MB`);
  assert.equal(await srv.stop(), 0);
});

test('40 concurrent ~50 MB webhook uploads and 50 MB of nested JSON: RSS bounded, /health and SMTP keep working', {
  timeout: 5 * 60_000,
}, async () => {
  const srv = await start();
  const inbox = await createInbox(srv);
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  const rss0 = srv.rssMb();
  let peak = rss0;
  const statuses: number[] = [];

  /** Streams `mb` MiB of `piece` (after `prefix`) as one webhook request; resolves with the status or 0. */
  const upload = (provider: string, mb: number, prefix: string, piece: Buffer, suffix = '') =>
    new Promise<number>((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: srv.http,
          path: `/webhooks/${provider}`,
          method: 'POST',
          agent: false,
          headers: {
            'content-type': provider === 'raw' ? 'message/rfc822' : 'application/json',
            'content-length': prefix.length + mb * piece.length + suffix.length,
          },
        },
        (res) => {
          // Refused uploads are answered before their body is read, then cut: the status is what counts.
          resolve(res.statusCode ?? 0);
          res.resume();
          res.on('error', () => undefined);
        },
      );
      req.on('error', () => resolve(0));
      void (async () => {
        req.write(prefix);
        for (let i = 0; i < mb && !req.destroyed; i++) {
          if (!req.write(piece)) await new Promise((r) => req.once('drain', r));
        }
        req.end(suffix);
      })();
    });

  const sampler = setInterval(() => (peak = Math.max(peak, srv.rssMb())), 100);
  const healthMs: number[] = [];
  let probing = true;
  const prober = (async () => {
    for (let n = 0; probing; n++) {
      const h = await health(srv.http, '127.0.3.1');
      assert.equal(h.status, 200, '/health during the uploads');
      healthMs.push(h.ms);
      if (n % 5 === 0) await smtpWorks(srv, inbox.address, n);
      await sleep(200);
    }
  })();
  // First the JSON bombs alone (so they are admitted and parsed), then the upload flood.
  const [deepStatus, wideStatus] = await Promise.all([
    upload('postmark', 50, '', Buffer.alloc(1024 * 1024, '[')),
    upload('postmark', 50, '{"Headers":[', Buffer.from('1,'.repeat(512 * 1024)), '1]}'),
  ]);
  const header = `From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: big\r\n\r\n`;
  await Promise.all(Array.from({ length: 40 }, () => upload('raw', 48, header, chunk).then((st) => statuses.push(st))));
  probing = false;
  await prober;
  clearInterval(sampler);
  const count = (s: number) => statuses.filter((x) => x === s).length;
  console.log(
    `  40 uploads of 48 MiB: ${count(413)}×413 ${count(503)}×503 ${count(200)}×200 ${count(0)}×reset; nested JSON ${deepStatus}, ` +
      `value-heavy JSON ${wideStatus}; /health max ${Math.round(Math.max(...healthMs))} ms over ${healthMs.length} probes; ` +
      `RSS ${rss0} → peak ${peak} MB`,
  );
  // 48 MiB of body is over the message limit (25 MiB): admitted ones are 413 after reading, the rest 503 up front.
  assert.ok(count(503) > 0, 'uploads beyond the in-flight budget were refused');
  assert.equal(deepStatus, 400, 'nested JSON is refused by the shape check');
  assert.equal(wideStatus, 400, 'value-heavy JSON is refused by the shape check');
  assert.ok(peak < 1024, `RSS peaked at ${peak} MB`);
  assert.equal(await srv.stop(), 0);
});
