// Log-structured raw store: blobs (raw messages, attachment bytes) are appended to segment files instead of one file
// each, and found through the segment_blobs table (sha256 → segment, offset, length; migration 010). Creating a file
// per message was a third of the ingest worker's time; an append is one write per batch, and the batch's durability
// is one fsync (the same batch as the SQLite commit, see IngestWriter).
//
// Segment file blobs/segments/<id, 8 digits>.seg: records of a 40-byte header ('IBXS', u32 BE length, the sha256's
// 32 bytes) followed by the bytes. The header makes a segment readable without the database (forensics, a rebuild);
// the index is the truth. Only the newest segment is ever appended to; it is fsynced at the end of every batch that
// wrote to it, before its rows are acknowledged, and before the next segment is started.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type BetterSqlite3 from 'better-sqlite3';

export interface Placement {
  sha256: string;
  segment: number;
  offset: number;
  length: number;
}

export const RECORD_HEADER = 40;
const MAGIC = Buffer.from('IBXS');
const NAME = /^(\d{8})\.seg$/;

export interface RecoveryReport {
  /** Blobs whose rows were committed but whose bytes did not reach the disk (never acknowledged). */
  lost: string[];
  /** Bytes cut from the end of the newest segment (appended, never committed). */
  truncated: number;
  /** Blobs read back into an own index that was missing (see SegmentStore.rebuild). */
  rebuilt?: number;
}

export class SegmentStore {
  readonly dir: string;
  readonly maxSegmentBytes: number;
  private readonly sqlite: BetterSqlite3.Database;
  private active: { id: number; fd: number; size: number } | null = null;
  /** Segments written since the last sync() (the active one, and one just sealed by a rotation). */
  private readonly unsynced = new Map<number, number>();
  private readonly toClose: number[] = [];
  private readonly stmts: {
    locate: BetterSqlite3.Statement<[string], Placement>;
    insert: BetterSqlite3.Statement<[string, number, number, number]>;
    remove: BetterSqlite3.Statement<[string]>;
  };

  /** Off only for benchmarks of the old, unsynced behaviour (--fsync off). */
  private readonly fsync: boolean;
  /**
   * The index is a database of its own (blobs/index.db, when the rows live in PostgreSQL): index() commits there at
   * once, and recovery only drops index rows (the rows that reference blobs are elsewhere, and were committed only
   * after the segment and the index were synced).
   */
  readonly ownIndex: boolean;
  private readonly syncOwnIndex: (() => Promise<void>) | null;

