// The single executable runs message analysis in a worker thread started from its embedded bundle (a SEA has no
// worker file on disk): the thread exists, and a delivered message has its code extracted. Search runs in the
// sandbox's worker thread, on its own read-only SQLite connection, and finds it.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { deliver, ROOT, sleep } from '../stress/lib.ts';

const bin = process.env.INBOXD_BINARY ?? path.join(ROOT, 'dist/inboxd');
const KEY = 'ibx_BinaryWorkerKey000000000000000';
let child: ChildProcess | null = null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-binworker-'));
after(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('dist/inboxd analyses mail in a worker thread', {
  skip: fs.existsSync(bin) ? false : `${bin} is not built (npm run build)`,
}, async () => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('NODE_TEST') && !k.startsWith('INBOXD_')),
  );
  child = spawn(bin, ['serve', '--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--data-dir', dir, '--log-level', 'debug'], {
    env: { ...env, INBOXD_ADMIN_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const portsFile = path.join(dir, 'ports.json');
  for (let i = 0; i < 400 && !fs.existsSync(portsFile); i++) await sleep(25);
  const ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http: number; smtp: number };
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${ports.http}${p}`, {
      ...init,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    });
  const inbox = (await (await api('/v1/inboxes', { method: 'POST', body: '{}' })).json()) as { inboxId: string; address: string };
  const r = await deliver(
    ports.smtp,
    inbox.address,
    'From: GitHub <noreply@github.com>\nSubject: [GitHub] Please verify your device\n\nVerification code: 482913\n',
  );
  assert.match(r.reply, /^250 /);
  const got = (await (await api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`)).json()) as {
    verification?: { otp: string | null };
    otp?: string;
  };
  assert.equal(got.verification?.otp ?? got.otp, '482913', JSON.stringify(got).slice(0, 300));
  // The worker compiled nothing: V8 took the code cache the build made for it (scripts/build/code-cache.ts).
  const ready = out.split('\n').find((l) => l.includes('"msg":"ingest worker ready"'));
  assert.ok(ready, `no "ingest worker ready" line in:\n${out.slice(0, 2000)}`);
  assert.equal((JSON.parse(ready) as { codeCache?: unknown }).codeCache, 'used', ready);
  // Search runs in a sandbox worker on its own read-only SQLite connection, the addon loaded from the SEA asset.
  const found = (await (await api(`/v1/search?q=${encodeURIComponent('has:code verify')}`)).json()) as {
    items?: Array<{ subject: string }>;
  };
  assert.deepEqual(
    found.items?.map((i) => i.subject),
    ['[GitHub] Please verify your device'],
    JSON.stringify(found).slice(0, 300),
  );
  const threads = fs
    .readdirSync(`/proc/${child.pid}/task`)
    .map((t) => fs.readFileSync(`/proc/${child!.pid}/task/${t}/comm`, 'utf8').trim());
  assert.ok(threads.includes('WorkerThread'), `threads: ${threads.join(', ')}`);
  const warnings = out.split('\n').filter((l) => !l.includes('"level":"debug"') && !l.includes('"level":"info"'));
  assert.doesNotMatch(warnings.join('\n'), /worker code not found|ingest worker/);
  child.kill('SIGTERM');
  assert.equal(await new Promise((r) => child!.once('exit', r)), 0);
});
