// The README's run command: `npm start` must stop cleanly on SIGTERM, leaving no inboxd behind (npm runs the script
// under `sh -c`; without `exec` the shell dies on the signal and inboxd is left running with parent 1).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGTERM to `npm start` stops inboxd (exit 0) and leaves no process behind', async () => {
  const dir = tempDir();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      INBOXD_DATA_DIR: dir,
      INBOXD_HTTP_PORT: '0',
      INBOXD_SMTP_PORT: '0',
      INBOXD_HOST: '127.0.0.1',
      INBOXD_ADMIN_KEY: 'ibx_TestAdminKey0000000000000000000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  npm.stderr!.on('data', (d) => (stderr += d));
  let inboxdPid = 0;
  try {
    const lock = path.join(dir, 'inboxd.lock');
    // npm start builds first (seconds); the lock file names the inboxd process once it serves.
    for (let i = 0; i < 2400 && !fs.existsSync(path.join(dir, 'ports.json')); i++) {
      assert.equal(npm.exitCode, null, `npm start exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    inboxdPid = Number(fs.readFileSync(lock, 'utf8').trim());
    assert.ok(alive(inboxdPid));
    const code = await new Promise<number | null>((resolve) => {
      npm.once('exit', (c) => resolve(c));
      npm.kill('SIGTERM');
    });
    for (let i = 0; i < 200 && alive(inboxdPid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(inboxdPid), false, `inboxd ${inboxdPid} still runs after SIGTERM to npm start`);
    assert.ok(!fs.existsSync(lock), 'inboxd stopped cleanly (its lock is released)');
    assert.equal(code, 0, stderr);
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    if (inboxdPid && alive(inboxdPid)) process.kill(inboxdPid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
