// Background jobs: each a component that schedules itself at start and, at stop, clears its timer and waits for a
// run in progress. On PostgreSQL, jobs that must run once per cluster go through `singleton` (an advisory lock each).
import type { Logger } from '../log.ts';
import type { Component } from './lifecycle.ts';

type Singleton = (job: string, fn: () => Promise<unknown>) => Promise<boolean>;

/** How often expired inboxes, old audit events and expired runs are swept (then segment space is reclaimed). */
export const SWEEP_INTERVAL_MS = 30_000;

/** Runs `run` every `intervalMs` (after `first`, awaited at start); stop clears the timer and awaits `idle`. */
export function periodicJob(o: {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  log: Logger;
  failure: string;
  /** Awaited at start, before the timer is set (a failure fails the start). */
  first?: () => Promise<unknown>;
  /** Awaited at stop, after the timer is cleared. */
  idle?: () => Promise<unknown>;
}): Component {
  let timer: NodeJS.Timeout | undefined;
  return {
    name: o.name,
    async start() {
      await o.first?.();
      timer = setInterval(() => void o.run().catch((e: Error) => o.log.error(o.failure, { err: e })), o.intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await o.idle?.();
    },
  };
}

/** Runs once in the background from start; stop waits for it (it watches the shutdown signal to end early). */
export function backgroundOnce(name: string, run: () => Promise<unknown>): Component {
  let running: Promise<unknown> = Promise.resolve();
  return {
    name,
    start() {
      running = run();
    },
    async stop() {
      await running;
    },
  };
}

/** A job another module schedules itself (`schedule` returns what stops it). */
export function scheduledJob(name: string, schedule: () => () => Promise<void>): Component {
  let stop: () => Promise<void> = async () => undefined;
  return {
    name,
    start() {
      stop = schedule();
    },
    stop: () => stop(),
  };
}

/** Runs `fn` as the cluster's one runner of `job` when a singleton is given, else here. */
export function once(singleton: Singleton | undefined, job: string, fn: () => Promise<unknown>): () => Promise<unknown> {
  return singleton ? () => singleton(job, fn) : fn;
}
