// GET /v1/inboxes/:id/events (CONTRACT §5): SSE over real HTTP, fed by real SMTP and ingest.
// @cluster
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { ADMIN_KEY, listenerCount, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/** A minimal EventSource: parses frames as they arrive and keeps comments apart. */
class SseClient {
  events: SseEvent[] = [];
  comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  private buf = '';
  private req: http.ClientRequest | null = null;
  private waiters: Array<() => void> = [];

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const c = new SseClient();
    return new Promise((resolve, reject) => {
      c.req = http.get(url, { headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'text/event-stream', ...headers } }, (res) => {
        c.status = res.statusCode ?? 0;
        c.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (d: string) => c.feed(d));
        res.on('end', () => c.finish());
        res.on('close', () => c.finish());
        res.on('error', () => c.finish());
        resolve(c);
      });
      c.req.on('error', reject);
    });
  }

  private feed(d: string): void {
    this.buf += d;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const frame = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const ev: SseEvent = { id: null, event: 'message', data: '' };
      let isEvent = false;
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) (ev.id = line.slice(4)), (isEvent = true);
        else if (line.startsWith('event: ')) (ev.event = line.slice(7)), (isEvent = true);
        else if (line.startsWith('data: ')) (ev.data += line.slice(6)), (isEvent = true);
      }
      if (isEvent) this.events.push(ev);
    }
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`SSE: timed out waiting for ${what}; events ${JSON.stringify(this.events.map((e) => [e.id, e.event]))}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  messages(): Array<{ id: number; data: Json }> {
    return this.events.filter((e) => e.event === 'message.received').map((e) => ({ id: Number(e.id), data: JSON.parse(e.data) as Json }));
  }

  close(): void {
    this.req?.destroy();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let s: TestServer;
before(async () => {
  s = await startTestServer(['--inbound-webhooks', 'raw'], {}, { events: { sse: { heartbeatMs: 150, maxBufferedBytes: 64 * 1024 } } });
});
after(async () => {
  await s.stop();
});

const create = async () => json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
const send = (inbox: Json, subject: string, text = subject) => sendMail(s.server.smtpPort, { to: inbox.address, subject, text });
const events = (inbox: Json, query = '') => `${s.url}/v1/inboxes/${inbox.inboxId}/events${query}`;
const streamsOpen = async (n: number) => {
  for (let i = 0; i < 100 && s.server.services.eventStreams.count() !== n; i++) await sleep(20);
  assert.equal(s.server.services.eventStreams.count(), n);
};

describe('SSE', () => {
  test('message.received events carry the per-inbox sequence as id and the message summary as data', async () => {
    const inbox = await create();
    const c = await SseClient.open(events(inbox));
    try {
      assert.equal(c.status, 200);
      assert.match(String(c.headers['content-type']), /^text\/event-stream/);
      assert.equal(c.headers['cache-control'], 'no-store');
      assert.equal(c.headers['x-accel-buffering'], 'no');
      await send(inbox, 'first', 'Your code is 123456');
      await send(inbox, 'second');
      await c.until(() => c.messages().length === 2, 'two messages');
      const [m1, m2] = c.messages();
      assert.deepEqual([m1!.id, m2!.id], [1, 2]);
      assert.equal(m1!.data.subject, 'first');
      assert.equal(m1!.data.inboxId, inbox.inboxId);
      assert.equal(m1!.data.verification.otp, '123456');
      const listed = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
      assert.deepEqual(m2!.data, listed.items[0], 'data is exactly the summary the messages list returns');
      assert.ok(c.comments.includes('connected'));
    } finally {
      c.close();
    }
  });

  test('Last-Event-ID replays exactly the missed events, then goes live', async () => {
    const inbox = await create();
    const c1 = await SseClient.open(events(inbox));
    for (let i = 1; i <= 2; i++) await send(inbox, `m${i}`);
    await c1.until(() => c1.messages().length === 2, 'm1, m2');
    c1.close();
    await streamsOpen(0);
    for (let i = 3; i <= 5; i++) await send(inbox, `m${i}`);

    const c2 = await SseClient.open(events(inbox), { 'last-event-id': '2' });
    try {
      await c2.until(() => c2.messages().length === 3, 'replay of m3-m5');
      await send(inbox, 'm6');
      await c2.until(() => c2.messages().length === 4, 'live m6');
      await sleep(100);
      assert.deepEqual(
        c2.messages().map((m) => [m.id, m.data.subject]),
        [
          [3, 'm3'],
          [4, 'm4'],
          [5, 'm5'],
          [6, 'm6'],
        ],
      );
    } finally {
      c2.close();
    }

    // The query parameter does the same for clients that cannot set headers; 0 replays everything.
    const c3 = await SseClient.open(events(inbox, '?lastEventId=0'));
    try {
      await c3.until(() => c3.messages().length === 6, 'all six');
      assert.deepEqual(
        c3.messages().map((m) => m.id),
        [1, 2, 3, 4, 5, 6],
      );
    } finally {
      c3.close();
    }
    const bad = await fetch(events(inbox), { headers: { authorization: `Bearer ${ADMIN_KEY}`, 'last-event-id': 'abc' } });
    assert.equal((await json(bad, 400)).code, 'validation_failed');
  });

  test('a reconnect racing new mail neither loses nor repeats events', async () => {
    const inbox = await create();
    for (let i = 1; i <= 30; i++)
      await s.server.parts.ingest.accept({
        raw: Buffer.from(`Subject: r${i}\r\nTo: ${inbox.address}\r\n\r\nx\r\n`),
        rcpts: [inbox.address],
        mailFrom: null,
        source: 'test',
      });
    const c = await SseClient.open(events(inbox), { 'last-event-id': '10' });
    try {
      const live = (async () => {
        for (let i = 31; i <= 40; i++)
          await s.server.parts.ingest.accept({
            raw: Buffer.from(`Subject: r${i}\r\nTo: ${inbox.address}\r\n\r\nx\r\n`),
            rcpts: [inbox.address],
            mailFrom: null,
            source: 'test',
          });
      })();
      await live;
      await c.until(() => c.messages().length >= 30, '30 events');
      await sleep(100);
      assert.deepEqual(
        c.messages().map((m) => m.id),
        Array.from({ length: 30 }, (_, i) => i + 11),
      );
    } finally {
      c.close();
    }
  });

  test('comment heartbeats keep the connection alive', async () => {
    const inbox = await create();
    const c = await SseClient.open(events(inbox));
    try {
      await c.until(() => c.comments.filter((x) => x === 'heartbeat').length >= 2, 'two heartbeats', 2000);
    } finally {
      c.close();
    }
  });

  test('deleting the inbox sends inbox.deleted, then ends the stream', async () => {
    const inbox = await create();
    const c = await SseClient.open(events(inbox));
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }));
    await c.until(() => c.ended, 'end of stream');
    const last = c.events.at(-1)!;
    assert.equal(last.event, 'inbox.deleted');
    assert.deepEqual(JSON.parse(last.data), { inboxId: inbox.inboxId });
    assert.equal(listenerCount(s, inbox.inboxId), 0);
  });

  test('a client that never reads is disconnected at the buffer bound; it resumes from the store without loss', async () => {
    const inbox = await create();
    const sock = net.connect(s.server.httpPort, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /v1/inboxes/${inbox.inboxId}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n\r\n`);
    sock.pause(); // never reads
    let closed = false;
    sock.on('close', () => (closed = true));
    sock.on('error', () => undefined);
    await streamsOpen(1);
    const big = 'x'.repeat(2000);
    let n = 0;
    // Each event is ~4 KB; the kernel's socket buffers take some before the server's own buffer fills.
    while (s.server.services.eventStreams.count() > 0 && n < 5000) {
      n++;
      await s.server.parts.ingest.accept({
        raw: Buffer.from(`Subject: ${big} ${n}\r\nTo: ${inbox.address}\r\n\r\nbody\r\n`),
        rcpts: [inbox.address],
        mailFrom: null,
        source: 'test',
      });
    }
    assert.equal(s.server.services.eventStreams.count(), 0, 'the slow stream was dropped');
    assert.equal(listenerCount(s, inbox.inboxId), 0);
    assert.ok(s.logs.some((l) => l.includes('SSE reader too slow')));
    sock.resume();
    for (let i = 0; i < 100 && !closed; i++) await sleep(20);
    assert.ok(closed, 'the connection was closed');
    sock.destroy();

    const c = await SseClient.open(events(inbox, '?lastEventId=0'));
    try {
      await c.until(() => c.messages().length === n, `all ${n} events`, 10_000);
      assert.deepEqual(
        c.messages().map((m) => m.id),
        Array.from({ length: n }, (_, i) => i + 1),
      );
    } finally {
      c.close();
    }
  });

  test('mail that arrives through a provider webhook is streamed like SMTP mail', async () => {
    const inbox = await create();
    const c = await SseClient.open(events(inbox));
    try {
      const raw = `From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: via webhook\r\n\r\ncode 246810\r\n`;
      const r = await fetch(`${s.url}/webhooks/raw`, { method: 'POST', headers: { 'content-type': 'message/rfc822' }, body: raw });
      assert.equal(r.status, 200, await r.text());
      await c.until(() => c.messages().length === 1, 'the webhook message');
      assert.equal(c.messages()[0]!.data.subject, 'via webhook');
      assert.equal(c.messages()[0]!.data.verification.otp, '246810');
    } finally {
      c.close();
    }
  });

  test('unknown inbox → 404 problem before any stream starts', async () => {
    const r = await s.api('/v1/inboxes/inb_nope/events');
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
  });

  test('server shutdown ends open streams promptly', async () => {
    const other = await startTestServer();
    const inbox = await json(await other.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const c = await SseClient.open(`${other.url}/v1/inboxes/${inbox.inboxId}/events`);
    const t0 = Date.now();
    await other.stop();
    await c.until(() => c.ended, 'end at shutdown', 3000);
    assert.ok(Date.now() - t0 < 3000);
    assert.ok(c.comments.includes('stream closed by the server'));
  });
});
