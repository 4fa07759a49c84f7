// The release files as a user meets them (README "Releases and installing"): the archive downloaded into an empty
// folder, its checksum checked, unpacked and run with no Node on PATH through the README quick start; its SBOM and
// third-party licences against what the build says is inside the executable; the npm packages installed offline
// from a local npm cache into an empty project and started with npx.
//
// `npm run release -- --no-build` packs the dist/inboxd that `npm test` built (`npm run build` here is the usual
// no-op when it is up to date): no second bundle or SEA build. Takes ~30 s, most of it gzip.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, runCommand } from '../helpers/cli.ts';
import { builtBinary } from '../helpers/console.ts';
import { tempDir } from '../helpers/server.ts';

const require = createRequire(import.meta.url);
const RELEASE: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const BASE = `inboxd-${RELEASE}-linux-x64`;
const work = tempDir();
const out = path.join(work, 'release');
const children = new Set<ChildProcess>();
let manifest: { release: string; commit: string; date: string; inputs: string[]; assets: string[] };

/** An environment with nothing of the test runner's: no NODE_*, npm_*, INBOXD_* variables. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(NODE_|npm_|INBOXD_)/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** As sh(), without blocking this process (it serves the test registry meanwhile). */
async function shAsync(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const r = await runCommand(cmd, args, { ...opts, timeoutMs: 120_000 });
  assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function sh(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): string {
  const r = spawnSync(cmd, args, { ...opts, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.error?.message ?? `exit ${r.status}`}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function waitForFile(file: string, child: ChildProcess, log: () => string): Promise<string> {
  for (let i = 0; i < 1200; i++) {
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, 'utf8');
      if (text.trim()) return text;
    }
    assert.equal(child.exitCode, null, `exited before writing ${path.basename(file)}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`${file} did not appear:\n${log()}`);
}

function exited(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const t = setTimeout(() => reject(new Error(`still running ${ms} ms after SIGTERM`)), ms);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

function start(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): { child: ChildProcess; log: () => string } {
  const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  return { child, log: () => log };
}

before(() => {
  builtBinary();
  manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/inboxd.build.json'), 'utf8'));
  sh(process.execPath, [path.join(ROOT, 'scripts/release.ts'), '--no-build', '--out', out], { cwd: ROOT, env: cleanEnv({}) });
});

after(() => {
  // Each child leads a process group (npx, the launcher, the executable): whatever of it is left goes.
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {}
  }
  fs.rmSync(work, { recursive: true, force: true });
});

describe('release archive', () => {
  test('downloaded into an empty folder: the checksum holds, it unpacks, and with no Node on PATH it serves the README quick start', async () => {
    const dl = path.join(work, 'download');
    fs.mkdirSync(dl);
    for (const f of [`${BASE}.tar.gz`, `${BASE}.tar.gz.sha256`]) fs.copyFileSync(path.join(out, f), path.join(dl, f));
    // PATH=/usr/bin:/bin is what the issue names, but this machine has a Node 20 in /usr/bin: the PATH here holds
    // only the tools the steps use, so a hidden need for node (or npm) would fail.
    const tools = path.join(work, 'tools');
    fs.mkdirSync(tools);
    for (const t of ['sh', 'sed', 'curl', 'tar', 'gzip', 'sha256sum', 'cat', 'ls']) {
      const real = ['/usr/bin', '/bin'].map((d) => path.join(d, t)).find((p) => fs.existsSync(p));
      assert.ok(real, `${t} is not installed`);
      fs.symlinkSync(real, path.join(tools, t));
    }
    const env = cleanEnv({ PATH: tools, HOME: dl });
    assert.notEqual(spawnSync('sh', ['-c', 'command -v node || command -v npm'], { env }).status, 0, 'no node on this PATH');

    const [sum, name] = fs
      .readFileSync(path.join(dl, `${BASE}.tar.gz.sha256`), 'utf8')
      .trim()
      .split(/\s+/);
    assert.equal(name, `${BASE}.tar.gz`);
    assert.equal(
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(dl, name!)))
        .digest('hex'),
      sum,
    );
    // README "Releases and installing": the install lines, exactly as written.
    const readmeSrc = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readmeSrc.slice(readmeSrc.indexOf('\n### Releases and installing'));
    const install = [...section.slice(0, section.indexOf('\n### ', 5)).matchAll(/```text\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes('sha256sum -c'));
    assert.ok(install?.includes(`${BASE}.tar.gz`), `the README's install lines name ${BASE}.tar.gz`);
    assert.ok(install);
    const steps = sh('sh', ['-e', '-c', install], { cwd: dl, env });
    assert.match(steps, new RegExp(`^${BASE}\\.tar\\.gz: OK$`, 'm'));
    assert.match(steps, new RegExp(`^inboxd ${RELEASE.replaceAll('.', '\\.')}$`, 'm'));
    const files = fs.readdirSync(path.join(dl, BASE)).sort();
    const expected = ['CHANGELOG.md', 'LICENSE', 'README.md', 'THIRD-PARTY-LICENSES.txt', 'inboxd', 'inboxd.cdx.json'];
    assert.deepEqual(files, expected.sort());
    const exe = path.join(dl, BASE, 'inboxd');
    assert.equal(fs.statSync(exe).mode & 0o777, 0o755);

    const version = sh(exe, ['version'], { cwd: dl, env }).split('\n');
    assert.equal(version[0], `inboxd ${RELEASE}`);
    assert.equal(version[1], `commit ${manifest.commit}`);
    assert.equal(version[2], `built ${manifest.date}`);
    assert.equal(version[3], 'api 0.2.0');
    assert.match(version[5] ?? '', /^code cache used /, 'the released executable starts with its code cache');

    // The README quick start, exactly as written, next to the inboxd-data of the unpacked executable.
    const readme = fs.readFileSync(path.join(dl, BASE, 'README.md'), 'utf8');
    const quick = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('\n## Quick start')))?.[1];
    assert.ok(quick, 'the README in the archive has its quick start');
    const server = start(exe, ['serve', '--http-port', '0', '--smtp-port', '0'], { cwd: dl, env });
    await waitForFile(path.join(dl, 'inboxd-data/ports.json'), server.child, server.log);
    const r = spawnSync('sh', ['-e', '-c', quick], { cwd: dl, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `quick start failed:\n${r.stderr}\n${r.stdout}\n${server.log()}`);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    assert.equal(last.verification.otp, '482913');
    server.child.kill('SIGTERM');
    assert.equal(await exited(server.child, 15_000), 0);
  });

  test('the SBOM lists exactly the packages inside the executable and validates; the licences of each are in the archive', async () => {
    // The packages esbuild put into the bundles (and the addon's package), from the build's own list.
    const bundled = new Set<string>();
    for (const f of [...manifest.inputs, ...manifest.assets]) {
      const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(f);
      if (m) bundled.add(m[1]!);
    }
    assert.ok(bundled.has('node_modules/koa') && bundled.has('node_modules/better-sqlite3') && bundled.has('node_modules/zod'));
    const dl = path.join(work, 'sbom');
    fs.mkdirSync(dl);
    sh('tar', ['-xzf', path.join(out, `${BASE}.tar.gz`)], { cwd: dl, env: cleanEnv({}) });
    const text = fs.readFileSync(path.join(dl, BASE, 'inboxd.cdx.json'), 'utf8');
    assert.equal(text, fs.readFileSync(path.join(out, `${BASE}.cdx.json`), 'utf8'), 'the SBOM beside the archive is the one inside');

    // The generator's own validation: its library's strict JSON schema validator (null = valid).
    const { Validation, Spec } = require('@cyclonedx/cyclonedx-library') as typeof import('@cyclonedx/cyclonedx-library');
    assert.equal(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text), null);
    const bom = JSON.parse(text);
    assert.equal(bom.bomFormat, 'CycloneDX');
    assert.equal(bom.specVersion, '1.6');
    assert.ok(bom.metadata.tools.components.some((t: { name: string }) => t.name === 'cyclonedx-npm'));
    assert.equal(bom.metadata.component.name, 'inboxd');
    assert.equal(bom.metadata.component.version, RELEASE);
    type Comp = {
      type: string;
      name: string;
      group?: string;
      version: string;
      purl: string;
      properties?: { name: string; value: string }[];
    };
    const comps = bom.components as Comp[];
    const paths = comps.flatMap((c) => c.properties?.filter((p) => p.name === 'cdx:npm:package:path').map((p) => p.value) ?? []);
    assert.deepEqual(new Set(paths), bundled, 'one component per bundled package, no other');
    for (const dev of ['esbuild', 'typescript', 'playwright-core', '@biomejs/biome', '@cyclonedx/cyclonedx-npm']) {
      assert.ok(!comps.some((c) => (c.group ? `${c.group}/${c.name}` : c.name) === dev), `${dev} is a build tool, not inside`);
    }
    assert.ok(
      comps.some((c) => c.type === 'platform' && c.name === 'node' && /^24\./.test(c.version)),
      'the Node.js runtime',
    );
    assert.ok(
      comps.some((c) => c.type === 'data' && c.name === 'src/checks/compat/data'),
      'the vendored caniemail data',
    );

    const licences = fs.readFileSync(path.join(dl, BASE, 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const c of comps) {
      const name = c.group ? `${c.group}/${c.name}` : c.name;
      if (c.type === 'library')
        assert.ok(licences.includes(`\n${name}@${c.version} (`), `${name}@${c.version} is in THIRD-PARTY-LICENSES.txt`);
    }
    // The texts themselves: a package's licence file, and the data vendored in src/ (caniemail).
    for (const f of ['node_modules/koa/LICENSE', 'node_modules/better-sqlite3/LICENSE', 'src/checks/compat/data/LICENSE']) {
      assert.ok(licences.includes(fs.readFileSync(path.join(ROOT, f), 'utf8').trim()), `the text of ${f}`);
    }
    assert.match(licences, /^Node\.js 24\.\d+\.\d+ \(runtime\)/m);
    // pgpass ships no licence file: the licence section of its README stands in (its copyright line included).
    const pgpass = fs.readFileSync(path.join(ROOT, 'node_modules/pgpass/README.md'), 'utf8');
    const copyright = /^## License\n\n(Copyright .+)$/m.exec(pgpass)?.[1];
    assert.ok(copyright && licences.includes(`--- README.md, its licence section`) && licences.includes(copyright));
  });
});

