// The mailbox provider tools on the built-in local mailbox (inboxd's own inboxes), through the official MCP SDK
// client: status, scope, list/read, triage buckets (with a verification code), digest, settings, the draft tool with
// idempotency, and the connect refusals that need no server (no INBOXD_SECRET_KEY, unknown account).
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callErr, callOk, mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { storedIncludes } from '../../helpers/stored.ts';
import { deliver, mintKey, newInbox } from '../../helpers/workspace-mail.ts';

type Json = Record<string, any>;
const GMAIL_TOOLS = [
  'svc_gmail_status',
  'svc_gmail_connect',
  'svc_gmail_list_accounts',
  'svc_gmail_list_threads',
  'svc_gmail_read_thread',
  'svc_gmail_triage',
  'svc_gmail_digest',
  'svc_gmail_get_settings',
  'svc_gmail_set_settings',
];

let s: TestServer;
let admin: Client;
let scoped: Client;
let a: { inboxId: string; address: string };
let b: { inboxId: string; address: string };
const now = Date.now();
let offset = 0;
const ago = (min: number) => new Date(now - min * 60_000).toISOString();
/** Mail arrives `min` minutes before the test's "now" (the server clock is moved for the delivery). */
const deliverAgo = async (min: number, m: Parameters<typeof deliver>[1]) => {
  offset = -min * 60_000;
  await deliver(s, { ...m, date: ago(min) });
  offset = 0;
};

before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => Date.now() + offset } });
  admin = await mcpClient(s.url, ADMIN_KEY);
  a = await newInbox(s, { label: 'team-a-1' });
  b = await newInbox(s, { label: 'team-b-1' });
  scoped = await mcpClient(s.url, await mintKey(s, { label: 'a-only', scope: { labelPrefix: 'team-a-' } }));
  await deliverAgo(50, { from: 'boss@corp.example', to: a.address, subject: 'Budget', text: 'Can you send me the Q3 numbers by Friday?' });
  await deliverAgo(40, {
    from: 'news@letters.example',
    to: a.address,
    subject: 'Weekly roundup',
    text: 'All the news of the week.',
    headers: { 'List-Unsubscribe': '<mailto:unsub@letters.example>', 'List-Id': '<weekly.letters.example>' },
  });
  await deliverAgo(30, {
    from: 'no-reply@accounts.example',
    to: a.address,
    subject: 'Your verification code',
    text: 'Your verification code is 482913. It expires in 10 minutes.',
  });
  await deliverAgo(20, {
    from: 'shop@store.example',
    to: a.address,
    subject: 'Your receipt for order #1234',
    text: 'Thanks for your purchase.',
  });
  await deliverAgo(15, { from: 'alerts@monitor.example', to: a.address, subject: 'Disk usage report', text: 'Disk at 40%.' });
  await deliverAgo(10, { from: 'pal@friends.example', to: a.address, subject: 'Photos', text: 'Here are the photos from the trip.' });
  await deliverAgo(5, { from: 'secret@other.example', to: b.address, subject: 'Team B only', text: 'Could you review this?' });
});
after(async () => {
  await admin.close();
  await scoped.close();
  await s.stop();
});

test('tools/list: the 9 svc_gmail_* tools and the draft tool, every argument described', async () => {
  const { tools } = await admin.listTools();
  assert.deepEqual(
    tools
      .map((t) => t.name)
      .filter((n) => n.startsWith('svc_gmail_'))
      .sort(),
    [...GMAIL_TOOLS].sort(),
  );
  for (const t of tools.filter((x) => x.name.startsWith('svc_gmail_') || x.name === 'svc_workspace_execute_gmail_draft')) {
    assert.ok((t.description ?? '').length > 80, t.name);
    assert.deepEqual(undescribedArgs(t.inputSchema as Json, t.name), []);
  }
});

test('status and accounts: the local mailbox needs no account', async () => {
  const st = await callOk(admin, 'svc_gmail_status');
  assert.equal(st.configured, false);
  assert.equal(st.local.available, true);
  assert.equal(st.defaultAccount, 'local');
  assert.deepEqual(st.accounts, []);
  assert.deepEqual((await callOk(admin, 'svc_gmail_list_accounts')).items, []);
});

