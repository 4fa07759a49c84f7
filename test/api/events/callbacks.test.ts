// Callbacks (CONTRACT §5): signed per Standard Webhooks (checked with the independent `standardwebhooks` package),
// delivered to a real local HTTP receiver, retried, logged, kept across a restart, and never sent where they may not go.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { RETRY_DELAYS_MS } from '../../../src/events/callbacks.ts';
import { systemResolver } from '../../../src/events/targets.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A webhook receiver. Paths choose the answer: /ok, /status/<code>, /flaky/<failures>, /redirect, /hang. */
class Receiver {
  hits: Hit[] = [];
  url = '';
  port = 0;
  private readonly server: http.Server;
  private readonly hung: http.ServerResponse[] = [];
  private readonly seen = new Map<string, number>();
  private waiters: Array<() => void> = [];

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        for (const w of this.waiters.splice(0)) w();
        const n = (this.seen.get(path) ?? 0) + 1;
        this.seen.set(path, n);
        const [, kind, arg] = path.split('/');
        if (kind === 'hang') return void this.hung.push(res);
        if (kind === 'redirect') return void res.writeHead(302, { location: `${this.url}/ok/redirected` }).end();
        if (kind === 'status') return void res.writeHead(Number(arg)).end('answer');
        if (kind === 'flaky' && n <= Number(arg)) return void res.writeHead(500).end('not yet');
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  on(prefix: string): Hit[] {
    return this.hits.filter((h) => h.path.startsWith(prefix));
  }

