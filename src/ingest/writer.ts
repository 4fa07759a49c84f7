// Serialises every write that touches message rows and blobs. Messages that arrive together share one
// transaction (group commit) and one durability point: their blobs are appended to the segment in one write, their
// rows committed in one transaction (while the segment's fsync already runs), then the WAL is fsynced, and only
// when both are on disk is any of them acknowledged. Messages that arrive during those fsyncs form the next batch, so a lone message goes
// out at once and a burst shares one fsync (no fixed commit window to wait out). Blob garbage
// collection runs in the same queue, which makes "check references, then unlink" safe against a concurrent
// ingest of identical content.
import { type CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { isAppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../store/blobs.ts';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import type { MessageRepo } from '../store/messages.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import type { Placement } from '../store/segments.ts';

export interface PreparedBlob {
  sha256: string;
  bytes: Uint8Array;
}

/** Counter increments gathered over a batch and written once at its end. */
export interface BatchCounters {
  add(teamId: string, name: string, delta: number): void;
}

/** An inbox as a batch holds it: its sequence number so far (the last message's). */
export interface SeqRow {
  id: string;
  team_id: string;
  message_seq: number;
  label: string | null;
}

/**
 * What a batch read for all its messages at once (PostgreSQL; on SQLite every answer is undefined: ask the database,
 * which costs no round trip there).
 */
export interface WriterBatch {
  /**
   * The inbox at this address with its next sequence number (counted here, under the batch's lock on the inbox,
   * written back once at the batch's end); null: it holds `max` messages already; undefined: not read by the batch.
   */
  nextSeq(address: string, max: number): SeqRow | null | undefined;
  /** Whether the job's content (StoreJob.content) is new here: inserted by the batch, and this is its first holder. */
  freshContent(sha256: string): boolean | undefined;
  /**
   * State a capability keeps over the batch's messages (the thread lookups, src/threads/assign.ts), with the ids of
   * the batch's inboxes and every Message-ID its jobs named (StoreJob.refIds); null on SQLite.
   */
  shared: { scratch: Map<string, unknown>; inboxIds: string[]; refIds: string[] } | null;
}

const NO_BATCH: WriterBatch = { nextSeq: () => undefined, freshContent: () => undefined, shared: null };

/** One message ready to store: its blobs and a function that inserts its rows inside the batch transaction. */
export interface StoreJob<T> {
  blobs: PreparedBlob[];
  /** Roughly the bytes its rows write; bounds how much one transaction holds (default: the blobs' size). */
  weight?: number;
  insert: (trx: Transaction<Database>, counters: BatchCounters, batch: WriterBatch) => Promise<T>;
  /** Its `contents` row: on PostgreSQL the batch inserts all of them in one statement (see WriterBatch.freshContent). */
  content?: { sha256: string } & Record<string, unknown>;
  /** The Message-IDs it has and refers to (read for all the batch's messages at once, see WriterBatch.shared). */
  refIds?: string[];
  /**
   * Addresses of the inboxes whose rows insert() updates (their sequence numbers). On PostgreSQL the batch locks
   * them all first, in id order as everywhere else (thread upkeep), so two instances' batches naming the same
   * inboxes in other orders wait for each other instead of deadlocking (which fails one batch: a 451).
   */
  inboxAddresses?: string[];
}

type Pending =
  | { kind: 'store'; job: StoreJob<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }
  | { kind: 'task'; run: () => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class IngestWriter {
  private queue: Pending[] = [];
  private running = false;
  private readonly db: Kysely<Database>;
  private readonly blobs: BlobStore;
  private readonly messages: MessageRepo;
  private readonly log: Logger;
  /** Largest number of messages committed in one transaction so far (diagnostics). */
  maxBatch = 0;
  /** Transactions committed so far (diagnostics, tests). */
  commits = 0;
  private readonly maxBatchMessages: number;
  private readonly maxBatchBytes: number;
  private readonly syncWal: () => Promise<unknown>;
  /** Several instances may write the same rows (PostgreSQL); one SQLite file has this one writer. */
  private readonly shared: boolean;

  constructor(deps: {
    db: Kysely<Database>;
    blobs: BlobStore;
    messages: MessageRepo;
    log: Logger;
    /** Bounds of one group commit (defaults 256 messages, 16 MiB). */
    maxBatchMessages?: number;
    maxBatchBytes?: number;
    /** fsync of the SQLite WAL after a batch's commit (the server's; none by default, e.g. in tools and tests). */
    syncWal?: () => Promise<unknown>;
  }) {
    this.syncWal = deps.syncWal ?? (() => Promise.resolve());
    this.maxBatchMessages = deps.maxBatchMessages ?? 256;
    this.maxBatchBytes = deps.maxBatchBytes ?? 16 * 1024 * 1024;
    this.db = deps.db;
    this.shared = dialectOf(deps.db) === 'postgres';
    this.blobs = deps.blobs;
    this.messages = deps.messages;
    this.log = deps.log;
  }

  store<T>(job: StoreJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.push({ kind: 'store', job, resolve: resolve as (v: unknown) => void, reject }));
  }

  /** Runs `fn` in the write queue: after everything queued before it, and never alongside a batch. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.push({ kind: 'task', run: fn, resolve: resolve as (v: unknown) => void, reject }));
  }

  /** Deletes the blobs no row references any more; returns how many files were removed. */
  collect(shas: string[]): Promise<number> {
    if (shas.length === 0) return Promise.resolve(0);
    return this.run(() => this.gc(shas));
  }

  /** Resolves once everything queued so far is written. */
  drained(): Promise<void> {
    return this.run(async () => undefined);
  }

  private push(p: Pending): void {
    this.queue.push(p);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.loop());
    }
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      const stores = batch.filter((p) => p.kind === 'store');
      if (stores.length > 0) await this.commit(stores);
      for (const p of batch) if (p.kind === 'task') await p.run().then(p.resolve, p.reject);
      // SQLite runs synchronously on this thread: between transactions, let HTTP and SMTP be answered.
      if (this.queue.length > 0) await new Promise<void>((r) => setImmediate(r));
    }
    this.running = false;
  }

  /**
   * The next group of queued work for one transaction, in queue order: at most `maxBatchMessages` messages and
   * about `maxBatchBytes` of content (always at least one), so no transaction holds the thread for long.
   */
  private takeBatch(): Pending[] {
    let n = 0;
    let bytes = 0;
    let i = 0;
    for (; i < this.queue.length; i++) {
      const p = this.queue[i]!;
      if (p.kind !== 'store') continue;
      const w = p.job.weight ?? p.job.blobs.reduce((sum, b) => sum + b.bytes.byteLength, 0);
      if (n > 0 && (n >= this.maxBatchMessages || bytes + w > this.maxBatchBytes)) break;
      n++;
      bytes += w;
    }
    return this.queue.splice(0, i);
  }

  private async commit(stores: Array<Extract<Pending, { kind: 'store' }>>, top = true): Promise<void> {
    // On PostgreSQL: the batch's blobs, indexed (blobs/index.db) and synced while its statements run.
    let durable: Promise<void> | null = null;
    let placedShared: Placement[] = [];
    try {
      // Blobs first: a row is only ever committed after its bytes are written (and acknowledged after both are synced).
      // On PostgreSQL the blobs are written, indexed and synced (segments and their own index, files, or objects)
      // while the batch's statements run, and COMMIT waits for that: a committed row always finds its bytes.
      const staged = this.blobs.stage(stores.flatMap((p) => p.job.blobs));
      staged.catch(() => undefined); // awaited below, inside the transaction
      let blobsSynced: Promise<void> = Promise.resolve();
      if (this.shared) {
        durable = staged.then((placed) => {
          placedShared = placed;
          this.blobs.index(placed);
          return this.blobs.sync();
        });
        durable.catch(() => undefined); // awaited inside the transaction
      }
      const placed = this.shared ? [] : await staged;
      if (!this.shared) {
        // The segment's fsync runs on the thread pool while the rows are committed here.
        blobsSynced = this.blobs.sync();
        blobsSynced.catch(() => undefined); // awaited below; a failed commit first must not leave it unhandled
      }
      const results = await this.db.transaction().execute(async (trx) => {
        this.blobs.index(placed);
        const deltas = new Map<string, { teamId: string; name: string; delta: number }>();
        const counters: BatchCounters = {
          add(teamId, name, delta) {
            const k = `${teamId}\u0000${name}`;
            const d = deltas.get(k);
            if (d) d.delta += delta;
            else deltas.set(k, { teamId, name, delta });
          },
        };
        const out: unknown[] = [];
        const batch = this.shared ? await prefetch(trx, stores) : null;
        for (const p of stores) out.push(await p.job.insert(trx, counters, batch?.batch ?? NO_BATCH));
        if (batch) await batch.finish();
        // In one order too (team, then name): another instance's batch may bump the same counter rows.
        const sorted = [...deltas.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
        for (const [, d] of sorted) await bumpCounter(trx, d.teamId, d.name, d.delta);
        if (durable) await durable;
        return out;
      });
      if (this.shared) this.blobs.committed?.(placedShared);
      try {
        await Promise.all([blobsSynced, this.syncWal()]);
      } catch (e) {
        // Committed but not known to be durable (an fsync failed): no acknowledgement, and no retry that would
        // insert the rows twice. The sender is told to try again (SMTP 451).
        this.log.error('could not make a batch durable (fsync failed)', { err: e as Error, batch: stores.length });
        for (const p of stores) p.reject(e);
        return;
      }
      this.maxBatch = Math.max(this.maxBatch, stores.length);
      this.commits++;
      for (const [i, p] of stores.entries()) p.resolve(results[i]);
    } catch (e) {
      if (durable) {
        // Nothing references what this attempt indexed outside the transaction: those index rows go (a retry below
        // indexes its own again).
        await durable.catch(() => undefined);
        this.blobs.rolledBack?.(placedShared);
      }
      if (stores.length === 1) {
        stores[0]!.reject(e);
        return;
      }
      // One bad message must not fail its neighbours: retry each in its own transaction. (A message refused by a
      // limit is expected, not a failure worth a warning.)
      if (isAppError(e)) this.log.debug('batch refused; retrying messages one by one', { err: e, batch: stores.length });
      else this.log.warn('batch commit failed; retrying messages one by one', { err: e as Error, batch: stores.length });
      for (const p of stores) await this.commit([p], false);
    } finally {
      if (top) this.blobs.settle();
    }
  }

  /**
   * First the shared contents no message references any more (their attachment rows go with them), then the blobs
   * nothing references any more. Runs in the write queue, so no ingest of the same bytes is halfway meanwhile.
   */
  private async gc(shas: string[]): Promise<number> {
    const unique = [...new Set(shas)];
    await this.messages.deleteOrphanContents(unique);
    const gone: string[] = [];
    for (const sha of unique) if (!(await this.messages.isBlobReferenced(sha))) gone.push(sha);
    // Together: on an object store each delete is a round trip (the store bounds how many run at once). All settle
    // before the write queue moves on, so no delete is still in flight when a batch writes the same bytes again.
    const failed = (await Promise.allSettled(gone.map((sha) => this.blobs.delete(sha)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return gone.length;
  }
}

/** The batch's own PostgreSQL statements, compiled once (store/prepared.ts: named, the write-back pipelined). */
function compileBatchQueries(db: Kysely<Database>) {
  return {
    lockInboxes: precompile(['addresses'], (p) =>
      sql`select id, team_id, message_seq, label, address from inboxes where address = any(${p.addresses}::text[])
        order by id for update`.compile(db),
    ),
    writeSeqs: precompile(
      ['ids', 'seqs'],
      (p) =>
        sql`update inboxes set message_seq = v.seq from unnest(${p.ids}::text[], ${p.seqs}::bigint[]) as v(id, seq)
          where inboxes.id = v.id`.compile(db),
      { deferrable: true },
    ),
  };
}
let batchQueries: ReturnType<typeof compileBatchQueries> | null = null;

/**
 * PostgreSQL: one round trip each for what every message of a batch reads or writes alike. The inboxes at the batch's
 * addresses are locked (waited for, held until commit) in id order, so two instances' batches naming the same
 * inboxes in other orders wait for each other instead of deadlocking (which fails one batch: a 451), and their
 * sequence numbers are read with the lock: the messages count on from them here, and one statement writes them back
 * (pipelined) before the commit. The batch's contents go in as one multi-row insert.
 */
async function prefetch(
  trx: Transaction<Database>,
  stores: Array<Extract<Pending, { kind: 'store' }>>,
): Promise<{ batch: WriterBatch; finish: () => Promise<void> }> {
  const q = (batchQueries ??= compileBatchQueries(trx));
  // One array parameter however many recipients the batch has (a list of placeholders has a limit).
  const addresses = [...new Set(stores.flatMap((p) => p.job.inboxAddresses ?? []))];
  const inboxes = new Map<string, SeqRow>();
  if (addresses.length > 0)
    for (const r of (await trx.executeQuery<SeqRow & { address: string }>(q.lockInboxes({ addresses }))).rows) {
      const { address, ...row } = r;
      inboxes.set(address, row);
    }
  const contents = new Map<string, Record<string, unknown>>();
  for (const p of stores) if (p.job.content && !contents.has(p.job.content.sha256)) contents.set(p.job.content.sha256, p.job.content);
  const fresh = new Set<string>();
  if (contents.size > 0) {
    // In sha256 order: two instances' batches holding the same bytes (to inboxes locked by neither of the other) wait
    // for each other on the unique key in one order instead of deadlocking.
    const rows = await trx
      .insertInto('contents')
      .values([...contents.values()].sort((a, b) => ((a.sha256 as string) < (b.sha256 as string) ? -1 : 1)) as never)
      .onConflict((oc) => oc.column('sha256').doNothing())
      .returning('sha256')
      .execute();
    for (const r of rows) fresh.add(r.sha256);
  }
  const touched = new Set<SeqRow>();
  return {
    batch: {
      nextSeq(address, max) {
        const row = inboxes.get(address);
        if (!row) return undefined;
        if (row.message_seq >= max) return null;
        row.message_seq++;
        touched.add(row);
        return { ...row };
      },
      freshContent(sha256) {
        if (!contents.has(sha256)) return undefined;
        const first = fresh.has(sha256);
        fresh.delete(sha256);
        return first;
      },
      shared: {
        scratch: new Map(),
        inboxIds: [...new Set([...inboxes.values()].map((r) => r.id))],
        refIds: [...new Set(stores.flatMap((p) => p.job.refIds ?? []))],
      },
    },
    async finish() {
      if (touched.size === 0) return;
      const rows = [...touched];
      await trx.executeQuery(q.writeSeqs({ ids: rows.map((r) => r.id), seqs: rows.map((r) => r.message_seq) }));
    },
  };
}

/** Runs at the end of every batch: compiled once per SQL dialect (the placeholders stand for the values, see store/prepared.ts). */
const bumpQueries = new Map<Dialect, (v: Record<'teamId' | 'name' | 'delta', unknown>) => CompiledQuery>();

export async function bumpCounter(trx: Transaction<Database>, teamId: string, name: string, delta: number): Promise<void> {
  const dialect = dialectOf(trx);
  let q = bumpQueries.get(dialect);
  if (!q) {
    q = precompile(
      ['teamId', 'name', 'delta'],
      (p) =>
        trx
          .insertInto('counters')
          .values({ team_id: p.teamId, name: p.name, value: p.delta as unknown as number })
          // Qualified: in PostgreSQL's upsert a bare `value` could also mean the proposed row's.
          .onConflict((oc) => oc.columns(['team_id', 'name']).doUpdateSet({ value: sql`${sql.ref('counters.value')} + ${p.delta}` }))
          .compile(),
      { deferrable: true },
    );
    bumpQueries.set(dialect, q);
  }
  await trx.executeQuery(q({ teamId, name, delta }));
}
