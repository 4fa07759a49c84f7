// A raw message or attachment whose blob file is gone from disk (deleted by hand, a restore that lost files):
// REST answers a clean problem+json instead of cutting the connection, MCP an isError result naming no file path,
// and the server logs it once with the message id.
// not @cluster: deletes local blob files (a shared bucket has none)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let inbox: Json;
let msg: Json;
let att: Json;
before(async () => {
  s = await startTestServer();
  inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  await sendMail(s.server.smtpPort, {
    to: inbox.address,
    subject: 'with a file',
    text: 'see attached',
    attachments: [{ filename: 'a.txt', content: 'attached bytes' }],
  });
  msg = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`));
  att = (await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments`))).items[0];
  const raw = await json(
    await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { headers: { accept: 'application/json' } }),
  );
  // Both blobs were appended to the segment store; losing its files (a restore that missed them) loses both. On
  // PostgreSQL there are no segments (their index lives in SQLite): each blob is its own file blobs/ab/cdef….
  assert.ok((await s.server.parts.blobs.exists(raw.sha256)) && (await s.server.parts.blobs.exists(att.sha256)));
  const segments = path.join(s.dataDir, 'blobs', 'segments');
  if (s.server.parts.blobs.segments) for (const f of fs.readdirSync(segments)) fs.rmSync(path.join(segments, f));
  else for (const sha of [raw.sha256, att.sha256]) fs.rmSync(path.join(s.dataDir, 'blobs', sha.slice(0, 2), sha.slice(2)));
});
after(() => s.stop());

const missingLogs = () => s.logs.filter((l) => /missing from the blob store/.test(l));

test('REST: a missing raw or attachment blob is a 500 problem+json naming the message, logged once', async () => {
  for (const [what, url] of [
    ['raw message', `/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`],
    ['attachment', `/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments/${att.attachmentId}`],
  ] as const) {
    const logsBefore = missingLogs().length;
    const res = await s.api(url);
    assert.equal(res.status, 500, what);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    const p = (await res.json()) as Json;
    assert.equal(p.code, 'internal');
    assert.match(p.detail, new RegExp(`the ${what} of ${msg.messageId} is missing from the blob store; check the data dir`));
    assert.ok(!p.detail.includes(s.dataDir), 'no file path in the answer');
    const logged = missingLogs().slice(logsBefore);
    assert.equal(logged.length, 1, `logged once: ${logged.join('\n')}`);
    assert.equal(JSON.parse(logged[0]!).messageId, msg.messageId);
  }
  // The message itself (parsed fields) is still readable.
  assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}`)).status, 200);
});

test('MCP: the raw and attachment tools answer isError without any file path', async () => {
  const client = await mcpClient(s.url, ADMIN_KEY);
  try {
    for (const [name, args] of [
      ['svc_get_raw_message', { inboxId: inbox.inboxId, messageId: msg.messageId }],
      ['svc_get_attachment', { inboxId: inbox.inboxId, messageId: msg.messageId, attachmentId: att.attachmentId }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, name);
      const text = (r.content as Array<{ type: string; text: string }>)[0]!.text;
      assert.match(text, /missing from the blob store; check the data dir/);
      assert.ok(!text.includes(s.dataDir) && !text.includes('/blobs/'), `no file path: ${text}`);
    }
  } finally {
    await client.close();
  }
});
