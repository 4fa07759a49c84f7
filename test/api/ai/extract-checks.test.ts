// Issue 27: `validated` means more than "the JSON matches the schema". Real mail (simulated through the ingest path)
// goes through POST …/extract: an invoice whose lines do not add up fails a named check, a consistent one passes
// every check, a custom schema's tax rate is a percentage the mail states (never the tax amount), every source span
// reads back from `sourceText`, and a model's number that the mail does not write is flagged and dropped.
// @cluster

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FakeModels, startFakeModels } from '../../helpers/fake-models.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;

let s: TestServer;
let fake: FakeModels;
let inboxId = '';

const BAD = [
  'Invoice INV-2026-0042',
  'Invoice date: 01.04.2026',
  'Due date: 15.04.2026',
  '',
  'Description Qty Unit price Amount',
  'Consulting hours 3 50.00 EUR 3150.00 EUR',
  'Setup fee 2 120.00 EUR 240.00 EUR',
  'Subtotal: 390.00 EUR',
  'Total: 390.00 EUR',
].join('\n');

const GOOD = [
  'Invoice INV-2026-0043',
  'Invoice date: 01.04.2026',
  'Due date: 15.04.2026',
  '',
  'Description Qty Unit price Amount',
  'Consulting hours 3 50.00 EUR 150.00 EUR',
  'Setup fee 2 120.00 EUR 240.00 EUR',
  'Subtotal: 390.00 EUR',
  'VAT 20%: 78.00 EUR',
  'Total: 468.00 EUR',
].join('\n');

/** What an honest model reads in GOOD. */
const GOOD_DATA = {
  invoiceNumber: 'INV-2026-0043',
  vendor: 'Acme Consulting',
  issueDate: '2026-04-01',
  dueDate: '2026-04-15',
  currency: 'EUR',
  total: 468,
  subtotal: 390,
  tax: 78,
  lineItems: [
    { description: 'Consulting hours', quantity: 3, unitPrice: 50, amount: 150 },
    { description: 'Setup fee', quantity: 2, unitPrice: 120, amount: 240 },
  ],
  paymentUrl: null,
};

async function deliver(subject: string, text: string): Promise<string> {
  const r = await s.api(`/v1/inboxes/${inboxId}/simulate`, {
    method: 'POST',
    json: { scenario: 'custom', from: 'Acme Consulting <billing@acme.test>', subject, text },
  });
  assert.equal(r.status, 201, await r.clone().text());
  return ((await r.json()) as Json).messageId;
}

const extract = async (messageId: string, body: unknown): Promise<Json> => {
  const r = await s.api(`/v1/inboxes/${inboxId}/messages/${messageId}/extract`, { method: 'POST', json: body });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as Json;
};

const check = (j: Json, name: string): Json | undefined => (j.checks as Json[]).find((c) => c.name === name);

function assertSpansReadBack(j: Json): void {
  assert.equal(typeof j.sourceText, 'string');
  for (const [pointer, src] of Object.entries(j.sources as Record<string, Json>)) {
    if (!src.span) continue;
    assert.equal(src.from, 'text', pointer);
    assert.equal(j.sourceText.slice(src.span[0], src.span[1]), src.text, `${pointer}: the span reads back as its excerpt`);
  }
}

