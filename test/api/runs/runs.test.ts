// Agent runs over REST (/v1/agent/runs): bad input, scopes, status rules, the session document, the timeline's
// mail events, the planner's hints, expiry, and run-scoped access tokens (svc_issue_access runId, over MCP).
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let offset = 0;
before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => Date.now() + offset } });
});
after(async () => {
  await s.stop();
});

const start = (body: Json, key?: string) => s.api('/v1/agent/runs', { method: 'POST', json: body, ...(key ? { key } : {}) });
const next = (id: string, key?: string) => s.api(`/v1/agent/runs/${id}/next`, { method: 'POST', json: {}, ...(key ? { key } : {}) });
const report = (id: string, body: Json) => s.api(`/v1/agent/runs/${id}/report`, { method: 'POST', json: body });
const patch = (id: string, body: Json) => s.api(`/v1/agent/runs/${id}`, { method: 'PATCH', json: body });
const plan = (id: string, q = '') => s.api(`/v1/agent/runs/${id}/plan${q}`);
const timeline = async (id: string, key?: string) =>
  ((await json(await s.api(`/v1/agent/runs/${id}/timeline?limit=500`, key ? { key } : {}), 200)).items as Json[]).map((e) => e.type);
async function mintKey(scope: Json): Promise<string> {
  return (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'runs', scope } }), 201)).key;
}
const simulate = async (inboxId: string, body: Json = {}) =>
  json(await s.api(`/v1/inboxes/${inboxId}/simulate`, { method: 'POST', json: body }), 201);

/** Reports steps done in order until `stop` is the current one (claimed by svc_next_run). */
async function advanceTo(id: string, stop: string): Promise<Json> {
  for (;;) {
    const n = await json(await next(id), 200);
    if (n.step.kind === stop) return n;
    await json(await report(id, { stepId: n.step.stepId, outcome: 'done' }), 200);
  }
}

