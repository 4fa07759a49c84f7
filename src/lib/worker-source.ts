// Where a worker thread's code is, and how to start a worker from it: the ingest analyzer's workers and the sandbox's
// (src/ingest/analyzer.ts, src/budget/sandbox.ts). From source, the .ts entry; in the single executable, a SEA asset
// (scripts/build.ts embeds each worker bundle under its key), read again at each start so the main isolate keeps no
// copy of the worker's source; otherwise a bundle next to the main bundle.
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
    return { kind: 'eval', code: () => sea.getAsset(o.assetKey, 'utf8') };
  }
  if (o.here.endsWith('.ts')) return { kind: 'file', url: new URL(o.entry, o.here) };
  const sibling = new URL(`./${o.assetKey}`, o.here);
  return fs.existsSync(sibling) ? { kind: 'file', url: sibling } : null;
}

export function startWorker(source: WorkerSource, options: WorkerOptions): Worker {
  return source.kind === 'eval'
    ? new Worker(source.code(), { ...options, eval: true, execArgv: EVAL_WORKER_ARGS })
    : new Worker(source.url, options);
}
