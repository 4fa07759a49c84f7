// A whole agent run driven through the official MCP SDK client against the rehearsal signup page: start a run for
// two services, follow svc_next_run, submit the address, get the code (and the link) through svc_plan_next, report
// each step, and read a timeline that shows every event in order.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const connect = (key = ADMIN_KEY) => mcpClient(s.url, key);

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
}

/** The browser part an agent does itself: the rehearsal page's forms. */
async function submitSignup(address: string): Promise<string> {
  const html = await (
    await fetch(`${s.url}/v1/agent/test/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: address }).toString(),
    })
  ).text();
  const m = /name="session" value="([0-9a-f]+)"/.exec(html);
  assert.ok(m, `the signup page accepted ${address}`);
  return m[1]!;
}
async function confirmCode(session: string, code: string): Promise<string> {
  return (
    await fetch(`${s.url}/v1/agent/test/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ session, code }).toString(),
    })
  ).text();
}

test('a two-service signup run, start to timeline, over MCP', async () => {
  const client = await connect();
  const run = await call(client, 'svc_start_run', { goal: 'Create two rehearsal accounts', services: ['Rehearsal App', 'github'] });
  assert.match(run.runId, /^run_/);
  assert.equal(run.label, `agent-${run.runId}`);
  assert.equal(run.status, 'active');
  assert.equal(run.steps.length, 8);
  const runId = run.runId as string;

  const seen: string[] = [];
  for (let i = 0; i < 2; i++) {
    const sessions: string[] = [];
    // get_address
    let next = await call(client, 'svc_next_run', { runId });
    assert.equal(next.step.kind, 'get_address');
    const address = next.service.address as string;
    assert.match(address, /@/);
    assert.ok(next.instruction.includes(address));
    if (i === 1) assert.ok(next.recipe.steps.length > 0, 'a preset service comes with its recipe');
    seen.push(next.step.stepId);
    await call(client, 'svc_report_run', { runId, stepId: next.step.stepId, outcome: 'done' });

    // submit_form: the agent types the address into the rehearsal page
    next = await call(client, 'svc_next_run', { runId });
    assert.equal(next.step.kind, 'submit_form');
    assert.equal(next.service.address, address);
    const formPlan = await call(client, 'svc_plan_next', { runId });
    assert.equal(formPlan.suggestions[0].action, 'submit_form');
    sessions.push(await submitSignup(address));
    seen.push(next.step.stepId);
    await call(client, 'svc_report_run', { runId, stepId: next.step.stepId, outcome: 'done', note: 'form submitted' });

    // wait_for_mail: the code comes through svc_plan_next
    next = await call(client, 'svc_next_run', { runId });
    assert.equal(next.step.kind, 'wait_for_mail');
    assert.ok(next.waitFor);
    const plan = await call(client, 'svc_plan_next', { runId, waitSeconds: 30 });
    const typeCode = plan.suggestions[0];
    assert.equal(typeCode.action, 'type_code');
    assert.match(typeCode.value, /^\d{6}$/);
    assert.equal(typeCode.reason, `the code arrived: type ${typeCode.value} into the ${i === 0 ? 'Rehearsal App' : 'GitHub'} form`);
    assert.equal(plan.mail.otp, typeCode.value);
    assert.ok(plan.mail.link.includes('/v1/agent/test/magic'));
    seen.push(next.step.stepId);
    await call(client, 'svc_report_run', { runId, stepId: next.step.stepId, outcome: 'done' });

    // use_verification: type the code into the page
    next = await call(client, 'svc_next_run', { runId });
    assert.equal(next.step.kind, 'use_verification');
    assert.equal(next.mail.otp, typeCode.value);
    const page = await confirmCode(sessions[0]!, typeCode.value);
    assert.match(page, /data-result="verified"/);
    seen.push(next.step.stepId);
    const rep = await call(client, 'svc_report_run', { runId, stepId: next.step.stepId, outcome: 'done', note: 'account verified' });
    assert.equal(rep.step.messageId, plan.mail.messageId);
    assert.equal(rep.status, i === 0 ? 'active' : 'succeeded');
  }
  assert.deepEqual(seen, [
    '1.get_address',
    '1.submit_form',
    '1.wait_for_mail',
    '1.use_verification',
    '2.get_address',
    '2.submit_form',
    '2.wait_for_mail',
    '2.use_verification',
  ]);

  const done = await call(client, 'svc_next_run', { runId });
  assert.equal(done.step, null, 'a finished run has no next step to claim');
  assert.equal(done.outcome.status, 'succeeded');
  const session = await call(client, 'svc_get_run_session', { runId });
  assert.equal(session.status, 'succeeded');
  assert.ok(session.steps.every((x: Json) => x.status === 'done'));
  assert.ok(session.services.every((x: Json) => x.inboxId && x.address));

  const timeline = await call(client, 'svc_get_run_timeline', { runId, limit: 500 });
  const types = (timeline.items as Json[]).map((e) => `${e.type}${e.stepId ? ` ${e.stepId}` : ''}`);
  const perService = (n: number) => [
    `step.started ${n}.get_address`,
    'inbox.created',
    `step.done ${n}.get_address`,
    `step.started ${n}.submit_form`,
    'message.received',
    'code.extracted',
    `step.done ${n}.submit_form`,
    `step.started ${n}.wait_for_mail`,
    `step.done ${n}.wait_for_mail`,
    `step.started ${n}.use_verification`,
    `step.done ${n}.use_verification`,
  ];
  assert.deepEqual(types, ['run.started', ...perService(1), ...perService(2), 'run.finished']);
  const ats = (timeline.items as Json[]).map((e) => Date.parse(e.at));
  assert.deepEqual(
    ats,
    [...ats].sort((a, b) => a - b),
    'events are in time order',
  );
  const extracted = (timeline.items as Json[]).find((e) => e.type === 'code.extracted')!;
  assert.equal(extracted.data.otp, '***', 'the timeline does not repeat the code');
  assert.equal(extracted.data.service, 'Rehearsal App');
  await client.close();
});
