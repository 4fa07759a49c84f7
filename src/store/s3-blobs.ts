// Blobs in an S3-compatible bucket (AWS S3, OpenStack Swift's s3api, MinIO, Ceph RGW), content-addressed exactly like
// the local store: key `<prefix>blobs/<sha[0:2]>/<sha256>`, one namespace for raw messages and attachments (the same
// bytes may be both, and are then stored once).
//
// Durability: stage() PUTs a batch's blobs in parallel (bounded) and returns only when every PUT answered 200, before
// the batch's rows are committed; a failed PUT fails the batch (the sender gets a temporary 451 and retries), and what
// was PUT meanwhile is an unreferenced object that the stale sweep removes. Every new copy is PUT again even if the
// key exists (no HEAD round trip, no If-None-Match: Swift answers it 501): the same key always holds the same bytes,
// and the PUT refreshes the object's Last-Modified, which the delete grace below relies on.
//
// Deleting: with instances sharing one database (PostgreSQL), another instance may have PUT these bytes again and be
// about to commit rows using them while this one found them unreferenced; so with `deleteGraceMs` an object written
// within the grace is left for the stale sweep (1 h) instead of deleted.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { BlobMissingError, type BlobStore, type ByteRange, SHA256 } from './blob-store.ts';
import { describeS3, type S3Credentials, type S3Location } from './s3-url.ts';
import type { Placement, RecoveryReport } from './segments.ts';

export interface S3BlobStoreOptions {
  location: S3Location;
  credentials: S3Credentials;
  /** The local blob folder (kept for health checks and size metrics; nothing is written there). */
  root: string;
  /** PUTs of one batch in flight at once (default 8). */
  concurrency?: number;
  /** Objects written less than this long ago are not deleted (default 0: one instance owns the bucket). */
  deleteGraceMs?: number;
  /** Per request: connect timeout and idle-socket timeout in ms, attempts in all (defaults 3 s, 60 s, 3). */
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxAttempts?: number;
}

/** How long /health reuses the bucket's answer, and how long it waits for one. */
const REACH_CACHE_MS = 5_000;
const REACH_TIMEOUT_MS = 2_000;

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly root: string;
  readonly segments = null;
  readonly location: S3Location;
  private readonly client: S3Client;
  private readonly concurrency: number;
  private readonly deleteGraceMs: number;
  private readonly deletes: Semaphore;

  constructor(opts: S3BlobStoreOptions) {
    this.root = opts.root;
    // Kept (empty) so the health check and the size metric find the folder they look at.
    fs.mkdirSync(this.root, { recursive: true });
    this.location = opts.location;
    this.concurrency = opts.concurrency ?? 8;
    this.deleteGraceMs = opts.deleteGraceMs ?? 0;
    this.deletes = new Semaphore(this.concurrency);
    this.client = new S3Client({
      region: opts.location.region,
      endpoint: opts.location.endpoint,
      forcePathStyle: opts.location.forcePathStyle,
      // Only these: the SDK's default chain would also try ~/.aws and the instance metadata endpoint (minutes of
      // timeouts in an air-gapped lab).
      credentials: opts.credentials,
      maxAttempts: opts.maxAttempts ?? 3,
      requestHandler: { connectionTimeout: opts.connectTimeoutMs ?? 3000, requestTimeout: opts.requestTimeoutMs ?? 60_000 },
      // The payload's sha256 is signed already (SigV4); the extra CRC headers of newer SDKs are not understood by
      // every S3-compatible server.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  keyOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error(`not a sha256 blob name: ${sha256}`);
    return `${this.location.prefix}blobs/${sha256.slice(0, 2)}/${sha256}`;
  }

  /** Start-up check: the bucket exists and these credentials may put, get, list and delete in it. */
  async verify(): Promise<void> {
    const Bucket = this.location.bucket;
    const Key = `${this.location.prefix}.inboxd-probe-${process.pid}-${Date.now()}`;
    try {
      await this.client.send(new PutObjectCommand({ Bucket, Key, Body: 'inboxd start-up check' }));
      await (await this.client.send(new GetObjectCommand({ Bucket, Key }))).Body?.transformToByteArray();
      await this.client.send(new ListObjectsV2Command({ Bucket, Prefix: `${this.location.prefix}blobs/`, MaxKeys: 1 }));
      await this.client.send(new DeleteObjectCommand({ Bucket, Key }));
    } catch (e) {
      throw new Error(explainStartError(e, this.location));
    }
  }

  async stage(blobs: Array<{ sha256: string; bytes: Uint8Array }>): Promise<Placement[]> {
    // One PUT per distinct content: a batch may carry the same bytes twice (one message to several inboxes).
    const seen = new Set<string>();
    const distinct = blobs.filter((b) => !seen.has(b.sha256) && seen.add(b.sha256));
    await eachLimited(distinct, this.concurrency, (b) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.location.bucket,
          Key: this.keyOf(b.sha256),
          Body: b.bytes,
          ContentLength: b.bytes.byteLength,
          ContentType: 'application/octet-stream',
        }),
      ),
    );
    return [];
  }

  index(_placements: Placement[]): void {}
  settle(): void {}
  /** Nothing to do: every PUT of stage() was durable when it answered 200. */
  sync(): Promise<void> {
    return Promise.resolve();
  }
  recover(): RecoveryReport {
    return { lost: [], truncated: 0 };
  }

  async get(sha256: string): Promise<Buffer> {
    const body = await this.getObject(sha256);
    const bytes = await body.Body!.transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    const r = await this.getObject(sha256, range);
    return { stream: r.Body as unknown as Readable, size: r.ContentLength ?? 0 };
  }

  private async getObject(sha256: string, range?: ByteRange) {
    try {
      return await this.client.send(
        new GetObjectCommand({
          Bucket: this.location.bucket,
          Key: this.keyOf(sha256),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
    } catch (e) {
      if (isNotFound(e)) throw new BlobMissingError(sha256);
      if (errName(e) === 'InvalidRange') throw new RangeError(`byte range ${range?.start}-${range?.end} is outside blob ${sha256}`);
      throw e;
    }
  }

  async exists(sha256: string): Promise<boolean> {
    return (await this.head(sha256)) !== null;
  }

  private async head(sha256: string): Promise<{ lastModified: number } | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(sha256) }));
      return { lastModified: r.LastModified?.getTime() ?? 0 };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  /** Callers may delete many at once (the collector does): at most `concurrency` requests are in flight. */
  async delete(sha256: string): Promise<void> {
    await this.deletes.acquire();
    try {
      if (this.deleteGraceMs > 0) {
        const h = await this.head(sha256);
        if (!h || h.lastModified > Date.now() - this.deleteGraceMs) return;
      }
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(sha256) }));
    } finally {
      this.deletes.release();
    }
  }

  async *listStale(before: number): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      const r = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: `${this.location.prefix}blobs/`, ContinuationToken: token }),
      );
      const shas: string[] = [];
      for (const o of r.Contents ?? []) {
        const sha = o.Key?.slice(o.Key.lastIndexOf('/') + 1) ?? '';
        if (SHA256.test(sha) && (o.LastModified?.getTime() ?? before) < before) shas.push(sha);
      }
      if (shas.length > 0) yield shas;
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepTemp(): Promise<number> {
    return 0;
  }

  locate(sha256: string): string {
    return `object ${this.keyOf(sha256)} in bucket ${this.location.bucket} (${this.location.endpoint ?? `AWS ${this.location.region}`})`;
  }

  private lastReach: { at: number; answer: Promise<string | null> } | null = null;

  /**
   * One HEAD of the bucket, at most every REACH_CACHE_MS however often /health is asked, with its own short timeout
   * and no retries, so a load balancer's probe neither waits for the SDK's retries nor makes a request per probe.
   */
  reachable(): Promise<string | null> {
    const now = Date.now();
    if (this.lastReach && now - this.lastReach.at < REACH_CACHE_MS && now >= this.lastReach.at) return this.lastReach.answer;
    const answer = this.client
      .send(new HeadBucketCommand({ Bucket: this.location.bucket }), { abortSignal: AbortSignal.timeout(REACH_TIMEOUT_MS) })
      .then(
        () => null,
        (e: unknown) => {
          const what = reachFailure(e);
          return `the blob store bucket "${this.location.bucket}" (${this.location.endpoint ?? `AWS ${this.location.region}`}) did not answer a HEAD: ${what}; mail is refused with 451 until it does`;
        },
      );
    this.lastReach = { at: now, answer };
    return answer;
  }

  close(): void {
    this.client.destroy();
  }

  describe(): string {
    return describeS3(this.location);
  }
}

