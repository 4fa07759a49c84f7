// The data dir from source, as real processes meet it: one server per dir (lock file), private modes whatever the
// umask, and a clear exit 1 instead of a hang on a path that cannot be used.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { MAIN, ROOT, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

const FLAGS = ['--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0'];

function serve(dataDir: string, opts: { umask?: string } = {}): ChildProcess {
  const cmd = `umask ${opts.umask ?? '022'}; exec "$0" "$@"`;
  return spawn('sh', ['-c', cmd, process.execPath, MAIN, 'serve', ...FLAGS, '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, INBOXD_ADMIN_KEY: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

async function ready(dataDir: string, child: ChildProcess): Promise<{ http: number; smtp: number }> {
  const file = path.join(dataDir, 'ports.json');
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) {
    if (child.exitCode !== null) throw new Error(`inboxd exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  return new Promise((resolve) => {
    child.once('exit', (c) => resolve(c));
    child.kill('SIGTERM');
  });
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('one data dir, one server', () => {
  test('a second serve on a data dir in use exits 1 naming the running pid; the first keeps running', async () => {
    const dir = tempDir();
    const first = serve(dir);
    try {
      await ready(dir, first);
      const lock = path.join(dir, 'inboxd.lock');
      assert.equal(fs.readFileSync(lock, 'utf8').trim(), String(first.pid));
      const second = await runCli(['serve', ...FLAGS, '--data-dir', dir]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, new RegExp(`in use by inboxd process ${first.pid}\\b`));
      assert.equal(second.stderr.trim().split('\n').length, 1);
      assert.equal(first.exitCode, null, 'the first server still runs');
      assert.equal(await stop(first), 0);
      assert.ok(!fs.existsSync(lock), 'a clean stop removes the lock');
    } finally {
      first.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a stale lock from a dead process is taken over', async () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(dir, 'inboxd.lock'), `${dead.stdout}\n`);
    const child = serve(dir);
    try {
      await ready(dir, child);
      assert.equal(fs.readFileSync(path.join(dir, 'inboxd.lock'), 'utf8').trim(), String(child.pid));
      assert.equal(await stop(child), 0);
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('SIGTERM, even twice, the instant ports.json appears still stops cleanly: exit 0, lock removed', async () => {
    // Scripts wait for ports.json and then stop the server; the signal must never meet the default action (killed,
    // lock left behind), however soon after the file it lands.
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'ports.json');
      const child = serve(dir);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      try {
        const watcher = fs.watch(dir, () => {
          // Twice, as an orchestrator or a script that stops twice would: the repeat must not kill the stop.
          if (fs.existsSync(file)) for (let n = 0; n < 2; n++) child.kill('SIGTERM');
        });
        try {
          for (let i = 0; i < 6000 && !fs.existsSync(file) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 1));
          child.kill('SIGTERM');
          assert.equal(await exited, 0, `round ${round}: exit code`);
        } finally {
          watcher.close();
        }
        assert.ok(!fs.existsSync(path.join(dir, 'inboxd.lock')), `round ${round}: the lock is removed`);
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('private files', () => {
  test('with umask 000 the data dir is 0700 and every file in it 0600', async () => {
    const parent = tempDir();
    const dir = path.join(parent, 'data');
    const child = serve(dir, { umask: '000' });
    try {
      const ports = await ready(dir, child);
      await sendMail(ports.smtp, {
        to: 'someone@inboxd.test',
        subject: 'modes',
        text: 'x',
        attachments: [{ filename: 'a.txt', content: 'attached' }],
      });
      const seen: string[] = [];
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const p = path.join(d, e.name);
          seen.push(path.relative(dir, p));
          if (e.isDirectory()) {
            assert.equal(mode(p), 0o700, `${p} is 0700`);
            walk(p);
          } else assert.equal(mode(p), 0o600, `${p} is 0600`);
        }
      };
      assert.equal(mode(dir), 0o700);
      walk(dir);
      for (const f of ['inboxd.db', 'inboxd.db-wal', 'inboxd.db-shm', 'ports.json', 'admin.key', 'inboxd.lock'])
        assert.ok(seen.includes(f), `${f} exists (saw ${seen.join(', ')})`);
      assert.ok(
        seen.some((f) => /^blobs\/segments\/\d{8}\.seg$/.test(f)),
        'a blob segment was written',
      );
    } finally {
      await stop(child);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('unusable data dir', () => {
  const cases: Array<[string, () => { dir: string; cleanup: () => void }, RegExp]> = [
    [
      'a file',
      () => {
        const d = tempDir();
        fs.writeFileSync(path.join(d, 'f'), 'x');
        return { dir: path.join(d, 'f'), cleanup: () => fs.rmSync(d, { recursive: true }) };
      },
      /not a directory/,
    ],
    [
      'below a file',
      () => {
        const d = tempDir();
        fs.writeFileSync(path.join(d, 'f'), 'x');
        return { dir: path.join(d, 'f', 'sub'), cleanup: () => fs.rmSync(d, { recursive: true }) };
      },
      /is a file, not a directory/,
    ],
    // mkdir -p of a path under /proc fails with ENOENT forever; Node's recursive mkdir loops on it (the old hang).
    ['a path that cannot be created (/proc)', () => ({ dir: '/proc/inboxd-test/data', cleanup: () => undefined }), /cannot be created/],
  ];
  if (process.getuid?.() !== 0) {
    cases.push([
      'no permission',
      () => {
        const d = tempDir();
        fs.chmodSync(d, 0o500);
        return { dir: path.join(d, 'data'), cleanup: () => fs.rmSync(d, { recursive: true }) };
      },
      /permission denied/,
    ]);
  }
  for (const [name, make, why] of cases) {
    test(`${name}: exit 1 with one line naming --data-dir`, async () => {
      const { dir, cleanup } = make();
      try {
        const r = await runCli(['serve', ...FLAGS, '--data-dir', dir], { timeoutMs: 10_000 });
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /--data-dir/);
        assert.match(r.stderr, why);
      } finally {
        cleanup();
      }
    });
  }

  test('a read-only file system: exit 1 naming it (needs root to mount; skipped otherwise)', async (t) => {
    const mnt = tempDir();
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', mnt]).status === 0;
    if (!mounted) {
      fs.rmSync(mnt, { recursive: true });
      return t.skip('cannot mount a read-only tmpfs here');
    }
    try {
      const r = await runCli(['serve', ...FLAGS, '--data-dir', path.join(mnt, 'data')], { timeoutMs: 10_000 });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /--data-dir .*read-only \(EROFS\)/);
    } finally {
      spawnSync('umount', [mnt]);
      fs.rmSync(mnt, { recursive: true });
    }
  });
});