describe('bad input', () => {
  test('unknown run → 404 on every route', async () => {
    for (const r of [
      await s.api('/v1/agent/runs/run_nope'),
      await s.api('/v1/agent/runs/run_nope/timeline'),
      await plan('run_nope'),
      await next('run_nope'),
      await report('run_nope', { stepId: '1.get_address', outcome: 'done' }),
      await patch('run_nope', { notes: 'x' }),
    ]) {
      const p = await json(r, 404);
      assert.equal(p.code, 'not_found');
      assert.match(p.detail, /no run run_nope/);
    }
  });

  test('a step that does not exist, or is already done → 409', async () => {
    const run = await json(await start({ goal: 'g', services: ['github'] }), 201);
    const missing = await json(await report(run.runId, { stepId: '7.submit_form', outcome: 'done' }), 409);
    assert.match(missing.detail, /no step "7.submit_form".*1\.get_address/);
    await json(await report(run.runId, { stepId: '1.get_address', outcome: 'done' }), 200);
    const again = await json(await report(run.runId, { stepId: '1.get_address', outcome: 'done' }), 409);
    assert.match(again.detail, /already done/);
    const bad = await json(await report(run.runId, { stepId: '1.submit_form', outcome: 'blocked' }), 400);
    assert.equal(bad.code, 'validation_failed');
  });

  test('1,000 services → 400 naming the limit; nothing stored', async () => {
    const before = (await json(await s.api('/v1/agent/runs?limit=500'), 200)).items.length;
    const services = Array.from({ length: 1000 }, (_, i) => `svc${i}`);
    const p = await json(await start({ goal: 'too many', services }), 400);
    assert.match(p.detail, /at most 50 services/);
    assert.equal((await json(await start({ goal: 'none', services: [] }), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api('/v1/agent/runs?limit=500'), 200)).items.length, before);
  });

  test('a run of another scope → 404; a scoped key’s runs stay inside its prefix', async () => {
    const run = await json(await start({ goal: 'admin run', services: ['slack'] }), 201);
    const other = await mintKey({ labelPrefix: 'qa-' });
    assert.equal((await json(await s.api(`/v1/agent/runs/${run.runId}`, { key: other }), 404)).code, 'not_found');
    assert.equal((await json(await next(run.runId, other), 404)).code, 'not_found');
    const mine = await json(await start({ goal: 'qa run', services: ['slack'] }, other), 201);
    assert.equal(mine.label, `qa-agent-${mine.runId}`);
    const n = await json(await next(mine.runId, other), 200);
    const inbox = await json(await s.api(`/v1/inboxes/${n.service.inboxId}`, { key: other }), 200);
    assert.equal(inbox.label, mine.label);
    const listed = (await json(await s.api('/v1/agent/runs', { key: other }), 200)).items.map((r: Json) => r.runId);
    assert.deepEqual(listed, [mine.runId]);
    // svc_verify_signup / verify with the run's id gives the scoped key the run's own label, not a 403.
    const verified = await json(
      await s.api('/v1/agent/verify', { method: 'POST', key: other, json: { service: 'slack', runId: mine.runId } }),
      200,
    );
    const made = await json(await s.api(`/v1/inboxes/${verified.email.inboxId}`, { key: other }), 200);
    assert.equal(made.label, mine.label);
    const readOnly = await mintKey({ readOnly: true });
    assert.equal((await json(await start({ goal: 'ro', services: ['x'] }, readOnly), 403)).code, 'forbidden');
    assert.equal((await json(await s.api(`/v1/agent/runs/${run.runId}`, { key: readOnly }), 200)).runId, run.runId);
  });

  test('status cannot go back from succeeded (409); a failed run can be reopened', async () => {
    const run = await json(await start({ goal: 'g', services: ['zoom'] }), 201);
    const failed = await json(await patch(run.runId, { status: 'failed' }), 200);
    assert.equal(failed.status, 'failed');
    // A failed run hands out no step (step null with the outcome, issue 27); reporting on it is still a conflict.
    const none = await json(await next(run.runId), 200);
    assert.equal(none.step, null);
    assert.equal(none.outcome.status, 'failed');
    assert.equal((await json(await report(run.runId, { stepId: '1.get_address', outcome: 'done' }), 409)).code, 'conflict');
    assert.equal((await json(await patch(run.runId, { status: 'active' }), 200)).status, 'active');
    assert.equal((await json(await patch(run.runId, { status: 'succeeded' }), 200)).status, 'succeeded');
    const back = await json(await patch(run.runId, { status: 'active' }), 409);
    assert.match(back.detail, /already succeeded/);
    assert.equal((await json(await patch(run.runId, { status: 'failed' }), 409)).code, 'conflict');
    assert.equal((await json(await patch(run.runId, { status: 'succeeded', notes: 'ok' }), 200)).notes, 'ok');
    const types = await timeline(run.runId);
    assert.deepEqual(types, [
      'run.started',
      'session.patched',
      'run.finished',
      'session.patched',
      'session.patched',
      'run.finished',
      'session.patched',
    ]);
  });
});

describe('limits', () => {
  test('a refused inbox leaves neither the run nor the inboxes made so far', async () => {
    const capped = await startTestServer(['--max-inboxes', '2']);
    try {
      const before = (await json(await capped.api('/v1/inboxes'), 200)).items.length;
      const r = await capped.api('/v1/agent/runs', { method: 'POST', json: { goal: 'g', services: ['a', 'b', 'c'], createInboxes: true } });
      assert.equal((await json(r, 403)).code, 'forbidden');
      assert.equal((await json(await capped.api('/v1/inboxes'), 200)).items.length, before);
      assert.equal((await json(await capped.api('/v1/agent/runs'), 200)).items.length, 0);
    } finally {
      await capped.stop();
    }
  });
});

describe('session document', () => {
  test('metadata merge patch, masked secrets, optimistic concurrency', async () => {
    const run = await json(await start({ goal: 'g', services: ['figma'], metadata: { user: 'ada', password: 'hunter2' } }), 201);
    assert.deepEqual(run.metadata, { user: 'ada', password: '***' });
    const v1 = run.version;
    const p1 = await json(
      await patch(run.runId, { metadata: { plan: 'free', user: null, api: { apiKey: 'sk-1', region: 'eu' } }, ifVersion: v1 }),
      200,
    );
    assert.deepEqual(p1.metadata, { password: '***', plan: 'free', api: { apiKey: '***', region: 'eu' } });
    assert.equal(p1.version, v1 + 1);
    const stale = await json(await patch(run.runId, { notes: 'late', ifVersion: v1 }), 409);
    assert.match(stale.detail, new RegExp(`at version ${v1 + 1}, not ${v1}`));
    const got = await json(await s.api(`/v1/agent/runs/${run.runId}`), 200);
    assert.equal(got.notes, null, 'the stale patch stored nothing');
    const tl = (await json(await s.api(`/v1/agent/runs/${run.runId}/timeline`), 200)).items as Json[];
    assert.ok(!JSON.stringify(tl).includes('sk-1') && !JSON.stringify(tl).includes('hunter2'));
    const big = await json(await patch(run.runId, { metadata: { blob: 'x'.repeat(70_000) } }), 400);
    assert.match(big.detail, /at most 65536 bytes/);
  });
});

