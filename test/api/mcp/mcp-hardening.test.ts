// MCP hardening: every tool parameter is described — in its schema, or once in the server's instructions (the
// glossary of arguments many tools share), or by its name (a reviewed list) — walked through tools/list with the
// official SDK client;
// svc_issue_access is not annotated read-only and only keys mint tokens, and progress is relayed on the session's
// GET stream also when the tools/call itself streams.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GLOSSARY } from '../../../src/mcp/schema.ts';
import { mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
let mcpUrl: URL;
before(async () => {
  s = await startTestServer();
  mcpUrl = new URL(`${s.url}/mcp`);
});
after(async () => {
  await s.stop();
});

const connect = (key = ADMIN_KEY) => mcpClient(s.url, key);
const text = (r: Json) => (r.content as Array<{ text: string }>)[0]!.text;

describe('tools/list', () => {
  test('every parameter of every tool is described: in its schema, in the instructions’ glossary, or by its name', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? '';
    for (const [name, text] of Object.entries(GLOSSARY)) assert.ok(instructions.includes(`- ${name}: ${text}`), `glossary: ${name}`);
    const missing = tools.flatMap((t) => undescribedArgs(t.inputSchema as Json, t.name));
    assert.deepEqual(missing, [], `parameters without a description: ${missing.join(', ')}`);
    await client.close();
  });

  test('svc_issue_access mints a credential: not read-only, not idempotent', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const t = tools.find((x) => x.name === 'svc_issue_access')!;
    assert.equal(t.annotations?.readOnlyHint, false);
    assert.equal(t.annotations?.idempotentHint, false);
    assert.equal(t.annotations?.destructiveHint, false);
    await client.close();
  });
});

describe('svc_issue_access', () => {
  test('a key mints; a token may not mint another (it could renew itself forever)', async () => {
    const client = await connect();
    const issued = (await client.callTool({ name: 'svc_issue_access', arguments: {} })).structuredContent as Json;
    assert.match(issued.access_token, /^ibt_/);
    await client.close();
    const viaToken = await connect(issued.access_token);
    const r = await viaToken.callTool({ name: 'svc_issue_access', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r as Json), /forbidden.*access tokens cannot mint access tokens/s);
    // the token itself still works for everything else
    const ok = await viaToken.callTool({ name: 'svc_suggest_preset', arguments: { hint: 'github.com' } });
    assert.equal((ok.structuredContent as Json).service, 'github');
    await viaToken.close();
  });
});

describe('wait tools', () => {
  test('svc_wait_and_extract: a newer welcome mail does not hide the code; the code is handed out once; since overrides', async () => {
    const client = await connect();
    const inbox = (await client.callTool({ name: 'svc_create_inbox', arguments: {} })).structuredContent as Json;
    const sim = (args: Json) => client.callTool({ name: 'svc_simulate_message', arguments: { inboxId: inbox.inboxId, ...args } });
    const code = (await sim({ scenario: 'custom', subject: 'Your code', text: 'Your verification code is 482913.' }))
      .structuredContent as Json;
    await sim({ scenario: 'custom', subject: 'Welcome aboard', text: 'Thanks for joining us.' });
    const r = (await client.callTool({ name: 'svc_wait_and_extract', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 5 } }))
      .structuredContent as Json;
    assert.equal(r.status, 'verified');
    assert.equal(r.verification.otp, '482913');
    assert.equal(r.message.messageId, code.messageId);
    const again = (await client.callTool({ name: 'svc_wait_and_extract', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 1 } }))
      .structuredContent as Json;
    assert.equal(again.status, 'received', 'only the welcome mail is newer than the code handed out');
    const since = (
      await client.callTool({
        name: 'svc_wait_and_extract',
        arguments: { inboxId: inbox.inboxId, timeoutSeconds: 1, since: '2000-01-01T00:00:00Z' },
      })
    ).structuredContent as Json;
    assert.equal(since.verification.otp, '482913');
    await client.close();
  });

  test('svc_wait_for_message answers with structured content, truncated and includeBody', async () => {
    const client = await connect();
    const inbox = (await client.callTool({ name: 'svc_create_inbox', arguments: {} })).structuredContent as Json;
    await client.callTool({
      name: 'svc_simulate_message',
      arguments: { inboxId: inbox.inboxId, scenario: 'custom', subject: 'Hi', text: 'Your code is 551177.' },
    });
    const full = await client.callTool({ name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 0 } });
    const sc = full.structuredContent as Json;
    assert.equal(sc.truncated, false);
    assert.match(sc.text, /551177/);
    assert.deepEqual(JSON.parse(text(full as Json)), sc);
    const lean = (
      await client.callTool({ name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 0, includeBody: false } })
    ).structuredContent as Json;
    assert.equal(lean.text, null);
    assert.equal(lean.truncated, true);
    assert.equal(lean.verification.otp, '551177');
    await client.close();
  });
});

describe('progress relay', () => {
  const headersFor = (sid?: string) => ({
    authorization: `Bearer ${ADMIN_KEY}`,
    'content-type': 'application/json',
    'mcp-protocol-version': '2025-11-25',
    ...(sid ? { 'mcp-session-id': sid } : {}),
  });
  const progressOf = (sse: string, token: string): number[] =>
    sse
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Json)
      .filter((m) => m.method === 'notifications/progress' && m.params.progressToken === token)
      .map((m) => m.params.progress as number);

  test('a streaming tools/call in a session with an open GET stream: progress on both, values never repeated', async () => {
    const init = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headersFor(), accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'relay', version: '1' } },
      }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    assert.ok(sid);
    await init.text();
    const ac = new AbortController();
    const stream = await fetch(mcpUrl, { headers: { ...headersFor(sid), accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(stream.status, 200);
    let seen = '';
    const reading = (async () => {
      const reader = stream.body!.getReader();
      const dec = new TextDecoder();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          seen += dec.decode(value);
        }
      } catch {
        // aborted
      }
    })();
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    setTimeout(() => void s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } }), 2300);
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headersFor(sid), accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 10 }, _meta: { progressToken: 'r1' } },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const posted = await res.text();
    assert.match(posted, /"result"/);
    ac.abort();
    await reading;
    const onPost = progressOf(posted, 'r1');
    const onGet = progressOf(seen, 'r1');
    assert.ok(onPost.length >= 2, `progress on the request stream: ${JSON.stringify(onPost)}`);
    assert.ok(onGet.length >= 1, `progress relayed on the GET stream: ${JSON.stringify(onGet)}`);
    for (const v of onGet) assert.ok(!onPost.includes(v), `value ${v} sent twice`);
    for (const list of [onPost, onGet]) for (let i = 1; i < list.length; i++) assert.ok(list[i]! > list[i - 1]!);
    await fetch(mcpUrl, { method: 'DELETE', headers: headersFor(sid) });
  });
});
