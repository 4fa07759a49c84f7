// The official MCP SDK client for tool tests (mailbox and calendar providers), and calls that assert success or a
// tool error.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

type Json = Record<string, any>;

export async function mcpClient(url: string, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const c = new Client({ name: 'inboxd-tool-test', version: '1.0.0' });
  await c.connect(transport);
  return c;
}

export async function callOk(c: Client, name: string, args: Json = {}): Promise<Json> {
  const r = (await c.callTool({ name, arguments: args })) as Json;
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
}

export async function callErr(c: Client, name: string, args: Json = {}): Promise<string> {
  const r = (await c.callTool({ name, arguments: args })) as Json;
  assert.equal(r.isError, true, `${name} should fail: ${JSON.stringify(r.structuredContent ?? r.content)}`);
  return String(r.content[0].text);
}
