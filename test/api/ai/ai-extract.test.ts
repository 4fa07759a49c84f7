// The extraction routes end to end: POST …/messages/:messageId/extract over a configured chain (a failing
// OpenAI-compatible link, a working Ollama link), the built-in engine, 400s for bad requests and schemas,
// presets with their JSON Schemas, model status without secrets, and the admin-only probe.
// not @cluster: the model probe results are kept in each instance's memory (probed on one, read on the other)

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type FakeModels, startFakeModels } from '../../helpers/fake-models.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/structured');
const SECRET = 'sk-route-test-secret';

let s: TestServer;
let fake: FakeModels;
let inboxId = '';
let twofaId = '';
let invoiceId = '';

async function deliver(file: string, address: string): Promise<string> {
  const raw = readFileSync(path.join(dir, file));
  const [d] = await s.server.parts.ingest.accept({ raw, rcpts: [address], mailFrom: 'a@example.com', source: 'test' });
  return d!.messageId;
}

before(async () => {
  fake = await startFakeModels();
  fake.script.set('down', { kind: 'status', status: 500 });
  fake.script.set('up', { kind: 'ok', data: { code: '418306', link: null, service: 'GitHub', expiresInMinutes: 15 } });
  s = await startTestServer(
    ['--models', `openai:gpt-x@${fake.base('down')},ollama:llama3.2@${fake.base('up')}`, '--model-timeout-ms', '2000'],
    {
      INBOXD_OPENAI_API_KEY: SECRET,
    },
  );
  const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
  inboxId = inbox.inboxId;
  twofaId = await deliver('025-github-sudo-code-en.eml', inbox.address);
  invoiceId = await deliver('001-northwind-invoice-previous-balance.eml', inbox.address);
});
after(async () => {
  await s.stop();
  await fake.stop();
});

const extract = (messageId: string, body: unknown) =>
  s.api(`/v1/inboxes/${inboxId}/messages/${messageId}/extract`, { method: 'POST', json: body });

test('preset over the chain: the failing link is reported, the next one answers', async () => {
  const r = await extract(twofaId, { preset: '2fa' });
  assert.equal(r.status, 200);
  const j = (await r.json()) as Json;
  assert.equal(j.engine, 'model');
  assert.equal(j.model, 'ollama:llama3.2');
  assert.equal(j.validated, true);
  assert.deepEqual(
    j.fallbacks.map((f: Json) => f.model),
    ['openai:gpt-x'],
  );
  assert.equal(j.data.code, '418306');
});

test('an answer that fails the preset schema falls through to the built-in engine', async () => {
  const j = (await (await extract(invoiceId, { preset: 'invoice' })).json()) as Json;
  assert.equal(j.engine, 'builtin');
  assert.equal(j.fallbacks.length, 2);
  assert.equal(j.data.invoiceNumber, 'NW-2026-0318');
  assert.equal(j.data.total, 3450.3);
  const b = (await (await extract(invoiceId, { preset: 'receipt', engine: 'builtin' })).json()) as Json;
  assert.equal(b.engine, 'builtin');
  assert.deepEqual(b.fallbacks, []);
});

test('bad requests: 400 naming the problem, 404 for an unknown message', async () => {
  const none = await extract(invoiceId, {});
  assert.equal(none.status, 400);
  assert.match(((await none.json()) as Json).detail, /preset .* or schema/);
  assert.equal((await extract(invoiceId, { preset: '2fa', schema: { type: 'object' } })).status, 400);
  assert.equal((await extract(invoiceId, { preset: 'payslip' })).status, 400);
  const props = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, { type: 'string' }]));
  const big = await extract(invoiceId, { schema: { type: 'object', properties: props } });
  assert.equal(big.status, 400);
  assert.match(((await big.json()) as Json).detail, /bytes|properties/);
  const remote = await extract(invoiceId, { schema: { $ref: 'https://evil.example/s.json' } });
  assert.equal(remote.status, 400);
  assert.match(((await remote.json()) as Json).detail, /only local refs/);
  assert.equal((await extract('msg_nope', { preset: '2fa' })).status, 404);
});

test('custom schema through the route', async () => {
  const schema = { type: 'object', properties: { total: { type: ['number', 'null'] }, currency: { type: ['string', 'null'] } } };
  const j = (await (await extract(invoiceId, { schema, engine: 'builtin' })).json()) as Json;
  assert.deepEqual(j.data, { total: 3450.3, currency: 'USD' });
  assert.equal(j.validated, true);
});

test('presets list each JSON Schema', async () => {
  const j = (await (await s.api(`/v1/inboxes/${inboxId}/extract/presets`)).json()) as Json;
  assert.deepEqual(
    j.items.map((p: Json) => p.preset),
    ['2fa', 'invoice', 'receipt'],
  );
  assert.equal(j.items[1].schema.title, 'invoice');
  assert.ok(j.items[1].schema.required.includes('invoiceNumber'));
});

test('model status: order, host and credentials flag, never the secret; probe is admin-only', async () => {
  const r = await s.api('/v1/workspace/models');
  const text = await r.text();
  assert.equal(text.includes(SECRET), false);
  const j = JSON.parse(text) as Json;
  assert.deepEqual(
    j.items.map((m: Json) => [m.provider, m.model, m.credentials]),
    [
      ['openai', 'gpt-x', true],
      ['ollama', 'llama3.2', false],
      ['builtin', 'builtin', false],
    ],
  );
  const member = (await (await s.api('/v1/team/keys', { method: 'POST', json: { label: 'm' } })).json()) as Json;
  assert.equal((await s.api('/v1/workspace/models/probe', { method: 'POST', json: {}, key: member.key })).status, 403);
  const p = (await (await s.api('/v1/workspace/models/probe', { method: 'POST', json: {} })).json()) as Json;
  assert.deepEqual(
    p.items.map((x: Json) => [x.model, x.ok]),
    [
      ['openai:gpt-x', false],
      ['ollama:llama3.2', true],
      ['builtin', true],
    ],
  );
  const after = (await (await s.api('/v1/workspace/models')).json()) as Json;
  assert.equal(after.items[0].ready, false);
  assert.equal(after.items[0].lastProbe.ok, false);
});

test('MCP: svc_extract_structured and svc_workspace_model_status', async () => {
  const client = await mcpClient(s.url, ADMIN_KEY);
  try {
    const r = await client.callTool({
      name: 'svc_extract_structured',
      arguments: { inboxId, messageId: invoiceId, preset: 'invoice', engine: 'builtin' },
    });
    assert.equal(r.isError, undefined);
    const j = (r.structuredContent ?? JSON.parse((r.content as Array<{ text: string }>)[0]!.text)) as Json;
    assert.equal(j.data.invoiceNumber, 'NW-2026-0318');
    const m = await client.callTool({ name: 'svc_workspace_model_status', arguments: {} });
    const text = (m.content as Array<{ text: string }>)[0]!.text;
    assert.match(text, /llama3\.2/);
    assert.equal(text.includes(SECRET), false);
  } finally {
    await client.close();
  }
});
