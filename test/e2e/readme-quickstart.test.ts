// The README's quick start, run exactly as written (the first ```sh block under "## Quick start") next to the
// inboxd-data of a running server, as a reader would after `npm start`.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MAIN, ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

function quickStart(readme: string): string {
  const section = readme.slice(readme.indexOf('\n## Quick start'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'README has a ```sh block in its Quick start');
  return m[1]!;
}

test('the README quick start creates an inbox, sends it mail and gets the code back', async () => {
  const script = quickStart(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const cwd = tempDir();
  // Free ports instead of 25/8025 (tests run side by side); the quick start reads them from ports.json either way.
  const server = spawn(process.execPath, [MAIN, 'serve', '--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0'], {
    cwd,
    env: { ...process.env, INBOXD_ADMIN_KEY: '', INBOXD_DATA_DIR: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    for (let i = 0; i < 600 && !fs.existsSync(path.join(cwd, 'inboxd-data/ports.json')); i++) {
      assert.equal(server.exitCode, null, 'server exited');
      await new Promise((r) => setTimeout(r, 25));
    }
    const r = spawnSync('sh', ['-e', '-c', script], { cwd, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `quick start failed:\n${r.stderr}\n${r.stdout}`);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    assert.equal(last.subject, 'Your code is 482913');
    assert.equal(last.verification.otp, '482913');
  } finally {
    await new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    });
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});
