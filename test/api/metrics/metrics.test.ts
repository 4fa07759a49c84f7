// GET /metrics: Prometheus text that a strict parser accepts, counters that move with real SMTP mail, HTTP requests
// labelled by operation (never by path), gauges read at scrape time, and who may read it.
// not @cluster: asserts on one process's counters
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Family, parsePrometheus, sampleValue } from '../../helpers/prom.ts';
import { HoldingReceiver } from '../../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail, smtpDialogue } from '../../helpers/smtp.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function scrape(s: TestServer, key?: string | null): Promise<Map<string, Family>> {
  const r = await s.api('/metrics', { key: key === undefined ? s.key : key });
  assert.equal(r.status, 200, await r.clone().text());
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await r.text());
}

async function until(s: TestServer, check: (m: Map<string, Family>) => boolean, what: string): Promise<Map<string, Family>> {
  for (let i = 0; i < 250; i++) {
    const m = await scrape(s);
    if (check(m)) return m;
    await sleep(20);
  }
  throw new Error(`metrics never showed ${what}`);
}

async function createInbox(s: TestServer, body: Record<string, unknown> = {}): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: body });
  assert.equal(r.status, 201, await r.clone().text());
  return (await r.json()) as { inboxId: string; address: string };
}

async function keyWith(s: TestServer, body: Record<string, unknown>): Promise<string> {
  const r = await s.api('/v1/team/keys', { method: 'POST', json: body });
  assert.equal(r.status, 201, await r.clone().text());
  return ((await r.json()) as { key: string }).key;
}

