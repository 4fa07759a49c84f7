// The single executable's main script (scripts/build.ts makes it the SEA's `main`). It runs the bundle, carried as
// the SEA asset "inboxd.cjs", with the V8 code cache that the build made by running that very bundle once: the cache
// holds every function compiled while the server started and served a first message, so a start compiles almost
// nothing (Node's own `useCodeCache` covers only what is compiled before the script runs: the top level, not the
// module bodies run on first use). V8 checks the cache against the source and its own version and flags; a cache it
// rejects (an executable run with other V8 flags through --node-options) costs only the compile it would have spared.
//
// Build-time only: with INBOXD_BUILD_CODE_CACHE=<dir> set, the cache of everything compiled so far is written to
// <dir>/inboxd.cjs.cache when the process exits, and each worker started from a SEA asset writes <dir>/<asset>.cache
// (src/lib/worker-source.ts); scripts/build/code-cache.ts drives that run, scripts/build.ts embeds the files.
'use strict';
const sea = require('node:sea');
const vm = require('node:vm');

const BUNDLE_ASSET = 'inboxd.cjs';
const CACHE_ASSET = 'inboxd.cjs.cache';
const STATE = Symbol.for('inboxd.codeCache'); // must match src/lib/worker-source.ts (CODE_CACHE_KEY)

// The asset is the bundle inside the CommonJS function wrapper, one byte per character (scripts/build.ts writes it so):
// read as Latin-1 it is one string, outside the heap, never copied again. The wrapper shares the first line with the
// bundle's banner (no source of ours), so every other position is the bundle's own.
const source = Buffer.from(sea.getRawAsset(BUNDLE_ASSET)).toString('latin1');
let cachedData;
try {
  cachedData = Buffer.from(sea.getRawAsset(CACHE_ASSET));
} catch {
  cachedData = undefined; // built without one (the cache run itself, or a build that could not make it)
}
const script = new vm.Script(source, { filename: __filename, cachedData });
globalThis[STATE] = {
  state: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
  bytes: cachedData?.length ?? 0,
};
const out = process.env.INBOXD_BUILD_CODE_CACHE;
if (out) process.on('exit', () => require('node:fs').writeFileSync(require('node:path').join(out, CACHE_ASSET), script.createCachedData()));
script.runInThisContext()(exports, require, module, __filename, __dirname);
