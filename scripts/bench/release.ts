// The release as a user gets it: archive sizes, the time to unpack it, and the unpacked executable's time from
// spawn to the first 200 on GET /health — first start (the SQLite addon is unpacked into a fresh cache folder, a new
// data dir is created and migrated) and later starts (addon cached, fresh data dir) — beside the same measure for
// `node -e` running a bare http server, as a floor for "a Node process that answers HTTP".
//
//   node scripts/bench/release.ts [--release DIR] [--runs 7] [--quick]
//
// DIR (default release/) must hold inboxd-<version>-linux-x64.tar.gz: `npm run release` makes it. Prints a table for
// docs/benchmarks.md and one JSON line.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, machine, ROOT } from './lib.ts';

const { values } = parseArgs({
  options: {
    release: { type: 'string', default: path.join(ROOT, 'release') },
    runs: { type: 'string', default: '7' },
    quick: { type: 'boolean', default: false },
  },
  strict: true,
});
const runs = values.quick ? 3 : Number(values.runs);
const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const base = `inboxd-${version}-linux-x64`;
const archive = path.join(path.resolve(values.release), `${base}.tar.gz`);
if (!fs.existsSync(archive)) {
  console.error(`release bench: ${archive} does not exist: run npm run release first`);
  process.exit(2);
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });
}

/** ms from spawn to the first 200 on /health (polled every 2 ms), then SIGTERM and wait for the exit. */
async function startToHealth(cmd: string, args: (port: number) => string[], env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child: ChildProcess = spawn(cmd, args(port), { env, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode} before answering`);
      if (await healthy(port)) return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error(`${cmd} did not answer /health within 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (n: number) => (n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const ms = (n: number) => `${Math.round(n)} ms`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-bench-release-'));
try {
  const t = performance.now();
  const untar = spawnSync('tar', ['-xzf', archive], { cwd: work });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
  const unpackMs = performance.now() - t;
  const exe = path.join(work, base, 'inboxd');
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: work };
  const serve = (dir: string) => (port: number) => ['serve', '--http-port', String(port), '--smtp-port', '0', '--data-dir', dir];
  const first: number[] = [];
  const later: number[] = [];
  const reference: number[] = [];
  const nodeServer = 'require("http").createServer((q,s)=>s.end("ok")).listen(+process.argv[1],"127.0.0.1")';
  for (let i = 0; i < runs; i++) {
    // First start: a fresh addon cache and a fresh data dir, as right after unpacking.
    const cache = path.join(work, `cache-${i}`);
    first.push(await startToHealth(exe, serve(path.join(work, `first-${i}`)), { ...env, INBOXD_NATIVE_CACHE_DIR: cache }));
    later.push(await startToHealth(exe, serve(path.join(work, `later-${i}`)), { ...env, INBOXD_NATIVE_CACHE_DIR: cache }));
    reference.push(await startToHealth(process.execPath, (port) => ['-e', nodeServer, String(port)], env));
  }
  const sizes = Object.fromEntries(
    fs
      .readdirSync(path.dirname(archive))
      .filter((f) => f.includes(version) && /\.(tar\.gz|tgz|cdx\.json)$/.test(f))
      .map((f) => [f, fs.statSync(path.join(path.dirname(archive), f)).size]),
  );
  const result = {
    machine: machine(),
    command: `node scripts/bench/release.ts${values.quick ? ' --quick' : ` --runs ${runs}`}`,
    sizes,
    executableBytes: fs.statSync(exe).size,
    unpackMs: Math.round(unpackMs),
    firstStartMs: Math.round(median(first)),
    laterStartMs: Math.round(median(later)),
    nodeHttpServerMs: Math.round(median(reference)),
    runs,
  };
  console.log(`| what | figure |\n|---|---|`);
  for (const [f, n] of Object.entries(sizes)) console.log(`| ${f} | ${mb(n)} |`);
  console.log(`| unpacked executable | ${mb(result.executableBytes)} |`);
  console.log(`| tar -xzf (unpack) | ${ms(unpackMs)} |`);
  console.log(`| start → /health 200, first start (addon unpacked, new data dir), median of ${runs} | ${ms(result.firstStartMs)} |`);
  console.log(`| start → /health 200, later start (addon cached, new data dir), median of ${runs} | ${ms(result.laterStartMs)} |`);
  console.log(
    `| reference: \`node -e\` http server (${process.version}) start → 200, median of ${runs} | ${ms(result.nodeHttpServerMs)} |`,
  );
  console.log(JSON.stringify(result));
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