test('local list/read is scope-aware: a key scoped to team-a- never sees team-b threads', async () => {
  const all = await callOk(admin, 'svc_gmail_list_threads', { limit: 100 });
  assert.equal(all.provider, 'local');
  assert.ok(all.items.some((t: Json) => t.subject === 'Team B only'));
  const mine = await callOk(scoped, 'svc_gmail_list_threads', { limit: 100 });
  assert.equal(mine.items.length, 6);
  assert.ok(!mine.items.some((t: Json) => t.subject === 'Team B only'));
  assert.deepEqual(await callOk(scoped, 'svc_gmail_list_threads', { folder: 'team-b-' }).then((r) => r.items), []);
  const bThread = all.items.find((t: Json) => t.subject === 'Team B only');
  assert.match(await callErr(scoped, 'svc_gmail_read_thread', { threadId: bThread.threadId }), /no thread/);
  assert.match(await callErr(scoped, 'svc_gmail_list_threads', { folder: b.inboxId }), /not found|no inbox/i);
  // paging and a query
  const p1 = await callOk(scoped, 'svc_gmail_list_threads', { limit: 4 });
  const p2 = await callOk(scoped, 'svc_gmail_list_threads', { limit: 4, cursor: p1.nextCursor });
  assert.equal(p1.items.length + p2.items.length, 6);
  assert.equal(p2.nextCursor, null);
  const q = await callOk(scoped, 'svc_gmail_list_threads', { query: 'photos' });
  assert.deepEqual(
    q.items.map((t: Json) => t.subject),
    ['Photos'],
  );
  const read = await callOk(scoped, 'svc_gmail_read_thread', { threadId: q.items[0].threadId });
  assert.equal(read.messages.length, 1);
  assert.match(read.messages[0].text, /photos from the trip/);
  assert.equal(read.messages[0].from.address, 'pal@friends.example');
});

test('triage: needs_reply, newsletter, verification with its code, receipt, notification, fyi — with reasons and evidence', async () => {
  const r = await callOk(scoped, 'svc_gmail_triage', { limit: 20 });
  const by = Object.fromEntries(r.items.map((t: Json) => [t.subject, t]));
  assert.equal(by.Budget.category, 'needs_reply');
  assert.match(by.Budget.reason, /boss@corp\.example asks/);
  assert.equal(by['Weekly roundup'].category, 'newsletter');
  assert.match(by['Weekly roundup'].evidence.header, /^List-Unsubscribe/);
  assert.equal(by['Your verification code'].category, 'verification');
  assert.equal(by['Your verification code'].evidence.code, '482913');
  assert.equal(by['Your receipt for order #1234'].category, 'receipt');
  assert.equal(by['Disk usage report'].category, 'notification');
  assert.equal(by.Photos.category, 'fyi');
  assert.equal(r.counts.needs_reply, 1);
});

test('waiting: a thread where you wrote last', async () => {
  const sent = await s.api(`/v1/inboxes/${a.inboxId}/send`, {
    method: 'POST',
    json: { to: 'peer@inboxd.test', subject: 'Proposal', text: 'Here is my proposal.' },
  });
  assert.equal(sent.status < 300, true, await sent.text());
  const r = await callOk(admin, 'svc_gmail_triage', { folder: a.inboxId });
  const p = r.items.find((t: Json) => t.subject === 'Proposal');
  assert.equal(p.category, 'waiting');
  assert.match(p.reason, /you wrote last/);
});

test('digest: grouped by category with counts since a time; since in the future is refused', async () => {
  const d = await callOk(scoped, 'svc_gmail_digest', { since: ago(35) });
  assert.equal(d.total, 5);
  const cats = Object.fromEntries(d.groups.map((g: Json) => [g.category, g.count]));
  assert.deepEqual(cats, { verification: 1, waiting: 1, receipt: 1, notification: 1, fyi: 1 });
  assert.equal(d.groups.find((g: Json) => g.category === 'verification').top[0].evidence.code, '482913');
  assert.equal(d.groups[0].category, 'verification');
  const def = await callOk(scoped, 'svc_gmail_digest');
  assert.ok(def.total >= 6);
  assert.match(await callErr(scoped, 'svc_gmail_digest', { since: new Date(now + 3600_000).toISOString() }), /future/);
});

