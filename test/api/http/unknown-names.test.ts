// An unknown name in a request is refused naming where it was (a query parameter, a body field, a tool argument) and
// the nearest known name, so `?timeout=5` tells the caller to write `timeoutSeconds` (issue 27).
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { callErr, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let inboxId: string;
before(async () => {
  s = await startTestServer();
  inboxId = (await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201)).inboxId;
});
after(() => s.stop());

test('an unknown query parameter is named as one, with the nearest known one', async () => {
  const r = await json(await s.api(`/v1/inboxes/${inboxId}/wait?timeout=5`), 400);
  assert.equal(r.code, 'validation_failed');
  assert.equal(r.detail, '(query): unknown query parameter: timeout (did you mean timeoutSeconds?)');
  assert.deepEqual(r.errors, [{ path: '(query)', message: 'unknown query parameter: timeout (did you mean timeoutSeconds?)' }]);
});

test('an unknown query parameter that is like none is named without a guess', async () => {
  const r = await json(await s.api(`/v1/inboxes/${inboxId}/wait?zzzzqqq=1&timeoutSeconds=0`), 400);
  assert.equal(r.detail, '(query): unknown query parameter: zzzzqqq');
});

test('an unknown body field gets the nearest known field', async () => {
  const r = await json(await s.api('/v1/inboxes', { method: 'POST', json: { lable: 'x' } }), 400);
  assert.equal(r.detail, '(body): unknown field: lable (did you mean label?)');
  const v = await json(await s.api('/v1/agent/verify', { method: 'POST', json: { inboxId, timeout: 1 } }), 400);
  assert.match(v.detail, /^\(body\): unknown field: timeout \(did you mean timeoutSeconds\?\)$/);
});

test('an unknown MCP tool argument gets the nearest known argument', async () => {
  const c = await mcpClient(s.url, s.key);
  try {
    const text = await callErr(c, 'svc_wait_for_message', { inboxId, timeout: 1 });
    assert.match(text, /unknown argument: timeout \(did you mean timeoutSeconds\?\)/);
  } finally {
    await c.close();
  }
});
