// The one way tests reach /mcp with the official MCP SDK client (streamable HTTP), and calls that assert success or
// a tool error. Tests that check odd transports or headers at the HTTP level send raw requests instead.
import assert from 'node:assert/strict';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GLOSSARY, SELF_DESCRIBING } from '../../src/mcp/schema.ts';

type Json = Record<string, any>;

export interface McpConnection {
  client: Client;
  /** The session's transport (its `sessionId`, `terminateSession()`), for tests of sessions themselves. */
  transport: StreamableHTTPClientTransport;
}

/**
 * A client connected (initialized) to `${url}/mcp`, authenticated by a bearer key or token, or by an OAuth provider
 * (the SDK then follows 401 → discovery → token itself). Close it with `client.close()`. `query` is appended to the
 * URL (e.g. `?toolsets=verify`).
 */
export async function connectMcp(url: string, auth: string | OAuthClientProvider, query = ''): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`${url}/mcp${query}`),
    typeof auth === 'string' ? { requestInit: { headers: { authorization: `Bearer ${auth}` } } } : { authProvider: auth },
  );
  const client = new Client({ name: 'inboxd-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** `connectMcp` when only the client is needed. */
export async function mcpClient(url: string, auth: string | OAuthClientProvider, query = ''): Promise<Client> {
  return (await connectMcp(url, auth, query)).client;
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

/**
 * The arguments of a tool's input schema (at any depth) that are described nowhere: not in the schema, not in the
 * server instructions' glossary (arguments many tools share, src/mcp/schema.ts GLOSSARY) and not by their own name
 * (SELF_DESCRIBING, a reviewed list).
 */
export function undescribedArgs(schema: Json, path: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const described = typeof v.description === 'string' && v.description.trim().length >= 3;
    if (!described && !(k in GLOSSARY) && !SELF_DESCRIBING.has(k)) out.push(`${path}.${k}`);
    const items = v.items as Json | undefined;
    if (v.properties) out.push(...undescribedArgs(v, `${path}.${k}`));
    if (items?.properties) out.push(...undescribedArgs(items, `${path}.${k}[]`));
    for (const alt of (v.anyOf ?? []) as Json[]) if (alt.properties) out.push(...undescribedArgs(alt, `${path}.${k}`));
  }
  return out;
}
