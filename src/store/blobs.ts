// Content-addressed blob folder: raw .eml files and attachment bytes, named by their sha256 (never by anything
// that came from a message, so no path traversal). Writes go to a temp file and are renamed into place.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

export interface BlobRef {
  sha256: string;
  size: number;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A blob that rows reference but that is not on disk. The message names no path (it may reach a client). */
export class BlobMissingError extends Error {
  readonly sha256: string;
  constructor(sha256: string) {
    super(`blob ${sha256} is missing from the blob store`);
    this.name = 'BlobMissingError';
    this.sha256 = sha256;
  }
}

export class BlobStore {
  readonly root: string;
  private readonly tmp: string;
  private seq = 0;
  private readonly dirs = new Set<string>();

  constructor(root: string) {
    this.root = root;
    this.tmp = path.join(root, 'tmp');
    fs.mkdirSync(this.tmp, { recursive: true });
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
    const sha256 = opts.sha256 ?? BlobStore.hash(bytes);
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
    const fh = await fsp.open(tmp, 'w', 0o640);
    try {
      await fh.writeFile(bytes);
      if (opts.sync) await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, dest);
    return { sha256, size: bytes.byteLength };
  }

  /**
   * The same write, synchronous, for a worker thread (src/ingest/analyze-worker.ts writes blobs before the main
   * thread commits their rows; the commit's own put() then finds them and does nothing).
   */
  putSync(bytes: Uint8Array, sha256: string): void {
    const dest = this.pathOf(sha256);
    if (fs.existsSync(dest)) return;
    const dir = path.dirname(dest);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const tmp = this.tmpName(sha256);
    try {
      fs.writeFileSync(tmp, bytes, { mode: 0o640 });
      fs.renameSync(tmp, dest);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }

  /** Unique among processes and threads writing to the same folder. */
  private tmpName(sha256: string): string {
    return path.join(this.tmp, `${process.pid}-${threadId}-${++this.seq}-${sha256.slice(0, 16)}`);
  }

  async get(sha256: string): Promise<Buffer> {
    return fsp.readFile(this.pathOf(sha256));
  }

  stream(sha256: string): fs.ReadStream {
    return fs.createReadStream(this.pathOf(sha256));
  }

  /**
   * The blob as a stream, opened before it is returned: a blob missing from disk (deleted by hand, a restore that
   * lost files) fails here with BlobMissingError instead of in the middle of a response.
   */
  async open(sha256: string): Promise<fs.ReadStream> {
    try {
      const fh = await fsp.open(this.pathOf(sha256), 'r');
      return fh.createReadStream();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobMissingError(sha256);
      throw e;
    }
  }

  exists(sha256: string): boolean {
    return fs.existsSync(this.pathOf(sha256));
  }

  async delete(sha256: string): Promise<void> {
    await fsp.rm(this.pathOf(sha256), { force: true });
  }

  /** Removes temp files left by a crash mid-write. */
  async sweepTemp(): Promise<number> {
    const names = await fsp.readdir(this.tmp);
    await Promise.all(names.map((n) => fsp.rm(path.join(this.tmp, n), { force: true })));
    return names.length;
  }
}
