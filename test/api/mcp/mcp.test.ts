// The MCP tool server driven by real clients: the official SDK Client over streamable HTTP (sessions, tools,
// progress, termination), its ClientCredentialsProvider (401 → discovery → token), and raw fetch for every status.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { OPERATIONS } from '../../../src/ops/registry.ts';
import { connectMcp, mcpClient } from '../../helpers/mcp-tools.ts';
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

const connect = (key = ADMIN_KEY) => connectMcp(s.url, key);

const SPEC_TOOLS = [
  'svc_verify_signup',
  'svc_create_inbox',
  'svc_wait_and_extract',
  'svc_list_inboxes',
  'svc_wait_for_message',
  'svc_extract_verification',
  'svc_simulate_message',
  'svc_check_email',
  'svc_diagnose_inbox',
  'svc_get_inbox',
  'svc_delete_inbox',
  'svc_cleanup_inboxes',
  'svc_list_messages',
  'svc_get_raw_message',
  'svc_list_attachments',
  'svc_get_attachment',
  'svc_suggest_preset',
  'svc_issue_access',
];

describe('SDK client, session flow', () => {
  test('initialize, list tools, call tools, progress, terminate', async () => {
    const { client, transport } = await connect();
    assert.ok(transport.sessionId, 'initialize answered with Mcp-Session-Id');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of SPEC_TOOLS) assert.ok(names.includes(n), `lists ${n}`);
    assert.deepEqual(names.sort(), OPERATIONS.flatMap((o) => (o.tool ? [o.tool.name] : [])).sort(), 'exactly the registry’s tools');
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.ok((t.description ?? '').length > 60, `${t.name} has a description written for a model`);
      assert.equal(typeof t.annotations?.readOnlyHint, 'boolean');
    }
    const wait = tools.find((t) => t.name === 'svc_wait_for_message')!;
    assert.ok('inboxId' in (wait.inputSchema.properties ?? {}), 'inboxId, not id');
    assert.equal(tools.find((t) => t.name === 'svc_delete_inbox')!.annotations?.destructiveHint, true);
    assert.ok(tools.find((t) => t.name === 'svc_get_inbox')!.outputSchema);

    const v = await client.callTool({ name: 'svc_verify_signup', arguments: { service: 'github', runId: 'mcp-run-1' } });
    assert.ok(!v.isError, JSON.stringify(v.content));
    const sc = v.structuredContent as Json;
    assert.equal(sc.status, 'awaiting_message');
    assert.equal(sc.agent.primaryAction.type, 'use_address');
    const listed = (await (await s.api('/v1/inboxes?label=agent-mcp-run-1')).json()) as Json;
    assert.equal(listed.items[0].inboxId, sc.email.inboxId);

    const progress: Array<{ progress: number; total?: number }> = [];
    setTimeout(
      () =>
        void s.api(`/v1/inboxes/${sc.email.inboxId}/simulate`, {
          method: 'POST',
          json: { scenario: 'otp', service: 'github', code: '482913' },
        }),
      2300,
    );
    const r = await client.callTool(
      { name: 'svc_wait_and_extract', arguments: { inboxId: sc.email.inboxId, service: 'github', timeoutSeconds: 10 } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
        timeout: 20_000,
      },
    );
    const rs = r.structuredContent as Json;
    assert.equal(rs.status, 'verified');
    assert.equal(rs.agent.primaryAction.type, 'otp');
    assert.equal(rs.agent.primaryAction.value, '482913');
    assert.ok(progress.length >= 2, `progress notifications: ${JSON.stringify(progress)}`);
    assert.ok(progress.every((p) => p.total === 10));
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, 'progress increases');

    const raw = await client.callTool({
      name: 'svc_get_raw_message',
      arguments: { inboxId: sc.email.inboxId, messageId: rs.message.messageId },
    });
    assert.match((raw.content as Array<{ text: string }>)[0]!.text, /482913/);

    const unknown = await client.callTool({ name: 'svc_frobnicate', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match((unknown.content as Array<{ text: string }>)[0]!.text, /tools\/list/);
    const bad = await client.callTool({ name: 'svc_get_inbox', arguments: { inboxId: 'inb_nope' } });
    assert.equal(bad.isError, true);
    assert.match((bad.content as Array<{ text: string }>)[0]!.text, /not_found/);
    const invalid = await client.callTool({ name: 'svc_verify_signup', arguments: { service: 'myspace' } });
    assert.equal(invalid.isError, true);
    assert.match((invalid.content as Array<{ text: string }>)[0]!.text, /service must be one of: github/);

    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    const after = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.equal(after.status, 404);
  });

  test('agent tools: check, diagnose, attachments, suggest, issue access, cleanup', async () => {
    const { client } = await connect();
    const text = (r: Json) => (r.content as Array<{ text: string }>)[0]!.text;
    const created = (await client.callTool({ name: 'svc_create_inbox', arguments: { label: 'mcp-tools' } })).structuredContent as Json;
    const empty = (await client.callTool({ name: 'svc_diagnose_inbox', arguments: { inboxId: created.inboxId } }))
      .structuredContent as Json;
    assert.ok(
      empty.hints.some((h: string) => h.includes(created.address)),
      'hints name the address',
    );
    await client.callTool({ name: 'svc_simulate_message', arguments: { inboxId: created.inboxId, scenario: 'attachment_only' } });
    const check = (await client.callTool({ name: 'svc_check_email', arguments: { inboxId: created.inboxId } })).structuredContent as Json;
    assert.equal(check.messageCount, 1);
    assert.equal(check.newest.agent.primaryAction.type, 'manual');
    const messageId = check.latest[0].messageId;
    const atts = (await client.callTool({ name: 'svc_list_attachments', arguments: { inboxId: created.inboxId, messageId } }))
      .structuredContent as Json;
    assert.equal(atts.items[0].contentType, 'application/pdf');
    const att = await client.callTool({
      name: 'svc_get_attachment',
      arguments: { inboxId: created.inboxId, messageId, attachmentId: atts.items[0].attachmentId },
    });
    const resource = (att.content as Array<{ type: string; resource: { mimeType: string; blob: string } }>)[0]!;
    assert.equal(resource.type, 'resource');
    assert.match(Buffer.from(resource.resource.blob, 'base64').toString('latin1'), /^%PDF-/);
    const diag = (await client.callTool({ name: 'svc_diagnose_inbox', arguments: { inboxId: created.inboxId } })).structuredContent as Json;
    assert.ok(diag.hints.some((h: string) => /none of it carries a code/.test(h)));
    const suggest = (await client.callTool({ name: 'svc_suggest_preset', arguments: { hint: 'noreply@facebookmail.com' } }))
      .structuredContent as Json;
    assert.equal(suggest.service, 'facebook');
    assert.equal(
      ((await client.callTool({ name: 'svc_suggest_preset', arguments: { hint: 'Friendster' } })).structuredContent as Json).service,
      null,
    );
    const access = (await client.callTool({ name: 'svc_issue_access', arguments: {} })).structuredContent as Json;
    assert.match(access.access_token, /^ibt_/);
    assert.equal((await s.api('/v1/me', { key: access.access_token })).status, 200);
    await client.callTool({ name: 'svc_create_inbox', arguments: { label: 'mcp-tools' } });
    const cleaned = (await client.callTool({ name: 'svc_cleanup_inboxes', arguments: { label: 'mcp-tools' } })).structuredContent as Json;
    assert.equal(cleaned.deleted, 2);
    const none = await client.callTool({ name: 'svc_cleanup_inboxes', arguments: {} });
    assert.equal(none.isError, true);
    assert.match(text(none as Json), /label/);
    await client.close();
  });

  test('a session belongs to the key that opened it', async () => {
    const member = (await (await s.api('/v1/team/keys', { method: 'POST', json: { label: 'mcp member' } })).json()) as Json;
    const { transport, client } = await connect();
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${member.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
    await client.close();
  });

  test('scopes hold over MCP: a read-only key cannot create', async () => {
    const ro = (await (
      await s.api('/v1/team/keys', { method: 'POST', json: { label: 'mcp ro', scope: { readOnly: true } } })
    ).json()) as Json;
    const { client } = await connect(ro.key);
    const r = await client.callTool({ name: 'svc_create_inbox', arguments: {} });
    assert.equal(r.isError, true);
    assert.match((r.content as Array<{ text: string }>)[0]!.text, /forbidden/);
    await client.close();
  });
});

