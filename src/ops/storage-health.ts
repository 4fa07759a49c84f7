// Whether the store can still write, for /health: free space and inodes on the data dir's file system (statfs) and
// write permission on the data dir and the blob folder (access W_OK: a read-only mount or an immutable folder
// fails it). Nothing is written; the answer is cached for a second so a tight probe loop costs nothing.
import fs from 'node:fs/promises';

const CACHE_MS = 1_000;
/** Fewer free inodes than this and new blob files soon fail (where the file system counts inodes at all). */
const MIN_FREE_INODES = 100;

export interface StorageCheck {
  /** null when the store can write; otherwise what is wrong, in one sentence. */
  reason: string | null;
  freeBytes: number | null;
}

export class StorageHealth {
  private readonly dataDir: string;
  private readonly blobDir: string;
  private readonly minFreeBytes: number;
  private readonly now: () => number;
  private cached: { at: number; check: Promise<StorageCheck> } | null = null;

  constructor(o: { dataDir: string; blobDir: string; minFreeMb: number; now: () => number }) {
    this.dataDir = o.dataDir;
    this.blobDir = o.blobDir;
    this.minFreeBytes = o.minFreeMb * 1024 * 1024;
    this.now = o.now;
  }

  check(): Promise<StorageCheck> {
    const now = this.now();
    if (!this.cached || now - this.cached.at >= CACHE_MS || now < this.cached.at) this.cached = { at: now, check: this.measure() };
    return this.cached.check;
  }

  private async measure(): Promise<StorageCheck> {
    let freeBytes: number | null = null;
    try {
      const st = await fs.statfs(this.dataDir);
      freeBytes = st.bavail * st.bsize;
      if (freeBytes < this.minFreeBytes) {
        const mb = Math.floor(freeBytes / (1024 * 1024));
        return {
          reason: `only ${mb} MB free on the data dir's file system (below --health-min-free-mb ${this.minFreeBytes / (1024 * 1024)}); free space or move --data-dir`,
          freeBytes,
        };
      }
      if (st.files > 0 && st.ffree < MIN_FREE_INODES)
        return { reason: `no free inodes left on the data dir's file system (${st.ffree}); delete files or move --data-dir`, freeBytes };
    } catch (e) {
      return { reason: `cannot read the data dir's file system: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, freeBytes };
    }
    for (const [what, dir] of [
      ['data dir', this.dataDir],
      ['blob folder', this.blobDir],
    ] as const) {
      try {
        await fs.access(dir, fs.constants.W_OK);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        return { reason: `the ${what} is not writable (${code}): check its permissions, mount and attributes`, freeBytes };
      }
    }
    return { reason: null, freeBytes };
  }
}
