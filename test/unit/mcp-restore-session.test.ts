// A session opened on another instance is rebuilt from its row (src/mcp/endpoint.ts restoreSession): the SDK has no
// public way to do that, so this checks the fields it sets still mean what they did — the transport then serves a
// request of that session (not 400 "Server not initialized" or 404) and the server knows the client.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionRow } from '../../src/auth/mcp-session-repo.ts';
import { restoreSession } from '../../src/mcp/endpoint.ts';

test('a transport and server restored from a session row serve that session', async () => {
  const row: McpSessionRow = {
    id: 'sess-1',
    key_id: 'key_1',
    team_id: 'team_1',
    protocol_version: '2025-11-25',
    client_json: JSON.stringify({ name: 'elsewhere', version: '3' }),
    capabilities_json: JSON.stringify({ roots: { listChanged: true } }),
    subscriptions_json: '[]',
    toolsets_json: null,
    json_only: 1,
    busy: 0,
    created_at: 0,
    last_seen: 0,
  };
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => row.id, enableJsonResponse: true });
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
  restoreSession(transport, server, row);
  await server.connect(transport);
  assert.equal(transport.sessionId, row.id);
  assert.deepEqual(server.getClientVersion(), { name: 'elsewhere', version: '3' });
  assert.deepEqual(server.getClientCapabilities(), { roots: { listChanged: true } });
  const http = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  try {
    const port = (http.address() as { port: number }).port;
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': row.id },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { result: unknown }).result, { tools: [] });
    const other = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'other' },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(other.status, 404);
  } finally {
    http.closeAllConnections();
    http.close();
    await server.close();
  }
});
