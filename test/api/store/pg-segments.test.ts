// On PostgreSQL without --blob-store, the data dir's blobs go to segment files indexed in blobs/index.db (a SQLite
// file of the instance's own), as on SQLite, instead of one synced file per blob. What the index must never do:
// keep a row for a batch PostgreSQL refused, lose a blob when the index file is gone, keep rows a crash before COMMIT
// left behind, or stop compaction from reclaiming deleted mail.
// not @cluster: runs on its own PostgreSQL with the data dir's local blob folder (a cluster run uses S3)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openBlobStore } from '../../../src/store/blob-open.ts';
import { LocalBlobStore } from '../../../src/store/blobs.ts';
import { compactSegments } from '../../../src/store/compaction.ts';
import { type Json, json } from '../../helpers/http.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
const skip = missing ?? false;

let pg: PgServer;
let n = 0;
/** Servers of the running test, stopped however it ends (a failed assertion must not leave one running). */
const stopAtEnd: Array<() => Promise<void>> = [];
const stopAll = async () => {
  for (const stop of stopAtEnd.splice(0)) await stop().catch(() => undefined);
};
before(async () => {
  if (!skip) pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
});

/** A fresh data dir and database for one test; its servers are stopped and the dir removed however it ends. */
async function onFreshDataDir(fn: (dataDir: string, database: string) => Promise<void>): Promise<void> {
  const dataDir = tempDir();
  try {
    await fn(dataDir, await pg.createDatabase(`seg${++n}`));
  } finally {
    await stopAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function server(dataDir: string, database: string, args: string[] = []): Promise<TestServer> {
  return startTestServer(args, {}, { dataDir, database });
}

const indexRows = (dataDir: string): number => {
  const db = new BetterSqlite3(path.join(dataDir, 'blobs', 'index.db'), { readonly: true });
  try {
    return (db.prepare('select count(*) n from segment_blobs').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

async function rawOf(s: TestServer, inboxId: string): Promise<Map<string, string>> {
  const list = await json(await s.api(`/v1/inboxes/${inboxId}/messages?limit=100`));
  const out = new Map<string, string>();
  for (const m of list.items as Json[]) {
    const res = await s.api(`/v1/inboxes/${inboxId}/messages/${m.messageId}/raw`);
    assert.equal(res.status, 200, `raw of ${m.subject}`);
    out.set(m.subject as string, await res.text());
  }
  return out;
}

test('blobs go to segments indexed in blobs/index.db; a missing index is rebuilt from the segments at start', { skip }, () =>
  onFreshDataDir(async (dataDir, database) => {
    let s = await server(dataDir, database);
    stopAtEnd.push(() => s.stop());
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    for (let i = 0; i < 6; i++)
      await sendMail(s.server.smtpPort, {
        to: inbox.address,
        subject: `m${i}`,
        text: `body ${i}`,
        attachments: [{ filename: 'a.bin', content: crypto.randomBytes(3000) }],
      });
    const before = await rawOf(s, inbox.inboxId);
    assert.equal(before.size, 6);
    await s.stop();
    const blobs = path.join(dataDir, 'blobs');
    assert.ok(fs.readdirSync(path.join(blobs, 'segments')).some((f) => f.endsWith('.seg')));
    assert.deepEqual(
      fs.readdirSync(blobs).filter((f) => /^[0-9a-f]{2}$/.test(f)),
      [],
      'no file per blob',
    );
    assert.equal(indexRows(dataDir), 12, 'six raws and six attachments indexed');

    for (const f of fs.readdirSync(blobs)) if (f.startsWith('index.db')) fs.rmSync(path.join(blobs, f));
    s = await server(dataDir, database);
    assert.ok(
      s.logs.some((l) => /blob index was missing: rebuilt it/.test(l) && /"blobsIndexed":12/.test(l)),
      'the rebuild is logged with its count',
    );
    assert.deepEqual(await rawOf(s, inbox.inboxId), before, 'every raw reads back the same after the rebuild');
  }),
);

test('a batch PostgreSQL refuses leaves no index row; one a crash left unreferenced is swept at the next start', { skip }, () =>
  onFreshDataDir(async (dataDir, database) => {
    let s = await server(dataDir, database);
    stopAtEnd.push(() => s.stop());
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'kept', text: 'kept' });
    const db = s.server.parts.store.db;
    // PostgreSQL refuses one mail's rows (as a constraint or a full disk would): its transaction, and the retry of
    // the message alone, fail; the client gets a 4xx.
    await sql`create function refuse_mail() returns trigger language plpgsql as $$
      begin if new.subject = 'refused' then raise exception 'refused by the test'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_mail before insert on contents for each row execute function refuse_mail()`.execute(db);
    const rowsBefore = indexRows(dataDir);
    await assert.rejects(
      sendMail(s.server.smtpPort, {
        to: inbox.address,
        subject: 'refused',
        text: 'never stored',
        attachments: [{ filename: 'x.bin', content: crypto.randomBytes(2000) }],
      }),
      /4\d\d/,
    );
    assert.equal(indexRows(dataDir), rowsBefore, 'the refused batch left no index row');
    await sql`drop trigger refuse_mail on contents`.execute(db);
    await s.stop();

    // As if killed after the batch's blobs were appended, indexed and synced, before PostgreSQL's COMMIT: bytes and
    // an index row nothing references.
    const bytes = crypto.randomBytes(500);
    const ghost = LocalBlobStore.hash(bytes);
    const blobs = await openBlobStore({
      root: path.join(dataDir, 'blobs'),
      setting: undefined,
      fsync: true,
      maxSegmentBytes: 1 << 26,
      shared: true,
    });
    blobs.recover();
    blobs.index(await blobs.stage([{ sha256: ghost, bytes }]));
    await blobs.sync();
    blobs.close();
    assert.equal(indexRows(dataDir), rowsBefore + 1);
    s = await server(dataDir, database);
    // The sweep logs what it collected once it is done (the row goes a moment before the line).
    const swept = () => s.logs.some((l) => /unreferenced content and blobs collected/.test(l));
    for (let i = 0; i < 400 && !swept(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(s.logs.some((l) => /unreferenced content and blobs collected/.test(l) && /"blobsRemoved":1/.test(l)));
    assert.ok(!(await s.server.parts.blobs.exists(ghost)), 'the unreferenced index row is gone');
    assert.equal(indexRows(dataDir), rowsBefore);
    assert.deepEqual([...(await rawOf(s, inbox.inboxId)).keys()], ['kept']);
  }),
);

test('compaction reclaims deleted mail on PostgreSQL too; kept mail reads back intact', { skip }, () =>
  onFreshDataDir(async (dataDir, database) => {
    const s = await server(dataDir, database, ['--segment-size-mb', '1']);
    stopAtEnd.push(() => s.stop());
    const keep = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const drop = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    for (let i = 0; i < 16; i++)
      await sendMail(s.server.smtpPort, {
        to: i % 4 === 0 ? keep.address : drop.address,
        subject: `m${i}`,
        text: `message ${i}`,
        attachments: [{ filename: 'big.bin', content: crypto.randomBytes(150_000) }],
      });
    const kept = await rawOf(s, keep.inboxId);
    const segDir = path.join(dataDir, 'blobs', 'segments');
    const bytes = () => fs.readdirSync(segDir).reduce((t, f) => t + fs.statSync(path.join(segDir, f)).size, 0);
    const before = bytes();
    assert.equal((await s.api(`/v1/inboxes/${drop.inboxId}`, { method: 'DELETE' })).status, 200);
    const parts = s.server.parts;
    const segments = parts.blobs.segments!;
    assert.ok(segments.ownIndex);
    const r = await compactSegments({
      segments,
      sqlite: segments.db,
      run: (fn) => parts.writer.run(fn),
      syncWal: () => segments.syncIndex(),
      stepBytes: 200_000,
    });
    assert.ok(r.segmentsRemoved > 0, JSON.stringify(r));
    assert.ok(bytes() < before / 2, `space reclaimed: ${before} → ${bytes()} bytes`);
    assert.deepEqual(await rawOf(s, keep.inboxId), kept);
  }),
);

test('a damaged blobs/index.db stops the start naming the file and what to do', { skip }, () =>
  onFreshDataDir(async (dataDir, database) => {
    fs.mkdirSync(path.join(dataDir, 'blobs'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'blobs', 'index.db'), 'not a database, but long enough to be read as a header');
    await assert.rejects(
      server(dataDir, database),
      /blobs\/index\.db is not a usable blob index .*move it away and start again: it is rebuilt from the segment files/,
    );
  }),
);
