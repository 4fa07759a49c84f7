// The single executable (dist/inboxd), run the way a user runs it: copied alone into a temp folder with no Node and no
// node_modules around it.
//
// Builds with `npm run build` first (a no-op when dist/inboxd is up to date). Set INBOXD_BINARY=/path/to/inboxd to test
// a binary that was built elsewhere (no build step then).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = '0.2.0'; // the service's API version (the spec); the product's release version is package.json's
const RELEASE: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];
let bin = '';
let built = 0; // mtime of the executable as built (the copy under test gets a new one)
let workDir = '';

/** Environment for the binary: no Node knobs from the test runner leak in. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of Object.keys(env)) {
    if (k === 'NODE_OPTIONS' || k.startsWith('NODE_TEST') || k.startsWith('INBOXD_')) {
      if (!(k in extra)) delete env[k];
    }
  }
  return env;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: workDir, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Node's own start-up warnings must never reach the user (ExperimentalWarning, SEA require warning, …). */
function assertNoNodeWarnings(stderr: string): void {
  assert.doesNotMatch(
    stderr,
    /ExperimentalWarning|DeprecationWarning|single-executable|only supports loading built-in modules|\(node:\d+\)/,
  );
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

before(async () => {
  let source = process.env.INBOXD_BINARY;
  if (!source) {
    let r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
      // No npm on PATH: run the build script with the pinned Node 24 directly.
      r = spawnSync(path.join(root, 'node_modules/.bin/node'), ['scripts/build.ts'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    }
    assert.equal(r.status, 0, `npm run build failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
    source = path.join(root, 'dist/inboxd');
  }
  assert.ok(fs.existsSync(source), `${source} does not exist`);

  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-e2e-bin-'));
  tempDirs.push(workDir);
  // "Self-contained" means nothing to fall back on: no node_modules in the folder or any folder above it.
  for (let d = workDir; ; d = path.dirname(d)) {
    assert.ok(!fs.existsSync(path.join(d, 'node_modules')), `${d}/node_modules exists; the binary would not be tested alone`);
    if (path.dirname(d) === d) break;
  }
  bin = path.join(workDir, 'inboxd');
  built = fs.statSync(source).mtimeMs;
  fs.copyFileSync(source, bin);
  fs.chmodSync(bin, 0o755);
});

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('inboxd single executable', () => {
  test('--version prints the release version and exits 0; `version` the commit and build date stamped by the build', async () => {
    const r = await run(['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), RELEASE);
    assertNoNodeWarnings(r.stderr);
    const v = await run(['version']);
    assert.equal(v.code, 0, v.stderr);
    const lines = v.stdout.trim().split('\n');
    assert.equal(lines[0], `inboxd ${RELEASE}`);
    assert.match(lines[1]!, /^commit [0-9a-f]{12}(-dirty)?$/);
    // The build dates the file at its start, as it dates the stamp (unless SOURCE_DATE_EPOCH fixes the stamp).
    if (!process.env.SOURCE_DATE_EPOCH) {
      assert.ok(Math.abs(Date.parse(lines[2]!.replace(/^built /, '')) - built) < 5_000, `${lines[2]} is the build time`);
    }
    assert.equal(lines[3], `api ${VERSION}`);
    assert.match(lines[4]!, /^node v24\.\d+\.\d+ linux-x64$/);
    // The code cache the build made by running the executable once is accepted by V8 (scripts/build/sea-main.cjs).
    assert.match(lines[5]!, /^code cache used \(\d+\.\d MB\)$/);
  });

  test('an executable run with other V8 flags has its code cache rejected, compiles its code and still serves', async () => {
    const flags = '--node-options=--no-opt'; // a V8 flag the cache was not made with
    const v = await run([flags, 'version']);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /^code cache rejected by V8 /m);
    assertNoNodeWarnings(v.stderr);
    const r = await run([flags, 'extract', path.join(root, 'test/fixtures/corpus/001-github-device-code.eml')]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok('verification' in (JSON.parse(r.stdout) as Record<string, unknown>), r.stdout);
    assertNoNodeWarnings(r.stderr);
  });

  test('--help exits 0 and documents the flags', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /--smtp-port/);
    assert.match(r.stdout, /--http-port/);
    assertNoNodeWarnings(r.stderr);
  });

  test('NODE_OPTIONS from the environment cannot change the binary', async () => {
    const r = await run(['--version'], { env: { NODE_OPTIONS: '--require /nonexistent/inboxd-e2e-preload.cjs' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), RELEASE);
  });

  test('extract FILE.eml works offline (no server, no data dir)', async () => {
    const eml = path.join(root, 'test/fixtures/corpus/001-github-device-code.eml');
    const r = await run(['extract', eml]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const k of ['verification', 'agent', 'hasAttachments', 'attachmentCount']) assert.ok(k in out, `missing ${k}: ${r.stdout}`);
    assert.ok(!fs.existsSync(path.join(workDir, 'inboxd-data')), 'extract created a data dir');
    assertNoNodeWarnings(r.stderr);
  });

  describe('serve', () => {
    let server: ChildProcess | undefined;
    let dataDir = '';
    let nativeDir = '';
    let base = '';
    let stdout = '';
    let stderr = '';
    let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

    before(async () => {
      dataDir = path.join(workDir, 'data');
      nativeDir = path.join(workDir, 'native-cache');
      const child = spawn(bin, ['serve', '--http-port', '0', '--smtp-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
        cwd: workDir,
        env: childEnv({ INBOXD_NATIVE_CACHE_DIR: nativeDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      server = child;
      children.add(child);
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      let gone = false;
      void exited.then(() => (gone = true));

      const portsFile = path.join(dataDir, 'ports.json');
      const deadline = Date.now() + 20_000;
      let ports: { http?: unknown; smtp?: unknown } | undefined;
      while (!ports) {
        if (gone) assert.fail(`inboxd serve exited before writing ports.json:\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        if (Date.now() > deadline) assert.fail(`no ports.json within 20 s:\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        try {
          ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http?: unknown; smtp?: unknown };
        } catch {
          await sleep(20);
        }
      }
      assert.ok(Number.isInteger(ports.http) && (ports.http as number) > 0, `ports.json http: ${JSON.stringify(ports)}`);
      assert.ok(Number.isInteger(ports.smtp) && (ports.smtp as number) > 0, `ports.json smtp: ${JSON.stringify(ports)}`);
      base = `http://127.0.0.1:${ports.http as number}`;
    });

    after(() => {
      if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    });

    test('GET /health → 200 JSON', async () => {
      const res = await fetch(`${base}/health`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body: unknown = await res.json();
      assert.equal(typeof body, 'object');
    });

    test('GET /v1 → 200', async () => {
      const res = await fetch(`${base}/v1`);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    });

    test('GET /v1/openapi.json → a valid OpenAPI 3.0.3 document', async () => {
      const res = await fetch(`${base}/v1/openapi.json`);
      assert.equal(res.status, 200);
      const doc = (await res.json()) as { openapi?: unknown; info?: { version?: unknown } };
      assert.equal(doc.openapi, '3.0.3');
      assert.equal(doc.info?.version, VERSION);
      // validate() dereferences in place: give it a copy.
      await SwaggerParser.validate(structuredClone(doc) as Parameters<typeof SwaggerParser.validate>[0]);
    });

    test('the SQLite addon was extracted into INBOXD_NATIVE_CACHE_DIR', () => {
      const files = fs.readdirSync(nativeDir, { recursive: true, encoding: 'utf8' });
      const addons = files.filter((f) => f.endsWith('.node'));
      assert.equal(addons.length, 1, `expected one .node file under ${nativeDir}, found: ${files.join(', ')}`);
      assert.ok(fs.statSync(path.join(nativeDir, addons[0]!)).size > 100_000);
      assert.ok(!files.some((f) => f.endsWith('.tmp')), `temp files left behind: ${files.join(', ')}`);
      assert.equal(fs.statSync(path.join(nativeDir, path.dirname(addons[0]!))).mode & 0o777, 0o700);
    });

    test('no Node warnings at start', () => {
      assertNoNodeWarnings(stderr);
    });

    test('SIGTERM → exit 0', async () => {
      assert.ok(server);
      server.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), 12_000)));
      const result = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      assert.notEqual(result, 'timeout', 'inboxd did not exit within 12 s of SIGTERM');
      assert.deepEqual(result, { code: 0, signal: null }, `stderr:\n${stderr}`);
    });
  });
});
