// svc_list_threads through the official MCP SDK client: the list, one thread with its messages, scope and errors.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const connect = (key = ADMIN_KEY) => mcpClient(s.url, key);

test('svc_list_threads lists threads and, with threadId, returns one with its messages', async () => {
  const client = await connect();
  try {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'svc_list_threads');
    assert.ok(tool, 'svc_list_threads is listed');
    assert.deepEqual(tool.inputSchema.required, ['inboxId']);
    assert.equal(tool.annotations?.readOnlyHint, true);
    assert.deepEqual(undescribedArgs(tool.inputSchema as Json, tool.name), []);
    assert.equal(tool.outputSchema?.type, 'object');

    const created = (await client.callTool({ name: 'svc_create_inbox', arguments: {} })).structuredContent as Json;
    await sendMail(s.server.smtpPort, { to: created.address, subject: 'Hello', text: 'one', messageId: '<m1@x.test>' });
    await sendMail(s.server.smtpPort, { to: created.address, subject: 'Re: Hello', text: 'two', inReplyTo: '<m1@x.test>' });
    await sendMail(s.server.smtpPort, { to: created.address, subject: 'Other', text: 'three' });

    const list = (await client.callTool({ name: 'svc_list_threads', arguments: { inboxId: created.inboxId } })).structuredContent as Json;
    assert.deepEqual(
      list.items.map((t: Json) => [t.subject, t.messageCount]),
      [
        ['Other', 1],
        ['Hello', 2],
      ],
    );
    assert.equal(list.nextCursor, null);
    assert.equal(list.thread, undefined);

    const hello = list.items[1];
    const one = (await client.callTool({ name: 'svc_list_threads', arguments: { inboxId: created.inboxId, threadId: hello.threadId } }))
      .structuredContent as Json;
    assert.deepEqual(one.items, []);
    assert.equal(one.thread.threadId, hello.threadId);
    assert.deepEqual(
      one.thread.messages.map((m: Json) => [m.subject, m.threadId]),
      [
        ['Hello', hello.threadId],
        ['Re: Hello', hello.threadId],
      ],
    );
    // The same as REST.
    const rest = await json(await s.api(`/v1/inboxes/${created.inboxId}/threads/${hello.threadId}`));
    assert.deepEqual(one.thread, rest);

    const missing = await client.callTool({ name: 'svc_list_threads', arguments: { inboxId: created.inboxId, threadId: 'thr_nope' } });
    assert.equal(missing.isError, true);
    assert.match(JSON.stringify(missing.content), /not_found/);
    const badCursor = await client.callTool({ name: 'svc_list_threads', arguments: { inboxId: created.inboxId, cursor: 'bogus' } });
    assert.equal(badCursor.isError, true);
    assert.match(JSON.stringify(badCursor.content), /validation_failed/);

    // A key scoped to another label does not see the inbox's threads.
    const scoped = (
      await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'x', scope: { labelPrefix: 'elsewhere-' } } }), 201)
    ).key as string;
    const other = await connect(scoped);
    try {
      const denied = await other.callTool({ name: 'svc_list_threads', arguments: { inboxId: created.inboxId } });
      assert.equal(denied.isError, true);
      assert.match(JSON.stringify(denied.content), /not_found/);
    } finally {
      await other.close();
    }
  } finally {
    await client.close();
  }
});
