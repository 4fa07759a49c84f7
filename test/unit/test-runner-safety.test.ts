// What keeps one broken test file from costing a whole CI run: ports for programs started by the tests come from
// below the kernel's ephemeral range, and every `node --test` run ends a file whose hooks left a handle open.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { freePort, RESERVED_DIR, ROOT, reservePort } from '../../scripts/bench/lib.ts';

const range = (() => {
  try {
    return fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  } catch {
    return null;
  }
})();

test('freePort: distinct ports below the ephemeral range, each one listenable', { skip: !range && 'no /proc (not Linux)' }, async () => {
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, 'no port handed out twice');
  for (const p of ports) {
    assert.ok(p >= 10_000 && p < range![0], `${p} is below the ephemeral range ${range!.join('–')}`);
    await new Promise<void>((resolve, reject) => {
      const s = net.createServer().once('error', reject);
      s.listen(p, '127.0.0.1', () => s.close(() => resolve()));
    });
  }
});

test('a port another process reserved within the last minute is not handed out; an older reservation is taken over', () => {
  // A port no one else here uses: reserved "by another process" by hand.
  const port = 9;
  const file = path.join(RESERVED_DIR, String(port));
  fs.mkdirSync(RESERVED_DIR, { recursive: true });
  fs.writeFileSync(file, '1');
  try {
    assert.equal(reservePort(port), false, 'reserved a moment ago');
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(file, old, old);
    assert.equal(reservePort(port), true, 'a reservation two minutes old is stale');
    assert.equal(fs.readFileSync(file, 'utf8'), String(process.pid));
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('every test command loads exit-when-done.ts; npm test and the cluster run also have a 10-minute timeout', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  for (const name of ['test', 'test:unit', 'test:stress']) {
    assert.match(scripts[name]!, /node --test [^&]*--import \.\/test\/helpers\/exit-when-done\.ts/, name);
    assert.doesNotMatch(scripts[name]!, /--test-force-exit/, `${name}: --test-force-exit drops tests`);
  }
  assert.match(scripts.test!, /--test-timeout=600000/);
  assert.match(scripts['test:unit']!, /--test-timeout=600000/);
  const cluster = fs.readFileSync(path.join(ROOT, 'scripts/test-cluster.ts'), 'utf8');
  assert.match(cluster, /'--import', '\.\/test\/helpers\/exit-when-done\.ts', '--test-timeout=600000'/);
});

/** `node --test` with the flags of npm test on files written to a temp dir; its status, output and time. */
function runFiles(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-runner-'));
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    // Without NODE_TEST_CONTEXT, which would make the inner run report to this one instead of exiting with its status.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    env.INBOXD_TEST_EXIT_GRACE_MS = '3000';
    const t0 = performance.now();
    const run = spawnSync(
      process.execPath,
      ['--test', '--import', path.join(ROOT, 'test/helpers/exit-when-done.ts'), '--test-timeout=600000', ...Object.keys(files)],
      { cwd: dir, env, encoding: 'utf8', timeout: 60_000 },
    );
    return { ...run, seconds: (performance.now() - t0) / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('every test of a file runs: 120 tests registered in a loop are 120 passes (--test-force-exit ran 30 of 88 so)', () => {
  const run = runFiles({
    'many.test.ts': `import { test } from 'node:test';\nfor (let i = 0; i < 120; i++) test('t' + i, () => { for (let k = 0; k < 1e5; k++); });\n`,
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /ℹ tests 120\n/);
  assert.match(run.stdout, /ℹ pass 120\n/);
});

test('a file whose before hook failed with a server listening ends, failed, after the grace period instead of never', () => {
  const run = runFiles({
    'hung.test.ts': `import http from 'node:http';
import { after, before, test } from 'node:test';
let s: { stop(): void } | undefined;
const srv = http.createServer();
before(async () => { await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r())); throw new Error('no bucket'); });
after(() => { s!.stop(); srv.close(); });
test('never runs', () => {});
`,
  });
  assert.equal(run.signal, null, 'ended by itself, not by the 60 s kill');
  assert.equal(run.status, 1);
  assert.match(run.stdout, /no bucket/);
  assert.match(run.stderr + run.stdout, /exit-when-done: a handle was still open 3 s after the last test/);
  assert.ok(run.seconds >= 3, `${run.seconds} s`);
});
