// The Gmail mailbox against a local fake of the Gmail REST API and Google's token endpoint (test/helpers/gmail-fake.ts),
// through the official MCP SDK client: connect (refused refresh token, credentials sealed), list/read/triage/digest,
// the refresh on expiry (401 → refresh → retry, new token resealed), drafts through the drafts API, and an outage.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type GmailFake, startGmailFake } from '../../helpers/gmail-fake.ts';
import { callErr, callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { storedIncludes } from '../../helpers/stored.ts';

type Json = Record<string, any>;
const SECRET = 'b'.repeat(64);
let g: GmailFake;
let s: TestServer;
let mcp: Client;
let accountId: string;
const t0 = Date.UTC(2026, 10, 20, 9);

before(async () => {
  g = await startGmailFake('ada@gmail.test');
  s = await startTestServer(['--gmail-api-base', g.url, '--google-token-url', g.tokenUrl], { INBOXD_SECRET_KEY: SECRET });
  mcp = await mcpClient(s.url, ADMIN_KEY);
  g.addMessage({
    threadId: 'thr-lunch',
    from: 'Bob <bob@corp.test>',
    to: 'ada@gmail.test',
    subject: 'Lunch on Friday?',
    text: 'Could we do lunch on Friday?',
    date: new Date(t0),
  });
  g.addMessage({
    threadId: 'thr-news',
    from: 'News <news@letters.test>',
    to: 'ada@gmail.test',
    subject: 'Weekly letter',
    html: '<p>This <b>week</b>: autumn &amp; more.</p>',
    headers: { 'List-Unsubscribe': '<https://letters.test/u>' },
    attachment: { filename: 'week.pdf', mimeType: 'application/pdf', size: 2048 },
    date: new Date(t0 + 3600_000),
  });
  g.addMessage({
    threadId: 'thr-code',
    from: 'no-reply@login.test',
    to: 'ada@gmail.test',
    subject: 'Your login code',
    text: 'Your login code is 559031. It expires in 5 minutes.',
    date: new Date(t0 + 7200_000),
  });
});
after(async () => {
  await mcp?.close();
  await s?.stop();
  await g?.stop();
});

const gmail = (extra: Json = {}) => ({ provider: 'gmail', ...g.client, ...extra });

test('connect with a refused refresh token: 400 saying what failed, nothing stored', async () => {
  const msg = await callErr(mcp, 'svc_gmail_connect', gmail({ refreshToken: 'rt-revoked' }));
  assert.match(msg, /token endpoint .* refused the refresh token: invalid_grant/);
  assert.ok(!msg.includes('rt-revoked'));
  assert.deepEqual((await callOk(mcp, 'svc_gmail_list_accounts')).items, []);
});

test('connect: token refreshed, profile read, credentials sealed and never shown', async () => {
  const acc = await callOk(mcp, 'svc_gmail_connect', gmail({ label: 'Ada Gmail' }));
  accountId = acc.id;
  assert.equal(acc.provider, 'gmail');
  assert.equal(acc.address, 'ada@gmail.test');
  assert.ok(g.requests.some((r) => r.path === '/gmail/v1/users/me/profile'));
  const shown = JSON.stringify([acc, await callOk(mcp, 'svc_gmail_status'), await callOk(mcp, 'svc_gmail_list_accounts')]);
  for (const secret of [g.client.clientSecret, g.client.refreshToken]) {
    assert.ok(!shown.includes(secret));
    assert.ok(!s.logs.join('\n').includes(secret));
    assert.ok(!(await storedIncludes(s, secret)));
  }
});

test('list, read (HTML as text, attachment listed), triage with the code, digest', async () => {
  const list = await callOk(mcp, 'svc_gmail_list_threads', { limit: 2 });
  assert.equal(list.provider, 'gmail');
  assert.deepEqual(
    list.items.map((t: Json) => t.threadId),
    ['thr-code', 'thr-news'],
  );
  assert.equal(list.items[0].unread, true);
  const more = await callOk(mcp, 'svc_gmail_list_threads', { limit: 2, cursor: list.nextCursor });
  assert.deepEqual(
    more.items.map((t: Json) => t.subject),
    ['Lunch on Friday?'],
  );
  assert.deepEqual(
    (await callOk(mcp, 'svc_gmail_list_threads', { query: 'lunch' })).items.map((t: Json) => t.threadId),
    ['thr-lunch'],
  );
  const news = await callOk(mcp, 'svc_gmail_read_thread', { threadId: 'thr-news' });
  assert.equal(news.messages[0].text.replace(/\s+/g, ' ').trim(), 'This week: autumn & more.');
  assert.deepEqual(news.messages[0].attachments, [{ filename: 'week.pdf', contentType: 'application/pdf', size: 2048 }]);
  assert.match(await callErr(mcp, 'svc_gmail_read_thread', { threadId: 'nope' }), /not_found|Not found/i);
  const tri = await callOk(mcp, 'svc_gmail_triage', { accountId });
  const by = Object.fromEntries(tri.items.map((t: Json) => [t.threadId, t]));
  assert.equal(by['thr-code'].category, 'verification');
  assert.equal(by['thr-code'].evidence.code, '559031');
  assert.equal(by['thr-news'].category, 'newsletter');
  assert.equal(by['thr-lunch'].category, 'needs_reply');
  const dg = await callOk(mcp, 'svc_gmail_digest', { since: new Date(t0 + 1800_000).toISOString() });
  assert.equal(dg.total, 2);
  assert.deepEqual(
    dg.groups.map((x: Json) => x.category),
    ['verification', 'newsletter'],
  );
  const st = await callOk(mcp, 'svc_gmail_set_settings', { accountId, triageRules: [{ from: 'bob@corp.test', category: 'fyi' }] });
  assert.equal(st.accountId, accountId);
  assert.deepEqual((await callOk(mcp, 'svc_gmail_get_settings', { accountId })).triageRules, [{ from: 'bob@corp.test', category: 'fyi' }]);
  assert.deepEqual((await callOk(mcp, 'svc_gmail_get_settings', { accountId: 'local' })).triageRules, [], 'settings are per account');
  const again = await callOk(mcp, 'svc_gmail_triage', { query: 'lunch' });
  assert.equal(again.items[0].category, 'fyi');
});

test('an expired access token: the API answers 401, inboxd refreshes, retries, and stores the new token sealed', async () => {
  const before = g.refreshes;
  g.expireToken();
  const list = await callOk(mcp, 'svc_gmail_list_threads', { limit: 1 });
  assert.equal(list.items.length, 1);
  assert.equal(g.refreshes, before + 1);
  // the refreshed token was resealed and stored: it is the one the API accepted last
  const row = await (s.server.parts.store.db as any)
    .selectFrom('provider_accounts')
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  assert.match(row.secret, /^sealed:/);
  const opened = s.server.parts.providers.open<{ address: string }, { accessToken: string }>(row);
  const lastAuth = [...g.requests].reverse().find((r) => r.auth?.startsWith('Bearer '))!.auth!;
  assert.equal(`Bearer ${opened.secret.accessToken}`, lastAuth);
});

test('execute_gmail_draft: a draft through the drafts API, threaded and idempotent; never a send', async () => {
  const args = { threadId: 'thr-lunch', text: 'Friday works.', idempotencyKey: 'gmail-draft-1' };
  const d = await callOk(mcp, 'svc_workspace_execute_gmail_draft', args);
  assert.equal(d.provider, 'gmail');
  assert.equal(d.location, 'gmail:drafts');
  assert.equal(d.threadId, 'thr-lunch');
  assert.deepEqual(d.to, ['bob@corp.test']);
  assert.deepEqual(await callOk(mcp, 'svc_workspace_execute_gmail_draft', args), d);
  assert.equal(g.drafts.length, 1);
  const raw = Buffer.from(g.drafts[0]!.raw, 'base64url').toString('utf8');
  assert.match(raw, /^Subject: Re: Lunch on Friday\?/m);
  assert.match(raw, /^In-Reply-To: <m\d+@gmail\.test>/m);
  assert.match(raw, /^From: ada@gmail\.test/m);
  assert.equal(g.drafts[0]!.threadId, 'thr-lunch');
  assert.ok(!g.requests.some((r) => /send/.test(r.path)));
  const fresh = await callOk(mcp, 'svc_workspace_execute_gmail_draft', { to: ['carol@corp.test'], subject: 'Hello', text: 'New mail.' });
  assert.equal(fresh.threadId, `t-new-${fresh.draftId.slice(2)}`);
});

test('the Gmail API down: 503 naming the host, the account marked error', async () => {
  await g.stop();
  const msg = await callErr(mcp, 'svc_gmail_list_threads', {});
  assert.match(msg, new RegExp(`cannot reach the Gmail API at ${new URL(g.url).host.replace(/\./g, '\\.')}`));
  const st = await callOk(mcp, 'svc_gmail_status');
  assert.equal(st.accounts[0].status, 'error');
  assert.match(st.accounts[0].lastError, /cannot reach/);
});
