// Issue 27: the planner offers a code as soon as it arrived, whatever step the agent last reported (a form submitted
// before get_address was reported), and a finished run answers svc_next_run with `step: null` and its outcome —
// succeeded, failed or abandoned — never an error. REST and the official MCP SDK client.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let client: Client;
before(async () => {
  s = await startTestServer();
  client = await mcpClient(s.url, ADMIN_KEY);
});
after(async () => {
  await client.close();
  await s.stop();
});

const start = (body: Json) => s.api('/v1/agent/runs', { method: 'POST', json: body });
const next = (id: string) => s.api(`/v1/agent/runs/${id}/next`, { method: 'POST', json: {} });
const report = (id: string, body: Json) => s.api(`/v1/agent/runs/${id}/report`, { method: 'POST', json: body });
const patch = (id: string, body: Json) => s.api(`/v1/agent/runs/${id}`, { method: 'PATCH', json: body });
const plan = (id: string, q = '') => s.api(`/v1/agent/runs/${id}/plan${q}`);
const simulate = async (inboxId: string, body: Json) =>
  json(await s.api(`/v1/inboxes/${inboxId}/simulate`, { method: 'POST', json: body }), 201);

async function call(name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
}

describe('the code is offered as soon as it arrived', () => {
  test('at get_address (not reported yet): type_code first, with the mail — REST and MCP', async () => {
    const run = await json(await start({ goal: 'g', services: ['github'] }), 201);
    const n = await json(await next(run.runId));
    assert.equal(n.step.kind, 'get_address');
    // The agent typed the address and submitted the form before reporting get_address; the code is there.
    await simulate(n.service.inboxId, { scenario: 'otp', code: '482913' });
    const p = await json(await plan(run.runId));
    assert.equal(p.step.kind, 'get_address', 'the planner changes nothing');
    assert.deepEqual(p.suggestions[0], {
      action: 'type_code',
      value: '482913',
      reason: 'the code arrived: type 482913 into the GitHub form',
    });
    assert.equal(p.suggestions[1].action, 'report');
    assert.equal(p.suggestions[1].value, '1.get_address');
    assert.equal(p.mail.otp, '482913');
    // svc_next_run (the same step again) hands out the mail and says so.
    const again = await call('svc_next_run', { runId: run.runId });
    assert.equal(again.step.kind, 'get_address');
    assert.equal(again.mail.otp, '482913');
    assert.match(again.instruction, /already reached .*: type the code 482913/);
    const m = await call('svc_plan_next', { runId: run.runId });
    assert.equal(m.suggestions[0].action, 'type_code');
    assert.equal(m.suggestions[0].value, '482913');
    assert.equal(m.mail.otp, '482913');
  });

  test('at submit_form the code comes first, before the report', async () => {
    const run = await json(await start({ goal: 'g', services: ['Acme'], createInboxes: true }), 201);
    const n = await json(await next(run.runId));
    await json(await report(run.runId, { stepId: n.step.stepId, outcome: 'done' }));
    assert.equal((await json(await next(run.runId))).step.kind, 'submit_form');
    await simulate(run.services[0].inboxId, { scenario: 'otp', code: '771234' });
    const p = await call('svc_plan_next', { runId: run.runId });
    assert.deepEqual(
      p.suggestions.map((x: Json) => [x.action, x.value]),
      [
        ['type_code', '771234'],
        ['report', '1.submit_form'],
      ],
    );
  });

  test('waitSeconds at get_address waits for the code instead of answering use_address at once', async () => {
    const run = await json(await start({ goal: 'g', services: ['github'] }), 201);
    const n = await json(await next(run.runId));
    const t0 = Date.now();
    const waited = call('svc_plan_next', { runId: run.runId, waitSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    await simulate(n.service.inboxId, { scenario: 'otp', code: '905511' });
    const p = await waited;
    assert.equal(p.suggestions[0].action, 'type_code');
    assert.equal(p.suggestions[0].value, '905511');
    assert.ok(Date.now() - t0 < 15_000, 'it answered when the mail came, not at the end of the wait');
  });
});

describe('a finished run answers step: null with its outcome', () => {
  test('succeeded: REST and MCP svc_next_run after the last report', async () => {
    const run = await json(await start({ goal: 'g', services: ['github'] }), 201);
    let inboxId = '';
    for (const kind of ['get_address', 'submit_form', 'wait_for_mail', 'use_verification']) {
      const n = await json(await next(run.runId));
      assert.equal(n.step.kind, kind);
      assert.equal(n.outcome, null, 'a step is handed out, no outcome yet');
      inboxId = n.service.inboxId;
      if (kind === 'wait_for_mail') await simulate(inboxId, { scenario: 'otp', code: '314159' });
      const r = await json(await report(run.runId, { stepId: n.step.stepId, outcome: 'done' }));
      assert.equal(r.status, kind === 'use_verification' ? 'succeeded' : 'active');
    }
    for (const answer of [await json(await next(run.runId)), await call('svc_next_run', { runId: run.runId })]) {
      assert.equal(answer.status, 'succeeded');
      assert.equal(answer.step, null);
      assert.equal(answer.service, null);
      assert.equal(answer.remainingSteps, 0);
      assert.match(answer.instruction, /^The run succeeded/);
      assert.equal(answer.outcome.status, 'succeeded');
      assert.equal(answer.outcome.reason, 'every step is done or skipped');
      assert.ok(Date.parse(answer.outcome.finishedAt) > 0);
      assert.equal(answer.outcome.services.length, 1);
      assert.equal(answer.outcome.services[0].name, 'github');
      assert.equal(answer.outcome.services[0].inboxId, inboxId);
      assert.match(answer.outcome.services[0].address, /@/);
      assert.equal(answer.outcome.services[0].verification, 'done');
      assert.match(answer.outcome.services[0].messageId, /^msg_/);
    }
    // Asking again changes nothing: no step is claimed, the timeline gets no new event.
    const types = async () =>
      ((await json(await s.api(`/v1/agent/runs/${run.runId}/timeline?limit=500`))).items as Json[]).map((e) => e.type);
    const before = await types();
    await json(await next(run.runId));
    assert.deepEqual(await types(), before);
  });

  test('failed and abandoned: step null, the reason and notes, how to reopen; reopened it hands out steps again', async () => {
    for (const status of ['failed', 'abandoned']) {
      const run = await json(await start({ goal: 'g', services: ['Acme', 'notion'] }), 201);
      const n = await json(await next(run.runId));
      await json(await report(run.runId, { stepId: n.step.stepId, outcome: 'done' }));
      await json(await patch(run.runId, { status, notes: 'captcha on the form' }));
      for (const answer of [await json(await next(run.runId)), await call('svc_next_run', { runId: run.runId })]) {
        assert.equal(answer.status, status);
        assert.equal(answer.step, null);
        assert.equal(answer.remainingSteps, 7);
        assert.match(answer.instruction, new RegExp(`^The run is ${status}; no step is handed out .*svc_patch_run_session`));
        assert.equal(answer.outcome.status, status);
        assert.equal(answer.outcome.reason, 'set by svc_patch_run_session');
        assert.equal(answer.outcome.notes, 'captcha on the form');
        assert.deepEqual(
          answer.outcome.services.map((x: Json) => [x.name, x.verification]),
          [
            ['Acme', 'pending'],
            ['notion', 'pending'],
          ],
        );
      }
      const session = await json(await s.api(`/v1/agent/runs/${run.runId}`));
      assert.equal(session.steps[1].status, 'pending', 'nothing was claimed');
      await json(await patch(run.runId, { status: 'active' }));
      const again = await json(await next(run.runId));
      assert.equal(again.step.stepId, '1.submit_form');
      assert.equal(again.outcome, null);
    }
  });
});
