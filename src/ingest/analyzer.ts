// Runs message analysis (parse → extract → hash, src/ingest/analyze.ts) off the main thread, in worker threads, so
// the main thread only speaks SMTP/HTTP and writes SQLite. A worker that takes longer than the time limit on one
// message, or dies, is replaced; that one message is stored raw with empty parsed fields (a mail sink keeps what it
// was given), and the messages queued behind it go to the new worker. If no worker can be started the analysis runs
// in-process, as before.
import type { Worker } from 'node:worker_threads';
import { findWorkerSource, startWorker, type WorkerSource } from '../lib/worker-source.ts';
import type { Logger } from '../log.ts';
import { type Extraction, extractVerification } from '../mail/extract/index.ts';
import type { PresetId } from '../mail/presets.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { analyze, analyzeParsed, EMPTY_PARSE, forStorage, type StoredAnalysis } from './analyze.ts';
import type { AnalyzeJob, AnalyzeReply } from './analyze-worker.ts';

/** SEA asset holding the bundled worker (scripts/build.ts embeds dist/ingest-worker.cjs under this key). */
export const WORKER_ASSET_KEY = 'ingest-worker.cjs';

export interface Analyzer {
  analyze(raw: Buffer, trustedHosts: string[]): Promise<StoredAnalysis>;
  /**
   * Extraction again on a stored parse (e.g. with a service preset, GET /v1/inboxes/:id/extract?service=): crafted
   * mail can make it take long, so it runs in the workers too. `fallback` answers if a worker gives up on it.
   */
  extract(parsed: ParsedMessage, opts: { service: PresetId; trustedHosts: string[] }, fallback: Extraction): Promise<Extraction>;
  /** Starts the workers if they are stopped (a mail session opened): the first message does not wait for them. */
  warm(): void;
  /** Worker threads configured (0: in-process). */
  readonly threads: number;
  /** Worker threads running now: 0 until the first message, and again after a quiet spell. */
  readonly running: number;
  /** Jobs (analyses and extractions) answered by worker threads so far. */
  readonly workerJobs: number;
  /**
   * Stops the workers now if none has work (after a burst: their isolates and heaps go; the next mail starts them
   * again). Returns how many stopped.
   */
  stopIdle(): number;
  close(): Promise<void>;
}

export const inlineAnalyzer: Analyzer = {
  analyze: async (raw, trustedHosts) => forStorage(await analyze(raw, trustedHosts)),
  extract: async (parsed, opts) => extractVerification(parsed, opts),
  warm: () => undefined,
  threads: 0,
  running: 0,
  workerJobs: 0,
  stopIdle: () => 0,
  close: async () => undefined,
};

export interface AnalyzerOptions {
  threads: number;
  /** Longest time one message may take in a worker before the worker is replaced. */
  timeoutMs?: number;
  /** Heap limit of each worker: a message that needs more kills only its worker. */
  maxHeapMb?: number;
  /** The workers stop after this long without a job and start again with the next (their isolates are ~25 MB each). */
  idleStopMs?: number;
  log: Logger;
}

/** Where the worker code is: the .ts file beside this one, a SEA asset, or a bundle next to the main bundle. */
export function workerSource(): WorkerSource | null {
  return findWorkerSource({ assetKey: WORKER_ASSET_KEY, here: import.meta.url, entry: './analyze-worker.ts' });
}

/** Starts `threads` analysis workers, or returns the in-process analyzer when threads is 0 or no worker code exists. */
export function createAnalyzer(opts: AnalyzerOptions): Analyzer {
  if (opts.threads <= 0) return inlineAnalyzer;
  const source = workerSource();
  if (!source) {
    opts.log.warn('ingest worker code not found; analysing messages on the main thread');
    return inlineAnalyzer;
  }
  return new WorkerPool(source, opts);
}

interface Job {
  id: number;
  msg: AnalyzeJob;
  /** Bytes of the job, for the log when its worker is replaced. */
  size: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  /** The answer when a worker fails or gives up on this job. */
  fallback: (why: string) => unknown;
}

interface Slot {
  worker: Worker;
  /** Jobs sent to this worker, oldest first; the worker handles them in this order. */
  inFlight: Job[];
  /** When the head job started (the previous one finished, the worker went from idle to busy, or became ready). */
  headSince: number;
  /** Set once the worker has loaded its code; the time limit does not count the start-up. */
  ready: boolean;
}

/**
 * How long the ingest workers stay up without work (`AnalyzerOptions.idleStopMs`). A worker's start costs the next
 * message ~70 ms (scripts/bench/first-message.ts): five minutes keeps it up through any CI run that mails now and
 * then, and an idle server (a laptop, a quiet lab) holds no worker isolate.
 */
export const IDLE_STOP_MS = 5 * 60_000;

class WorkerPool implements Analyzer {
  readonly threads: number;
  private readonly slots: Slot[] = [];
  private readonly source: WorkerSource;
  private readonly opts: Required<Omit<AnalyzerOptions, 'log'>> & Pick<AnalyzerOptions, 'log'>;
  private readonly watchdog: NodeJS.Timeout;
  private nextId = 1;
  private closed = false;
  /** When a job was last handed out or answered, or the workers warmed. */
  private lastUse = 0;
  workerJobs = 0;

