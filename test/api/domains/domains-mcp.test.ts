// The three domain tools through the official MCP SDK client: add → publish → verify → list, and a member key refused.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startDns, type TestDns } from '../../helpers/dns.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
let dns: TestDns;

before(async () => {
  dns = await startDns();
  s = await startTestServer(['--dns-server', dns.address, '--mx-host', 'mx.inboxd.test']);
});
after(async () => {
  await s.stop();
  await dns.close();
});

const connect = (key: string) => mcpClient(s.url, key);

async function call(client: Client, name: string, args: Json): Promise<{ isError: boolean; value: Json; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Json;
    content: Array<{ text?: string }>;
  };
  return { isError: r.isError === true, value: r.structuredContent ?? {}, text: r.content.map((c) => c.text ?? '').join('') };
}

test('svc_add_domain → publish → svc_verify_domain → svc_list_domains', async () => {
  const client = await connect(ADMIN_KEY);
  try {
    const tools = (await client.listTools()).tools;
    const add = tools.find((t) => t.name === 'svc_add_domain')!;
    assert.deepEqual(Object.keys(add.inputSchema.properties ?? {}), ['domain']);
    assert.ok(tools.find((t) => t.name === 'svc_verify_domain')!.inputSchema.properties?.domainId);

    const added = await call(client, 'svc_add_domain', { domain: 'agents.example' });
    assert.equal(added.isError, false, added.text);
    assert.equal(added.value.status, 'pending');
    assert.doesNotMatch(added.text, /PRIVATE KEY/);
    for (const r of added.value.records as Json[]) dns.set(r.name, [...(dns.zone.get(r.name) ?? []), { type: r.type, value: r.value }]);

    const verified = await call(client, 'svc_verify_domain', { domainId: added.value.domainId });
    assert.equal(verified.isError, false, verified.text);
    assert.equal(verified.value.status, 'verified');
    assert.equal(verified.value.signing, true);

    const listed = await call(client, 'svc_list_domains', {});
    assert.deepEqual(
      (listed.value.items as Json[]).map((d) => [d.domain, d.status]),
      [['agents.example', 'verified']],
    );
    const missing = await call(client, 'svc_verify_domain', { domainId: 'dom_nope' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /no domain dom_nope/);
  } finally {
    await client.close();
  }
});

test('a member key is refused by the domain tools', async () => {
  const created = (await (await s.api('/v1/team/keys', { method: 'POST', json: { label: 'member', role: 'member' } })).json()) as Json;
  const client = await connect(created.key);
  try {
    const r = await call(client, 'svc_add_domain', { domain: 'member.example' });
    assert.equal(r.isError, true);
    assert.match(r.text, /forbidden|admin/i);
  } finally {
    await client.close();
  }
});
