// Startup benchmark for the single executable: spawn → first 200 on GET /health.
//
//   node scripts/bench/startup.ts [--runs 15] [--warmup 1] [--binary dist/inboxd]
//
// Each run starts `inboxd serve --http-port 0 --smtp-port 0 --data-dir <fresh temp dir>` (so the database is created
// and migrated every time), polls <data-dir>/ports.json for the HTTP port, then polls /health tightly, then SIGTERMs
// the server and waits for it to exit. Prints median/min/max and the binary size, then one JSON line.
// Beside it, taking turns run by run, a bare Node HTTP server (`node -e`, the Node that runs this script, writing its
// port the same way) is started and polled the same way: the target is inboxd ≤ 2.5 × that time (issue 30).

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '1' },
    binary: { type: 'string', default: path.join(root, 'dist/inboxd') },
    timeout: { type: 'string', default: '15000' },
  },
  strict: true,
});

const runs = Number(values.runs);
const warmup = Number(values.warmup);
const timeoutMs = Number(values.timeout);
const binary = path.resolve(values.binary);
if (!Number.isInteger(runs) || runs < 1) usage(`--runs must be a positive integer, got ${values.runs}`);
if (!Number.isInteger(warmup) || warmup < 0) usage(`--warmup must be a non-negative integer, got ${values.warmup}`);
if (!fs.existsSync(binary)) usage(`${binary} does not exist: run npm run build first`);

function usage(msg: string): never {
  console.error(`startup bench: ${msg}`);
  process.exit(2);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function getStatus(port: number, pathname: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

function readHttpPort(file: string): number | undefined {
  try {
    const ports = JSON.parse(fs.readFileSync(file, 'utf8')) as { http?: unknown };
    return typeof ports.http === 'number' && ports.http > 0 ? ports.http : undefined;
  } catch {
    return undefined; // not there yet, or half written
  }
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function cleanup(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

interface RunResult {
  readyMs: number;
  stopMs: number;
  exitCode: number | null;
}

/** The bare server: answers 200 to everything, writes ports.json once listening. */
const BARE = `const fs=require('fs');require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',function(){fs.writeFileSync(process.argv[1],JSON.stringify({http:this.address().port}))});process.on('SIGTERM',()=>process.exit(0))`;

async function once(bare = false): Promise<RunResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-startup-bench-'));
  tempDirs.add(dataDir);
  const portsFile = path.join(dataDir, 'ports.json');
  let stderr = '';
  const t0 = performance.now();
  const child = bare
    ? spawn(process.execPath, ['-e', BARE, portsFile], { cwd: dataDir, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(binary, ['serve', '--http-port', '0', '--smtp-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
        cwd: dataDir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, INBOXD_ADMIN_KEY: 'ibx_benchbenchbenchbenchbenchbench00' },
      });
  children.add(child);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let dead = false;
  void exited.then(() => {
    dead = true;
  });

  let port: number | undefined;
  let readyMs = 0;
  while (true) {
    if (dead) throw new Error(`inboxd exited before /health answered 200:\n${stderr}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`no 200 on /health within ${timeoutMs} ms:\n${stderr}`);
    port ??= readHttpPort(portsFile);
    if (port === undefined) {
      await sleep(1);
      continue;
    }
    if ((await getStatus(port, '/health')) === 200) {
      readyMs = performance.now() - t0;
      break;
    }
    await sleep(1);
  }

  const t1 = performance.now();
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
  const exitCode = await exited;
  clearTimeout(kill);
  const stopMs = performance.now() - t1;
  children.delete(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
  tempDirs.delete(dataDir);
  return { readyMs, stopMs, exitCode };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

// Warm the client side (http module, DNS-free loopback socket) so only the server is measured.
await getStatus(1, '/');

const sizeMB = fs.statSync(binary).size / 1024 / 1024;
console.log(`startup bench: ${path.relative(process.cwd(), binary) || binary} (${sizeMB.toFixed(1)} MB), ${warmup} warm-up + ${runs} runs`);
for (let i = 0; i < warmup; i++) {
  const r = await once();
  console.log(`  warm-up ${i + 1}: ready ${r1(r.readyMs)} ms`);
}
const results: RunResult[] = [];
const bareReady: number[] = [];
for (let i = 0; i < runs; i++) {
  // Taking turns (inboxd first on even runs, the bare server first on odd ones): both see the same machine.
  const order = i % 2 ? [true, false] : [false, true];
  for (const bare of order) {
    const r = await once(bare);
    if (bare) {
      bareReady.push(r.readyMs);
      continue;
    }
    results.push(r);
    console.log(
      `  run ${String(i + 1).padStart(2)}: ready ${r1(r.readyMs).toFixed(1).padStart(7)} ms   stop ${r1(r.stopMs).toFixed(1).padStart(6)} ms   exit ${r.exitCode}`,
    );
  }
}

const ready = results.map((r) => r.readyMs);
const stop = results.map((r) => r.stopMs);
const badExits = results.filter((r) => r.exitCode !== 0).length;
const summary = {
  bench: 'startup',
  binary,
  sizeMB: r1(sizeMB),
  runs,
  readyMs: { median: r1(median(ready)), min: r1(Math.min(...ready)), max: r1(Math.max(...ready)) },
  stopMs: { median: r1(median(stop)), min: r1(Math.min(...stop)), max: r1(Math.max(...stop)) },
  nonZeroExits: badExits,
  node: process.version,
  cpus: os.cpus().length,
  bareNodeReadyMs: { median: r1(median(bareReady)), min: r1(Math.min(...bareReady)), max: r1(Math.max(...bareReady)) },
  ratioToBareNode: Math.round((median(ready) / median(bareReady)) * 100) / 100,
  goals: [] as Array<{ goal: string; value: number; status: 'PASS' | 'MISS' }>,
};
summary.goals.push({
  goal: 'spawn → /health: inboxd ≤ 2.5 × a bare node -e HTTP server',
  value: summary.ratioToBareNode,
  status: summary.ratioToBareNode <= 2.5 ? 'PASS' : 'MISS',
});
console.log(
  `spawn → 200 /health: median ${summary.readyMs.median} ms, min ${summary.readyMs.min} ms, max ${summary.readyMs.max} ms` +
    ` | SIGTERM → exit: median ${summary.stopMs.median} ms | size ${summary.sizeMB} MB` +
    ` | bare node -e HTTP server: median ${summary.bareNodeReadyMs.median} ms (inboxd ÷ bare ${summary.ratioToBareNode})` +
    (badExits ? ` | ${badExits} run(s) did not exit 0` : ''),
);
console.log(JSON.stringify(summary));
if (badExits) process.exitCode = 1;
