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

test('every test command passes --test-force-exit; npm test and the cluster run also a 10-minute timeout', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  for (const name of ['test', 'test:unit', 'test:stress']) assert.match(scripts[name]!, /node --test [^&]*--test-force-exit/, name);
  assert.match(scripts.test!, /--test-timeout=600000/);
  assert.match(scripts['test:unit']!, /--test-timeout=600000/);
  const cluster = fs.readFileSync(path.join(ROOT, 'scripts/test-cluster.ts'), 'utf8');
  assert.match(cluster, /'--test-force-exit', '--test-timeout=600000'/);
});

test('with those flags a file whose before hook failed with a server listening ends, failed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-runner-'));
  try {
    fs.writeFileSync(
      path.join(dir, 'hung.test.ts'),
      `import http from 'node:http';
import { after, before, test } from 'node:test';
let s: { stop(): void } | undefined;
const srv = http.createServer();
before(async () => { await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r())); throw new Error('no bucket'); });
after(() => { s!.stop(); srv.close(); });
test('never runs', () => {});
`,
    );
    // Without NODE_TEST_CONTEXT, which would make the inner run report to this one instead of exiting with its status.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--test', '--test-force-exit', '--test-timeout=600000', 'hung.test.ts'], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.signal, null, 'ended by itself, not by the 60 s kill');
    assert.equal(run.status, 1);
    assert.match(run.stdout, /no bucket/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
