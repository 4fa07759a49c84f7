// A crash mid-append leaves the newest segment torn. On restart every acknowledged message is readable, the torn
// tail is cut off, rows whose bytes never reached the disk (committed, never acknowledged) are dropped, and the
// database passes its integrity check.
// not @cluster: tears the SQLite-mode segment and database of a crashed process
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const skip = TEST_ON_POSTGRES
  ? 'SQLite only: on PostgreSQL rows commit only after the segment and its index are synced, so committed rows without their bytes cannot arise (the kill tests in test/e2e/crash.test.ts and test/api/store/pg-segments.test.ts cover that path)'
  : false;

const newestSegment = (dataDir: string) => {
  const dir = path.join(dataDir, 'blobs', 'segments');
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.seg'))
    .sort();
  return path.join(dir, names.at(-1)!);
};

async function sendAll(s: Awaited<ReturnType<typeof startTestServer>>, address: string, n: number, tag: string) {
  for (let i = 0; i < n; i++)
    await sendMail(s.server.smtpPort, { to: address, subject: `${tag}-${i}`, text: `body ${tag} ${i} `.repeat(50) });
}

test('a torn tail is cut off on restart; acknowledged mail stays readable; committed-but-unsynced rows go', { skip }, async () => {
  const dataDir = tempDir();
  try {
    let s = await startTestServer([], {}, { dataDir });
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    await sendAll(s, inbox.address, 5, 'acked');
    // The last message stands for one whose rows were committed but whose bytes never reached the disk.
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'torn', text: 'torn bytes '.repeat(200) });
    await s.stop();

    const seg = newestSegment(dataDir);
    const size = fs.statSync(seg).size;
    // Cut the last record in half, then add half a record more (an append whose commit never happened).
    fs.truncateSync(seg, size - 1000);
    const header = Buffer.alloc(40);
    header.write('IBXS', 0);
    header.writeUInt32BE(5000, 4);
    fs.appendFileSync(seg, Buffer.concat([header, Buffer.alloc(1234, 0x41)]));

    s = await startTestServer([], {}, { dataDir });
    try {
      assert.ok(
        s.logs.some((l) => /recovered the blob store/.test(l) && /"unacknowledgedBlobsDropped":1/.test(l)),
        'recovery is logged with what it dropped',
      );
      const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages?limit=50`));
      const subjects = (list.items as Json[]).map((m) => m.subject).sort();
      assert.deepEqual(subjects, ['acked-0', 'acked-1', 'acked-2', 'acked-3', 'acked-4']);
      for (const m of list.items as Json[]) {
        const raw = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}/raw`);
        assert.equal(raw.status, 200);
        assert.match(await raw.text(), new RegExp(`Subject: ${m.subject}`));
      }
      // The torn bytes are gone from the file: it ends where the last good record ends.
      const rows = s.server.parts.store
        .sqlite!.prepare('select max(offset + length) as end from segment_blobs where segment = (select max(segment) from segment_blobs)')
        .get() as { end: number };
      assert.equal(fs.statSync(newestSegment(dataDir)).size, rows.end);
      // New mail after the recovery is appended where the torn tail was and reads back.
      await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'after', text: 'after the crash' });
      const all = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages?limit=50`));
      const after = (all.items as Json[]).find((m) => m.subject === 'after')!;
      const raw = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${after.messageId}/raw`);
      assert.match(await raw.text(), /after the crash/);
    } finally {
      await s.stop();
    }
    const db = new BetterSqlite3(path.join(dataDir, 'inboxd.db'), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(db.pragma('foreign_key_check'), []);
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a segment file lost entirely (never synced) drops only its unacknowledged rows', { skip }, async () => {
  const dataDir = tempDir();
  try {
    let s = await startTestServer([], {}, { dataDir });
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    await sendAll(s, inbox.address, 2, 'only');
    await s.stop();
    fs.rmSync(newestSegment(dataDir));
    s = await startTestServer([], {}, { dataDir });
    try {
      const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
      assert.equal(list.items.length, 0);
      await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'fresh', text: 'fresh' });
      const m = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=5`));
      assert.match(await (await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}/raw`)).text(), /fresh/);
    } finally {
      await s.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
