// Whether the store can answer and write, for /health (CONTRACT §3): the database answers a trivial query; the data
// dir's file system has free space and inodes (statfs); the data dir and the blob folder are writable (access W_OK:
// a read-only mount or an immutable folder fails it); an S3 bucket answered its last HEAD. Nothing is written; the
// file-system answer is cached for a second so a tight probe loop costs nothing. One instance per server, built in
// src/server/wire.ts (its cache belongs to that server's data dir).
import fs from 'node:fs/promises';
import { type Kysely, sql } from 'kysely';
import type { BlobStore } from './blob-store.ts';
import type { Dialect } from './dialect.ts';
import { parseS3Url } from './s3-url.ts';
import type { Database } from './schema.ts';

const CACHE_MS = 1_000;
/** Fewer free inodes than this and new blob files soon fail (where the file system counts inodes at all). */
const MIN_FREE_INODES = 100;

export interface BlobStoreHealth {
  kind: 'local' | 's3';
  /** s3 only. */
  bucket?: string;
  /** s3 only: the bucket answered a HEAD. */
  reachable?: boolean;
}

/** `database: 'down'` when the database did not answer; otherwise `reason` is null when the store can write. */
export type StorageReport = { database: 'down'; detail: string } | { database: Dialect; blobStore: BlobStoreHealth; reason: string | null };

export interface StorageHealthDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  blobs: Pick<BlobStore, 'kind' | 'root' | 'reachable'>;
  /** --blob-store (an s3:// URL) when the blobs are in a bucket. */
  blobStoreUrl: string | undefined;
  dataDir: string;
  /** --health-min-free-mb */
  minFreeMb: number;
  now: () => number;
}

export class StorageHealth {
  private readonly d: StorageHealthDeps;
  private readonly minFreeBytes: number;
  private cached: { at: number; check: Promise<{ reason: string | null }> } | null = null;

  constructor(d: StorageHealthDeps) {
    this.d = d;
    this.minFreeBytes = d.minFreeMb * 1024 * 1024;
  }

  async check(): Promise<StorageReport> {
    try {
      await sql`select 1`.execute(this.d.db);
    } catch (e) {
      return { database: 'down', detail: (e as Error).message };
    }
    const [disk, unreachable] = await Promise.all([this.disk(), this.d.blobs.reachable?.() ?? null]);
    const bucket = this.d.blobStoreUrl ? { bucket: parseS3Url(this.d.blobStoreUrl).bucket, reachable: unreachable === null } : {};
    return { database: this.d.dialect, blobStore: { kind: this.d.blobs.kind, ...bucket }, reason: disk.reason ?? unreachable };
  }

  private disk(): Promise<{ reason: string | null }> {
    const now = this.d.now();
    if (!this.cached || now - this.cached.at >= CACHE_MS || now < this.cached.at) this.cached = { at: now, check: this.measure() };
    return this.cached.check;
  }

  private async measure(): Promise<{ reason: string | null }> {
    try {
      const st = await fs.statfs(this.d.dataDir);
      const freeBytes = st.bavail * st.bsize;
      if (freeBytes < this.minFreeBytes) {
        const mb = Math.floor(freeBytes / (1024 * 1024));
        return {
          reason: `only ${mb} MB free on the data dir's file system (below --health-min-free-mb ${this.minFreeBytes / (1024 * 1024)}); free space or move --data-dir`,
        };
      }
      if (st.files > 0 && st.ffree < MIN_FREE_INODES)
        return { reason: `no free inodes left on the data dir's file system (${st.ffree}); delete files or move --data-dir` };
    } catch (e) {
      return { reason: `cannot read the data dir's file system: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    for (const [what, dir] of [
      ['data dir', this.d.dataDir],
      ['blob folder', this.d.blobs.root],
    ] as const) {
      try {
        await fs.access(dir, fs.constants.W_OK);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        return { reason: `the ${what} is not writable (${code}): check its permissions, mount and attributes` };
      }
    }
    return { reason: null };
  }
}
