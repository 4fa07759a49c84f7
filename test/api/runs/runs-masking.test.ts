// What a run document and its timeline never show (issue #25): metadata under secret-like keys — matched by the
// key's words without case or separators, so privateKey, pin, verificationCode, authorization and x-api-key too —
// and values that look like tokens, through REST and MCP, stored masked; and a code carried in a mail's subject is
// masked wherever the timeline shows that subject, also in events recorded before the rule.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { deliver } from '../../helpers/workspace-mail.ts';

type Json = Record<string, any>;
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const GH = 'ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5';
const SECRETS = ['-----BEGIN', 'hunter2', '4321', '556677', 'Basic dXNlcjpwYXNz', 'k-123', JWT, GH, 'Zq8Lp2Xv9Rt4Wm7Ny3Bc6Hd1Kf5Gs0Aj'];

const metadata = {
  privateKey: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
  Private_Key_Backup: 'hunter2',
  pin: '4321',
  verificationCode: '556677',
  authorization: 'Basic dXNlcjpwYXNz',
  'x-api-key': 'k-123',
  session: { refresh: JWT },
  note: `logged in with ${GH} yesterday`,
  opaque: 'Zq8Lp2Xv9Rt4Wm7Ny3Bc6Hd1Kf5Gs0Aj',
  countryCode: 'DE',
  orderId: '3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b',
  user: 'ada',
};
const expected = {
  privateKey: '***',
  Private_Key_Backup: '***',
  pin: '***',
  verificationCode: '***',
  authorization: '***',
  'x-api-key': '***',
  session: { refresh: '***' },
  note: 'logged in with *** yesterday',
  opaque: '***',
  countryCode: 'DE',
  orderId: '3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b',
  user: 'ada',
};

function assertNoSecret(where: string, v: unknown): void {
  const text = JSON.stringify(v);
  for (const secret of SECRETS) assert.ok(!text.includes(JSON.stringify(secret).slice(1, -1)), `${where} shows ${secret}`);
}

test('metadata under secret-like keys and token-looking values are masked through REST, stored masked', async () => {
  const r = await s.api('/v1/agent/runs', { method: 'POST', json: { goal: 'mask', services: ['github'], metadata } });
  assert.equal(r.status, 201);
  const run = (await r.json()) as Json;
  assert.deepEqual(run.metadata, expected);
  const read = (await (await s.api(`/v1/agent/runs/${run.runId}`)).json()) as Json;
  assert.deepEqual(read.metadata, expected);
  const patched = (await (
    await s.api(`/v1/agent/runs/${run.runId}`, {
      method: 'PATCH',
      json: { metadata: { extra: { 'X-Auth-Token': 'abc', sessionId: 's1' } } },
    })
  ).json()) as Json;
  assert.deepEqual(patched.metadata.extra, { 'X-Auth-Token': '***', sessionId: '***' });
  const timeline = (await (await s.api(`/v1/agent/runs/${run.runId}/timeline`)).json()) as Json;
  assertNoSecret('the timeline', timeline);
  assert.ok(timeline.items.some((e: Json) => e.type === 'session.patched' && e.data.metadata.extra['X-Auth-Token'] === '***'));
  const row = await s.server.parts.store.db
    .selectFrom('runs')
    .select('metadata_json')
    .where('id', '=', run.runId)
    .executeTakeFirstOrThrow();
  assertNoSecret('the stored document', row.metadata_json);
});

test('the same through MCP: svc_start_run, svc_patch_run_session, svc_get_run_session, svc_get_run_timeline', async () => {
  const c = await mcpClient(s.url, ADMIN_KEY);
  try {
    const run = await callOk(c, 'svc_start_run', { goal: 'mask over mcp', services: ['slack'], metadata: { user: 'ada' } });
    const patched = await callOk(c, 'svc_patch_run_session', { runId: run.runId, metadata });
    assert.deepEqual(patched.metadata, expected);
    const read = await callOk(c, 'svc_get_run_session', { runId: run.runId });
    assert.deepEqual(read.metadata, expected);
    const timeline = await callOk(c, 'svc_get_run_timeline', { runId: run.runId });
    assertNoSecret('the MCP timeline', timeline);
  } finally {
    await c.close();
  }
});

test('a run document stored before the rule grew is masked when shown', async () => {
  const run = (await (await s.api('/v1/agent/runs', { method: 'POST', json: { goal: 'old', services: ['figma'] } })).json()) as Json;
  await s.server.parts.store.db
    .updateTable('runs')
    .set({ metadata_json: JSON.stringify(metadata) })
    .where('id', '=', run.runId)
    .execute();
  assert.deepEqual(((await (await s.api(`/v1/agent/runs/${run.runId}`)).json()) as Json).metadata, expected);
});

test('a code in a mail subject is masked in the timeline (REST and MCP), also in events recorded before the rule', async () => {
  const run = (await (
    await s.api('/v1/agent/runs', { method: 'POST', json: { goal: 'otp', services: ['github'], createInboxes: true } })
  ).json()) as Json;
  const address = run.services[0].address as string;
  const messageId = await deliver(s, {
    from: 'noreply@github.com',
    to: address,
    subject: '482913 is your GitHub verification code',
    text: 'Your verification code is 482913. It expires in 10 minutes.',
  });
  const otp = (await (await s.api(`/v1/inboxes/${run.services[0].inboxId}/messages/${messageId}`)).json()) as Json;
  assert.equal(otp.verification.otp, '482913', 'the extractor found the code (the message itself keeps it)');
  const events = ((await (await s.api(`/v1/agent/runs/${run.runId}/timeline`)).json()) as Json).items as Json[];
  const received = events.find((e) => e.type === 'message.received')!;
  assert.equal(received.data.subject, '*** is your GitHub verification code');
  assertNoSecret('the timeline', events);
  assert.ok(!JSON.stringify(events).includes('482913'));
  // An event recorded with the subject in clear (before this rule) is masked when shown.
  await s.server.parts.store.db
    .updateTable('run_events')
    .set({ data_json: JSON.stringify({ ...received.data, subject: '482913 is your GitHub verification code' }) })
    .where('run_id', '=', run.runId)
    .where('type', '=', 'message.received')
    .execute();
  const c = await mcpClient(s.url, ADMIN_KEY);
  try {
    const timeline = await callOk(c, 'svc_get_run_timeline', { runId: run.runId });
    assert.ok(!JSON.stringify(timeline).includes('482913'), JSON.stringify(timeline.items));
    assert.equal(timeline.items.find((e: Json) => e.type === 'message.received').data.subject, '*** is your GitHub verification code');
  } finally {
    await c.close();
  }
});