describe('OAuth with the SDK ClientCredentialsProvider', () => {
  test('401 → resource metadata → authorization server metadata → token → tool call', async () => {
    const reg = (await (await s.api('/v1/oauth/register', { method: 'POST', json: { client_name: 'mcp agent' } })).json()) as Json;
    const provider = new ClientCredentialsProvider({
      clientId: reg.client_id,
      clientSecret: reg.client_secret,
      expectedIssuer: `${s.server.services.baseUrl()}/`,
    });
    const client = await mcpClient(new URL(s.server.services.baseUrl()).origin, provider);
    const tokens = await provider.tokens();
    assert.match(tokens?.access_token ?? '', /^ibt_/);
    const r = await client.callTool({ name: 'svc_suggest_preset', arguments: { hint: 'https://github.com/signup' } });
    assert.equal((r.structuredContent as Json).service, 'github');
    await client.close();
  });
});

describe('raw HTTP: statuses and the stateless call', () => {
  const rpc = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}`, ...headers },
      body: JSON.stringify(body),
    });
  const call = (name: string, args: Json, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  test('stateless tools/call with Accept: application/json answers JSON', async () => {
    const res = await rpc(call('svc_create_inbox', { label: 'stateless' }), { accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const j = (await res.json()) as Json;
    assert.match(j.result.structuredContent.inboxId, /^inb_/);
    assert.equal(res.headers.get('mcp-session-id'), null);
  });

  test('stateless tools/call with only Accept: text/event-stream streams progress and the result', async () => {
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    setTimeout(() => void s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'magic_link' } }), 1300);
    const res = await rpc(
      {
        ...call('svc_wait_for_message', { inboxId: inbox.inboxId, timeoutSeconds: 10 }),
        params: { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 10 }, _meta: { progressToken: 'p1' } },
      },
      { accept: 'text/event-stream' },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const text = await res.text();
    assert.match(text, /notifications\/progress/);
    assert.match(text, /"progressToken":"p1"/);
    assert.match(text, /"result"/);
  });

  test('401 without a token (no error=), with a bad token (invalid_token); both point at the metadata', async () => {
    const none = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(call('svc_list_inboxes', {})),
    });
    assert.equal(none.status, 401);
    const h1 = none.headers.get('www-authenticate') ?? '';
    assert.match(h1, /^Bearer resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    const bad = await rpc(call('svc_list_inboxes', {}), { authorization: 'Bearer ibx_notakey', accept: 'application/json' });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.match(bad.headers.get('www-authenticate') ?? '', /resource_metadata="/);
  });

  test('GET without a session → 400; unknown session → 404; notification → 202; bad Origin → 403; PUT → 405', async () => {
    const get = await fetch(mcpUrl, { headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'text/event-stream' } });
    assert.equal(get.status, 400);
    const unknown = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
    );
    assert.equal(unknown.status, 404);
    const note = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, { accept: 'application/json, text/event-stream' });
    assert.equal(note.status, 202);
    const origin = await rpc(call('svc_list_inboxes', {}), { accept: 'application/json', origin: 'https://evil.example' });
    assert.equal(origin.status, 403);
    const put = await fetch(mcpUrl, { method: 'PUT', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(put.status, 405);
  });

  test('a JSON-only session gets its progress on the GET /mcp stream', async () => {
    const init = await rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'json', version: '1' } },
      },
      { accept: 'application/json' },
    );
    assert.equal(init.status, 200);
    assert.match(init.headers.get('content-type') ?? '', /application\/json/);
    const sid = init.headers.get('mcp-session-id')!;
    await init.json();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const ac = new AbortController();
    const stream = await fetch(mcpUrl, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...headers, accept: 'text/event-stream' },
      signal: ac.signal,
    });
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
    setTimeout(() => void s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } }), 1300);
    const res = await rpc(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 10 }, _meta: { progressToken: 'g1' } },
      },
      { accept: 'application/json', ...headers },
    );
    assert.equal(res.status, 200);
    const body = (await res.json()) as Json;
    assert.equal(body.result.isError, undefined);
    ac.abort();
    await reading;
    assert.match(seen, /notifications\/progress/);
    assert.match(seen, /"progressToken":"g1"/);
  });

  test('GET opens the session stream; DELETE ends the session', async () => {
    const init = await rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      { accept: 'application/json, text/event-stream' },
    );
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id')!;
    assert.ok(sid);
    await init.text();
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const ac = new AbortController();
    const stream = await fetch(mcpUrl, { headers: { ...headers, accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    ac.abort();
    const del = await fetch(mcpUrl, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    const again = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
    );
    assert.equal(again.status, 404);
  });
});
