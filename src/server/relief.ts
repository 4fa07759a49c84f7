// Memory back after a burst of mail (issue 30). While 100,000 messages arrive the main isolate's heap grows to what
// the burst needs, and V8 keeps those pages long after: with nothing allocating, no collection comes to free them.
// The ingest workers' isolates stay up for minutes (analyzer.ts, IDLE_STOP_MS). So once the mail has gone quiet after
// a burst (`quietMs`, 10 s) this job runs one full collection of the main heap, and once it has stayed quiet for
// `workersQuietMs` (45 s) it stops the idle workers: RSS 60 s after 100,000 messages went from 402 to 185 MB with this
// and the smaller SQLite cache (src/store/db.ts; docs/benchmarks.md, "After a burst" and "Third pass"). The workers wait longer than
// the heap because a worker started again is cold (its code compiled from the build's cache, but not yet optimised):
// mail that comes in bursts a few seconds apart — a CI run's steps, a load test's rounds — keeps warm workers. A full
// collection of the main heap takes tens of milliseconds; it runs only when no mail has arrived for `quietMs`, at
// most once per burst.
// The start is a burst of its own: loading every module and migrating the store leave garbage and a young generation
// grown for them, which an idle server would keep for hours. The first time no mail has arrived for `afterStartMs`
// (3 s) after the start, the main heap is collected once.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Analyzer } from '../ingest/analyzer.ts';
import type { Logger } from '../log.ts';
import { periodicJob } from './jobs.ts';
import type { Component } from './lifecycle.ts';

/** How long no message may arrive before the main heap is collected after a burst. */
export const RELIEF_QUIET_MS = 10_000;
/** How long no message may arrive before the idle ingest workers are stopped after a burst. */
export const RELIEF_WORKERS_QUIET_MS = 45_000;
/** What counts as a burst since the last relief: this many messages, or this many bytes of raw mail. */
export const RELIEF_MIN_MESSAGES = 1_000;
export const RELIEF_MIN_BYTES = 32 * 1024 * 1024;
/** How long after the start (or after the mail that came first) with no mail before the start's garbage is collected. */
export const RELIEF_AFTER_START_MS = 3_000;

export interface ReliefOptions {
  ingest: { readonly accepted: number; readonly acceptedBytes: number };
  analyzer: Pick<Analyzer, 'stopIdle'>;
  log: Logger;
  quietMs?: number;
  workersQuietMs?: number;
  minMessages?: number;
  minBytes?: number;
  afterStartMs?: number;
  /** A full collection of the main heap (tests count the calls); by default V8's, exposed once on first use. */
  collect?: () => void;
  now?: () => number;
}

export interface Relief {
  /** Looks at the ingest counters once; gives the memory back when a burst (or the start) has gone quiet. True if it did. */
  check(): boolean;
  /** How many times the main heap was collected after a burst (the start's collection not counted). */
  readonly reliefs: number;
}

export function createRelief(o: ReliefOptions): Relief {
  const quietMs = o.quietMs ?? RELIEF_QUIET_MS;
  const minMessages = o.minMessages ?? RELIEF_MIN_MESSAGES;
  const minBytes = o.minBytes ?? RELIEF_MIN_BYTES;
  const afterStartMs = o.afterStartMs ?? RELIEF_AFTER_START_MS;
  const workersQuietMs = o.workersQuietMs ?? RELIEF_WORKERS_QUIET_MS;
  /** A burst's heap was collected; its workers are still to be stopped at the next long enough quiet spell. */
  let workersPending = false;
  const now = o.now ?? (() => performance.now());
  let startCollected = false;
  const collect = o.collect ?? fullCollection;
  let seen = o.ingest.accepted;
  let lastChange = now();
  let base = { messages: o.ingest.accepted, bytes: o.ingest.acceptedBytes };
  let reliefs = 0;
  return {
    get reliefs() {
      return reliefs;
    },
    check() {
      const { accepted, acceptedBytes } = o.ingest;
      if (accepted !== seen) {
        seen = accepted;
        lastChange = now();
        return false;
      }
      const messages = accepted - base.messages;
      const bytes = acceptedBytes - base.bytes;
      const quiet = now() - lastChange;
      if (quiet >= quietMs && (messages >= minMessages || bytes >= minBytes)) {
        startCollected = true;
        workersPending = true;
        base = { messages: accepted, bytes: acceptedBytes };
        reliefs++;
        o.log.info('memory given back after a burst of mail', { messages, bytes, ...measured(collect) });
        return true;
      }
      if (workersPending && quiet >= workersQuietMs) {
        workersPending = false;
        let workers = 0;
        const m = measured(() => {
          workers = o.analyzer.stopIdle();
        });
        o.log.info('idle ingest workers stopped after a burst of mail', { workersStopped: workers, ...m });
        return true;
      }
      if (!startCollected && quiet >= afterStartMs) {
        startCollected = true;
        o.log.debug('the start-up garbage collected', measured(collect));
        return true;
      }
      return false;
    },
  };
}

/** Runs `fn`; what RSS was before and after it (MB), and how long it took (ms). */
function measured(fn: () => void): { rssMbBefore: number; rssMbAfter: number; ms: number } {
  const t0 = performance.now();
  const rssMbBefore = Math.round(process.memoryUsage.rss() / 1048576);
  fn();
  return { rssMbBefore, rssMbAfter: Math.round(process.memoryUsage.rss() / 1048576), ms: Math.round(performance.now() - t0) };
}

let gc: ((o?: { type: 'major'; flavor: 'last-resort' }) => void) | undefined;
/**
 * A full collection of the main heap that also gives the memory back: V8's `gc()` (exposed for a moment to a context
 * of its own: the server's global never gets it) with the "last resort" flavour, which shrinks the young generation
 * and releases the freed pages — a plain major collection leaves both (an idle server 146 → 131 MB; docs/benchmarks.md,
 * "Third pass"). It toggles V8's flags back at once, so workers started later still take their code cache.
 */
function fullCollection(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as typeof gc;
    v8.setFlagsFromString('--no-expose-gc');
  }
  gc!({ type: 'major', flavor: 'last-resort' });
}

/** The relief as a background job: checks every second. */
export function reliefJob(o: ReliefOptions): Component {
  const relief = createRelief(o);
  return periodicJob({
    name: 'memory-relief',
    intervalMs: 1000,
    run: async () => relief.check(),
    log: o.log,
    failure: 'giving memory back after a burst failed',
  });
}
