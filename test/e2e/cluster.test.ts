// Two inboxd processes (the single executable, dist/inboxd, built first — or INBOXD_BINARY) sharing one real
// PostgreSQL and one bucket of a real S3-compatible server (Swift s3api) — the reference deployment of README
// "Scaling out" (issue 20): a wait on B is woken by SMTP mail to A; A is killed with SIGKILL while four clients send
// to it, and every message it answered 250 is readable from B afterwards, raw bytes included (from the bucket); the
// MCP conformance scenarios pass through a balancer alternating every request between both instances (no stickiness).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import nodemailer from 'nodemailer';
import { ROOT } from '../helpers/cli.ts';
import { type PgServer, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { tempDir } from '../helpers/server.ts';
import { type SwiftServer, startSwift, swiftMissing } from '../helpers/swift.ts';

const missing = postgresMissing() ?? swiftMissing();
const skip = missing !== null && process.env.CI !== 'true' ? `skipped: ${missing}` : false;
if (skip) process.stdout.write(`# e2e cluster: ${skip}\n`);

const KEY = 'ibx_ClusterTestKey000000000000000000';
const children: ChildProcess[] = [];
const dirs: string[] = [];
let pg: PgServer;
let swift: SwiftServer;
let bin = '';
before(async () => {
  if (skip) return;
  let source = process.env.INBOXD_BINARY;
  if (!source) {
    const r = spawnSync(path.join(ROOT, 'node_modules/.bin/node'), ['scripts/build.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `build failed:\n${r.stdout}${r.stderr}`);
    source = path.join(ROOT, 'dist/inboxd');
  }
  // Alone in a temp folder: nothing to fall back on (no node_modules above it).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-e2e-cluster-'));
  dirs.push(dir);
  bin = path.join(dir, 'inboxd');
  fs.copyFileSync(source, bin);
  fs.chmodSync(bin, 0o755);
  [pg, swift] = await Promise.all([startPostgres(), startSwift()]);
});

/** Environment for the binary: no Node or inboxd settings from the test runner leak in. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('NODE_TEST') || k.startsWith('INBOXD_')) delete env[k];
  return { ...env, ...extra };
}
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  await pg?.stop();
  await swift?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

interface Instance {
  child: ChildProcess;
  http: number;
  smtp: number;
}

async function start(dir: string, database: string, bucket: string): Promise<Instance> {
  fs.rmSync(path.join(dir, 'ports.json'), { force: true });
  const child = spawn(
    bin,
    [
      'serve',
      '--host',
      '127.0.0.1',
      '--http-port',
      '0',
      '--smtp-port',
      '0',
      '--data-dir',
      dir,
      '--log-level',
      'warn',
      '--database',
      database,
      '--blob-store',
      `s3://${bucket}?endpoint=${swift.endpoint}&forcePathStyle=1`,
    ],
    {
      cwd: path.dirname(bin),
      env: childEnv({ INBOXD_ADMIN_KEY: KEY, AWS_ACCESS_KEY_ID: swift.accessKeyId, AWS_SECRET_ACCESS_KEY: swift.secretAccessKey }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let err = '';
  child.stdout!.resume();
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  const file = path.join(dir, 'ports.json');
  for (let i = 0; i < 800 && !fs.existsSync(file); i++) {
    if (child.exitCode !== null) throw new Error(`inboxd exited at start: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const ports = JSON.parse(fs.readFileSync(file, 'utf8')) as { http: number; smtp: number };
  return { child, ...ports };
}

const api = (port: number, p: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

async function subjectsIn(port: number, inboxId: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const res = await api(port, `/v1/inboxes/${inboxId}/messages?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
    const page = (await res.json()) as { items: Array<{ subject: string; messageId: string }>; nextCursor: string | null };
    for (const m of page.items) found.set(m.subject, m.messageId);
    cursor = page.nextCursor;
  } while (cursor);
  return found;
}

test('kill -9 of one instance during ingest loses nothing it acknowledged; the other serves it all', {
  skip,
  timeout: 300_000,
}, async () => {
  const database = await pg.createDatabase('cluster_e2e');
  await swift.createBucket('cluster-e2e');
  const dirA = tempDir();
  const dirB = tempDir();
  dirs.push(dirA, dirB);
  let a = await start(dirA, database, 'cluster-e2e');
  const b = await start(dirB, database, 'cluster-e2e');

  const inboxes: Array<{ inboxId: string; address: string }> = [];
  for (let i = 0; i < 4; i++) inboxes.push((await (await api(b.http, '/v1/inboxes', { method: 'POST', body: '{}' })).json()) as never);

  // A wait on B, woken by mail that A receives.
  const waiting = api(b.http, `/v1/inboxes/${inboxes[0]!.inboxId}/wait?timeoutSeconds=30&subjectContains=wake-b`);
  await new Promise((r) => setTimeout(r, 300));
  const t0 = nodemailer.createTransport({ host: '127.0.0.1', port: a.smtp, ignoreTLS: true });
  await t0.sendMail({ from: 'x@example.com', to: inboxes[0]!.address, subject: 'wake-b', text: 'hello from A' });
  t0.close();
  const woke = (await (await waiting).json()) as { subject: string };
  assert.equal(woke.subject, 'wake-b');

  const acked = new Map<string, string>(); // subject → inboxId
  let stop = false;
  const clients = inboxes.map(async (inbox, c) => {
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: a.smtp,
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
        break; // A died: this message was not acknowledged
      }
    }
    t.close();
  });
  await new Promise((r) => setTimeout(r, 2000));
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));
  stop = true;
  await Promise.all(clients);
  assert.ok(acked.size > 10, `clients got ${acked.size} acknowledgements before the kill`);

  // B (still running, never restarted) has every acknowledged message.
  const found = new Map<string, string>();
  for (const inbox of inboxes) for (const [s, id] of await subjectsIn(b.http, inbox.inboxId)) found.set(s, id);
  const missing = [...acked.keys()].filter((s) => !found.has(s));
  assert.deepEqual(missing, [], `${missing.length} of ${acked.size} acknowledged messages are missing on B`);
  for (const [subject, inboxId] of [...acked].slice(0, 50)) {
    const res = await api(b.http, `/v1/inboxes/${inboxId}/messages/${found.get(subject)}`);
    assert.equal(res.status, 200);
    assert.match(((await res.json()) as { text: string }).text, new RegExp(`message ${subject}`));
  }

  // B serves the raw bytes of what A acknowledged (from the bucket), and A, restarted, serves them too.
  for (const [subject, inboxId] of [...acked].slice(0, 50)) {
    const res = await api(b.http, `/v1/inboxes/${inboxId}/messages/${found.get(subject)}/raw`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), new RegExp(`message ${subject}`));
  }
  a = await start(dirA, database, 'cluster-e2e');
  for (const [subject, inboxId] of [...acked].slice(-20)) {
    const res = await api(a.http, `/v1/inboxes/${inboxId}/messages/${found.get(subject)}/raw`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), new RegExp(`message ${subject}`));
  }

  // MCP conformance through a balancer over both instances: every request to the next one, MCP sessions included.
  const r = spawnSync(
    path.join(ROOT, 'node_modules/.bin/node'),
    ['scripts/mcp-conformance.ts', '--upstream', `http://127.0.0.1:${a.http},http://127.0.0.1:${b.http}`, '--key', KEY],
    { cwd: ROOT, encoding: 'utf8', timeout: 240_000 },
  );
  assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  assert.match(r.stdout, /✓ tools-list/);
  assert.match(r.stdout, /sessions: \d+ over 2 of 2 instances; [1-9]\d* served by more than one/);

  for (const s of [a, b]) {
    s.child.kill('SIGTERM');
    assert.equal(await new Promise((r) => s.child.once('exit', r)), 0);
  }
});
