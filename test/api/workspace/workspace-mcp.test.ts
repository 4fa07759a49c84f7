// The 21 svc_workspace_* tools over MCP with the official SDK client: every tool is listed, every argument is
// described for a model, and each tool answers (the provider tools with a clear not_configured).
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { deliver, newInbox } from '../../helpers/workspace-mail.ts';

type Json = Record<string, any>;
const TOOLS = [
  'svc_workspace_summarize',
  'svc_workspace_draft_reply',
  'svc_workspace_suggest_reminders',
  'svc_workspace_create_reminder',
  'svc_workspace_list_reminders',
  'svc_workspace_complete_reminder',
  'svc_workspace_log_action',
  'svc_workspace_list_actions',
  'svc_workspace_get_policy',
  'svc_workspace_model_status',
  'svc_workspace_set_policy',
  'svc_workspace_execute_reply',
  'svc_workspace_execute_gmail_draft',
  'svc_workspace_execute_calendar_event',
  'svc_workspace_rules_status',
  'svc_workspace_rules_evaluate',
  'svc_workspace_list_monitors',
  'svc_workspace_create_monitor',
  'svc_workspace_delete_monitor',
  'svc_workspace_run_monitor',
  'svc_workspace_list_monitor_runs',
];

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

const call = async (name: string, args: Json = {}) => {
  const r = (await client.callTool({ name, arguments: args })) as Json;
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
};

test('tools/list: all 21 workspace tools, every argument described, descriptions written for a model', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).filter((n) => n.startsWith('svc_workspace_'));
  assert.deepEqual(names.sort(), [...TOOLS].sort());
  for (const t of tools.filter((x) => x.name.startsWith('svc_workspace_'))) {
    assert.ok((t.description ?? '').length > 40, t.name);
    assert.deepEqual(undescribedArgs(t.inputSchema as Json, t.name), []);
  }
  const complete = tools.find((t) => t.name === 'svc_workspace_complete_reminder')!;
  assert.ok('reminderId' in (complete.inputSchema.properties ?? {}), 'reminderId, not id');
  assert.equal(tools.find((t) => t.name === 'svc_workspace_delete_monitor')!.annotations?.destructiveHint, true);
});

test('every workspace tool answers over MCP', async () => {
  const inbox = await newInbox(s);
  await deliver(s, { from: 'ann@partner.example', to: inbox.address, subject: 'Intro', text: 'Hello.' });
  const id = await deliver(s, { from: 'ann@partner.example', to: inbox.address, subject: 'Dinner', text: 'Are you free on Friday?' });
  const messages = [{ from: 'ann@partner.example', subject: 'Dinner', text: 'Are you free on Friday? Deadline is 2026-12-20.' }];

  assert.match((await call('svc_workspace_summarize', { messages })).summary, /Dinner/);
  const draft = await call('svc_workspace_draft_reply', { inboxId: inbox.inboxId, messageId: id });
  assert.match(draft.draftId, /^drf_/);
  assert.ok((await call('svc_workspace_suggest_reminders', { messages })).items.some((x: Json) => x.kind === 'deadline'));
  const rem = await call('svc_workspace_create_reminder', { note: 'Book a table', dueAt: new Date(Date.now() + 86_400_000).toISOString() });
  assert.equal((await call('svc_workspace_list_reminders', { status: 'open' })).items[0].reminderId, rem.reminderId);
  assert.equal((await call('svc_workspace_complete_reminder', { reminderId: rem.reminderId })).status, 'completed');
  await call('svc_workspace_log_action', { type: 'wait', reminderId: rem.reminderId, note: 'waiting' });
  assert.equal((await call('svc_workspace_list_actions', { reminderId: rem.reminderId })).items.length, 2);
  assert.equal((await call('svc_workspace_get_policy')).mode, 'draft_only');
  assert.equal((await call('svc_workspace_model_status')).items.at(-1).provider, 'builtin');
  assert.equal((await call('svc_workspace_set_policy', { mode: 'draft_only', settings: { maxPerDay: 10 } })).settings.maxPerDay, 10);
  const ex = await call('svc_workspace_execute_reply', {
    inboxId: inbox.inboxId,
    messageId: id,
    text: 'Friday works.',
    idempotencyKey: 'mcp-1',
  });
  assert.equal(ex.outcome, 'drafted');
  assert.deepEqual(
    await call('svc_workspace_execute_reply', { inboxId: inbox.inboxId, messageId: id, text: 'Friday works.', idempotencyKey: 'mcp-1' }),
    ex,
  );
  assert.ok((await call('svc_workspace_rules_status')).rules.length >= 10);
  const ev = await call('svc_workspace_rules_evaluate', { inboxId: inbox.inboxId, messageId: id, text: 'Friday works.' });
  // No relay on this server: only recipient_deliverable stops auto_send_safe (issue 27).
  assert.equal(ev.outcomes.auto_send_safe, 'blocked');
  assert.deepEqual(
    ev.checks.filter((c: Json) => !c.passed).map((c: Json) => c.rule),
    ['recipient_deliverable'],
  );
  const mon = await call('svc_workspace_create_monitor', {
    name: 'dinner',
    kind: 'expect_mail',
    inboxId: inbox.inboxId,
    subjectContains: 'dinner',
  });
  assert.equal((await call('svc_workspace_list_monitors')).items.length, 1);
  assert.equal((await call('svc_workspace_run_monitor', { monitorId: mon.monitorId })).status, 'ok');
  assert.equal((await call('svc_workspace_list_monitor_runs', { monitorId: mon.monitorId })).items.length, 1);
  assert.equal((await call('svc_workspace_delete_monitor', { monitorId: mon.monitorId })).deleted, true);

  // With no mailbox account the draft goes to the local mailbox (inboxd's own drafts, CONTRACT §15); a named remote
  // account that is not connected is not_configured.
  assert.equal((await call('svc_workspace_execute_gmail_draft', { text: 'hi', to: ['peer@example.com'] })).provider, 'local');
  for (const [name, args] of [
    ['svc_workspace_execute_gmail_draft', { text: 'hi', accountId: 'pac_none' }],
    // a calendar account that is not connected (without accountId the event goes to the local calendar)
    [
      'svc_workspace_execute_calendar_event',
      { accountId: 'pac_none', title: 'Dinner', start: '2026-12-04T19:00:00Z', end: '2026-12-04T21:00:00Z' },
    ],
  ] as const) {
    const r = (await client.callTool({ name, arguments: args })) as Json;
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /not_configured|Not configured/);
    assert.match(r.content[0].text, /connect/);
  }
  // errors a model can act on
  const bad = (await client.callTool({ name: 'svc_workspace_set_policy', arguments: { mode: 'yolo' } })) as Json;
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /draft_only, auto_send_safe, full_auto/);
});