  constructor(
    dir: string,
    sqlite: BetterSqlite3.Database,
    opts: { maxSegmentBytes?: number; fsync?: boolean; ownIndex?: { sync(): Promise<void> } } = {},
  ) {
    this.dir = dir;
    this.fsync = opts.fsync ?? true;
    this.ownIndex = opts.ownIndex !== undefined;
    this.syncOwnIndex = opts.ownIndex ? () => opts.ownIndex!.sync() : null;
    this.sqlite = sqlite;
    this.maxSegmentBytes = opts.maxSegmentBytes ?? 64 * 1024 * 1024;
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
      syncDir(path.dirname(dir));
    }
    this.stmts = {
      locate: sqlite.prepare('select sha256, segment, offset, length from segment_blobs where sha256 = ?'),
      insert: sqlite.prepare('insert or ignore into segment_blobs (sha256, segment, offset, length) values (?, ?, ?, ?)'),
      remove: sqlite.prepare('delete from segment_blobs where sha256 = ?'),
    };
  }

  fileOf(id: number): string {
    return path.join(this.dir, `${String(id).padStart(8, '0')}.seg`);
  }

  /** Segment ids on disk, oldest first. */
  list(): number[] {
    return fs
      .readdirSync(this.dir)
      .map((n) => NAME.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  get activeId(): number | null {
    return this.active?.id ?? null;
  }

  locate(sha256: string): Placement | undefined {
    return this.stmts.locate.get(sha256);
  }

  /**
   * Adds index rows; call inside the transaction that commits the rows referencing them (with an own index: before
   * that transaction commits, then sync()). Returns the shas whose row is new.
   */
  index(placements: Placement[]): string[] {
    const added: string[] = [];
    const run = () => {
      for (const p of placements) if (this.stmts.insert.run(p.sha256, p.segment, p.offset, p.length).changes > 0) added.push(p.sha256);
    };
    if (this.ownIndex && placements.length > 1) this.sqlite.transaction(run)();
    else run();
    return added;
  }

  /** An own index: makes its commits durable (compaction's moves, before it removes a segment). */
  syncIndex(): Promise<void> {
    return this.syncOwnIndex?.() ?? Promise.resolve();
  }

  /** The index database (compaction moves rows in it). */
  get db(): BetterSqlite3.Database {
    return this.sqlite;
  }

  unindex(sha256: string): boolean {
    return this.stmts.remove.run(sha256).changes > 0;
  }

  /**
   * Appends the blobs to the active segment in one write (starting a new segment when it is full). On a failed
   * write (disk full) the segment is cut back to where it was, so no half record stays behind.
   */
  async append(blobs: Array<{ sha256: string; bytes: Uint8Array }>): Promise<Placement[]> {
    if (blobs.length === 0) return [];
    let total = 0;
    for (const b of blobs) total += RECORD_HEADER + b.bytes.byteLength;
    const seg = this.writable(total);
    const start = seg.size;
    const bufs: Uint8Array[] = [];
    const out: Placement[] = [];
    let at = start;
    for (const b of blobs) {
      const h = Buffer.allocUnsafe(RECORD_HEADER);
      MAGIC.copy(h, 0);
      h.writeUInt32BE(b.bytes.byteLength, 4);
      h.write(b.sha256, 8, 'hex');
      bufs.push(h, b.bytes);
      out.push({ sha256: b.sha256, segment: seg.id, offset: at + RECORD_HEADER, length: b.bytes.byteLength });
      at += RECORD_HEADER + b.bytes.byteLength;
    }
    seg.size = at;
    this.unsynced.set(seg.id, seg.fd);
    try {
      await writevAll(seg.fd, bufs, start);
    } catch (e) {
      // Later appends of this batch cannot have started (the writer awaits this one), so cutting back is safe.
      seg.size = start;
      await new Promise<void>((r) => fs.ftruncate(seg.fd, start, () => r()));
      throw e;
    }
    return out;
  }

  /** Makes everything appended so far durable: one fsync per segment written since the last sync. */
  async sync(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const fds = [...this.unsynced.values()];
    this.unsynced.clear();
    if (this.fsync) await Promise.all(fds.map((fd) => new Promise<void>((res, rej) => fs.fsync(fd, (e) => (e ? rej(e) : res())))));
    for (const fd of this.toClose.splice(0)) fs.close(fd, () => undefined);
  }

  /** The segment to append `bytes` to: the active one, or a new one when they would not fit (and it is not empty). */
  private writable(bytes: number): { id: number; fd: number; size: number } {
    if (this.active && (this.active.size === 0 || this.active.size + bytes <= this.maxSegmentBytes)) return this.active;
    const id = (this.active?.id ?? this.list().at(-1) ?? 0) + 1;
    const fd = fs.openSync(this.fileOf(id), 'wx', 0o640);
    if (this.fsync) syncDir(this.dir);
    // The sealed segment is closed once its last batch is synced.
    if (this.active) this.toClose.push(this.active.fd);
    this.active = { id, fd, size: 0 };
    return this.active;
  }

  /** The bytes of one blob. */
  async read(p: Placement): Promise<Buffer> {
    const fh = await fsp.open(this.fileOf(p.segment), 'r');
    try {
      const buf = Buffer.allocUnsafe(p.length);
      let done = 0;
      while (done < p.length) {
        const { bytesRead } = await fh.read(buf, done, p.length - done, p.offset + done);
        if (bytesRead === 0) throw Object.assign(new Error(`segment ${p.segment} ends inside blob ${p.sha256}`), { code: 'ENOENT' });
        done += bytesRead;
      }
      return buf;
    } finally {
      await fh.close();
    }
  }

  /** A stream of one blob, its file opened before it is returned (a missing segment fails here, not mid-response). */
  /**
   * A stream of exactly `p.length` bytes. A segment cut shorter than the index says (damaged by hand, a restore of an
   * older copy) fails here with ENOENT-like `ESHORT`, before any byte of a response is sent: a stream that ended early
   * would leave an HTTP client waiting for bytes its Content-Length promised.
   */
  async open(p: Placement): Promise<Readable> {
    const fh = await fsp.open(this.fileOf(p.segment), 'r');
    try {
      const { size } = await fh.stat();
      if (p.offset + p.length > size)
        throw Object.assign(new Error(`segment ${p.segment} ends at ${size}, before its blob at ${p.offset}+${p.length}`), {
          code: 'ESHORT',
        });
    } catch (e) {
      await fh.close();
      throw e;
    }
    if (p.length === 0) {
      await fh.close();
      return Readable.from([]);
    }
    return fh.createReadStream({ start: p.offset, end: p.offset + p.length - 1 });
  }

  /**
   * Start-up recovery, before anything is appended. Only the newest segment can hold bytes that were not fsynced
   * (a segment is synced before the next one starts), so only it is checked: every indexed blob in it must be inside
   * the file and hash to its name; the ones that do not were never acknowledged (the 250 waits for the fsync) and
   * are reported lost; whatever follows the last good blob (an append whose commit never happened) is cut off.
   */
  recover(): RecoveryReport {
    const ids = this.list();
    const indexed = this.sqlite.prepare('select max(segment) as id from segment_blobs').get() as { id: number | null };
    const last = Math.max(ids.at(-1) ?? 0, indexed.id ?? 0);
    if (last === 0) return { lost: [], truncated: 0 };
    const rows = this.sqlite
      .prepare('select sha256, segment, offset, length from segment_blobs where segment = ? order by offset')
      .all(last) as Placement[];
    const file = this.fileOf(last);
    const exists = fs.existsSync(file);
    const fd = exists ? fs.openSync(file, 'r+') : -1;
    const size = exists ? fs.fstatSync(fd).size : 0;
    const lost: string[] = [];
    let end = 0;
    for (const r of rows) {
      if (r.offset + r.length <= size && hashAt(fd, r) === r.sha256) end = Math.max(end, r.offset + r.length);
      else lost.push(r.sha256);
    }
    if (lost.length > 0) this.dropLost(lost);
    if (!exists) {
      // The segment's file never reached the disk; the next segment takes a fresh id.
      if (rows.length > 0) fs.closeSync(fs.openSync(file, 'wx', 0o640));
      return { lost, truncated: 0 };
    }
    const truncated = size - end;
    if (truncated > 0) {
      fs.ftruncateSync(fd, end);
      fs.fsyncSync(fd);
    }
    this.active = { id: last, fd, size: end };
    return { lost, truncated };
  }

  /**
   * Removes what referenced lost blobs: their index rows, and the messages (never acknowledged) whose raw or an
   * attachment was among them, with their contents, so no reader meets a message without its bytes.
   */
  private dropLost(lost: string[]): void {
    if (this.ownIndex) {
      this.sqlite.transaction(() => {
        for (const sha of lost) this.stmts.remove.run(sha);
      })();
      return;
    }
    const run = this.sqlite.transaction((shas: string[]) => {
      const contents = this.sqlite.prepare(
        'select sha256 from contents where sha256 = ? union select content_sha256 from content_attachments where sha256 = ?',
      );
      const gone = new Set<string>();
      for (const sha of shas) for (const r of contents.all(sha, sha) as Array<{ sha256: string }>) gone.add(r.sha256);
      const delRows = this.sqlite.prepare('delete from message_rows where content_sha256 = ?');
      const delContent = this.sqlite.prepare('delete from contents where sha256 = ?');
      for (const sha of gone) {
        delRows.run(sha);
        delContent.run(sha);
      }
      for (const sha of shas) this.stmts.remove.run(sha);
    });
    run(lost);
  }

  /**
   * Reads every segment's records into an empty index (an own index that was missing: deleted by hand, or a data dir
   * from before it existed holds no segments). A record that is cut short or does not hash to its name ends its
   * segment. Blobs deleted since they were written come back as index rows nothing references, which the orphan sweep
   * removes. Returns the number of blobs indexed.
   */
  rebuild(): number {
    let n = 0;
    for (const id of this.list()) {
      const fd = fs.openSync(this.fileOf(id), 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const head = Buffer.allocUnsafe(RECORD_HEADER);
        const rows: Placement[] = [];
        for (let at = 0; at + RECORD_HEADER <= size; ) {
          if (fs.readSync(fd, head, 0, RECORD_HEADER, at) < RECORD_HEADER || !head.subarray(0, 4).equals(MAGIC)) break;
          const p = { sha256: head.toString('hex', 8, 40), segment: id, offset: at + RECORD_HEADER, length: head.readUInt32BE(4) };
          if (p.offset + p.length > size || hashAt(fd, p) !== p.sha256) break;
          rows.push(p);
          at = p.offset + p.length;
        }
        n += this.index(rows).length;
      } finally {
        fs.closeSync(fd);
      }
    }
    return n;
  }

  close(): void {
    for (const fd of this.toClose.splice(0)) fs.closeSync(fd);
    if (this.active) fs.closeSync(this.active.fd);
    this.active = null;
  }
}

function hashAt(fd: number, p: Placement): string {
  const h = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(Math.min(p.length, 1 << 20) || 1);
  for (let done = 0; done < p.length; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, p.length - done), p.offset + done);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    done += n;
  }
  return h.digest('hex');
}

async function writevAll(fd: number, bufs: Uint8Array[], position: number): Promise<void> {
  let pos = position;
  let rest = bufs;
  while (rest.length > 0) {
    const n = await new Promise<number>((res, rej) => fs.writev(fd, rest, pos, (e, w) => (e ? rej(e) : res(w))));
    pos += n;
    // A short write (rare, e.g. a signal) continues after what was written.
    let skip = n;
    const next: Uint8Array[] = [];
    for (const b of rest) {
      if (skip >= b.byteLength) skip -= b.byteLength;
      else {
        next.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    rest = next;
  }
}

export function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
