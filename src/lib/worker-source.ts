// Where a worker thread's code is, and how to start a worker from it: the ingest analyzer's workers and the sandbox's
// (src/ingest/analyzer.ts, src/budget/sandbox.ts). From source, the .ts entry; otherwise a bundle next to the main
// bundle; in the single executable, a SEA asset (scripts/build.ts embeds each worker bundle under its key, inside the
// CommonJS function wrapper, one byte per character). There the worker is started with a few lines of code that read
// the asset in the worker itself (the main isolate keeps no copy of the worker's source) and compile it with the V8
// code cache the build embedded beside it (`<key>.cache`, made by running the executable once: scripts/build/
// code-cache.ts), so a new worker compiles almost nothing; V8 refuses a cache made with other flags and compiles.
import fs from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export type WorkerSource = { kind: 'file'; url: URL } | { kind: 'eval'; code: () => string };

/** The bundles are CommonJS: saying so spares Node's scan of a whole source for ESM syntax (a worker ready in ~33 instead of ~49 ms). */
const EVAL_WORKER_ARGS = ['--input-type=commonjs'];

/**
 * The worker's code, or null when there is none (a SEA without the asset, a bundle without its sibling).
 * `here` is the caller's `import.meta.url`; `entry` the worker's .ts file relative to it.
 */
export function findWorkerSource(o: { assetKey: string; here: string; entry: string }): WorkerSource | null {
  const sea = process.getBuiltinModule('node:sea');
  if (sea?.isSea()) {
    try {
      sea.getRawAsset(o.assetKey); // throws when the asset is missing
    } catch {
      return null;
    }
    return { kind: 'eval', code: () => seaWorkerLoader(o.assetKey) };
  }
  if (o.here.endsWith('.ts')) return { kind: 'file', url: new URL(o.entry, o.here) };
  const sibling = new URL(`./${o.assetKey}`, o.here);
  return fs.existsSync(sibling) ? { kind: 'file', url: sibling } : null;
}

/** Where the single executable's loaders (scripts/build/sea-main.cjs, the worker loader below) say what the cache did. */
const CODE_CACHE_KEY = 'inboxd.codeCache';

/**
 * What this isolate's code cache did (`used`, `rejected` by V8, `none` in the executable) and its size; null from
 * source, where nothing loads a cache. The main thread's and each worker's are their own.
 */
export function codeCache(): { state: 'used' | 'rejected' | 'none'; bytes: number } | null {
  return ((globalThis as Record<symbol, unknown>)[Symbol.for(CODE_CACHE_KEY)] as ReturnType<typeof codeCache>) ?? null;
}

/**
 * The code of a worker started from the SEA asset `key`. With INBOXD_BUILD_CODE_CACHE=<dir> (the build's run of the
 * executable only) it writes the cache of what it compiled so far to <dir>/<key>.cache every 250 ms.
 */
function seaWorkerLoader(key: string): string {
  return `'use strict';
const sea = require('node:sea');
const vm = require('node:vm');
const key = ${JSON.stringify(key)};
let cachedData;
try { cachedData = Buffer.from(sea.getRawAsset(key + '.cache')); } catch { cachedData = undefined; }
const script = new vm.Script(Buffer.from(sea.getRawAsset(key)).toString('latin1'), { filename: key, cachedData });
globalThis[Symbol.for(${JSON.stringify(CODE_CACHE_KEY)})] = { state: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used', bytes: cachedData?.length ?? 0 };
const out = process.env.INBOXD_BUILD_CODE_CACHE;
if (out) {
  const fs = require('node:fs');
  const file = require('node:path').join(out, key + '.cache');
  setInterval(() => { fs.writeFileSync(file + '.tmp', script.createCachedData()); fs.renameSync(file + '.tmp', file); }, 250).unref();
}
script.runInThisContext()(exports, require, module, __filename, __dirname);`;
}

export function startWorker(source: WorkerSource, options: WorkerOptions): Worker {
  return source.kind === 'eval'
    ? new Worker(source.code(), { ...options, eval: true, execArgv: EVAL_WORKER_ARGS })
    : new Worker(source.url, options);
}
