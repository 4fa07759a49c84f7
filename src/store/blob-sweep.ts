// Blobs written by a batch whose transaction then failed (the PUTs succeeded, the commit did not, or the process
// died in between) are referenced by nothing. Segments need no sweep (bytes without an index row are dead space that
// compaction reclaims); a store without a transactional index (S3, or per-file blobs when there is no SQLite) lists
// its blobs older than an hour — far longer than any batch takes from its writes to its commit — and hands the ones no row references (one
// query per page, so a bucket of a million live objects is not checked object by object in the write queue) to the
// writer's collector, which checks again in the write queue before deleting anything.
import type { Kysely } from 'kysely';
import type { BlobStore } from './blob-store.ts';
import type { Database } from './schema.ts';

export const STALE_AFTER_MS = 60 * 60_000;

export interface StaleSweepResult {
  checked: number;
  removed: number;
}

export interface StaleSweepDeps {
  blobs: BlobStore;
  db: Kysely<Database>;
  /** The writer's collector (IngestWriter.collect): checks again in the write queue, then deletes. */
  collect: (shas: string[]) => Promise<number>;
}

export async function sweepStaleBlobs(
  deps: StaleSweepDeps,
  opts: { now: number; staleAfterMs?: number; signal?: AbortSignal },
): Promise<StaleSweepResult> {
  const out: StaleSweepResult = { checked: 0, removed: 0 };
  if (!deps.blobs.listStale) return out;
  for await (const page of deps.blobs.listStale(opts.now - (opts.staleAfterMs ?? STALE_AFTER_MS))) {
    if (opts.signal?.aborted) break;
    out.checked += page.length;
    const unreferenced = await unreferencedOf(deps.db, page);
    if (unreferenced.length > 0) out.removed += await deps.collect(unreferenced);
  }
  return out;
}

/** The shas no content (raw message) or attachment row references. */
async function unreferencedOf(db: Kysely<Database>, shas: string[]): Promise<string[]> {
  const used = new Set<string>();
  for (const r of await db.selectFrom('contents').select('sha256').where('sha256', 'in', shas).execute()) used.add(r.sha256);
  for (const r of await db.selectFrom('content_attachments').select('sha256').where('sha256', 'in', shas).execute()) used.add(r.sha256);
  return shas.filter((s) => !used.has(s));
}

/**
 * Sweeps at start and then every `intervalMs` (default 1 h) while the server runs; nothing for stores that need none.
 * Returns what stop() awaits (a sweep in progress ends at its next page).
 */
export function scheduleStaleSweeps(
  deps: StaleSweepDeps,
  opts: {
    now: () => number;
    signal: AbortSignal;
    onDone: (r: StaleSweepResult) => void;
    onError: (e: Error) => void;
    intervalMs?: number;
    /**
     * Runs the sweep once per cluster where the store is shared (S3 with several instances on one PostgreSQL):
     * store.singleton. Resolves to whether this instance ran it. Without it every sweep runs here.
     */
    singleton?: (job: string, fn: () => Promise<unknown>) => Promise<boolean>;
    /** Each tick's outcome: whether this instance ran the sweep (false: another instance leads it). */
    onTick?: (ran: boolean) => void;
  },
): () => Promise<void> {
  if (!deps.blobs.listStale) return async () => undefined;
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    let result: StaleSweepResult | null = null;
    const run = async () => {
      result = await sweepStaleBlobs(deps, { now: opts.now(), signal: opts.signal });
    };
    const ran = opts.singleton ? await opts.singleton('blob-stale-sweep', run) : (await run(), true);
    opts.onTick?.(ran);
    if (result) opts.onDone(result);
  };
  const once = () => {
    running = running.then(sweep).catch(opts.onError);
  };
  once();
  const timer = setInterval(once, opts.intervalMs ?? STALE_AFTER_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
