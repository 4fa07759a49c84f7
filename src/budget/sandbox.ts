// The budget for untrusted work: work whose cost an outsider controls (a caller's pattern or schema, a stranger's
// recurrence rule, a monitor over mail) runs here, in worker threads, never on the thread that serves SMTP and HTTP.
// The budget is enforced from outside the work: a job that runs past its time is stopped by terminating its worker
// (V8 stops even a catastrophic regex or an endless loop inside a library), a job that needs more heap than the
// worker's limit kills only that worker, and both answer a BudgetError the caller turns into a clear answer.
// Workers start on first use and are replaced after a kill. The queue is bounded, and one owner (a team, a key) may
// hold only a share of it, taken in turns with the other owners, so no one caller can make everyone else wait.
import type { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import { findWorkerSource, startWorker, type WorkerSource } from '../lib/worker-source.ts';
import type { Logger } from '../log.ts';
import type { TaskInput, TaskName, TaskOutput } from '../workers/sandbox-tasks.ts';

/** A job as the worker (src/workers/sandbox.ts) receives it, and its answer. */
export interface SandboxJob {
  id: number;
  task: TaskName;
  input: unknown;
}
export type SandboxReply = { id: number; ok: true; output: unknown } | { id: number; ok: false; error: string };

/** SEA asset holding the bundled sandbox worker (scripts/build.ts embeds it under this key). */
export const SANDBOX_ASSET_KEY = 'sandbox-worker.cjs';

export type BudgetKind = 'time' | 'memory' | 'busy' | 'failed' | 'closed';

/** A job that went over its budget, could not be queued, or whose worker died. */
export class BudgetError extends Error {
  override name = 'BudgetError';
  readonly kind: BudgetKind;
  readonly task: TaskName;
  readonly limit: number;
  constructor(kind: BudgetKind, task: TaskName, limit: number, message: string) {
    super(message);
    this.kind = kind;
    this.task = task;
    this.limit = limit;
  }
}

export interface SandboxOptions {
  /** Worker threads at most (started on first use). */
  threads: number;
  /** Default time budget of one job, in ms (a caller may give its own). */
  timeoutMs: number;
  /** Heap limit of each worker, in MB: a job that needs more kills only its worker. */
  maxHeapMb: number;
  /** Jobs queued or running at most, all owners together. */
  maxQueued: number;
  /** Fraction of maxQueued one owner may hold (at least one job). */
  ownerShare: number;
  log: Logger;
}

export interface RunOptions {
  /** Who the work is for (a team or key id): the queue is shared fairly between owners. */
  owner?: string;
  /** Time budget of this job in ms (default: the sandbox's). */
  timeoutMs?: number;
}

interface Job {
  id: number;
  task: TaskName;
  input: unknown;
  owner: string;
  timeoutMs: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Set when the slot is being thrown away (its exit event must not be reported twice). */
  dead: boolean;
}

export interface SandboxStats {
  threads: number;
  queued: number;
  running: number;
  completed: number;
  timedOut: number;
  outOfMemory: number;
  refused: number;
}

function sandboxWorkerSource(): WorkerSource | null {
  return findWorkerSource({ assetKey: SANDBOX_ASSET_KEY, here: import.meta.url, entry: '../workers/sandbox.ts' });
}

export class Sandbox {
  private readonly opts: SandboxOptions;
  private readonly source: WorkerSource | null;
  private readonly slots: Slot[] = [];
  /** Waiting jobs per owner; owners are served in turns (round robin), each owner's jobs in order. */
  private readonly waiting = new Map<string, Job[]>();
  private readonly held = new Map<string, number>();
  private nextId = 1;
  private closed = false;
  private readonly counts = { completed: 0, timedOut: 0, outOfMemory: 0, refused: 0 };

  constructor(opts: SandboxOptions) {
    this.opts = opts;
    this.source = sandboxWorkerSource();
    if (!this.source) opts.log.warn('sandbox worker code not found; untrusted work will be refused');
  }

  /** Runs a task in a worker under its budget; rejects with a BudgetError when over it. */
  run<N extends TaskName>(task: N, input: TaskInput<N>, opts: RunOptions = {}): Promise<TaskOutput<N>> {
    const owner = opts.owner ?? '';
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    if (this.closed) return Promise.reject(new BudgetError('closed', task, 0, 'the server is stopping'));
    if (!this.source) return Promise.reject(new BudgetError('failed', task, 0, 'the sandbox worker code is missing from this build'));
    const total = [...this.held.values()].reduce((a, b) => a + b, 0);
    const perOwner = Math.max(1, Math.floor(this.opts.maxQueued * this.opts.ownerShare));
    const mine = this.held.get(owner) ?? 0;
    if (total >= this.opts.maxQueued || mine >= perOwner) {
      this.counts.refused++;
      const limit = total >= this.opts.maxQueued ? this.opts.maxQueued : perOwner;
      return Promise.reject(
        new BudgetError(
          'busy',
          task,
          limit,
          `${mine >= perOwner ? 'this caller has' : 'the server has'} ${limit} jobs of untrusted work queued already`,
        ),
      );
    }
    return new Promise<TaskOutput<N>>((resolve, reject) => {
      const job: Job = { id: this.nextId++, task, input, owner, timeoutMs, resolve: resolve as (v: unknown) => void, reject };
      this.held.set(owner, mine + 1);
      const list = this.waiting.get(owner);
      if (list) list.push(job);
      else this.waiting.set(owner, [job]);
      this.pump();
    });
  }

  stats(): SandboxStats {
    let queued = 0;
    for (const l of this.waiting.values()) queued += l.length;
    return { threads: this.slots.length, queued, running: this.slots.filter((s) => s.job).length, ...this.counts };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const list of this.waiting.values())
      for (const j of list) j.reject(new BudgetError('closed', j.task, 0, 'the server is stopping'));
    this.waiting.clear();
    for (const s of this.slots) {
      s.dead = true;
      if (s.timer) clearTimeout(s.timer);
      if (s.job) s.job.reject(new BudgetError('closed', s.job.task, 0, 'the server is stopping'));
    }
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private nextJob(): Job | undefined {
    const first = this.waiting.keys().next();
    if (first.done) return undefined;
    const owner = first.value;
    const list = this.waiting.get(owner)!;
    const job = list.shift()!;
    // Round robin: this owner goes to the back of the line.
    this.waiting.delete(owner);
    if (list.length > 0) this.waiting.set(owner, list);
    return job;
  }

  private pump(): void {
    if (this.closed) return;
    for (;;) {
      let slot = this.slots.find((s) => s.ready && !s.job && !s.dead);
      if (slot && this.waiting.size === 0) {
        // Idle workers must not keep a process (a CLI command, a test) alive; a job refs its worker again.
        for (const s of this.slots) if (!s.job) s.worker.unref();
        return;
      }
      if (!slot) {
        if (this.waiting.size === 0) return;
        const starting = this.slots.some((s) => !s.ready && !s.dead);
        if (this.slots.length < this.opts.threads && !starting) this.spawn();
        return;
      }
      const job = this.nextJob();
      if (!job) return;
      this.start(slot, job);
      slot = undefined;
    }
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      this.counts.timedOut++;
      this.kill(slot, new BudgetError('time', job.task, job.timeoutMs, `took more than ${job.timeoutMs} ms`));
    }, job.timeoutMs);
    slot.timer.unref();
    try {
      slot.worker.postMessage({ id: job.id, task: job.task, input: job.input } satisfies SandboxJob);
    } catch (e) {
      this.finish(slot);
      job.reject(new BudgetError('failed', job.task, 0, `its input could not be handed to the worker: ${(e as Error).message}`));
    }
  }

  /** Frees the slot of its job (answered or failed) and gives the owner's share back. */
  private finish(slot: Slot): Job | null {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    if (job) {
      const n = (this.held.get(job.owner) ?? 1) - 1;
      if (n <= 0) this.held.delete(job.owner);
      else this.held.set(job.owner, n);
    }
    return job;
  }

  private spawn(): void {
    const source = this.source!;
    const options = { resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb, maxYoungGenerationSizeMb: 16 } };
    const worker = startWorker(source, options);
    const slot: Slot = { worker, ready: false, job: null, timer: null, dead: false };
    this.slots.push(slot);
    worker.on('message', (m: SandboxReply | { ready: true }) => {
      if ('ready' in m) {
        slot.ready = true;
        this.pump();
        return;
      }
      if (!slot.job || slot.job.id !== m.id) return;
      const job = this.finish(slot)!;
      this.counts.completed++;
      if (m.ok) job.resolve(m.output);
      else job.reject(new BudgetError('failed', job.task, 0, m.error));
      this.pump();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const oom = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (oom) this.counts.outOfMemory++;
      const task = slot.job?.task ?? 'regex.test';
      this.kill(
        slot,
        oom
          ? new BudgetError('memory', task, this.opts.maxHeapMb, `needed more than ${this.opts.maxHeapMb} MB of memory`)
          : new BudgetError('failed', task, 0, `its worker failed: ${e.message}`),
      );
    });
    worker.on('exit', (code) => {
      if (!slot.dead) this.kill(slot, new BudgetError('failed', slot.job?.task ?? 'regex.test', 0, `its worker exited with code ${code}`));
    });
  }

  /** Throws a worker away (over budget or dead); its job gets `why`, the rest of the queue goes on. */
  private kill(slot: Slot, why: BudgetError): void {
    if (slot.dead) return;
    slot.dead = true;
    const job = this.finish(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (job) {
      this.opts.log.warn('untrusted work stopped', {
        task: job.task,
        owner: job.owner || undefined,
        reason: why.kind,
        detail: why.message,
      });
      job.reject(why);
    }
    this.pump();
  }
}

/**
 * The answer for a BudgetError: over time or memory is the caller's input (422 budget_exceeded, naming what to
 * change and the flag that sets the budget); a full queue is 503 with Retry-After.
 */
export function budgetProblem(e: unknown, what: string, hint: string): AppError {
  if (!(e instanceof BudgetError)) throw e;
  if (e.kind === 'busy')
    return new AppError('unavailable', `${what} could not start: ${e.message}; retry shortly`, { headers: { 'Retry-After': '1' } });
  if (e.kind === 'closed') return new AppError('unavailable', `${what} stopped: ${e.message}`, { headers: { 'Retry-After': '1' } });
  if (e.kind === 'failed') return new AppError('internal', `${what} failed: ${e.message}`);
  return new AppError('budget_exceeded', `${what} ${e.message}, over its budget; ${hint}`);
}
