// MCP toolsets: a connection chooses its sets (/mcp?toolsets=…, else --mcp-toolsets, else every tool) and is given
// only their tools; a call outside them answers which set has the tool; a key's scope hides the tools it can never
// call; GET /v1 and /mcp/auth list the sets and their tools. Through the official TypeScript SDK client (the Python
// MCP SDK is not installable here: PyPI is unreachable).
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TOOLSET_BY_NAME } from '../../../src/ops/toolsets.ts';
import { json } from '../../helpers/http.ts';
import { callErr, callOk, connectMcp, mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
/** The six tools (test/unit/mcp-toolsets.test.ts pins the list). */
const VERIFY = TOOLSET_BY_NAME.get('verify')!.tools;

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const names = async (c: Awaited<ReturnType<typeof mcpClient>>) => (await c.listTools()).tools.map((t) => t.name).sort();

describe('?toolsets=', () => {
  test('verify: the SDK client sees only the verify set; a tool outside it names the set that has it', async () => {
    const { client, transport } = await connectMcp(s.url, ADMIN_KEY, '?toolsets=verify');
    assert.ok(transport.sessionId);
    assert.deepEqual(await names(client), [...VERIFY].sort());
    const inbox = await callOk(client, 'svc_create_inbox');
    assert.match(inbox.inboxId, /^inb_/);
    const err = await callErr(client, 'svc_search_messages', { query: 'hello' });
    assert.match(err, /svc_search_messages is in the toolset search \(also in mail\)/);
    assert.match(err, /\/mcp\?toolsets=verify,search/);
    await client.close();
  });

  test('several sets are their union; all is every tool', async () => {
    const c = await mcpClient(s.url, ADMIN_KEY, '?toolsets=verify,faults');
    const listed = await names(c);
    assert.equal(listed.length, 10);
    assert.ok(listed.includes('svc_set_fault_rules') && listed.includes('svc_verify_signup'));
    await c.close();
    const all = await mcpClient(s.url, ADMIN_KEY, '?toolsets=all');
    const every = await names(all);
    const discovery = await json(await s.api('/v1'));
    assert.deepEqual(every, [...discovery.tools].sort());
    await all.close();
  });

  test('stateless calls honour the query too', async () => {
    const res = await fetch(`${s.url}/mcp?toolsets=verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const body = await json(res);
    assert.deepEqual(body.result.tools.map((t: Json) => t.name).sort(), [...VERIFY].sort());
  });

  test('an unknown toolset is refused with the known ones', async () => {
    const res = await fetch(`${s.url}/mcp?toolsets=verify,nope`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as Json;
    assert.match(body.error.message, /unknown toolset nope; known: all, runs, mail, .*verify/);
  });
});

describe('a key’s scope', () => {
  test('a read-only member key is not given tools it can never call', async () => {
    const ro = await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ts ro', scope: { readOnly: true } } }), 201);
    const c = await mcpClient(s.url, ro.key);
    const listed = await names(c);
    assert.ok(listed.includes('svc_list_inboxes'));
    for (const hidden of ['svc_create_inbox', 'svc_delete_inbox', 'svc_add_domain', 'svc_set_fault_rules'])
      assert.ok(!listed.includes(hidden), `${hidden} is hidden from a read-only key`);
    // Still the pipeline's clear refusal when called anyway.
    assert.match(await callErr(c, 'svc_create_inbox'), /forbidden/);
    await c.close();
  });
});

describe('discovery', () => {
  test('GET /v1 and GET /mcp/auth list the toolsets and their tools', async () => {
    for (const path of ['/v1', '/mcp/auth']) {
      const body = await json(await fetch(`${s.url}${path}`));
      const sets = new Map<string, Json>(body.toolsets.map((t: Json) => [t.name, t]));
      assert.deepEqual(sets.get('verify')!.tools, VERIFY, path);
      const groups = body.toolsets.filter((t: Json) => t.kind === 'group');
      assert.deepEqual(
        groups.map((g: Json) => g.name),
        ['runs', 'mail', 'workspace', 'mailbox', 'calendar'],
      );
      assert.ok(!sets.has('other'), `${path}: every tool is in a group`);
    }
  });
});

describe('--mcp-toolsets', () => {
  test('the server default applies when the URL names none; the URL overrides it', async () => {
    const t = await startTestServer(['--mcp-toolsets', 'verify,labels']);
    try {
      const c = await mcpClient(t.url, ADMIN_KEY);
      const listed = await names(c);
      assert.equal(listed.length, 10);
      assert.ok(listed.includes('svc_create_label_rule'));
      assert.match(await callErr(c, 'svc_list_threads', { inboxId: 'inb_x' }), /in the toolset search/);
      await c.close();
      const all = await mcpClient(t.url, ADMIN_KEY, '?toolsets=all');
      assert.ok((await names(all)).length > 70);
      await all.close();
    } finally {
      await t.stop();
    }
  });

  test('an unknown name stops the start with the known ones', async () => {
    await assert.rejects(startTestServer(['--mcp-toolsets', 'verify,nope']), /--mcp-toolsets: unknown toolset nope; known: all, runs/);
  });
});