describe('timeline and planner', () => {
  test('mail that arrived while nothing listened is on the timeline, and stays after the inbox is gone', async () => {
    const run = await json(await start({ goal: 'g', services: ['Acme', 'notion'], createInboxes: true }), 201);
    assert.ok(run.services.every((x: Json) => x.inboxId));
    const sim = await simulate(run.services[0].inboxId, { scenario: 'otp', code: '482913' });
    await simulate(run.services[1].inboxId, { scenario: 'welcome' });
    const items = (await json(await s.api(`/v1/agent/runs/${run.runId}/timeline`), 200)).items as Json[];
    const types = items.map((e) => e.type);
    assert.deepEqual(types, ['run.started', 'inbox.created', 'inbox.created', 'message.received', 'code.extracted', 'message.received']);
    assert.equal(items[3]!.data.messageId, sim.messageId);
    assert.equal(items[3]!.data.service, 'Acme');
    assert.equal((await json(await s.api(`/v1/inboxes?label=${run.label}`), 200)).items.length, 2);
    assert.equal((await json(await s.api(`/v1/inboxes?label=${run.label}`, { method: 'DELETE' }), 200)).deleted, 2);
    assert.deepEqual(await timeline(run.runId), types);
    // A paged read gives the same events in the same order.
    const page1 = await json(await s.api(`/v1/agent/runs/${run.runId}/timeline?limit=4`), 200);
    const page2 = await json(await s.api(`/v1/agent/runs/${run.runId}/timeline?limit=4&cursor=${page1.nextCursor}`), 200);
    assert.deepEqual(
      [...page1.items, ...page2.items].map((e: Json) => e.type),
      types,
    );
    assert.equal(page2.nextCursor, null);
  });

  test('planner: address, form, code, no mail after 90 s, mail without a code, rejected code', async () => {
    const run = await json(await start({ goal: 'g', services: ['github'] }), 201);
    const first = (await json(await plan(run.runId), 200)).suggestions[0];
    assert.equal(first.action, 'next_run');
    await advanceTo(run.runId, 'wait_for_mail');
    const inboxId = (await json(await s.api(`/v1/agent/runs/${run.runId}`), 200)).services[0].inboxId;
    const waiting = (await json(await plan(run.runId), 200)).suggestions[0];
    assert.equal(waiting.action, 'wait');
    offset += 91_000;
    const resend = (await json(await plan(run.runId), 200)).suggestions[0];
    assert.equal(resend.action, 'resend');
    assert.match(resend.reason, /^no mail after \d+ s: check the address on the GitHub form is exactly .+@.+, then resend/);

    await simulate(inboxId, { scenario: 'welcome' });
    const noCode = (await json(await plan(run.runId), 200)).suggestions[0];
    assert.equal(noCode.action, 'read_message');
    await simulate(inboxId, { scenario: 'otp', code: '482913' });
    const p = await json(await plan(run.runId), 200);
    assert.deepEqual(p.suggestions[0], {
      action: 'type_code',
      value: '482913',
      reason: 'the code arrived: type 482913 into the GitHub form',
    });
    assert.equal(p.mail.otp, '482913');

    await json(await report(run.runId, { stepId: '1.wait_for_mail', outcome: 'done' }), 200);
    const use = await json(await next(run.runId), 200);
    assert.equal(use.step.kind, 'use_verification');
    await json(await report(run.runId, { stepId: '1.use_verification', outcome: 'failed', note: 'code rejected' }), 200);
    const rejected = (await json(await plan(run.runId), 200)).suggestions[0];
    assert.equal(rejected.action, 'resend');
    assert.match(rejected.reason, /rejected the last code/);
    // The retry comes back from next_run; the planner waits for and offers only the new code.
    const retry = await json(await next(run.runId), 200);
    assert.equal(retry.step.stepId, '1.use_verification');
    assert.equal(retry.step.attempts, 2);
    assert.equal(retry.mail, null);
    const waited = s.api(`/v1/agent/runs/${run.runId}/plan?waitSeconds=30`);
    await simulate(inboxId, { scenario: 'otp', code: '777123' });
    assert.equal((await json(await waited, 200)).suggestions[0].value, '777123');
    const done = await json(await report(run.runId, { stepId: '1.use_verification', outcome: 'done' }), 200);
    assert.equal(done.status, 'succeeded');
    assert.equal((await json(await plan(run.runId), 200)).suggestions[0].action, 'none');
    const bad = await json(await plan(run.runId, '?waitSeconds=500'), 400);
    assert.match(bad.detail, /at most 120/);
  });

  test('a run expires with its inboxes, or after its retention', async () => {
    const short = await json(await start({ goal: 'g', services: ['uber'], ttlMinutes: 5 }), 201);
    const kept = await json(await start({ goal: 'g', services: ['uber'], ttlMinutes: 5, retentionMinutes: 60 }), 201);
    await json(await next(short.runId), 200);
    offset += 6 * 60_000;
    assert.equal((await json(await s.api(`/v1/agent/runs/${short.runId}`), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/agent/runs/${kept.runId}`), 200)).runId, kept.runId);
    // Its inbox is gone with the TTL; the next step gets a new one instead of a dead address.
    const first = await json(await next(kept.runId), 200);
    offset += 6 * 60_000;
    const again = await json(await next(kept.runId), 200);
    assert.equal(again.step.stepId, first.step.stepId);
    assert.notEqual(again.service.inboxId, first.service.inboxId);
    assert.equal((await json(await s.api(`/v1/inboxes/${again.service.inboxId}`), 200)).label, kept.label);
  });
});

describe('run-scoped access (svc_issue_access runId)', () => {
  test('the token sees its run and the run’s inboxes only', async () => {
    const run = await json(await start({ goal: 'g', services: ['discord'] }), 201);
    const other = await json(await start({ goal: 'g', services: ['discord'] }), 201);
    await json(await next(run.runId), 200);
    await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'unrelated' } }), 201);
    const client = await mcpClient(s.url, s.key);
    const r = await client.callTool({ name: 'svc_issue_access', arguments: { runId: run.runId } });
    const access = r.structuredContent as Json;
    assert.match(access.access_token, /^ibt_/);
    assert.match(access.scope, new RegExp(`label:${run.label}$`));
    const unknown = await client.callTool({ name: 'svc_issue_access', arguments: { runId: 'run_nope' } });
    assert.equal(unknown.isError, true);
    await client.close();

    const token = access.access_token as string;
    // The run's token cannot mint a broader one: only API keys mint (a token could otherwise renew itself forever).
    const sub = await mcpClient(s.url, token);
    const again = await sub.callTool({ name: 'svc_issue_access', arguments: {} });
    assert.equal(again.isError, true);
    assert.match(JSON.stringify(again.content), /access tokens cannot mint/);
    assert.equal((await sub.callTool({ name: 'svc_issue_access', arguments: { runId: other.runId } })).isError, true);
    await sub.close();

    assert.equal((await json(await s.api(`/v1/agent/runs/${run.runId}`, { key: token }), 200)).runId, run.runId);
    assert.equal((await json(await s.api(`/v1/agent/runs/${other.runId}`, { key: token }), 404)).code, 'not_found');
    const inboxes = (await json(await s.api('/v1/inboxes', { key: token }), 200)).items as Json[];
    assert.deepEqual(
      inboxes.map((i) => i.label),
      [run.label],
    );
    await json(await report(run.runId, { stepId: '1.get_address', outcome: 'done' }), 200);
    const n = await json(await next(run.runId, token), 200);
    assert.equal(n.step.kind, 'submit_form');
    assert.ok((await timeline(run.runId)).includes('access.issued'));
  });
});