describe('npm packages', () => {
  test('installed --offline from a local npm cache into an empty project: npx inboxd --version, and npx inboxd serve answers /health', async () => {
    const cache = path.join(work, 'npm-cache');
    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "app-tests", "version": "1.0.0", "private": true }\n');
    const env = cleanEnv({ HOME: project, npm_config_update_notifier: 'false' });
    const tarballs = [`inboxd-linux-x64-${RELEASE}.tgz`, `inboxd-${RELEASE}.tgz`].map((f) => path.join(out, f));
    for (const t of tarballs) sh('npm', ['cache', 'add', t, '--cache', cache], { cwd: project, env });
    sh('npm', ['install', '--offline', '--cache', cache, '--no-audit', '--no-fund', ...tarballs], { cwd: project, env });
    const launcher = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/inboxd/package.json'), 'utf8'));
    assert.deepEqual(launcher.optionalDependencies, { '@inboxd/linux-x64': RELEASE });
    assert.equal(
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(project, 'node_modules/@inboxd/linux-x64/bin/inboxd')))
        .digest('hex'),
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(ROOT, 'dist/inboxd')))
        .digest('hex'),
      'the platform package carries the executable as built',
    );

    assert.equal(sh('npx', ['--offline', '--cache', cache, `inboxd@${RELEASE}`, '--version'], { cwd: project, env }).trim(), RELEASE);

    const data = path.join(work, 'npx-data');
    const server = start(
      'npx',
      ['--offline', '--cache', cache, `inboxd@${RELEASE}`, 'serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', data],
      {
        cwd: project,
        env,
      },
    );
    const ports = JSON.parse(await waitForFile(path.join(data, 'ports.json'), server.child, server.log));
    const res = await fetch(`http://127.0.0.1:${ports.http}/health`);
    assert.equal(res.status, 200);
    const health = (await res.json()) as { status: string; version: string };
    assert.equal(health.status, 'ok');
    assert.equal(health.version, '0.2.0', 'the service reports the API version');
    // Ctrl-C or a CI runner's stop signals the whole process group (npm exec itself does not pass SIGTERM on).
    const pid = Number(fs.readFileSync(path.join(data, 'inboxd.lock'), 'utf8').trim());
    process.kill(-server.child.pid!, 'SIGTERM');
    await exited(server.child, 15_000);
    await gone(pid);

    // The launcher alone (what `npm i -g` puts on PATH) passes SIGTERM on to the executable and exits with its status.
    fs.rmSync(data, { recursive: true });
    const direct = start(
      path.join(project, 'node_modules/.bin/inboxd'),
      ['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', data],
      {
        cwd: project,
        env,
      },
    );
    await waitForFile(path.join(data, 'ports.json'), direct.child, direct.log);
    const pid2 = Number(fs.readFileSync(path.join(data, 'inboxd.lock'), 'utf8').trim());
    assert.notEqual(pid2, direct.child.pid, 'the launcher runs the executable as its child');
    direct.child.kill('SIGTERM');
    assert.equal(await exited(direct.child, 15_000), 0, direct.log());
    await gone(pid2);
  });
  test('from a registry mirror, `npm install inboxd` brings the platform package as its optional dependency; then offline by name from the cache', async () => {
    // A registry of two packages, as a mirror serves them: the packument (with the tarball's integrity) and the tarball.
    const packages = new Map<string, { doc: object; tarballPath: string; tgz: Buffer }>();
    const registry = http.createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? '');
      const tarball = [...packages.values()].find((p) => url === p.tarballPath);
      if (tarball) return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball.tgz);
      const p = packages.get(url.slice(1));
      if (!p) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(p.doc));
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(registry.address() as import('node:net').AddressInfo).port}`;
    try {
      for (const file of [`inboxd-linux-x64-${RELEASE}.tgz`, `inboxd-${RELEASE}.tgz`]) {
        const tgz = fs.readFileSync(path.join(out, file));
        const manifestText = sh('tar', ['-xzOf', path.join(out, file), 'package/package.json'], { cwd: work, env: cleanEnv({}) });
        const pkg = JSON.parse(manifestText) as { name: string; version: string };
        const tarballPath = `/tarballs/${file}`;
        const dist = {
          tarball: `${base}${tarballPath}`,
          integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
          shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
        };
        const doc = {
          name: pkg.name,
          'dist-tags': { latest: pkg.version },
          versions: { [pkg.version]: { ...pkg, _id: `${pkg.name}@${pkg.version}`, dist } },
        };
        packages.set(pkg.name, { doc, tarballPath, tgz });
      }
      const cache = path.join(work, 'mirror-cache');
      const online = path.join(work, 'mirror-project');
      fs.mkdirSync(online);
      fs.writeFileSync(path.join(online, 'package.json'), '{ "name": "app-tests", "version": "1.0.0", "private": true }\n');
      const env = cleanEnv({ HOME: online, npm_config_update_notifier: 'false' });
      await shAsync('npm', ['install', '--registry', `${base}/`, '--cache', cache, '--no-audit', '--no-fund', 'inboxd'], {
        cwd: online,
        env,
      });
      assert.ok(
        fs.existsSync(path.join(online, 'node_modules/@inboxd/linux-x64/bin/inboxd')),
        'npm chose the platform package for linux-x64',
      );
      assert.equal(
        (await shAsync('npx', ['--registry', `${base}/`, '--cache', cache, 'inboxd', '--version'], { cwd: online, env })).trim(),
        RELEASE,
      );
    } finally {
      await new Promise((r) => registry.close(r));
    }
    // The registry is gone: the cache the mirror filled serves an install by name.
    const offline = path.join(work, 'offline-by-name');
    fs.mkdirSync(offline);
    fs.writeFileSync(path.join(offline, 'package.json'), '{ "name": "app-tests", "version": "1.0.0", "private": true }\n');
    const env = cleanEnv({ HOME: offline, npm_config_update_notifier: 'false' });
    const cache = path.join(work, 'mirror-cache');
    sh('npm', ['install', '--offline', '--registry', `${base}/`, '--cache', cache, '--no-audit', '--no-fund', `inboxd@${RELEASE}`], {
      cwd: offline,
      env,
    });
    assert.equal(sh('npx', ['--offline', '--cache', cache, `inboxd@${RELEASE}`, '--version'], { cwd: offline, env }).trim(), RELEASE);
  });
});

async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(!isAlive(pid), `inboxd (${pid}) still runs`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
