// A stop between deleting messages and collecting what they used (kill -9, power loss) leaves contents and blobs
// nothing references. The next start finds them and collects them; mail still referenced is never touched.
// not @cluster: checks local blob files and segments after an interrupted delete
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

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
  // Through the query builder, so the case runs on SQLite and PostgreSQL alike.
  const db = s.server.parts.store.db;
  const goneSha = (await db.selectFrom('message_rows').select('content_sha256').where('id', '=', gone.messageId).executeTakeFirstOrThrow())
    .content_sha256;
  const attSha = (
    await db.selectFrom('content_attachments').select('sha256').where('content_sha256', '=', goneSha).executeTakeFirstOrThrow()
  ).sha256;
  assert.ok((await s.server.parts.blobs.exists(goneSha)) && (await s.server.parts.blobs.exists(attSha)));
  // The delete committed, the collection never ran (as if killed in between).
  await db.deleteFrom('message_rows').where('id', '=', gone.messageId).execute();
  await s.stop();

  s = await startTestServer([], {}, { dataDir });
  try {
    const db2 = s.server.parts.store.db;
    const count = async (table: 'contents' | 'content_attachments', column: 'sha256' | 'content_sha256', v: string) =>
      Number(
        (
          await db2
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where(column, '=', v)
            .executeTakeFirstOrThrow()
        ).n,
      );
    // The sweep runs in the background after the start and logs what it collected when it is done.
    const logged = () => s.logs.some((l) => l.includes('unreferenced content and blobs collected'));
    for (let i = 0; i < 400 && !logged(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(logged(), 'the sweep reports what it collected');
    assert.equal(await count('contents', 'sha256', goneSha), 0, 'orphan content removed');
    assert.equal(await count('content_attachments', 'content_sha256', goneSha), 0);
    // Unindexed from the segments on SQLite; the per-sha files deleted on PostgreSQL.
    assert.ok(!(await s.server.parts.blobs.exists(goneSha)), 'raw blob gone');
    assert.ok(!(await s.server.parts.blobs.exists(attSha)), 'attachment blob gone');
    const raw = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${kept.messageId}/raw`);
    assert.equal(raw.status, 200, 'the message still referenced keeps its bytes');
    assert.match(await raw.text(), /Subject: stays/);
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
