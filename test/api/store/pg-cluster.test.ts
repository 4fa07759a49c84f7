// Two inboxd instances (in this process) on one real PostgreSQL and one blob folder (issue 20): mail that arrives at
// A wakes a wait and an SSE stream on B, a callback is delivered once with both running (a failed first attempt
// retried through the shared queue), and cluster jobs run on one instance, taken over when it stops.
// not @cluster: starts its own two instances on PostgreSQL
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { CHANNEL } from '../../../src/events/pg-bus.ts';
import { postgresMissing } from '../../helpers/postgres.ts';
import { startRelay } from '../../helpers/relay.ts';
import { freshDatabase, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const skip = postgresMissing() !== null && process.env.CI !== 'true' ? `skipped: ${postgresMissing()}` : false;
if (skip) process.stdout.write(`# pg-cluster: ${skip}\n`);

type Json = Record<string, unknown>;
let a: TestServer;
let b: TestServer;
let blobDir: string;
const callbackArgs = ['--allow-http-callbacks', '--allow-private-callbacks'];
const events = { callbacks: { retryDelaysMs: [200, 200, 200], sharedPollMs: 20 }, pgBus: { pollMs: 500 } };

before(async () => {
  if (skip) return;
  const database = await freshDatabase();
  blobDir = tempDir('inboxd-blobs-');
  a = await startTestServer(callbackArgs, {}, { database, blobDir, events });
  b = await startTestServer(callbackArgs, {}, { database, blobDir, events });
});
after(async () => {
  await a?.stop();
  await b?.stop();
  if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
});

async function createOn(s: TestServer, body: Json = {}): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: body });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  return JSON.parse(text) as { inboxId: string; address: string };
}

/** Waits until `fn` holds (the test's own timeout bounds it). */
async function until(fn: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await fn())) await new Promise((r) => setTimeout(r, 25));
}