  async waitFor(prefix: string, count: number, timeoutMs = 5000): Promise<Hit[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(prefix).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: ${this.on(prefix).length}/${count} requests on ${prefix} after ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
    return this.on(prefix);
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The verifier a receiver would use: the secret from the create answer, the raw body, the three headers. */
function verify(secret: string, hit: Hit): Json {
  const headers = {
    'webhook-id': String(hit.headers['webhook-id']),
    'webhook-timestamp': String(hit.headers['webhook-timestamp']),
    'webhook-signature': String(hit.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(hit.body, headers) as Json;
}

async function attemptsOf(s: TestServer, inboxId: string, count: number, timeoutMs = 5000): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await json(await s.api(`/v1/inboxes/${inboxId}/callbacks`));
    if (list.items.length >= count) return (list.items as Json[]).slice().reverse();
    if (Date.now() > deadline) throw new Error(`only ${list.items.length}/${count} attempts logged: ${JSON.stringify(list.items)}`);
    await sleep(20);
  }
}

const ALLOW = ['--allow-http-callbacks', '--allow-private-callbacks'];
const FAST = { retryDelaysMs: [100, 200, 300, 400, 500], attemptTimeoutMs: 400 };

let rx: Receiver;
let s: TestServer;
before(async () => {
  rx = new Receiver();
  await rx.start();
  s = await startTestServer(ALLOW, {}, { events: { callbacks: FAST } });
});
after(async () => {
  await s.stop();
  await rx.stop();
});

const create = async (body: Json, server = s) => json(await server.api('/v1/inboxes', { method: 'POST', json: body }), 201);
const send = (inbox: Json, subject: string, text = subject, server = s) =>
  sendMail(server.server.smtpPort, { to: inbox.address, from: 'GitHub <noreply@github.com>', subject, text });

describe('signed callbacks', () => {
  test('each message is POSTed once, signed per Standard Webhooks, with the contract body; the secret is shown once', async () => {
    const inbox = await create({ label: 'cb-ok', callbackUrl: `${rx.url}/ok/basic` });
    assert.match(inbox.callbackSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(inbox.callbackSecret.slice(6), 'base64').length, 32);
    const again = await json(await s.api(`/v1/inboxes/${inbox.inboxId}`));
    assert.equal(again.callbackSecret, undefined, 'GET never shows the secret');
    assert.equal(again.callbackUrl, `${rx.url}/ok/basic`);
    const listed = await json(await s.api('/v1/inboxes?label=cb-ok'));
    assert.ok(!JSON.stringify(listed).includes('whsec_'));

    await send(inbox, 'Your GitHub launch code', 'Your code is 482913.\n');
    const [hit] = await rx.waitFor('/ok/basic', 1);
    const body = verify(inbox.callbackSecret, hit!);
    assert.equal(hit!.headers['content-type'], 'application/json');
    assert.match(String(hit!.headers['webhook-id']), /^dlv_/);
    assert.ok(Math.abs(Number(hit!.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    assert.match(String(hit!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'timestamp', 'type']);
    assert.equal(body.type, 'message.received');
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
    const msgs = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    assert.deepEqual(body.data, {
      inboxId: inbox.inboxId,
      address: inbox.address,
      label: 'cb-ok',
      messageId: msgs.items[0].messageId,
      from: { name: 'GitHub', address: 'noreply@github.com' },
      subject: 'Your GitHub launch code',
      receivedAt: msgs.items[0].receivedAt,
      verification: { otp: '482913', primaryLink: null },
    });
    assert.throws(() => verify('whsec_' + Buffer.alloc(32, 7).toString('base64'), hit!), /signature/i, 'another secret does not verify');

    const [a] = await attemptsOf(s, inbox.inboxId, 1);
    assert.equal(a!.deliveryId, hit!.headers['webhook-id']);
    assert.equal(a!.messageId, msgs.items[0].messageId);
    assert.equal(a!.event, 'message.received');
    assert.equal(a!.attempt, 1);
    assert.equal(a!.statusCode, 200);
    assert.equal(a!.error, null);
    assert.equal(a!.delivered, true);
    assert.equal(a!.nextRetryAt, null);
    assert.ok(Number.isInteger(a!.durationMs) && a!.durationMs >= 0);
    assert.ok(!Number.isNaN(Date.parse(a!.at)));
    await sleep(150);
    assert.equal(rx.on('/ok/basic').length, 1, 'delivered exactly once');
  });

  test('non-2xx is retried on the schedule with the same webhook-id, re-signed each time; every attempt is logged', async () => {
    const inbox = await create({ callbackUrl: `${rx.url}/flaky/2/retry` });
    await send(inbox, 'retry me');
    const hits = await rx.waitFor('/flaky/2/retry', 3);
    for (const h of hits) verify(inbox.callbackSecret, h);
    assert.equal(new Set(hits.map((h) => h.headers['webhook-id'])).size, 1, 'one delivery, one webhook-id');
    assert.equal(new Set(hits.map((h) => h.body)).size, 1, 'every retry sends the same body');
    const log = await attemptsOf(s, inbox.inboxId, 3);
    assert.deepEqual(
      log.map((a) => [a.attempt, a.statusCode, a.delivered, a.error]),
      [
        [1, 500, false, 'HTTP 500'],
        [2, 500, false, 'HTTP 500'],
        [3, 200, true, null],
      ],
    );
    assert.equal(Date.parse(log[0]!.nextRetryAt) - Date.parse(log[0]!.at), FAST.retryDelaysMs[0]);
    assert.equal(Date.parse(log[1]!.nextRetryAt) - Date.parse(log[1]!.at), FAST.retryDelaysMs[1]);
    assert.equal(log[2]!.nextRetryAt, null);
    // The retry does not arrive before its time. (Measured against the schedule, not the first hit's arrival: that
    // first request may spend longer in flight than the retry, which is all a gap between arrivals would show.)
    const due = Date.parse(log[0]!.nextRetryAt);
    assert.ok(hits[1]!.at >= due - 2, `retry arrived ${due - hits[1]!.at} ms before it was due`);
  });

  test('the default schedule is 5 s, 30 s, 2 min, 10 min, 30 min: six attempts in all', () => {
    assert.deepEqual(RETRY_DELAYS_MS, [5_000, 30_000, 120_000, 600_000, 1_800_000]);
  });

  test('a receiver that keeps failing gets six attempts, then the delivery is given up', async () => {
    const inbox = await create({ callbackUrl: `${rx.url}/status/503/always` });
    await send(inbox, 'never accepted');
    const log = await attemptsOf(s, inbox.inboxId, 6);
    assert.deepEqual(
      log.map((a) => a.attempt),
      [1, 2, 3, 4, 5, 6],
    );
    assert.ok(log.every((a) => a.statusCode === 503 && !a.delivered));
    assert.deepEqual(
      log.map((a) => a.nextRetryAt === null),
      [false, false, false, false, false, true],
    );
    await sleep(700);
    assert.equal(rx.on('/status/503/always').length, 6);
  });

  test('410 Gone stops retrying at once', async () => {
    const inbox = await create({ callbackUrl: `${rx.url}/status/410/gone` });
    await send(inbox, 'receiver is gone');
    const [a] = await attemptsOf(s, inbox.inboxId, 1);
    assert.equal(a!.statusCode, 410);
    assert.equal(a!.delivered, false);
    assert.equal(a!.nextRetryAt, null);
    await sleep(400);
    assert.equal(rx.on('/status/410/gone').length, 1);
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const inbox = await create({ callbackUrl: `${rx.url}/redirect/elsewhere` });
    await send(inbox, 'redirected');
    const [a] = await attemptsOf(s, inbox.inboxId, 1);
    assert.equal(a!.statusCode, 302);
    assert.equal(a!.delivered, false);
    assert.match(a!.error, /redirects are not followed.*\/ok\/redirected/);
    assert.notEqual(a!.nextRetryAt, null);
    await attemptsOf(s, inbox.inboxId, 2);
    assert.equal(rx.on('/ok/redirected').length, 0, 'the Location was never requested');
  });

  test('a receiver that hangs times out, and holds up neither ingest nor other receivers', async () => {
    const timeoutMs = 1500;
    const srv = await startTestServer(ALLOW, {}, { events: { callbacks: { ...FAST, attemptTimeoutMs: timeoutMs } } });
    // Another receiving host (host:port): the concurrency limit is per host, whatever the path.
    const other = new Receiver();
    await other.start();
    try {
      const slow = await create({ callbackUrl: `${rx.url}/hang/slow` }, srv);
      const fast = await create({ callbackUrl: `${other.url}/ok/beside-slow` }, srv);
      const t0 = Date.now();
      for (let i = 0; i < 12; i++) await send(slow, `slow ${i}`, 'x', srv);
      assert.ok(Date.now() - t0 < timeoutMs, 'SMTP answers do not wait for callbacks');
      await rx.waitFor('/hang/slow', 8);
      const t1 = Date.now();
      await send(fast, 'fast one', 'x', srv);
      await other.waitFor('/ok/beside-slow', 1, 1000);
      assert.ok(Date.now() - t1 < 500, 'another receiver is served while the slow one hangs');
      await sleep(100);
      assert.equal(rx.on('/hang/slow').length, 8, 'at most 8 attempts in flight to one host; the other 4 wait');
      const log = await attemptsOf(srv, slow.inboxId, 1, 5000);
      assert.equal(log[0]!.statusCode, null);
      assert.equal(log[0]!.error, `no response within ${timeoutMs} ms`);
      assert.ok(log[0]!.durationMs >= timeoutMs - 5);
      assert.notEqual(log[0]!.nextRetryAt, null);
      await rx.waitFor('/hang/slow', 12, 3000);
    } finally {
      await srv.stop();
      await other.stop();
    }
  });
});

describe('callback targets', () => {
  test('callbackUrl is validated at create: not a URL, wrong scheme, internal or metadata address → 400', async () => {
    const strict = await startTestServer();
    const relaxed = s;
    try {
      const cases: Array<[TestServer, string, RegExp]> = [
        [strict, 'not a url', /callbackUrl/],
        [strict, 'ftp://example.com/hook', /http/],
        [strict, 'http://hooks.example.com/x', /https.*--allow-http-callbacks/],
        [strict, 'https://127.0.0.1/x', /loopback or private.*--allow-private-callbacks/],
        [strict, 'https://10.1.2.3/x', /--allow-private-callbacks/],
        [strict, 'https://[::1]:8443/x', /--allow-private-callbacks/],
        [strict, 'https://localhost/x', /--allow-private-callbacks/],
        [relaxed, 'http://169.254.169.254/latest/meta-data', /never/],
        [relaxed, 'http://[fe80::1]/x', /never/],
        [relaxed, 'http://0.0.0.0:8080/x', /never/],
        [relaxed, 'http://[::ffff:169.254.169.254]/x', /never/],
      ];
      for (const [server, url, detail] of cases) {
        const r = await json(await server.api('/v1/inboxes', { method: 'POST', json: { callbackUrl: url } }), 400);
        assert.equal(r.code, 'validation_failed', url);
        assert.match(r.detail, detail, url);
        assert.equal(r.errors[0].path, 'callbackUrl', url);
      }
      assert.ok((await create({ callbackUrl: 'https://hooks.example.com/inboxd' }, strict)).callbackSecret);
      assert.equal((await json(await strict.api('/v1/inboxes'))).items.length, 1, 'nothing was created by the refused calls');
    } finally {
      await strict.stop();
    }
  });

  test('the resolved address is checked at delivery: a name that resolves inward (DNS rebinding) is refused, never connected to', async () => {
    // The name passes the create-time check; the resolver then answers with internal addresses.
    const answers: Record<string, string> = { 'rebind.test': '127.0.0.1', 'metadata.test': '169.254.169.254' };
    const resolve = async (host: string) => (answers[host] ? [{ address: answers[host]!, family: 4 as const }] : systemResolver(host));
    const httpOnly = await startTestServer(['--allow-http-callbacks'], {}, { events: { callbacks: { ...FAST, resolve } } });
    const both = await startTestServer(ALLOW, {}, { events: { callbacks: { ...FAST, resolve } } });
    try {
      const rebound = await create({ callbackUrl: `http://rebind.test:${rx.port}/ok/rebound` }, httpOnly);
      await send(rebound, 'rebinding', 'x', httpOnly);
      const [a] = await attemptsOf(httpOnly, rebound.inboxId, 1);
      assert.equal(a!.statusCode, null);
      assert.match(a!.error, /target refused: rebind\.test resolves to 127\.0\.0\.1.*--allow-private-callbacks/);
      assert.equal(a!.nextRetryAt, null, 'a refused target is not retried');

      const meta = await create({ callbackUrl: `http://metadata.test:${rx.port}/ok/meta` }, both);
      await send(meta, 'metadata', 'x', both);
      const [m] = await attemptsOf(both, meta.inboxId, 1);
      assert.match(m!.error, /169\.254\.169\.254.*never/);

      // Allowed: the pinned address is used, and the receiver still sees the original Host.
      const pinned = await create({ callbackUrl: `http://rebind.test:${rx.port}/ok/pinned` }, both);
      await send(pinned, 'pinned', 'x', both);
      const [hit] = await rx.waitFor('/ok/pinned', 1);
      assert.equal(hit!.headers.host, `rebind.test:${rx.port}`);
      verify(pinned.callbackSecret, hit!);
      await sleep(100);
      assert.equal(rx.on('/ok/rebound').length + rx.on('/ok/meta').length, 0);
    } finally {
      await httpOnly.stop();
      await both.stop();
    }
  });
});

describe('durability', () => {
  test('a restart in the middle of the retry schedule still delivers', async () => {
    const dataDir = tempDir();
    const tuning = { events: { callbacks: { retryDelaysMs: [600, 600, 600, 600, 600], attemptTimeoutMs: 1000 } }, dataDir };
    try {
      const first = await startTestServer(ALLOW, {}, tuning);
      const inbox = await create({ callbackUrl: `${rx.url}/flaky/1/restart` }, first);
      await send(inbox, 'survives a restart', 'x', first);
      const [a1] = await attemptsOf(first, inbox.inboxId, 1);
      assert.equal(a1!.statusCode, 500);
      await first.stop();
      assert.equal(rx.on('/flaky/1/restart').length, 1, 'the retry was not made before the stop');

      const second = await startTestServer(ALLOW, {}, tuning);
      try {
        const hits = await rx.waitFor('/flaky/1/restart', 2, 5000);
        for (const h of hits) verify(inbox.callbackSecret, h);
        assert.equal(hits[0]!.headers['webhook-id'], hits[1]!.headers['webhook-id']);
        const log = await attemptsOf(second, inbox.inboxId, 2);
        assert.deepEqual(
          log.map((a) => [a.attempt, a.statusCode, a.delivered]),
          [
            [1, 500, false],
            [2, 200, true],
          ],
        );
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a message stored just before a crash, without its delivery row, is still called back after the restart', async () => {
    const dataDir = tempDir();
    try {
      const first = await startTestServer(ALLOW, {}, { dataDir, events: { callbacks: FAST } });
      const inbox = await create({ callbackUrl: `${rx.url}/ok/crash-window` }, first);
      await send(inbox, 'stored, then crash', 'x', first);
      await rx.waitFor('/ok/crash-window', 1);
      const database = first.server.services.config.database;
      await first.stop();
      // What a crash between the message commit and the delivery insert leaves behind (with the server stopped,
      // straight in its SQLite file or its PostgreSQL database).
      if (database) {
        const c = new pg.Client({ connectionString: database });
        await c.connect();
        await c.query('delete from callback_deliveries');
        await c.end();
      } else {
        const db = new BetterSqlite3(`${dataDir}/inboxd.db`);
        db.prepare('delete from callback_deliveries').run();
        db.close();
      }
      const second = await startTestServer(ALLOW, {}, { dataDir, events: { callbacks: FAST } });
      try {
        const hits = await rx.waitFor('/ok/crash-window', 2);
        assert.equal(verify(inbox.callbackSecret, hits[1]!).data.subject, 'stored, then crash');
        assert.equal((await attemptsOf(second, inbox.inboxId, 1))[0]!.delivered, true);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('an inbox deleted right after its mail still gets the callback (open with deleteAfter)', async () => {
    const inbox = await create({ callbackUrl: `${rx.url}/flaky/1/deleted` });
    await send(inbox, 'then deleted');
    await rx.waitFor('/flaky/1/deleted', 1);
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }));
    const hits = await rx.waitFor('/flaky/1/deleted', 2);
    assert.equal(verify(inbox.callbackSecret, hits[1]!).data.subject, 'then deleted');
  });
});
