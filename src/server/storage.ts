// The data directory, the database and the blob store: opened (and recovered) before anything is wired on them.
import path from 'node:path';
import type { Config } from '../config.ts';
import { DataDirError, type DataDirLock, lockDataDir, prepareDataDir } from '../data-dir.ts';
import type { Logger } from '../log.ts';
import { openBlobStore } from '../store/blob-open.ts';
import type { BlobStore } from '../store/blobs.ts';
import { dbFile, openPgStore, openStore, type Store } from '../store/db.ts';
import { type PgTarget, parsePgUrl } from '../store/pg-url.ts';
import { StartError } from './listen.ts';

export interface Storage {
  lock: DataDirLock;
  store: Store;
  blobs: BlobStore;
}

/** Locks the data dir, opens the store and the blobs, and recovers the blob store after an unclean stop. */
export async function openStorage(config: Config, log: Logger, blobDir?: string): Promise<Storage> {
  let lock: DataDirLock;
  try {
    prepareDataDir(config.dataDir);
    lock = lockDataDir(config.dataDir);
  } catch (e) {
    throw new StartError(e instanceof DataDirError ? e.message : `--data-dir ${config.dataDir}: ${(e as Error).message}`, 1);
  }
  let store: Store | undefined;
  try {
    store = await (config.database === undefined
      ? openStore(dbFile(config.dataDir))
      : openPgStore(parsePgUrl(config.database) as PgTarget, {
          poolSize: config.databasePoolSize,
          password: config.databasePassword,
          warn: (msg) => log.warn(msg),
        })
    ).catch((e: Error) => {
      throw new StartError(e.message, 1);
    });
    const sqlite = store.sqlite;
    // Without SQLite (PostgreSQL) local segments are indexed in blobs/index.db; in-process cluster tests share one
    // folder (blobDir), which keeps a file per blob.
    const blobs = await openBlobStore({
      root: blobDir ?? path.join(config.dataDir, 'blobs'),
      setting: config.blobStore,
      credentials: config.blobStoreCredentials,
      sqlite,
      fsync: !config.noFsync,
      maxSegmentBytes: config.segmentSizeMb * 1024 * 1024,
      shared: !sqlite,
      folderShared: blobDir !== undefined,
    }).catch((e: Error) => {
      throw new StartError(e.message, 1);
    });
    try {
      await blobs.sweepTemp();
      const recovered = blobs.recover();
      if (recovered.rebuilt !== undefined)
        log.warn('the blob index was missing: rebuilt it from the segment files', { blobsIndexed: recovered.rebuilt });
      if (recovered.lost.length > 0 || recovered.truncated > 0)
        log.warn('recovered the blob store after an unclean stop', {
          unacknowledgedBlobsDropped: recovered.lost.length,
          tailBytesCut: recovered.truncated,
        });
    } catch (e) {
      blobs.close();
      throw e;
    }
    return { lock, store, blobs };
  } catch (e) {
    await store?.close().catch(() => undefined);
    lock.release();
    throw e;
  }
}
