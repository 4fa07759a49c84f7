// Chooses and opens the blob store at start: the local one (segments when there is a SQLite handle, plain files
// otherwise), or an S3-compatible bucket when --blob-store is set. The S3 client is loaded only then, so the default
// path neither parses nor initialises the AWS SDK.

import type BetterSqlite3 from 'better-sqlite3';
import type { BlobStore } from './blob-store.ts';
import { LocalBlobStore } from './blobs.ts';
import { parseS3Url, type S3Credentials, s3CredentialsFromEnv } from './s3-url.ts';

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
  /** With --blob-store: from the environment (Config.blobStoreCredentials). */
  credentials?: S3Credentials;
}

/** Delete grace on a shared bucket: far longer than any batch takes from its PUTs to its commit. */
export const SHARED_DELETE_GRACE_MS = 15 * 60_000;

/** Throws an Error whose message names the setting and what to do (the caller makes it a start error). */
export async function openBlobStore(o: OpenBlobStoreOptions): Promise<BlobStore> {
  if (!o.setting) return new LocalBlobStore(o.root, { sqlite: o.sqlite, fsync: o.fsync, maxSegmentBytes: o.maxSegmentBytes });
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
