// Content-addressed blob store: raw messages and attachment bytes, named by their sha256 (never by anything that came
// from a message, so no path traversal). New blobs are appended to segment files (src/store/segments.ts) and found
// through the segment_blobs index: in the main SQLite database, or, when the rows live in PostgreSQL, in blobs/index.db
// (src/store/segment-index.ts). Blobs written before migration 010 (or on PostgreSQL before the index existed) are
// files under <root>/<2 hex>/<62 hex> and stay readable (and deletable) there. A folder several instances share (the
// in-process cluster tests) keeps writing files, each fsynced (with its folder) before the batch's rows commit.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type BetterSqlite3 from 'better-sqlite3';
import { BlobMissingError, type BlobRef, type BlobStore, type ByteRange, SHA256 } from './blob-store.ts';
import type { OwnSegmentIndex } from './segment-index.ts';
import { type Placement, type RecoveryReport, SegmentStore } from './segments.ts';

export type { BlobRef, BlobStore } from './blob-store.ts';
export { BlobMissingError } from './blob-store.ts';

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';
  readonly root: string;
  readonly segments: SegmentStore | null;
  private readonly tmp: string;
  private seq = 0;
  private readonly dirs = new Set<string>();
  /** Whether per-file blobs (before migration 010) may exist: only then does a lookup miss check the folder. */
  private legacy: boolean;
  /** Appended in the current batch but not yet in a committed index row (a failed transaction is retried). */
  private readonly pending = new Map<string, Placement>();
  private readonly fsync: boolean;
  /** Folders that got a new per-file blob since the last sync() (a rename is durable once its folder is synced). */
  private readonly unsyncedDirs = new Set<string>();
  /** blobs/index.db, when the index is not in the main database. */
  private readonly ownIndex: OwnSegmentIndex | null;
  /** Own index only: rows index() added whose referencing rows have not committed yet (see rolledBack()). */
  private readonly uncommitted = new Set<string>();

  constructor(
    root: string,
    opts: { sqlite?: BetterSqlite3.Database; ownIndex?: OwnSegmentIndex; maxSegmentBytes?: number; fsync?: boolean } = {},
  ) {
    this.root = root;
    this.fsync = opts.fsync ?? true;
    this.tmp = path.join(root, 'tmp');
    fs.mkdirSync(this.tmp, { recursive: true });
    this.ownIndex = opts.ownIndex ?? null;
    const index = opts.sqlite ?? this.ownIndex?.sqlite;
    this.segments = index ? new SegmentStore(path.join(root, 'segments'), index, { ...opts, ownIndex: this.ownIndex ?? undefined }) : null;
    this.legacy = !this.segments || hasLegacyFiles(root);
  }

  /**
   * Writes the batch's blobs that are not stored yet (one append) and returns the placements the batch's
   * transaction must index (see index()). Duplicates within the batch and already stored blobs cost no write.
   */
  async stage(blobs: Array<{ sha256: string; bytes: Uint8Array }>): Promise<Placement[]> {
    if (!this.segments) {
      await Promise.all(blobs.map((b) => this.put(b.bytes, { sha256: b.sha256, sync: this.fsync })));
      return [];
    }
    const out: Placement[] = [];
    const fresh: Array<{ sha256: string; bytes: Uint8Array }> = [];
    const seen = new Set<string>();
    for (const b of blobs) {
      if (seen.has(b.sha256)) continue;
      seen.add(b.sha256);
      const p = this.pending.get(b.sha256);
      if (p) out.push(p);
      else if (!this.segments.locate(b.sha256) && !(this.legacy && fs.existsSync(this.pathOf(b.sha256)))) fresh.push(b);
    }
    for (const p of await this.segments.append(fresh)) {
      this.pending.set(p.sha256, p);
      out.push(p);
    }
    return out;
  }

  /**
   * Index rows for staged blobs, inside the transaction that commits the rows referencing them. With an own index
   * they commit at once: sync() then makes them durable, and the writer reports the outcome of its transaction
   * (committed() or rolledBack()).
   */
  index(placements: Placement[]): void {
    const added = this.segments?.index(placements) ?? [];
    if (this.ownIndex) for (const sha of added) this.uncommitted.add(sha);
  }

  /** Own index: the rows referencing these blobs committed; their index rows stay. */
  committed(placements: Placement[]): void {
    for (const p of placements) this.uncommitted.delete(p.sha256);
  }

  /**
   * Own index: the transaction that was to reference these blobs failed. Index rows it added go again (the bytes are
   * dead space for compaction), so a failed batch leaves nothing that looks stored.
   */
  rolledBack(placements: Placement[]): void {
    for (const p of placements) if (this.uncommitted.delete(p.sha256)) this.segments?.unindex(p.sha256);
  }

  /** Ends a batch: appended blobs its transactions did not index are dead space (compaction reclaims it). */
  settle(): void {
    this.pending.clear();
  }

  /** Makes every blob staged so far durable (one fsync per segment written, and of an own index's WAL). */
  async sync(): Promise<void> {
    if (this.unsyncedDirs.size > 0) {
      const dirs = [...this.unsyncedDirs];
      this.unsyncedDirs.clear();
      await Promise.all(dirs.map(syncDirAsync));
    }
    await Promise.all([this.segments?.sync(), this.ownIndex?.sync()]);
  }

  /**
   * Start-up recovery of the segment store; see SegmentStore.recover(). An own index that had to be created while
   * segment files exist (deleted by hand) is first rebuilt from them.
   */
  recover(): RecoveryReport {
    if (!this.segments) return { lost: [], truncated: 0 };
    const rebuilt = this.ownIndex?.created && this.segments.list().length > 0 ? this.segments.rebuild() : undefined;
    const report = this.segments.recover();
    return rebuilt === undefined ? report : { ...report, rebuilt };
  }

  close(): void {
    this.segments?.close();
    this.ownIndex?.close();
  }

  static hash(bytes: Uint8Array): string {
    return crypto.createHash('sha256').update(bytes).digest('hex');
  }

  pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error(`not a sha256 blob name: ${sha256}`);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2));
  }

  /**
   * Writes the bytes unless a blob with the same hash exists. With `sync`, the data is fsynced before the
   * rename, so a blob that exists after a crash is complete. Returns the reference either way.
   */
  async put(bytes: Uint8Array, opts: { sync?: boolean; sha256?: string } = {}): Promise<BlobRef> {
    const sha256 = opts.sha256 ?? LocalBlobStore.hash(bytes);
    this.legacy = true;
    const dest = this.pathOf(sha256);
    if (fs.existsSync(dest)) return { sha256, size: bytes.byteLength };
    const dir = path.dirname(dest);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const tmp = this.tmpName(sha256);
    if (!opts.sync) {
      // Creating a file is the slow part (~0.1 ms on ext4): the thread pool does it. The callback API costs the
      // event loop far less per file than fs/promises' FileHandle round trips.
      // A failed write (disk full) leaves no partial temp file behind to hold on to the space.
      const fail = (reject: (e: unknown) => void, e: NodeJS.ErrnoException) => fs.rm(tmp, { force: true }, () => reject(e));
      await new Promise<void>((resolve, reject) =>
        fs.writeFile(tmp, bytes, { mode: 0o640 }, (e) =>
          e ? fail(reject, e) : fs.rename(tmp, dest, (e2) => (e2 ? fail(reject, e2) : resolve())),
        ),
      );
      return { sha256, size: bytes.byteLength };
    }
    // Synced before the rename, through the callback API as above (a FileHandle costs the event loop several promise
    // round trips per file: on PostgreSQL every message's blob is a file).
    await new Promise<void>((resolve, reject) =>
      fs.open(tmp, 'w', 0o640, (e, fd) => {
        if (e) return reject(e);
        const closed = (err: NodeJS.ErrnoException | null) =>
          fs.close(fd, (e2) => {
            const bad = err ?? e2;
            if (bad) return fs.rm(tmp, { force: true }, () => reject(bad));
            fs.rename(tmp, dest, (e3) => (e3 ? fs.rm(tmp, { force: true }, () => reject(e3)) : resolve()));
          });
        fs.writeFile(fd, bytes, (e1) => (e1 ? closed(e1) : fs.fsync(fd, closed)));
      }),
    );
    this.unsyncedDirs.add(dir);
    return { sha256, size: bytes.byteLength };
  }

  /** Unique among processes and threads writing to the same folder. */
  private tmpName(sha256: string): string {
    return path.join(this.tmp, `${process.pid}-${++this.seq}-${sha256.slice(0, 16)}`);
  }

  async get(sha256: string): Promise<Buffer> {
    const p = this.segments?.locate(sha256);
    if (!p) return fsp.readFile(this.pathOf(sha256));
    try {
      return await this.segments!.read(p);
    } catch (e) {
      // Compaction may have moved it (and removed the old segment) between the lookup and the read.
      const again = this.segments!.locate(sha256);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !again || again.segment === p.segment) throw missing(e, sha256);
      return this.segments!.read(again);
    }
  }

  /**
   * The blob as a stream, opened before it is returned: a blob missing from disk (deleted by hand, a restore that
   * lost files) fails here with BlobMissingError instead of in the middle of a response.
   */
  async open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    const p = this.segments?.locate(sha256);
    if (p) {
      try {
        return await this.openPlaced(p, range);
      } catch (e) {
        const again = this.segments!.locate(sha256);
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !again || again.segment === p.segment) throw missing(e, sha256);
        return this.openPlaced(again, range);
      }
    }
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.pathOf(sha256), 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobMissingError(sha256);
      throw e;
    }
    const { size } = await fh.stat();
    if (!range) return { stream: fh.createReadStream(), size };
    const r = clamp(range, size);
    return { stream: fh.createReadStream({ start: r.start, end: r.end }), size: r.end - r.start + 1 };
  }

  private async openPlaced(p: Placement, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    if (!range) return { stream: await this.segments!.open(p), size: p.length };
    const r = clamp(range, p.length);
    const part = { ...p, offset: p.offset + r.start, length: r.end - r.start + 1 };
    return { stream: await this.segments!.open(part), size: part.length };
  }

  async exists(sha256: string): Promise<boolean> {
    return this.has(sha256);
  }

  /** exists(), answered at once (the index and the folder are local). */
  has(sha256: string): boolean {
    return !!this.segments?.locate(sha256) || (this.legacy && fs.existsSync(this.pathOf(sha256)));
  }

  /** Forgets a blob: its index row goes (compaction reclaims the bytes), or its file (before migration 010). */
  async delete(sha256: string): Promise<void> {
    this.segments?.unindex(sha256);
    if (this.legacy) await fsp.rm(this.pathOf(sha256), { force: true });
  }

  /**
   * Per-file blobs last written before `before`, one page per folder, for the sweep of blobs a failed commit left
   * behind (src/store/blob-sweep.ts). Segment bytes need no such sweep (without an index row they are dead space that
   * compaction reclaims), so with segments and no per-file blobs this yields nothing.
   */
  async *listStale(before: number): AsyncIterable<string[]> {
    if (!this.legacy) return;
    for (const d of await fsp.readdir(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(d)) continue;
      const names = await fsp.readdir(path.join(this.root, d)).catch(() => [] as string[]);
      const page: string[] = [];
      for (const n of names) {
        const st = SHA256.test(d + n) ? await fsp.stat(path.join(this.root, d, n)).catch(() => null) : null;
        if (st && st.mtimeMs < before) page.push(d + n);
      }
      if (page.length > 0) yield page;
    }
  }

  /** Removes temp files left by a crash mid-write. */
  async sweepTemp(): Promise<number> {
    const names = await fsp.readdir(this.tmp);
    await Promise.all(names.map((n) => fsp.rm(path.join(this.tmp, n), { force: true })));
    return names.length;
  }
}

/** A range within a blob of `size` bytes (an HTTP-style range past the end is cut at the end). */
function clamp(range: ByteRange, size: number): ByteRange {
  if (!(range.start >= 0 && range.start <= range.end && range.start < size))
    throw new RangeError(`byte range ${range.start}-${range.end} is outside a blob of ${size} bytes`);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}

function syncDirAsync(dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.open(dir, 'r', (e, fd) => {
      if (e) return reject(e);
      fs.fsync(fd, (e2) => fs.close(fd, () => (e2 ? reject(e2) : resolve())));
    }),
  );
}

function missing(e: unknown, sha256: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESHORT' ? new BlobMissingError(sha256) : e;
}

/** Whether the folder holds per-file blobs from before migration 010 (two-hex-digit folders with files in them). */
function hasLegacyFiles(root: string): boolean {
  for (const d of fs.readdirSync(root)) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue;
    try {
      if (fs.readdirSync(path.join(root, d)).length > 0) return true;
    } catch {
      // not a folder
    }
  }
  return false;
}
