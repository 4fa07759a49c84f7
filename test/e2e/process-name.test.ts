// The server and the commands are found by name: /proc/<pid>/comm (ps, top, ss -p) and the command line read
// `inboxd serve`, so `pgrep inboxd` finds the server (issue 27: it was Node's `MainThread`).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

const linux = process.platform !== 'linux' && 'reads /proc';
const binary = process.env.INBOXD_BINARY ?? path.join(ROOT, 'dist/inboxd');

async function checkNamed(child: ChildProcess, dir: string): Promise<void> {
  try {
    for (let i = 0; i < 1200 && !fs.existsSync(path.join(dir, 'ports.json')); i++) {
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
}

test('node src/main.ts serve is named inboxd serve in ps, top and pgrep', { skip: linux }, async () => {
  const dir = tempDir();
  const child = spawnServe(['--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0', '--data-dir', dir], {
    INBOXD_ADMIN_KEY: '',
  });
  await checkNamed(child, dir);
});

test('the single executable is named inboxd serve too', {
  skip: linux || (!fs.existsSync(binary) && `no ${binary} (npm run build)`),
}, async () => {
  const dir = tempDir();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('INBOXD_') && !k.startsWith('NODE_')) env[k] = v;
  const child = spawn(binary, ['--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0', '--data-dir', dir], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await checkNamed(child, dir);
});