test('settings: round trip, validation, and rules that override triage', async () => {
  const d0 = await callOk(admin, 'svc_gmail_get_settings');
  assert.deepEqual(
    { ...d0, updatedAt: null },
    { accountId: 'local', triageRules: [], digestWindowHours: 24, signature: null, timezone: 'UTC', updatedAt: null },
  );
  const set = await callOk(admin, 'svc_gmail_set_settings', {
    triageRules: [{ domain: 'friends.example', category: 'needs_reply', reason: 'friends always get an answer' }],
    digestWindowHours: 48,
    timezone: 'Europe/Berlin',
    signature: 'Ada',
  });
  assert.equal(set.digestWindowHours, 48);
  const got = await callOk(admin, 'svc_gmail_get_settings', { accountId: 'local' });
  assert.deepEqual(got.triageRules, [{ domain: 'friends.example', category: 'needs_reply', reason: 'friends always get an answer' }]);
  assert.equal(got.timezone, 'Europe/Berlin');
  const r = await callOk(admin, 'svc_gmail_triage', { folder: a.inboxId });
  const photos = r.items.find((t: Json) => t.subject === 'Photos');
  assert.equal(photos.category, 'needs_reply');
  assert.equal(photos.reason, 'friends always get an answer');
  assert.equal(photos.evidence.rule, 1);
  assert.match(await callErr(admin, 'svc_gmail_set_settings', { timezone: 'Mars/Olympus' }), /IANA/);
  assert.match(
    await callErr(admin, 'svc_gmail_set_settings', { triageRules: [{ category: 'fyi' }] }),
    /at least one of from, domain, subjectContains/,
  );
  assert.match(await callErr(admin, 'svc_gmail_set_settings', { digestWindowHours: 0 }), /digestWindowHours/);
  const bad = await s.api('/v1/providers/mailbox/settings', {
    method: 'PUT',
    json: { triageRules: [{ from: 'x@y.z', category: 'spam' }] },
  });
  assert.equal(bad.status, 400);
  assert.equal((await callOk(admin, 'svc_gmail_get_settings')).timezone, 'Europe/Berlin', 'nothing half-stored');
  await callOk(admin, 'svc_gmail_set_settings', { triageRules: [], signature: null });
});

test('execute_gmail_draft on the local mailbox: a workspace draft in the thread, logged, idempotent', async () => {
  const t = (await callOk(admin, 'svc_gmail_list_threads', { folder: a.inboxId, query: 'Budget' })).items[0];
  const args = { threadId: t.threadId, text: 'Numbers attached by Thursday.', idempotencyKey: 'draft-local-1' };
  const d = await callOk(admin, 'svc_workspace_execute_gmail_draft', args);
  assert.equal(d.provider, 'local');
  assert.match(d.draftId, /^drf_/);
  assert.deepEqual(d.to, ['boss@corp.example']);
  assert.equal(d.subject, 'Re: Budget');
  assert.equal(d.mode, 'draft_only');
  assert.deepEqual(await callOk(admin, 'svc_workspace_execute_gmail_draft', args), d, 'replayed');
  const acts = await (await s.api(`/v1/workspace/actions?threadId=${t.threadId}`)).json();
  assert.deepEqual(
    acts.items.map((x: Json) => [x.type, x.draftId]),
    [['draft', d.draftId]],
  );
  assert.match(await callErr(admin, 'svc_workspace_execute_gmail_draft', { ...args, text: 'other' }), /idempotency key reused/);
  const rest = await s.api('/v1/workspace/execute-gmail-draft', {
    method: 'POST',
    headers: { 'idempotency-key': 'draft-local-1' },
    json: { threadId: t.threadId, text: 'Numbers attached by Thursday.' },
  });
  assert.equal(rest.headers.get('idempotent-replayed'), 'true');
  assert.match(await callErr(admin, 'svc_workspace_execute_gmail_draft', { text: 'hi' }), /needs recipients/);
  const bThread = (await callOk(admin, 'svc_gmail_list_threads', { folder: b.inboxId })).items[0];
  assert.match(await callErr(scoped, 'svc_workspace_execute_gmail_draft', { threadId: bThread.threadId, text: 'x' }), /no thread/);
});

test('a remote accountId with nothing connected answers not_configured saying how to connect', async () => {
  for (const name of ['svc_gmail_list_threads', 'svc_gmail_triage', 'svc_workspace_execute_gmail_draft'] as const) {
    const msg = await callErr(admin, name, {
      accountId: 'pac_missing',
      ...(name.includes('draft') ? { text: 'x', to: ['a@b.example'] } : {}),
    });
    assert.match(msg, /needs a connected mailbox account.*svc_gmail_connect/);
  }
});

test('connect without INBOXD_SECRET_KEY: 501 before any network work, nothing stored; members may not connect', async () => {
  const r = await s.api('/v1/providers/mailbox/accounts', {
    method: 'POST',
    json: { provider: 'imap', host: '127.0.0.1', port: 1, user: 'u', password: 'hunter2-not-stored' },
  });
  assert.equal(r.status, 501);
  const body = await r.json();
  assert.equal(body.code, 'not_configured');
  assert.match(body.detail, /INBOXD_SECRET_KEY/);
  assert.match(
    await callErr(admin, 'svc_gmail_connect', { provider: 'gmail', clientId: 'c', clientSecret: 's', refreshToken: 'r' }),
    /INBOXD_SECRET_KEY/,
  );
  assert.match(await callErr(admin, 'svc_gmail_connect', { provider: 'imap', host: 'h' }), /needs user, password/);
  assert.match(await callErr(scoped, 'svc_gmail_connect', { provider: 'imap' }), /unscoped admin key/);
  assert.deepEqual((await callOk(admin, 'svc_gmail_list_accounts')).items, []);
  assert.ok(!(await storedIncludes(s, 'hunter2-not-stored')));
});
