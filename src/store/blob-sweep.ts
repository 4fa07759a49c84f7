// Blobs written by a batch whose transaction then failed (the PUTs succeeded, the commit did not, or the process
// died in between) are referenced by nothing. A local store never sees them (segment bytes without an index row are
// dead space that compaction reclaims); a store without a transactional index (S3) lists its objects older than an
// hour — far longer than any batch takes from its writes to its commit — and hands them to the writer's collector,
// which checks references again in the write queue before deleting anything.
import type { BlobStore } from './blob-store.ts';

export const STALE_AFTER_MS = 60 * 60_000;

export interface StaleSweepResult {
  checked: number;
  removed: number;
}

export async function sweepStaleBlobs(
  blobs: BlobStore,
  collect: (shas: string[]) => Promise<number>,
  opts: { now: number; staleAfterMs?: number; signal?: AbortSignal },
): Promise<StaleSweepResult> {
  const out: StaleSweepResult = { checked: 0, removed: 0 };
  if (!blobs.listStale) return out;
  for await (const page of blobs.listStale(opts.now - (opts.staleAfterMs ?? STALE_AFTER_MS))) {
    if (opts.signal?.aborted) break;
    out.checked += page.length;
    out.removed += await collect(page);
  }
  return out;
}

/**
 * Sweeps at start and then every `intervalMs` (default 1 h) while the server runs; nothing for stores that need none.
 * Returns what stop() awaits (a sweep in progress ends at its next page).
 */
export function scheduleStaleSweeps(
  blobs: BlobStore,
  collect: (shas: string[]) => Promise<number>,
  opts: { now: () => number; signal: AbortSignal; onDone: (r: StaleSweepResult) => void; onError: (e: Error) => void; intervalMs?: number },
): () => Promise<void> {
  if (!blobs.listStale) return async () => undefined;
  let running: Promise<void> = Promise.resolve();
  const once = () => {
    running = running.then(() => sweepStaleBlobs(blobs, collect, { now: opts.now(), signal: opts.signal })).then(opts.onDone, opts.onError);
  };
  once();
  const timer = setInterval(once, opts.intervalMs ?? STALE_AFTER_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
