// Memory back after a burst of mail (issue 30). While 100,000 messages arrive the main isolate's heap grows to what
// the burst needs, and V8 keeps those pages long after: with nothing allocating, no collection comes to free them.
// The ingest workers' isolates stay up for minutes (analyzer.ts, IDLE_STOP_MS). So once the mail has gone quiet after
// a burst, this job stops the idle workers and runs one full collection of the main heap: RSS 60 s after 100,000
// messages went from 402 to 234 MB with this and the smaller SQLite cache (src/store/db.ts; docs/benchmarks.md, "After
// a burst"). A full collection of the main heap takes tens of milliseconds; it runs only when no mail has arrived for
// `quietMs`, at most once per burst.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Analyzer } from '../ingest/analyzer.ts';
import type { Logger } from '../log.ts';
import { periodicJob } from './jobs.ts';
import type { Component } from './lifecycle.ts';

/** How long no message may arrive before the memory of a burst is given back. */
export const RELIEF_QUIET_MS = 10_000;
/** What counts as a burst since the last relief: this many messages, or this many bytes of raw mail. */
export const RELIEF_MIN_MESSAGES = 1_000;
export const RELIEF_MIN_BYTES = 32 * 1024 * 1024;

export interface ReliefOptions {
  ingest: { readonly accepted: number; readonly acceptedBytes: number };
  analyzer: Pick<Analyzer, 'stopIdle'>;
  log: Logger;
  quietMs?: number;
  minMessages?: number;
  minBytes?: number;
  /** A full collection of the main heap (tests count the calls); by default V8's, exposed once on first use. */
  collect?: () => void;
  now?: () => number;
}

export interface Relief {
  /** Looks at the ingest counters once; gives the memory back when a burst has gone quiet. True if it did. */
  check(): boolean;
  /** How many times the memory was given back. */
  readonly reliefs: number;
}

export function createRelief(o: ReliefOptions): Relief {
  const quietMs = o.quietMs ?? RELIEF_QUIET_MS;
  const minMessages = o.minMessages ?? RELIEF_MIN_MESSAGES;
  const minBytes = o.minBytes ?? RELIEF_MIN_BYTES;
  const now = o.now ?? (() => performance.now());
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
      if (now() - lastChange < quietMs || (messages < minMessages && bytes < minBytes)) return false;
      base = { messages: accepted, bytes: acceptedBytes };
      const t0 = performance.now();
      const rssBefore = process.memoryUsage.rss();
      const workers = o.analyzer.stopIdle();
      collect();
      reliefs++;
      o.log.info('memory given back after a burst of mail', {
        messages,
        bytes,
        workersStopped: workers,
        rssMbBefore: Math.round(rssBefore / 1048576),
        rssMbAfter: Math.round(process.memoryUsage.rss() / 1048576),
        ms: Math.round(performance.now() - t0),
      });
      return true;
    },
  };
}

let gc: ((o?: { type: 'major' }) => void) | undefined;
/** V8's `gc()`, exposed for a moment to a context of its own (the server's global never gets it). */
function fullCollection(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as typeof gc;
    v8.setFlagsFromString('--no-expose-gc');
  }
  gc!({ type: 'major' });
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
