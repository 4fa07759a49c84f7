// A stop between deleting messages and collecting what they used (kill -9, power loss) leaves contents and blobs
// nothing references. The next start finds them and collects them; mail still referenced is never touched.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { json } from '../helpers/http.ts';
import { startTestServer, tempDir } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

test('contents and blobs left unreferenced by an interrupted delete are collected at the next start', async () => {
  const dataDir = tempDir();
  let s = await startTestServer([], {}, { dataDir });
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  await sendMail(s.server.smtpPort, {
    to: inbox.address,
    subject: 'goes',
    text: 'deleted without collection',
    attachments: [{ filename: 'a.txt', content: 'attachment bytes that go too' }],
  });
  const gone = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&includeBody=false`));
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'stays', text: 'kept' });
  const kept = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&includeBody=false&since=${gone.messageId}`));
  const sql = s.server.services.store.sqlite!;
  const goneSha = (sql.prepare('select content_sha256 as s from message_rows where id = ?').get(gone.messageId) as { s: string }).s;
  const attSha = (sql.prepare('select sha256 as s from content_attachments where content_sha256 = ?').get(goneSha) as { s: string }).s;
  // The delete committed, the collection never ran (as if killed in between).
  sql.prepare('delete from message_rows where id = ?').run(gone.messageId);
  await s.stop();

  s = await startTestServer([], {}, { dataDir });
  try {
    const sql2 = s.server.services.store.sqlite!;
    const count = (q: string, v: string) => (sql2.prepare(q).get(v) as { n: number }).n;
    // The sweep runs in the background after the start and logs what it collected when it is done.
    const logged = () => s.logs.some((l) => l.includes('unreferenced content and blobs collected'));
    for (let i = 0; i < 400 && !logged(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(logged(), 'the sweep reports what it collected');
    assert.equal(count('select count(*) as n from contents where sha256 = ?', goneSha), 0, 'orphan content removed');
    assert.equal(count('select count(*) as n from content_attachments where content_sha256 = ?', goneSha), 0);
    assert.equal(count('select count(*) as n from segment_blobs where sha256 = ?', goneSha), 0, 'raw blob unindexed');
    assert.equal(count('select count(*) as n from segment_blobs where sha256 = ?', attSha), 0, 'attachment blob unindexed');
    const raw = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${kept.messageId}/raw`);
    assert.equal(raw.status, 200, 'the message still referenced keeps its bytes');
    assert.match(await raw.text(), /Subject: stays/);
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
