// SIGKILL while four clients send: every message answered 250 must survive, and the database must be intact. Once on
// SQLite, once on PostgreSQL with the data dir's segment files indexed in blobs/index.db.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { spawnServe } from '../helpers/cli.ts';
import { type PgServer, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { tempDir } from '../helpers/server.ts';

const KEY = 'ibx_CrashTestKey00000000000000000000';
const children: ChildProcess[] = [];
let pg: PgServer | undefined;
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await pg?.stop();
});

async function start(dir: string, database?: string): Promise<{ child: ChildProcess; http: number; smtp: number }> {
  fs.rmSync(path.join(dir, 'ports.json'), { force: true });
  const db = database ? ['--database', database] : [];
  const child = spawnServe(
    ['--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--data-dir', dir, '--log-level', 'warn', ...db],
    {
      INBOXD_ADMIN_KEY: KEY,
    },
  );
  children.push(child);
  child.stdout!.resume();
  child.stderr!.resume();
  const file = path.join(dir, 'ports.json');
  for (let i = 0; i < 400 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
  const ports = JSON.parse(fs.readFileSync(file, 'utf8')) as { http: number; smtp: number };
  return { child, ...ports };
}

const api = (port: number, p: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

async function killMidIngest(database?: string): Promise<string> {
  const dir = tempDir();
  let srv = await start(dir, database);
  const inboxes: Array<{ inboxId: string; address: string }> = [];
  for (let i = 0; i < 4; i++)
    inboxes.push(
      (await (await api(srv.http, '/v1/inboxes', { method: 'POST', body: JSON.stringify({ label: 'crash' }) })).json()) as never,
    );

  const acked = new Map<string, string>(); // subject → inboxId
  let stop = false;
  const clients = inboxes.map(async (inbox, c) => {
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: srv.smtp,
      pool: true,
      maxConnections: 1,
      maxMessages: Infinity,
      ignoreTLS: true,
    });
    for (let n = 0; !stop; n++) {
      const subject = `c${c}-n${n}`;
      try {
        const info = await t.sendMail({ from: 'load@example.com', to: inbox.address, subject, text: `message ${subject}\n`.repeat(50) });
        if (/^250 /.test(info.response)) acked.set(subject, inbox.inboxId);
      } catch {
        break; // the server died: this message was not acknowledged
      }
    }
    t.close();
  });
  await new Promise((r) => setTimeout(r, 1500));
  srv.child.kill('SIGKILL');
  await new Promise((r) => srv.child.once('exit', r));
  stop = true;
  await Promise.all(clients);
  assert.ok(acked.size > 20, `clients got ${acked.size} acknowledgements before the kill`);

  srv = await start(dir, database);
  const found = new Map<string, string>();
  for (const inbox of inboxes) {
    let cursor: string | null = null;
    do {
      const page = (await (
        await api(srv.http, `/v1/inboxes/${inbox.inboxId}/messages?limit=500${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as { items: Array<{ subject: string; messageId: string }>; nextCursor: string | null };
      for (const m of page.items) found.set(m.subject, m.messageId);
      cursor = page.nextCursor;
    } while (cursor);
  }
  const missing = [...acked.keys()].filter((s) => !found.has(s));
  assert.deepEqual(missing, [], `${missing.length} of ${acked.size} acknowledged messages are missing`);
  for (const [subject, inboxId] of [...acked].slice(0, 200)) {
    const res = await api(srv.http, `/v1/inboxes/${inboxId}/messages/${found.get(subject)}/raw`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), new RegExp(`message ${subject}`));
  }
  srv.child.kill('SIGTERM');
  assert.equal(await new Promise((r) => srv.child.once('exit', r)), 0);
  return dir;
}

test('no acknowledged message is lost when the server is killed mid-ingest', async () => {
  const dir = await killMidIngest();
  const db = new BetterSqlite3(path.join(dir, 'inboxd.db'), { readonly: true });
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  const orphans = db.prepare('select count(*) n from attachments where message_id not in (select id from messages)').get() as { n: number };
  assert.equal(orphans.n, 0);
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pgMissing = postgresMissing();
test('on PostgreSQL with local segments: no acknowledged message or its bytes is lost to a kill mid-ingest', {
  skip: pgMissing && !process.env.CI ? pgMissing : false,
}, async () => {
  pg = await startPostgres();
  const dir = await killMidIngest(await pg.createDatabase('crash'));
  // The bytes went to segment files indexed in blobs/index.db, not a file per blob.
  const blobs = path.join(dir, 'blobs');
  assert.ok(
    fs.readdirSync(path.join(blobs, 'segments')).some((f) => /^\d{8}\.seg$/.test(f)),
    'segment files were written',
  );
  assert.deepEqual(
    fs.readdirSync(blobs).filter((f) => /^[0-9a-f]{2}$/.test(f)),
    [],
    'no per-blob file folders',
  );
  const index = new BetterSqlite3(path.join(blobs, 'index.db'), { readonly: true });
  assert.equal(index.pragma('integrity_check', { simple: true }), 'ok');
  assert.ok((index.prepare('select count(*) n from segment_blobs').get() as { n: number }).n > 20);
  index.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