  constructor(source: WorkerSource, opts: AnalyzerOptions) {
    this.source = source;
    this.opts = { timeoutMs: 30_000, maxHeapMb: 1024, idleStopMs: IDLE_STOP_MS, ...opts };
    this.threads = opts.threads;
    // No worker yet: they start with the first mail session or job (an idle server holds no worker isolate).
    this.watchdog = setInterval(() => this.checkStuck(), Math.min(1000, this.opts.timeoutMs / 4, this.opts.idleStopMs / 2));
    this.watchdog.unref();
  }

  get running(): number {
    return this.slots.length;
  }

  warm(): void {
    if (this.closed) return;
    this.lastUse = performance.now();
    while (this.slots.length < this.threads) this.slots.push(this.spawn());
  }

  analyze(raw: Buffer, trustedHosts: string[]): Promise<StoredAnalysis> {
    const id = this.nextId++;
    return this.enqueue<StoredAnalysis>({ id, raw, trustedHosts }, raw.length, (why) => fallbackAnalysis(raw, trustedHosts, why));
  }

  extract(parsed: ParsedMessage, opts: { service: PresetId; trustedHosts: string[] }, fallback: Extraction): Promise<Extraction> {
    const id = this.nextId++;
    const size = (parsed.text?.length ?? 0) + (parsed.html?.length ?? 0);
    return this.enqueue<Extraction>(
      { id, kind: 'extract', parsed, service: opts.service, trustedHosts: opts.trustedHosts },
      size,
      () => fallback,
    );
  }

  private enqueue<T>(msg: AnalyzeJob, size: number, fallback: (why: string) => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('ingest analyzer is closed'));
    this.warm();
    return new Promise<T>((resolve, reject) => {
      const job: Job = { id: msg.id, msg, size, resolve: resolve as (v: unknown) => void, reject, fallback };
      let slot = this.slots[0]!;
      for (const s of this.slots) if (s.inFlight.length < slot.inFlight.length) slot = s;
      this.send(slot, job);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    // Callers drain their work before closing; anything still here is answered with the fallback, not dropped.
    for (const s of this.slots) for (const j of s.inFlight.splice(0)) this.fallback(j, 'the ingest analyzer stopped');
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const options = { resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb } };
    const worker = startWorker(this.source, options);
    worker.unref();
    const slot: Slot = { worker, inFlight: [], headSince: 0, ready: false };
    const started = performance.now();
    worker.on('message', (m: AnalyzeReply | { ready: true; codeCache: string | null }) => {
      if ('ready' in m) {
        slot.ready = true;
        slot.headSince = performance.now();
        this.opts.log.debug('ingest worker ready', { ms: Math.round(slot.headSince - started), codeCache: m.codeCache });
        return;
      }
      const job = slot.inFlight[0];
      if (!job || job.id !== m.id) return; // a late answer from a worker already given up on
      slot.inFlight.shift();
      slot.headSince = performance.now();
      this.lastUse = slot.headSince;
      this.workerJobs++;
      if (m.ok) job.resolve('analysis' in m ? revive(m.analysis) : m.extraction);
      else this.fallback(job, m.error);
    });
    worker.on('error', (e: Error) => this.replace(slot, `ingest worker failed: ${e.message}`));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, `ingest worker exited with code ${code}`);
    });
    return slot;
  }

  private send(slot: Slot, job: Job): void {
    if (slot.inFlight.length === 0) slot.headSince = performance.now();
    slot.inFlight.push(job);
    slot.worker.postMessage(job.msg);
  }

  private checkStuck(): void {
    const now = performance.now();
    for (const s of this.slots) {
      if (s.ready && s.inFlight.length > 0 && now - s.headSince > this.opts.timeoutMs) {
        this.replace(s, `analysing one message took more than ${this.opts.timeoutMs} ms`);
      }
    }
    if (now - this.lastUse > this.opts.idleStopMs) this.stopIdle();
  }

  stopIdle(): number {
    if (this.slots.length === 0 || this.slots.some((s) => s.inFlight.length > 0)) return 0;
    // Removed from the pool first: their exit is then not taken for a crash to replace.
    const idle = this.slots.splice(0);
    for (const s of idle) void s.worker.terminate();
    this.opts.log.debug('ingest workers stopped while idle', {
      workers: idle.length,
      idleMs: Math.round(performance.now() - this.lastUse),
    });
    return idle.length;
  }

  /** Throws away a stuck or dead worker: its current message gets the fallback, the rest go to a new worker. */
  private replace(slot: Slot, why: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || this.closed) return;
    const [head, ...rest] = slot.inFlight.splice(0);
    void slot.worker.terminate();
    const fresh = this.spawn();
    this.slots[i] = fresh;
    this.opts.log.warn('ingest worker replaced', { reason: why, requeued: rest.length, size: head?.size });
    if (head) this.fallback(head, why);
    for (const j of rest) this.send(fresh, j);
  }

  private fallback(job: Job, why: string): void {
    try {
      job.resolve(job.fallback(why));
    } catch (e) {
      job.reject(e as Error);
    }
  }
}

/** A message the worker could not analyse is stored raw, with empty parsed fields. */
function fallbackAnalysis(raw: Buffer, trustedHosts: string[], why: string): StoredAnalysis {
  return forStorage(
    analyzeParsed(raw, { ...EMPTY_PARSE, to: [], cc: [], replyTo: [], references: [], headers: [], attachments: [] }, why, trustedHosts),
  );
}

/** Structured clone turns Buffers into plain Uint8Arrays; attachment contents are Buffers again here. */
function revive(a: StoredAnalysis): StoredAnalysis {
  for (const att of a.attachments) {
    const c = att.content as Uint8Array;
    if (!Buffer.isBuffer(c)) att.content = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  }
  return a;
}
