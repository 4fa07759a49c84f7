// The built-in extraction engine reads a stranger's HTML and text: it runs in the sandbox (issue #25), so over its
// budget the request answers 422 naming the built-in extractor and what to do, and the serving thread never runs it.
// not @cluster: asserts on the first instance's sandbox counters (the request may run on the second)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
let inboxId = '';
let address = '';

before(async () => {
  // No models: the built-in engine answers. A budget of 50 ms is far below what this message needs, far above a
  // small message's.
  s = await startTestServer(['--sandbox-timeout-ms', '50']);
  const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
  inboxId = inbox.inboxId;
  address = inbox.address;
});
after(() => s.stop());

async function deliver(html: string): Promise<string> {
  const raw = Buffer.from(
    [
      'From: Shop <billing@shop.example>',
      `To: ${address}`,
      'Subject: Your invoice',
      'Date: Mon, 06 Apr 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '',
    ].join('\r\n'),
  );
  const [d] = await s.server.parts.ingest.accept({ raw, rcpts: [address], mailFrom: 'billing@shop.example', source: 'test' });
  return d!.messageId;
}

const extract = (messageId: string, body: unknown) =>
  s.api(`/v1/inboxes/${inboxId}/messages/${messageId}/extract`, { method: 'POST', json: body });

test('a small invoice is extracted by the built-in engine in the sandbox', async () => {
  // The worker's first job compiles the engine's code as it runs (over 50 ms once, on a machine busy with a benchmark):
  // one extraction first, whatever its outcome, so the one asserted on runs warm (a few ms; the large one takes 100+).
  await extract(await deliver('<p>Receipt R-7 of 2 March 2026, amount EUR 3.00</p>'), { preset: 'invoice' }).then((r) => r.body?.cancel());
  const id = await deliver('<p>Invoice INV-1 dated 6 April 2026.</p><p>Total: $12.50</p>');
  const r = await extract(id, { preset: 'invoice' });
  const body = (await r.json()) as Json;
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(body.engine, 'builtin');
  assert.ok(s.server.parts.sandbox.stats().completed >= 1, 'the job ran in the sandbox');
});

test('a message too costly for the budget answers 422 naming the built-in extractor, for presets and schemas', async () => {
  const html = `<p>${'<a href="https://x.example/a?b=c">Total $12.00 due 2026-01-01</a> '.repeat(60_000)}</p>`;
  const id = await deliver(html);
  for (const body of [{ preset: 'invoice' }, { schema: { type: 'object', properties: { total: { type: 'string' } } } }]) {
    const r = await extract(id, body);
    const problem = (await r.json()) as Json;
    assert.equal(r.status, 422, JSON.stringify(problem));
    assert.equal(problem.code, 'budget_exceeded');
    assert.match(problem.detail, /the built-in extractor took more than 50 ms, over its budget; .*--models.*--sandbox-timeout-ms/);
  }
  const health = await s.api('/health', { key: null });
  assert.equal(health.status, 200);
});