before(async () => {
  fake = await startFakeModels();
  fake.script.set('m', { kind: 'ok', data: GOOD_DATA });
  s = await startTestServer(['--models', `ollama:llama3.2@${fake.base('m')}`, '--model-timeout-ms', '5000']);
  inboxId = ((await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json).inboxId;
});
after(async () => {
  await s.stop();
  await fake.stop();
});

test('an invoice whose lines do not add up is not validated, and the failing checks say what was compared', async () => {
  const id = await deliver('Invoice INV-2026-0042', BAD);
  const j = await extract(id, { preset: 'invoice', engine: 'builtin' });
  assert.equal(j.engine, 'builtin');
  assert.equal(j.errors, undefined, 'the answer matches the schema');
  assert.equal(j.validated, false);
  const line = check(j, 'lineAmounts');
  assert.equal(line?.ok, false);
  assert.match(line!.detail, /3 × 50\.00 = 150\.00 ≠ 3150\.00/);
  assert.equal(check(j, 'linesTotal')?.ok, false);
  assert.match(check(j, 'linesTotal')!.detail, /3390\.00 ≠ subtotal 390\.00/);
  assert.equal(check(j, 'dueDate')?.ok, true);
});

test('a consistent invoice is validated with every check ok, and each source span reads back from sourceText', async () => {
  const id = await deliver('Invoice INV-2026-0043', GOOD);
  const j = await extract(id, { preset: 'invoice', engine: 'builtin' });
  assert.equal(j.validated, true, JSON.stringify(j.checks));
  const names = (j.checks as Json[]).map((c) => c.name);
  for (const n of ['lineAmounts', 'linesTotal', 'subtotalTaxTotal', 'dueDate', 'currency', 'totalPresent']) assert.ok(names.includes(n), n);
  assert.ok((j.checks as Json[]).every((c) => c.ok === true && typeof c.detail === 'string'));
  assert.equal(j.data.total, 468);
  assert.deepEqual(j.sources['/total'], { from: 'text', span: j.sources['/total'].span, text: 'Total: 468.00 EUR' });
  assert.equal(j.sources['/tax'].text, 'VAT 20%: 78.00 EUR');
  assert.equal(j.sources['/lineItems/1/amount'].text, 'Setup fee 2 120.00 EUR 240.00 EUR');
  assert.deepEqual(j.sources['/vendor'], { from: 'header', path: 'From' });
  // every filled field has a source
  for (const k of ['invoiceNumber', 'issueDate', 'dueDate', 'currency', 'subtotal']) assert.ok(j.sources[`/${k}`], k);
  assertSpansReadBack(j);

  // the MCP tool answers the same shape
  const client = await mcpClient(s.url, ADMIN_KEY);
  try {
    const m = await callOk(client, 'svc_extract_structured', { inboxId, messageId: id, preset: 'invoice', engine: 'builtin' });
    assert.equal(m.validated, true);
    assert.deepEqual(m.checks, j.checks);
    assert.deepEqual(m.sources, j.sources);
  } finally {
    await client.close();
  }
});

test("a custom schema's tax rate is the percentage the mail states, never the tax amount", async () => {
  const schema = {
    type: 'object',
    properties: { vatRate: { type: ['number', 'null'] }, vatAmount: { type: ['number', 'null'] } },
    required: ['vatRate', 'vatAmount'],
  };
  const stated = await deliver('Your order 5521', ['Order 5521', 'Net: 200.00 EUR', 'VAT 20 %: 40.00 EUR', 'Total: 240.00 EUR'].join('\n'));
  const a = await extract(stated, { schema, engine: 'builtin' });
  assert.deepEqual(a.data, { vatRate: 20, vatAmount: 40 });
  assert.equal(a.sources['/vatRate'].text, 'VAT 20 %: 40.00 EUR');
  assertSpansReadBack(a);

  const silent = await deliver('Your order 5522', ['Order 5522', 'Net: 200.00 EUR', 'VAT: 40.00 EUR', 'Total: 240.00 EUR'].join('\n'));
  const b = await extract(silent, { schema, engine: 'builtin' });
  assert.deepEqual(b.data, { vatRate: null, vatAmount: 40 });
  assert.equal(b.sources['/vatRate'], undefined);

  // a schema that asks for a fraction gets one
  const fraction = {
    type: 'object',
    properties: { vatRate: { type: ['number', 'null'], maximum: 1, description: 'VAT rate as a fraction' } },
  };
  const c = await extract(stated, { schema: fraction, engine: 'builtin' });
  assert.deepEqual(c.data, { vatRate: 0.2 });
});

test('a model answer whose values the mail states is validated, with spans found in the text', async () => {
  fake.script.set('m', { kind: 'ok', data: GOOD_DATA });
  const id = await deliver('Invoice INV-2026-0043', GOOD);
  const j = await extract(id, { preset: 'invoice' });
  assert.equal(j.engine, 'model');
  assert.equal(j.validated, true, JSON.stringify(j.checks));
  assert.equal(check(j, 'supported')?.ok, true);
  assert.equal(j.sources['/total'].text, 'Total: 468.00 EUR');
  assert.equal(j.sources['/lineItems/0/amount'].text, 'Consulting hours 3 50.00 EUR 150.00 EUR');
  assertSpansReadBack(j);
});

test('a model answer with an invented total is flagged, and the invented number is dropped', async () => {
  fake.script.set('m', { kind: 'ok', data: { ...GOOD_DATA, total: 999.99, dueDate: '2026-05-31' } });
  const id = await deliver('Invoice INV-2026-0043 (copy)', GOOD);
  const j = await extract(id, { preset: 'invoice' });
  assert.equal(j.engine, 'model');
  assert.equal(j.validated, false);
  const sup = check(j, 'supported');
  assert.equal(sup?.ok, false);
  assert.match(sup!.detail, /\/total \(999\.99\)/);
  assert.match(sup!.detail, /\/dueDate \("2026-05-31"\)/);
  assert.equal(j.data.total, null);
  assert.equal(j.data.dueDate, null);
  assert.equal(j.data.subtotal, 390, 'supported values stay');
  // the arithmetic is checked on the answer as the model gave it
  assert.equal(check(j, 'subtotalTaxTotal')?.ok, false);
  assert.match(check(j, 'subtotalTaxTotal')!.detail, /≠ total 999\.99/);
  assertSpansReadBack(j);
});

test('an invented number the schema does not allow to be null is kept, marked as the model’s, and not validated', async () => {
  fake.script.set('m', { kind: 'ok', data: { invoiceNumber: 'INV-2026-0043', total: 999.99 } });
  const id = await deliver('Invoice INV-2026-0043 (third copy)', GOOD);
  const schema = {
    type: 'object',
    properties: { invoiceNumber: { type: 'string' }, total: { type: 'number' } },
    required: ['invoiceNumber', 'total'],
  };
  const j = await extract(id, { schema });
  assert.equal(j.engine, 'model');
  assert.deepEqual(j.data, { invoiceNumber: 'INV-2026-0043', total: 999.99 });
  assert.equal(j.validated, false);
  assert.match(check(j, 'supported')!.detail, /kept \(the schema does not allow null there\): \/total \(999\.99\)/);
  assert.deepEqual(j.sources['/total'], { from: 'model' });
  assert.match(j.sources['/invoiceNumber'].text, /INV-2026-0043/);
  assert.equal(check(j, 'lineAmounts'), undefined, 'a custom schema gets no commerce checks');
  assertSpansReadBack(j);
});