describe('GET /metrics', () => {
  let s: TestServer;
  let rx: HoldingReceiver;
  before(async () => {
    rx = new HoldingReceiver(false);
    await rx.start();
    s = await startTestServer(['--max-message-bytes', '20000', '--allow-http-callbacks', '--allow-private-callbacks']);
  });
  after(async () => {
    await s.stop();
    await rx.stop();
  });

  test('every family has HELP and TYPE and the expected type', async () => {
    const m = await scrape(s);
    const expected: Record<string, Family['type']> = {
      inboxd_build_info: 'gauge',
      inboxd_smtp_connections_total: 'counter',
      inboxd_smtp_connections_open: 'gauge',
      inboxd_smtp_messages_accepted_total: 'counter',
      inboxd_smtp_bytes_accepted_total: 'counter',
      inboxd_smtp_rejections_total: 'counter',
      inboxd_ingest_duration_seconds: 'histogram',
      inboxd_waits_open: 'gauge',
      inboxd_sse_clients_open: 'gauge',
      inboxd_callback_attempts_total: 'counter',
      inboxd_callback_deliveries_pending: 'gauge',
      inboxd_outbound_recipients: 'gauge',
      inboxd_http_requests_total: 'counter',
      inboxd_store_bytes: 'gauge',
      process_resident_memory_bytes: 'gauge',
      inboxd_js_heap_used_bytes: 'gauge',
      inboxd_ingest_workers_running: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) {
      const f = m.get(name);
      assert.ok(f, `${name} is exposed`);
      assert.equal(f.type, type, name);
      assert.ok(f.help && f.help.length > 10, `${name} has a help text`);
    }
    assert.equal(sampleValue(m, 'inboxd_build_info', { version: '0.2.0' }), 1);
    assert.ok(sampleValue(m, 'process_resident_memory_bytes')! > 20e6, 'RSS in bytes');
    assert.ok(sampleValue(m, 'inboxd_js_heap_used_bytes')! > 1e6, 'heap in bytes');
    const workers = sampleValue(m, 'inboxd_ingest_workers_running')!;
    assert.ok(Number.isInteger(workers) && workers >= 0 && workers <= 4, `${workers} workers`);
    // Every refusal reason is there from the start (at 0), so rate() works before the first refusal.
    assert.equal(m.get('inboxd_smtp_rejections_total')!.samples.length, 8);
    assert.ok(sampleValue(m, 'inboxd_store_bytes', { part: s.server.parts.store.dialect === 'postgres' ? 'postgres' : 'sqlite' })! > 0);
    // Every delivery state is there from the start.
    assert.deepEqual(
      m
        .get('inboxd_outbound_recipients')!
        .samples.map((x) => x.labels.state)
        .sort(),
      ['failed', 'queued', 'sent'],
    );
  });

  test('SMTP mail moves the connection, message, byte and latency counters', async () => {
    const before = await scrape(s);
    const inbox = await createInbox(s);
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'metrics', text: 'Your code is 424242' });
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'metrics 2', text: 'Your code is 525252' });
    const m = await scrape(s);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (sampleValue(m, name, labels) ?? Number.NaN) - (sampleValue(before, name, labels) ?? Number.NaN);
    assert.equal(delta('inboxd_smtp_messages_accepted_total'), 2);
    assert.ok(delta('inboxd_smtp_bytes_accepted_total') > 100);
    assert.ok(delta('inboxd_smtp_connections_total') >= 2);
    assert.equal(delta('inboxd_ingest_duration_seconds_count'), 2);
    assert.equal(delta('inboxd_ingest_duration_seconds_bucket', { le: '+Inf' }), 2);
    assert.ok(delta('inboxd_ingest_duration_seconds_sum') > 0);
  });

  test('SMTP refusals are counted by reason', async () => {
    const before = await scrape(s);
    const relay = await smtpDialogue(s.server.smtpPort, ['EHLO t', 'MAIL FROM:<a@example.com>', 'RCPT TO:<victim@gmail.com>', 'QUIT']);
    assert.ok(relay.some((l) => l.startsWith('550')));
    const inbox = await createInbox(s);
    await assert.rejects(sendMail(s.server.smtpPort, { to: inbox.address, subject: 'big', text: 'x'.repeat(40_000) }));
    const m = await until(
      s,
      (m) =>
        sampleValue(m, 'inboxd_smtp_rejections_total', { reason: 'too_large' })! >
        sampleValue(before, 'inboxd_smtp_rejections_total', { reason: 'too_large' })!,
      'the too-large refusal',
    );
    const delta = (reason: string) =>
      sampleValue(m, 'inboxd_smtp_rejections_total', { reason })! - sampleValue(before, 'inboxd_smtp_rejections_total', { reason })!;
    assert.equal(delta('relay_denied'), 1);
    assert.equal(delta('too_large'), 1);
    assert.equal(delta('out_of_scope'), 0);
  });

  test('HTTP requests are counted by operation name and status, never by raw path', async () => {
    const inbox = await createInbox(s);
    assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`)).status, 200);
    assert.equal((await s.api('/v1/inboxes/inb_doesnotexist')).status, 404);
    assert.equal((await s.api('/no/such/path/inb_x')).status, 404);
    const m = await scrape(s);
    assert.ok(sampleValue(m, 'inboxd_http_requests_total', { operation: 'inboxes.get', status: '200' })! >= 1);
    assert.ok(sampleValue(m, 'inboxd_http_requests_total', { operation: 'inboxes.get', status: '404' })! >= 1);
    assert.ok(sampleValue(m, 'inboxd_http_requests_total', { operation: 'none', status: '404' })! >= 1);
    assert.ok(sampleValue(m, 'inboxd_http_requests_total', { operation: 'inboxes.create', status: '201' })! >= 1);
    for (const sample of m.get('inboxd_http_requests_total')!.samples) {
      assert.match(sample.labels.operation!, /^([a-z]+(\.[a-z-]+)*|mcp|metrics|none)$/i, 'an operation name, not a path');
      assert.doesNotMatch(sample.labels.operation!, /inb_|\//);
    }
  });

  test('open waits and SSE clients are read at scrape time', async () => {
    const inbox = await createInbox(s);
    const wait = new AbortController();
    const waiting = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`, { signal: wait.signal }).catch(() => null);
    const sse = new AbortController();
    const stream = await s.api(`/v1/inboxes/${inbox.inboxId}/events`, { headers: { accept: 'text/event-stream' }, signal: sse.signal });
    assert.equal(stream.status, 200);
    await until(
      s,
      (m) => sampleValue(m, 'inboxd_waits_open')! >= 1 && sampleValue(m, 'inboxd_sse_clients_open')! >= 1,
      'one wait and one SSE client',
    );
    wait.abort();
    sse.abort();
    await waiting;
    await until(s, (m) => sampleValue(m, 'inboxd_waits_open') === 0 && sampleValue(m, 'inboxd_sse_clients_open') === 0, 'them closed');
  });

  test('callback attempts are counted by outcome', async () => {
    const inbox = await createInbox(s, { callbackUrl: `${rx.url}/hook` });
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'cb', text: 'hello' });
    await rx.waitFor(1);
    await until(s, (m) => sampleValue(m, 'inboxd_callback_attempts_total', { outcome: 'delivered' })! >= 1, 'a delivered callback');
  });

  test('the outbound gauge counts sent recipients by delivery state', async () => {
    const from = await createInbox(s);
    const to = await createInbox(s);
    const sentBefore = sampleValue(await scrape(s), 'inboxd_outbound_recipients', { state: 'sent' })!;
    const r = await s.api(`/v1/inboxes/${from.inboxId}/send`, { method: 'POST', json: { to: to.address, subject: 'm', text: 'hi' } });
    assert.equal(r.status, 202, await r.clone().text());
    const m = await scrape(s);
    assert.equal(sampleValue(m, 'inboxd_outbound_recipients', { state: 'sent' }), sentBefore + 1, 'a local recipient is sent at once');
    assert.equal(sampleValue(m, 'inboxd_outbound_recipients', { state: 'queued' }), 0);
  });

  test('no key → 401, a member or read-only key → 403, a scoped admin → 403', async () => {
    const none = await s.api('/metrics', { key: null });
    assert.equal(none.status, 401);
    assert.match(none.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.match(none.headers.get('www-authenticate') ?? '', /Bearer/);
    assert.equal((await s.api('/metrics', { key: 'ibx_NotAKeyNotAKeyNotAKeyNotAKey00' })).status, 401);
    const member = await keyWith(s, { label: 'member' });
    assert.equal((await s.api('/metrics', { key: member })).status, 403);
    const readOnly = await keyWith(s, { label: 'ro', scope: { readOnly: true } });
    assert.equal((await s.api('/metrics', { key: readOnly })).status, 403);
    const scoped = await keyWith(s, { label: 'scoped', role: 'admin', scope: { labelPrefix: 'ci-' } });
    const r = await s.api('/metrics', { key: scoped });
    assert.equal(r.status, 403);
    assert.match(((await r.json()) as { detail: string }).detail, /--metrics-open/);
    assert.equal((await s.api('/metrics', { method: 'POST' })).status, 405);
  });
});

describe('GET /metrics with --metrics-open', () => {
  test('answers without a key; each server counts only its own traffic', async () => {
    const a = await startTestServer(['--metrics-open']);
    const b = await startTestServer();
    try {
      const r = await fetch(`${a.url}/metrics`);
      assert.equal(r.status, 200);
      parsePrometheus(await r.text());
      const inbox = await createInbox(a);
      await sendMail(a.server.smtpPort, { to: inbox.address, subject: 'only a', text: 'hi' });
      const ma = await scrape(a, null);
      const mb = await scrape(b);
      assert.equal(sampleValue(ma, 'inboxd_smtp_messages_accepted_total'), 1);
      assert.equal(sampleValue(mb, 'inboxd_smtp_messages_accepted_total'), 0);
      assert.equal((await b.api('/metrics', { key: null })).status, 401);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
