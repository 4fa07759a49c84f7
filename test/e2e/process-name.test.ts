// The server and the commands are found by name: /proc/<pid>/comm (ps, top, ss -p) and the command line read
// `inboxd serve`, so `pgrep inboxd` finds the server (issue 27: it was Node's `MainThread`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

test('inboxd serve is named inboxd serve in ps, top and pgrep', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dir = tempDir();
  const child = spawnServe(['--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0', '--data-dir', dir], {
    INBOXD_ADMIN_KEY: '',
  });
  try {
    for (let i = 0; i < 600 && !fs.existsSync(path.join(dir, 'ports.json')); i++) {
      assert.equal(child.exitCode, null, 'server exited');
      await new Promise((r) => setTimeout(r, 25));
    }
    const pid = child.pid!;
    assert.equal(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), 'inboxd serve');
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    assert.equal(cmdline, 'inboxd serve');
    for (const args of [['inboxd'], ['-f', 'inboxd serve'], ['-x', 'inboxd serve']]) {
      const r = spawnSync('pgrep', args, { encoding: 'utf8' });
      assert.ok(r.stdout.split('\n').includes(String(pid)), `pgrep ${args.join(' ')} finds ${pid}: ${r.stdout}${r.stderr}`);
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
