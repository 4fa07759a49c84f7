// Chooses and opens the blob store at start: the local one (segments indexed in the SQLite database, or in
// blobs/index.db when the rows live in PostgreSQL; plain files in a folder several instances share), or an
// S3-compatible bucket when --blob-store is set. The S3 client is loaded only then, so the default
// path neither parses nor initialises the AWS SDK.

import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import type { BlobStore } from './blob-store.ts';
import { LocalBlobStore } from './blobs.ts';
import { parseS3Url, type S3Credentials, s3CredentialsFromEnv } from './s3-url.ts';
import { openSegmentIndex } from './segment-index.ts';

export interface OpenBlobStoreOptions {
  /** The data dir's blob folder. */
  root: string;
  /** --blob-store (undefined: local). */
  setting: string | undefined;
  sqlite?: BetterSqlite3.Database;
  fsync: boolean;
  maxSegmentBytes: number;
  /** Several instances share the database (PostgreSQL): S3 deletes keep a grace (see s3-blobs.ts). */
  shared: boolean;
  /** Several instances write to this folder (in-process cluster tests): one file per blob, no index of its own. */
  folderShared?: boolean;
  /** With --blob-store: from the environment (Config.blobStoreCredentials). */
  credentials?: S3Credentials;
}

/** Delete grace on a shared bucket: far longer than any batch takes from its PUTs to its commit. */
export const SHARED_DELETE_GRACE_MS = 15 * 60_000;

/** Throws an Error whose message names the setting and what to do (the caller makes it a start error). */
export async function openBlobStore(o: OpenBlobStoreOptions): Promise<BlobStore> {
  if (!o.setting) {
    const opts = { sqlite: o.sqlite, fsync: o.fsync, maxSegmentBytes: o.maxSegmentBytes };
    if (o.sqlite || o.folderShared) return new LocalBlobStore(o.root, opts);
    fs.mkdirSync(o.root, { recursive: true });
    const ownIndex = openSegmentIndex(o.root, { fsync: o.fsync });
    try {
      return new LocalBlobStore(o.root, { ...opts, ownIndex });
    } catch (e) {
      ownIndex.close();
      throw e;
    }
  }
  const location = parseS3Url(o.setting);
  const credentials = o.credentials ?? s3CredentialsFromEnv(process.env);
  const { S3BlobStore } = await import('./s3-blobs.ts');
  const store = new S3BlobStore({
    location,
    credentials,
    root: o.root,
    deleteGraceMs: o.shared ? SHARED_DELETE_GRACE_MS : 0,
  });
  try {
    await store.verify();
  } catch (e) {
    store.close();
    throw e;
  }
  return store;
}
