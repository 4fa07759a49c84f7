// The segment index of a data dir whose rows live in PostgreSQL: blobs/index.db, a SQLite file of its own holding only
// segment_blobs (the same table as migration 010). Without it an instance on PostgreSQL kept every blob as its own
// file, each with an fsync: a quarter of its CPU per message went to creating files (docs/benchmarks.md).
//
// The index is one machine's, like the folder it indexes (several instances need --blob-store). Its commits are not
// synced by SQLite (synchronous=NORMAL, as the main database): the ingest writer fsyncs the WAL on the thread pool,
// together with the segment, before PostgreSQL commits the rows that reference the batch's blobs. So a committed row
// always finds its index row and its bytes; a crash before that COMMIT can leave index rows nothing references, which
// the orphan sweep at start removes (src/ingest/orphans.ts).
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { nativeBindingOption } from './sqlite-native.ts';
import { syncFolder, walSyncer } from './wal.ts';

export const INDEX_FILE = 'index.db';

export interface OwnSegmentIndex {
  readonly sqlite: BetterSqlite3.Database;
  readonly file: string;
  /** The file did not exist: the segment files (if any) must be read into it (SegmentStore.rebuild). */
  readonly created: boolean;
  /** Makes every index commit so far durable (one fsync of the WAL). */
  sync(): Promise<void>;
  close(): void;
}

/** Opens (creating when missing) `<root>/index.db`. Throws an Error naming the file when it is not usable. */
export function openSegmentIndex(root: string, opts: { fsync: boolean }): OwnSegmentIndex {
  const file = path.join(root, INDEX_FILE);
  const created = !fs.existsSync(file);
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file, nativeBindingOption());
  } catch (e) {
    throw new Error(`cannot open the blob index ${file}: ${(e as Error).message}`);
  }
  try {
    sqlite.pragma('schema_version', { simple: true });
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.exec(`create table if not exists segment_blobs (
      sha256 text primary key,
      segment integer not null,
      offset integer not null,
      length integer not null
    ) without rowid;
    create index if not exists segment_blobs_segment on segment_blobs (segment, offset);`);
  } catch (e) {
    sqlite.close();
    throw new Error(
      `${file} is not a usable blob index (${(e as Error).message}); move it away and start again: it is rebuilt ` +
        `from the segment files in ${path.join(root, 'segments')}`,
    );
  }
  // The index file and its WAL (created just now by the statements above) must be found again after a power loss.
  if (opts.fsync) syncFolder(root);
  const wal = walSyncer(`${file}-wal`);
  return {
    sqlite,
    file,
    created,
    sync: () => (opts.fsync ? wal.sync() : Promise.resolve()),
    close(): void {
      wal.close();
      sqlite.close();
    },
  };
}
