// The one seam every reader and writer of blob bytes goes through. Two implementations: LocalBlobStore
// (src/store/blobs.ts: segment files indexed in SQLite, or plain content-addressed files when there is no SQLite
// handle, e.g. on PostgreSQL) and S3BlobStore (src/store/s3-blobs.ts: an S3-compatible bucket).
//
// The write protocol follows the ingest writer's group commit: stage (the bytes are written, durable once sync()
// resolves) → index (inside the transaction that commits the rows using them; an index of its own commits at once and
// hears the outcome through committed()/rolledBack()) → sync → settle. A store whose stage()
// is already durable (S3: every PUT answered 200) returns no placements and has nothing to sync.
import type { Readable } from 'node:stream';
import type { Placement, RecoveryReport, SegmentStore } from './segments.ts';

export interface BlobRef {
  sha256: string;
  size: number;
}

/** Inclusive byte positions, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** The data dir's blob folder (health checks and size metrics look at it; an S3 store keeps nothing there). */
  readonly root: string;
  /** The segment files, when blobs are kept in them (compaction works on them); null otherwise. */
  readonly segments: SegmentStore | null;
  /** Writes the blobs not stored yet; see the protocol above. Throws (nothing indexed) when a write fails. */
  stage(blobs: Array<{ sha256: string; bytes: Uint8Array }>): Promise<Placement[]>;
  index(placements: Placement[]): void;
  /** An index outside the writer's transaction (blobs/index.db on PostgreSQL): that transaction committed. */
  committed?(placements: Placement[]): void;
  /** An index outside the writer's transaction: that transaction failed, so the rows index() added go. */
  rolledBack?(placements: Placement[]): void;
  settle(): void;
  sync(): Promise<void>;
  recover(): RecoveryReport;
  get(sha256: string): Promise<Buffer>;
  /** Opened before it is returned: a missing blob fails here with BlobMissingError, never in mid-response. */
  open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }>;
  exists(sha256: string): Promise<boolean>;
  /** Forgets a blob nothing references (the caller checked, in the write queue). */
  delete(sha256: string): Promise<void>;
  /**
   * Pages of blobs written before `before` (ms since the epoch), for the sweep of blobs written by a batch whose
   * transaction then failed. Only stores without a transactional index need it (S3).
   */
  listStale?(before: number): AsyncIterable<string[]>;
  sweepTemp(): Promise<number>;
  /**
   * Where a blob lives, for the message that says it is missing: a remote store names its bucket and key (never a
   * secret). A local store has none: its message points at the data dir's blobs/ folder, with no file path.
   */
  locate?(sha256: string): string;
  /** /health: null when a remote store answers (a cheap request, cached a few seconds), else what is wrong. */
  reachable?(): Promise<string | null>;
  close(): void;
}

/** A blob that rows reference but that is not in the store. The message names no path (it may reach a client). */
export class BlobMissingError extends Error {
  readonly sha256: string;
  constructor(sha256: string) {
    super(`blob ${sha256} is missing from the blob store`);
    this.name = 'BlobMissingError';
    this.sha256 = sha256;
  }
}

export const SHA256 = /^[0-9a-f]{64}$/;