/** Runs `fn` over the items, at most `limit` at a time; waits for all, then throws the first failure. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { e: unknown } | null = null;
  const lane = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw (failure as { e: unknown }).e;
}

class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(n: number) {
    this.free = n;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

function errName(e: unknown): string {
  return (e as { name?: string }).name ?? '';
}

function isNotFound(e: unknown): boolean {
  const name = errName(e);
  return (
    name === 'NoSuchKey' || name === 'NotFound' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
  );
}

/** One phrase for a failed HEAD of the bucket: a timeout, an HTTP status (and its S3 error name), or the network error. */
function reachFailure(e: unknown): string {
  const name = errName(e);
  if (name === 'AbortError' || name === 'TimeoutError') return `no answer within ${REACH_TIMEOUT_MS} ms`;
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status) return `HTTP ${status}${name && name !== 'Error' && !/^\d+$/.test(name) ? ` ${name}` : ''}`;
  return (e as { code?: string }).code ?? ((e as Error).message || 'no answer');
}

function explainStartError(e: unknown, loc: S3Location): string {
  const where = describeS3(loc);
  const name = errName(e);
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (name === 'NoSuchBucket')
    return `--blob-store: the bucket "${loc.bucket}" does not exist (${where}); create it first, e.g. aws${loc.endpoint ? ` --endpoint-url ${loc.endpoint}` : ''} s3 mb s3://${loc.bucket}`;
  if (name === 'SignatureDoesNotMatch' || name === 'InvalidAccessKeyId' || name === 'InvalidToken' || name === 'ExpiredToken')
    return `--blob-store: ${where} refused the credentials (${name}); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)`;
  if (name === 'AccessDenied' || status === 403)
    return `--blob-store: ${where} denied writing to the bucket (${name || 403}); give these credentials permission to put, get, list and delete objects in it`;
  const code = (e as { code?: string }).code ?? (name && name !== 'Error' ? name : '');
  const message = (e as Error).message ?? '';
  const reason = message.includes(code) ? message : [code, message].filter(Boolean).join(': ');
  return `--blob-store: cannot write to ${where}: ${reason || 'no answer'}; is the S3 server running and reachable?`;
}
