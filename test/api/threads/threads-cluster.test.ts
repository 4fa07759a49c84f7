// Threads on a PostgreSQL cluster (issue 20): replies arriving at one instance while another deletes messages of the
// same thread. Each instance has its own write queue, so only the database orders them (the inbox's row lock); the
// thread rows must still match their messages afterwards.
// not @cluster: starts its own two instances on PostgreSQL
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { checkThreadInvariants } from '../../helpers/threads.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.log(`# skipped: ${missing}`);

test('replies on one instance, deletes on the other: counts and newest message stay right', { skip: missing ?? false }, async () => {
  const pg = await startPostgres();
  const blobDir = tempDir('inboxd-blobs-');
  const database = await pg.createDatabase('threads_cluster');
  const a = await startTestServer([], {}, { database, blobDir });
  const b = await startTestServer([], {}, { database, blobDir });
  try {
    const ib = await json(await a.api('/v1/inboxes', { method: 'POST', json: { ttlMinutes: 600 } }), 201);
    const stored = async (subject: string, headers: Record<string, string>) => {
      const r = await sendMail(a.server.smtpPort, { to: ib.address, subject, text: subject, headers });
      return /stored as (msg_\w+)/.exec(r.response)![1]!;
    };
    const ids = [await stored('Plan', { 'Message-ID': '<root@x.test>' })];
    for (let i = 1; i <= 8; i++)
      ids.push(await stored(`Re: Plan ${i}`, { 'Message-ID': `<r${i}@x.test>`, 'In-Reply-To': '<root@x.test>' }));
    // Rounds of one reply into A and one delete through B at the same moment, on the same thread.
    for (let i = 1; i <= 8; i++) {
      const [, del] = await Promise.all([
        stored(`Re: Plan late ${i}`, { 'Message-ID': `<late${i}@x.test>`, 'In-Reply-To': '<root@x.test>' }),
        b.api(`/v1/inboxes/${ib.inboxId}/messages/${ids[i]}`, { method: 'DELETE' }),
      ]);
      assert.ok(del.ok, `delete ${i}: ${del.status}`);
    }
    await checkThreadInvariants(a.server.parts.store.db as never);
    const list = await json(await b.api(`/v1/inboxes/${ib.inboxId}/threads`));
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0].messageCount, 9, 'the root and 8 late replies');
  } finally {
    await a.stop();
    await b.stop();
    await pg.stop();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
});
