// HTTP abuse: bodies far over the limit (413, connection closed without reading them), deeply nested JSON (400),
// bodies that drip or stall (408), 1,000 concurrent waits, and SSE clients that never read — the server keeps
// answering and memory stays bounded.
// not @cluster: one process's memory and sockets under abuse, on its own startServer (no test server)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/log.ts';
import { type RunningServer, startServer } from '../../../src/server/start.ts';
import { ADMIN_KEY, tempDir } from '../../helpers/server.ts';
import { pct, RawSmtp, sleep } from '../../stress/lib.ts';

let srv: RunningServer;
let dir: string;
let base: string;

before(async () => {
  dir = tempDir('inboxd-http-abuse-');
  // 1,000 concurrent waits come from one address and one key: above the default per-address connection cap (256)
  // and the key's share of waits (500).
  const config = loadConfig(
    [
      '--http-port',
      '0',
      '--smtp-port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      dir,
      '--max-http-connections-per-ip',
      '2000',
      '--max-waiters-per-key',
      '1000',
    ],
    {
      INBOXD_ADMIN_KEY: ADMIN_KEY,
    },
  );
  srv = await startServer(config, {
    log: createLogger({ level: 'silent', format: 'json', write: () => undefined }),
    announce: () => undefined,
    http: { bodyIdleMs: 400, bodyTotalMs: 1500 },
  });
  base = `http://127.0.0.1:${srv.httpPort}`;
});
after(async () => {
  await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${ADMIN_KEY}` };
const api = (p: string, init: RequestInit = {}) =>
  fetch(base + p, { ...init, headers: { ...auth, 'content-type': 'application/json', ...(init.headers ?? {}) } });

/** Sends raw request bytes; resolves with what came back and how many body bytes could be written before the close. */
function rawRequest(head: string, body: (sock: net.Socket) => Promise<number>): Promise<{ response: string; sent: number; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const sock = net.connect(srv.httpPort, '127.0.0.1');
    let response = '';
    let sent = 0;
    sock.on('data', (d) => (response += d.toString('latin1')));
    sock.on('error', () => undefined);
    sock.on('close', () => resolve({ response, sent, ms: performance.now() - t0 }));
    sock.on('connect', () => {
      sock.write(head);
      void body(sock).then((n) => (sent = n));
    });
    setTimeout(() => sock.destroy(), 15_000).unref();
  });
}

async function pump(sock: net.Socket, total: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  while (sent < total && !sock.destroyed) {
    sent += chunk.length;
    if (!sock.write(chunk))
      await Promise.race([new Promise((r) => sock.once('drain', r)), new Promise((r) => sock.once('close', r)), sleep(2000)]);
  }
  return sent;
}

describe('request bodies', () => {
  test('a declared 100 MB body is refused with 413 at once and the connection closed unread', async () => {
    const head = `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`;
    const r = await rawRequest(head, (s) => pump(s, 100 * 1024 * 1024));
    assert.match(r.response, /^HTTP\/1\.1 413 /);
    assert.match(r.response, /payload_too_large/);
    assert.ok(r.sent < 50 * 1024 * 1024, `the server closed before reading it all (client wrote ${r.sent} bytes)`);
  });

  test('a chunked body that grows past the limit gets 413 and a closed connection', async () => {
    const head = `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const r = await rawRequest(head, async (s) => {
      let sent = 0;
      const piece = 'x'.repeat(32 * 1024);
      for (let i = 0; i < 3000 && !s.destroyed; i++) {
        s.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
        sent += piece.length;
        if (i % 16 === 0) await sleep(1);
      }
      return sent;
    });
    assert.match(r.response, /^HTTP\/1\.1 413 /);
    assert.ok(r.sent < 90 * 1024 * 1024);
  });

  test('deeply nested JSON is a 400, not a crash', async () => {
    const depth = 200_000;
    const arrays = await api('/v1/inboxes', { method: 'POST', body: '['.repeat(depth) + ']'.repeat(depth) });
    assert.equal(arrays.status, 400);
    const objects = await api('/v1/inboxes', { method: 'POST', body: '{"label":' + '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_001) });
    assert.equal(objects.status, 400);
    assert.equal((await api('/health')).status, 200);
  });

  test('a body that drips (one byte per 100 ms) is cut off with 408', async () => {
    const head = `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const r = await rawRequest(head, async (s) => {
      let n = 0;
      while (!s.destroyed && n < 1000) {
        s.write(' ');
        n++;
        await sleep(100);
      }
      return n;
    });
    assert.match(r.response, /^HTTP\/1\.1 408 /);
    assert.ok(r.sent < 1000);
  });

  test('a body that stalls is cut off with 408', async () => {
    const head = `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lab`;
    const r = await rawRequest(head, async () => 5);
    assert.match(r.response, /^HTTP\/1\.1 408 /);
    assert.match(r.response, /stalled/);
  });
});

describe('many waiting clients', () => {
  test('1,000 concurrent waits all get their message; /health stays fast meanwhile', async () => {
    const inboxes: Array<{ inboxId: string; address: string }> = [];
    for (let i = 0; i < 10; i++)
      inboxes.push((await (await api('/v1/inboxes', { method: 'POST', body: '{"label":"waits"}' })).json()) as never);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const waits = Array.from(
      { length: 1000 },
      (_, i) =>
        new Promise<{ status: number; subject: string }>((resolve, reject) => {
          const req = http.get(`${base}/v1/inboxes/${inboxes[i % 10]!.inboxId}/wait?timeoutSeconds=60`, { agent, headers: auth }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, subject: (JSON.parse(body) as { subject?: string }).subject ?? '' }),
            );
          });
          req.on('error', reject);
        }),
    );
    await sleep(1000);
    const health: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      assert.equal((await fetch(`${base}/health`)).status, 200);
      health.push(performance.now() - t0);
    }
    const smtp = new RawSmtp(srv.smtpPort);
    await smtp.reply();
    await smtp.cmd('EHLO waits.example');
    for (const [i, ib] of inboxes.entries()) {
      await smtp.cmd('MAIL FROM:<a@example.com>');
      await smtp.cmd(`RCPT TO:<${ib.address}>`);
      await smtp.cmd('DATA');
      assert.match(await smtp.cmd(`Subject: wake ${i}\r\n\r\nhello\r\n.`), /^250 /);
    }
    smtp.destroy();
    const results = await Promise.all(waits);
    agent.destroy();
    assert.equal(results.filter((r) => r.status === 200).length, 1000);
    assert.ok(results.every((r, i) => r.subject === `wake ${i % 10}`));
    console.log(`  /health with 1,000 open waits: p50 ${pct(health, 50)} ms, max ${pct(health, 100)} ms`);
  });
});

describe('SSE clients that never read', () => {
  test('slow readers are cut loose; memory stays bounded and the server keeps answering', async () => {
    const ib = (await (await api('/v1/inboxes', { method: 'POST', body: '{"label":"sse"}' })).json()) as {
      inboxId: string;
      address: string;
    };
    const readers: net.Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const s = net.connect(srv.httpPort, '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      s.write(
        `GET /v1/inboxes/${ib.inboxId}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nAccept: text/event-stream\r\n\r\n`,
      );
      s.pause(); // never reads
      readers.push(s);
    }
    await sleep(300);
    const rss0 = process.memoryUsage().rss;
    const smtp = new RawSmtp(srv.smtpPort);
    await smtp.reply();
    await smtp.cmd('EHLO sse.example');
    // A To: header of 1,000 addresses makes each event ~40 KB: 600 of them are ~24 MB per reader, more than the
    // kernel's socket buffers hold, so the server itself would have to keep what the readers do not take.
    const toHeader = Array.from({ length: 1000 }, (_, i) => `someone-${i}@example.com`).join(',\r\n ');
    let peak = rss0;
    for (let n = 0; n < 600; n++) {
      await smtp.cmd('MAIL FROM:<a@example.com>');
      await smtp.cmd(`RCPT TO:<${ib.address}>`);
      await smtp.cmd('DATA');
      assert.match(await smtp.cmd(`Subject: event ${n}\r\nTo: ${toHeader}\r\n\r\nhello ${n}\r\n.`), /^250 /);
      if (n % 100 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    smtp.destroy();
    const t0 = performance.now();
    assert.equal((await fetch(`${base}/health`)).status, 200);
    const healthMs = performance.now() - t0;
    const growthMb = Math.round((peak - rss0) / 1048576);
    const stillOpen = srv.services.eventStreams.count();
    console.log(
      `  20 SSE readers that never read, 600 events of ~40 KB: RSS growth ${growthMb} MB, /health ${healthMs.toFixed(1)} ms, streams still open ${stillOpen}`,
    );
    for (const s of readers) s.destroy();
    // 20 readers × 600 events × ~40 KB would be ~480 MB if every frame were kept for them.
    assert.ok(stillOpen < 20, 'readers that fell behind were disconnected');
    assert.ok(growthMb < 400, `RSS grew ${growthMb} MB`);
  });
});