test('mail to instance A wakes a wait and an SSE stream on instance B; B serves the raw bytes', { skip, timeout: 30_000 }, async () => {
  const inbox = await createOn(a);
  // The waiter sits on B; the subscription exists once the request is being served.
  const wait = b.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=20`);
  const sse = await fetch(`${b.url}/v1/inboxes/${inbox.inboxId}/events`, { headers: { authorization: `Bearer ${b.key}` } });
  assert.equal(sse.status, 200);
  await until(() => b.server.parts.bus.listenerCount(inbox.inboxId) >= 2);

  await sendMail(a.server.smtpPort, { to: inbox.address, subject: 'Your code is 482913', text: 'Use 482913 to sign in.' });

  const got = (await (await wait).json()) as Json;
  assert.equal(got.subject, 'Your code is 482913');
  const reader = sse.body!.getReader();
  let text = '';
  while (!text.includes('event: message.received')) {
    const { value, done } = await reader.read();
    assert.ok(!done, 'the stream stays open');
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /id: 1\nevent: message.received\ndata: .*482913/);
  await reader.cancel();

  const raw = await b.api(`/v1/inboxes/${inbox.inboxId}/messages/${got.messageId as string}/raw`);
  assert.equal(raw.status, 200);
  assert.match(await raw.text(), /Use 482913 to sign in\./);
});

test('B loses its LISTEN connection: it reconnects, and a wait on B still hears mail that came to A meanwhile', {
  skip,
  timeout: 30_000,
}, async () => {
  const inbox = await createOn(a);
  const wait = b.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=20&subjectContains=after-gap`);
  await until(() => b.server.parts.bus.listenerCount(inbox.inboxId) >= 1);
  const listeners = async () =>
    Number(
      (
        await sql<{ n: number }>`select count(*) as n from pg_stat_activity where query like ${`listen ${CHANNEL}%`}`.execute(
          a.server.parts.store.db,
        )
      ).rows[0]!.n,
    );
  assert.equal(await listeners(), 2);
  // Cut every LISTEN connection of the cluster (A's too), then mail A before they are back.
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where query like ${`listen ${CHANNEL}%`}`.execute(
    a.server.parts.store.db,
  );
  await sendMail(a.server.smtpPort, { to: inbox.address, subject: 'after-gap', text: 'sent while B was not listening' });
  const got = (await (await wait).json()) as Json;
  assert.equal(got.subject, 'after-gap');
  await until(async () => (await listeners()) === 2);
  assert.ok(b.logs.some((l) => l.includes('event LISTEN connection re-established')));
});

test('callbacks are delivered exactly once with both instances running, retries claimed by one', { skip, timeout: 30_000 }, async () => {
  const hits = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      hits.set(id, (hits.get(id) ?? 0) + 1);
      // Every first attempt fails, so the retries go through the shared queue both instances poll.
      res.writeHead(hits.get(id) === 1 ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const inbox = await createOn(b, { callbackUrl: url });
    const n = 8;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        sendMail((i % 2 ? a : b).server.smtpPort, { to: inbox.address, subject: `callback ${i}`, text: 'hello' }),
      ),
    );
    await until(() => hits.size === n && [...hits.values()].every((c) => c >= 2));
    // Long enough for both instances' polls (and a second claim, were there one) to have run many times.
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual([...hits.values()], Array(n).fill(2), 'one failed and one successful attempt per delivery');
    const log = (await (await b.api(`/v1/inboxes/${inbox.inboxId}/callbacks`)).json()) as { items: Json[] };
    assert.equal(log.items.length, 2 * n);
    assert.equal(log.items.filter((i) => i.delivered === true).length, n);
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});

test('outbound mail through the relay: each recipient relayed exactly once with both instances running', {
  skip,
  timeout: 60_000,
}, async () => {
  const relay = await startRelay();
  const database = await freshDatabase();
  let tries = 0;
  // Every recipient is refused once (451), so retries go through the shared outbox both instances look at.
  const seen = new Set<string>();
  relay.refuse = (rcpt) => {
    tries++;
    if (seen.has(rcpt)) return null;
    seen.add(rcpt);
    return '451 4.3.0 try again';
  };
  const args = ['--smtp-relay', relay.url, '--smtp-relay-tls-insecure'];
  const outbound = { tuning: { retryDelaysMs: [50, 50, 50, 50] }, relayTimeoutMs: 5_000 };
  const c = await startTestServer(args, {}, { database, blobDir, outbound });
  const d = await startTestServer(args, {}, { database, blobDir, outbound });
  try {
    const inbox = await createOn(c);
    const n = 6;
    for (let i = 0; i < n; i++) {
      const r = await (i % 2 ? c : d).api(`/v1/inboxes/${inbox.inboxId}/send`, {
        method: 'POST',
        json: { to: `r${i}@example.com`, subject: `out ${i}`, text: 'hello' },
      });
      assert.equal(r.status, 202, await r.text());
    }
    await relay.whenReceived(n);
    await new Promise((r) => setTimeout(r, 1000));
    const to = relay.received.flatMap((m) => m.to).sort();
    assert.deepEqual(to, Array.from({ length: n }, (_, i) => `r${i}@example.com`).sort(), 'each recipient once');
    assert.ok(tries >= 2 * n);
  } finally {
    await c.stop();
    await d.stop();
    await relay.close();
  }
});

test('two instances starting at once on an empty database both come up, with the one admin key', { skip, timeout: 30_000 }, async () => {
  const database = await freshDatabase();
  const started = await Promise.allSettled([0, 1].map(() => startTestServer([], {}, { database, blobDir })));
  const both = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  try {
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    for (const s of both) assert.equal((await s.api('/v1/inboxes')).status, 200);
  } finally {
    for (const s of both) await s.stop();
  }
});

test('cluster jobs run on one instance; another takes over when it stops', { skip, timeout: 30_000 }, async () => {
  const database = await freshDatabase();
  const c = await startTestServer([], {}, { database, blobDir });
  const d = await startTestServer([], {}, { database, blobDir });
  try {
    const ran: string[] = [];
    const job = (who: string) => c.server.parts.store.singleton('test-job', async () => ran.push(who));
    const jobD = () => d.server.parts.store.singleton('test-job', async () => ran.push('d'));
    // Whichever asks first leads; the other stays out, tick after tick.
    assert.equal(await job('c'), true);
    for (let i = 0; i < 3; i++) {
      assert.equal(await jobD(), false);
      assert.equal(await job('c'), true);
    }
    assert.deepEqual(ran, ['c', 'c', 'c', 'c']);
    // The expiry sweep is such a job: c led it since its start, so d's never ran (it is held by c).
    assert.equal(await d.server.parts.store.singleton('expiry-sweep', async () => undefined), false);
    await c.stop();
    await until(() => jobD());
    assert.equal(ran.at(-1), 'd');
    assert.equal(await d.server.parts.store.singleton('expiry-sweep', async () => undefined), true);
  } finally {
    await c.stop();
    await d.stop();
  }
});
