// Callback delivery: every stored message of an inbox with a callbackUrl becomes a delivery row in SQLite, and a
// worker POSTs it (signed per Standard Webhooks) with retries on the CONTRACT §5 schedule, logging every attempt.
// Ingest only pushes onto an in-memory list from its bus event; rows are written and requests made later, with
// bounded concurrency overall and per receiving host (host:port, not the URL string: a slow receiver behind many
// paths is still one host), so a slow or dead receiver delays neither ingest nor other hosts' callbacks. An attempt
// still unanswered after STALLED_AFTER_MS leaves the workers for a separate slow lane (sockets waiting, no work), and
// its host counts as slow: its later attempts go straight to that lane, fewer at a time. So however many receivers
// hang, the workers stay free for the hosts that answer.

import http from 'node:http';
import https from 'node:https';
import { newId } from '../lib/ids.ts';
import { Pump } from '../lib/pump.ts';
import type { Logger } from '../log.ts';
import {
  type AttemptLogRow,
  type AttemptRecord,
  type CallbackInbox,
  type DeliveryRepo,
  type DeliveryRow,
  type NewDelivery,
  targetHost,
} from '../store/deliveries.ts';
import type { MessageSummaryRow } from '../store/messages.ts';
import type { EventBus, InboxEvent } from './bus.ts';
import { attemptDelivery } from './deliver.ts';
import { nextRetryAt, RETRY_DELAYS_MS } from './retry.ts';
import { webhookHeaders } from './signature.ts';
import { type Resolver, systemResolver, type TargetPolicy } from './targets.ts';

// The schedule lives in retry.ts, shared with outbound mail; re-exported for the callers that import it from here.
export { RETRY_DELAYS_MS };
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_CONCURRENT = 64;
/** Per receiving host: well below MAX_CONCURRENT, so slow hosts leave most places to the others. */
export const MAX_PER_TARGET = 8;
/** An attempt unanswered this long is stalled: it frees its worker for the slow lane, and its host is slow. */
export const STALLED_AFTER_MS = 1_000;
/** Attempts to slow hosts held at once in the slow lane (each an open socket, no other cost). */
export const MAX_STALLED = 1_024;
/** A host stays slow this long after its last stalled attempt, unless one of its attempts is answered quickly. */
const SLOW_FOR_MS = 10 * 60_000;

/** Knobs: concurrency, per-host and slow-lane sizes come from flags (--callback-*); the others are for tests. */
export interface CallbackTuning {
  retryDelaysMs?: readonly number[];
  attemptTimeoutMs?: number;
  maxConcurrent?: number;
  /** In-flight attempts per receiving host (host:port); a slow host gets half of it (at least one). */
  maxPerTarget?: number;
  /** When an attempt counts as stalled, and how many stalled ones the slow lane holds. */
  stalledAfterMs?: number;
  maxStalled?: number;
  resolve?: Resolver;
  /** Shared queue (PostgreSQL): how often the store is looked at without an event (default 5 s). */
  sharedPollMs?: number;
}

export const MESSAGE_RECEIVED = 'message.received';
export const MESSAGE_CHECKED = 'message.checked';

/** Builds the JSON body of a `message.received` callback (the API's shape lives with the other views). */
export type RenderCallback = (inbox: CallbackInbox, message: MessageSummaryRow, at: number) => string;

interface InFlight {
  host: string;
  abort: AbortController;
  done: Promise<void>;
  /** A worker place, or the slow lane (a slow host's attempt, or one that stalled). */
  lane: 'worker' | 'slow';
  stallTimer: NodeJS.Timeout | null;
}

export class CallbackService {
  private readonly repo: DeliveryRepo;
  private readonly bus: EventBus;
  private readonly render: RenderCallback;
  private readonly policy: TargetPolicy;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly delays: readonly number[];
  private readonly timeoutMs: number;
  private readonly maxConcurrent: number;
  private readonly maxPerTarget: number;
  private readonly maxPerSlowTarget: number;
  private readonly stalledAfterMs: number;
  private readonly maxStalled: number;
  private readonly resolve: Resolver;
  private readonly sharedPollMs: number;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  /** Inbox id → its callback, or null for inboxes without one (most), so ingest costs no query per message. */
  private readonly targets = new Map<string, CallbackInbox | null>();
  private incoming: Array<Extract<InboxEvent, { type: 'message.received' }>> = [];
  private flushing: Promise<void> | null = null;
  private readonly inFlight = new Map<string, InFlight>();
  /** In-flight attempts holding a worker place, and in the slow lane. */
  private workers = 0;
  private stalled = 0;
  /** Host → until when it counts as slow (performance.now() time; bounded, the oldest marks are forgotten). */
  private readonly slowHosts = new Map<string, number>();
  /** Host → when it last got a place (a sequence number), for the round-robin. */
  private readonly served = new Map<string, number>();
  private serveSeq = 0;
  private toRecord: Array<{ r: AttemptRecord; resolve: () => void; reject: (e: unknown) => void }> = [];
  /** The running dispatch pass, if any (stop waits for it: it reads the store). */
  private readonly pumper = new Pump(
    () => this.fill(),
    (e) => this.log.error('callback dispatch failed', { err: e }),
  );
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  /** Fresh deliveries, due now, not yet started (their rows are already in the store). */
  private readonly ready = new Map<string, DeliveryRow>();
  /** The store may hold due deliveries that `ready` does not: look there on the next pass. */
  private storeHasDue = true;
  private pruneTimer: NodeJS.Timeout | null = null;
  private sharedPoll: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /** Metrics hook: how each attempt ended (retry = failed, another attempt is due). */
  private readonly onAttempt: (outcome: 'delivered' | 'retry' | 'failed' | 'gone' | 'refused') => void;

  constructor(d: {
    repo: DeliveryRepo;
    bus: EventBus;
    render: RenderCallback;
    policy: TargetPolicy;
    now: () => number;
    log: Logger;
    tuning?: CallbackTuning | undefined;
    onAttempt?: (outcome: 'delivered' | 'retry' | 'failed' | 'gone' | 'refused') => void;
  }) {
    this.onAttempt = d.onAttempt ?? (() => undefined);
    this.repo = d.repo;
    this.bus = d.bus;
    this.render = d.render;
    this.policy = d.policy;
    this.now = d.now;
    this.log = d.log;
    const t = d.tuning ?? {};
    this.delays = t.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.timeoutMs = t.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.maxConcurrent = t.maxConcurrent ?? MAX_CONCURRENT;
    this.maxPerTarget = t.maxPerTarget ?? MAX_PER_TARGET;
    this.maxPerSlowTarget = Math.max(1, Math.floor(this.maxPerTarget / 2));
    this.stalledAfterMs = t.stalledAfterMs ?? STALLED_AFTER_MS;
    this.maxStalled = t.maxStalled ?? MAX_STALLED;
    this.resolve = t.resolve ?? systemResolver;
    this.sharedPollMs = t.sharedPollMs ?? 5_000;
  }

  /** Subscribes to the bus, queues deliveries for messages a crash left without one, and resumes pending ones. */
  async start(): Promise<void> {
    this.unsubscribe = this.bus.subscribeAll((e) => this.onEvent(e));
    await this.repo.pruneOrphans();
    for (;;) {
      const missed = await this.repo.undelivered(MESSAGE_RECEIVED, 500);
      if (missed.length === 0) break;
      await this.repo.insert(missed.map(({ inbox, message }) => this.newDelivery(inbox, message)));
      this.log.warn('queued callbacks for messages stored before a crash', { count: missed.length });
    }
    const pending = await this.repo.pendingCount();
    if (pending > 0) this.log.info('resuming pending callback deliveries', { pending });
    this.pruneTimer = setInterval(
      () => void this.repo.pruneOrphans().catch((e: Error) => this.log.error('callback prune failed', { err: e })),
      60_000,
    );
    this.pruneTimer.unref();
    // Shared queue: retries claimed by an instance that stopped fall due without any event here; look now and then.
    if (this.repo.shared) {
      this.sharedPoll = setInterval(() => {
        this.storeHasDue = true;
        this.pump();
      }, this.sharedPollMs);
      this.sharedPoll.unref();
    }
    this.pump();
  }

  /** Stops dispatching, writes queued deliveries, gives in-flight attempts a moment, then cuts them (they stay pending). */
  async stop(graceMs = 2_000): Promise<void> {
    if (this.stopped) return;
    this.unsubscribe?.();
    this.stopped = true;
    await this.flushing;
    await this.flush();
    await this.pumper.idle();
    if (this.timer) clearTimeout(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    if (this.sharedPoll) clearInterval(this.sharedPoll);
    const all = [...this.inFlight.values()];
    if (all.length > 0) {
      const grace = new Promise<void>((r) => setTimeout(r, graceMs).unref());
      await Promise.race([Promise.all(all.map((f) => f.done)), grace]);
      for (const f of this.inFlight.values()) f.abort.abort();
      await Promise.all(all.map((f) => f.done));
    }
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Attempts that end together are logged in one transaction (one commit instead of one each). */
  private record(r: AttemptRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.toRecord.push({ r, resolve, reject });
      if (this.toRecord.length === 1) {
        setImmediate(() => {
          const batch = this.toRecord;
          this.toRecord = [];
          this.repo.record(batch.map((b) => b.r)).then(
            () => {
              for (const b of batch) b.resolve();
            },
            (e: unknown) => {
              for (const b of batch) b.reject(e);
            },
          );
        });
      }
    });
  }

  /** In-flight attempts (diagnostics, tests). */
  /** The attempt log of an inbox's callbacks, newest first (GET /v1/inboxes/:id/callbacks). */
  attempts(inboxId: string, q: { limit: number; beforeId?: number | undefined; messageId?: string | undefined }): Promise<AttemptLogRow[]> {
    return this.repo.attempts(inboxId, q);
  }

  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** In-flight attempts holding a worker place, and waiting on slow hosts in the slow lane (diagnostics, tests). */
  lanes(): { workers: number; stalled: number } {
    return { workers: this.workers, stalled: this.stalled };
  }

  private onEvent(e: InboxEvent): void {
    if (e.type === 'inbox.deleted') {
      this.targets.delete(e.inboxId);
      return;
    }
    if (e.type === 'message.checked') {
      void this.queueChecked(e).catch((err: unknown) =>
        this.log.error('could not queue a message.checked callback', { err: err as Error, messageId: e.messageId }),
      );
      return;
    }
    this.incoming.push(e);
    if (!this.flushing) this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
  }

  /** Turns queued bus events into delivery rows, then dispatches. */
  private async flush(): Promise<void> {
    while (this.incoming.length > 0) {
      const batch = this.incoming;
      this.incoming = [];
      try {
        const unknown = [...new Set(batch.map((e) => e.inboxId).filter((id) => !this.targets.has(id)))];
        if (unknown.length > 0) {
          const found = new Map((await this.repo.callbackInboxes(unknown)).map((i) => [i.id, i]));
          for (const id of unknown) this.remember(id, found.get(id) ?? null);
        }
        const rows: NewDelivery[] = [];
        for (const e of batch) {
          const inbox = this.targets.get(e.inboxId);
          if (inbox) rows.push(this.newDelivery(inbox, e.message));
        }
        if (rows.length > 0) {
          const inserted = new Set(await this.repo.insert(rows));
          // Shared queue (PostgreSQL): every attempt starts from a claim in the store (due() below), fresh ones too.
          if (this.repo.shared) this.storeHasDue ||= inserted.size > 0;
          else for (const r of rows) if (inserted.has(r.id)) this.ready.set(r.id, r as DeliveryRow);
        }
      } catch (err) {
        // The rows are missing, not lost: the start-up check queues messages without a delivery.
        this.log.error('could not queue callback deliveries', { err: err as Error, count: batch.length });
      }
    }
    this.flushing = null;
    this.pump();
  }

  /** A `message.checked` callback (issue 28): one delivery per message, with the same retries as message.received. */
  private async queueChecked(e: Extract<InboxEvent, { type: 'message.checked' }>): Promise<void> {
    if (!this.targets.has(e.inboxId)) this.remember(e.inboxId, (await this.repo.callbackInboxes([e.inboxId]))[0] ?? null);
    const inbox = this.targets.get(e.inboxId);
    if (!inbox || this.stopped) return;
    const now = this.now();
    const row: NewDelivery = {
      id: newId('dlv'),
      inbox_id: inbox.id,
      team_id: inbox.team_id,
      message_id: e.messageId,
      event: MESSAGE_CHECKED,
      url: inbox.callback_url,
      target_host: targetHost(inbox.callback_url),
      secret: inbox.callback_secret,
      payload: JSON.stringify({
        type: MESSAGE_CHECKED,
        timestamp: new Date(now).toISOString(),
        data: { ...e.data, address: inbox.address, label: inbox.label },
      }),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    };
    const inserted = new Set(await this.repo.insert([row]));
    if (this.repo.shared) this.storeHasDue ||= inserted.size > 0;
    else if (inserted.has(row.id)) this.ready.set(row.id, row as DeliveryRow);
    this.pump();
  }

  private remember(id: string, inbox: CallbackInbox | null): void {
    if (this.targets.size >= 10_000) this.targets.delete(this.targets.keys().next().value!);
    this.targets.set(id, inbox);
  }

  private newDelivery(inbox: CallbackInbox, message: MessageSummaryRow): NewDelivery {
    const now = this.now();
    return {
      id: newId('dlv'),
      inbox_id: inbox.id,
      team_id: inbox.team_id,
      message_id: message.id,
      event: MESSAGE_RECEIVED,
      url: inbox.callback_url,
      target_host: targetHost(inbox.callback_url),
      secret: inbox.callback_secret,
      payload: this.render(inbox, message, now),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    };
  }

  /** How long a claimed delivery stays this instance's on a shared queue: longer than any attempt can take. */
  private leaseMs(): number {
    return this.timeoutMs * 2 + 30_000;
  }

  /** Starts every due delivery there is room for. */
  private pump(): void {
    if (this.stopped) return;
    this.pumper.run();
  }

  private fullTargets(): string[] {
    return [...this.perTarget()].filter(([h, n]) => n >= this.limitFor(h)).map(([h]) => h);
  }

  private isSlow(host: string): boolean {
    const until = this.slowHosts.get(host);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    this.slowHosts.delete(host);
    return false;
  }

  private markSlow(host: string): void {
    this.slowHosts.delete(host);
    this.slowHosts.set(host, performance.now() + SLOW_FOR_MS);
    if (this.slowHosts.size > 100_000) this.slowHosts.delete(this.slowHosts.keys().next().value!);
  }

  /** In-flight attempts a host may have: a slow host half as many. */
  private limitFor(host: string): number {
    return this.isSlow(host) ? this.maxPerSlowTarget : this.maxPerTarget;
  }

  /** No place left anywhere: neither a worker nor the slow lane. */
  private allFull(): boolean {
    return this.workers >= this.maxConcurrent && this.stalled >= this.maxStalled;
  }

  /** In-flight attempts per receiving host. */
  private perTarget(): Map<string, number> {
    const perHost = new Map<string, number>();
    for (const f of this.inFlight.values()) perHost.set(f.host, (perHost.get(f.host) ?? 0) + 1);
    return perHost;
  }

  /**
   * Fresh deliveries go straight from memory; the store is read only when it may hold due rows that memory does
   * not (at start, when a retry falls due, when a full target or a full worker frees a place).
   */
  private async fill(): Promise<void> {
    for (;;) {
      this.pumper.clearPending();
      if (this.stopped) return;
      const perHost = this.perTarget();
      const fresh = this.roundRobin([...this.ready.values()]);
      this.ready.clear();
      for (const row of fresh) if (!this.tryDispatch(row, perHost)) this.storeHasDue = true; // stays pending in the store
      if (!this.storeHasDue || this.allFull()) return;
      this.storeHasDue = false;
      // A page larger than the free places, so the places can go round-robin over the hosts in it.
      const free = this.maxConcurrent - this.workers + Math.min(this.maxStalled - this.stalled, this.maxConcurrent);
      const page = Math.min(Math.max(free, 1) * 4, 1_000);
      const rows = await this.repo.due(this.now(), page, { ids: [...this.inFlight.keys()], hosts: this.fullTargets() }, this.leaseMs());
      if (this.stopped) return;
      const counts = this.perTarget();
      let started = 0;
      const left: DeliveryRow[] = [];
      for (const row of this.roundRobin(rows)) {
        this.ready.delete(row.id);
        if (this.tryDispatch(row, counts)) started++;
        else {
          this.storeHasDue = true;
          left.push(row);
        }
      }
      // Shared queue: due() claimed the whole page; what found no place here is handed back at once.
      if (this.repo.shared && left.length > 0) await this.repo.release(left);
      if (rows.length === page && started > 0) this.storeHasDue = true; // a full page may hide more
      if (rows.length < page) await this.wakeForStored();
      if (!this.storeHasDue && this.ready.size === 0) return;
      if (started === 0 && this.ready.size === 0) return;
    }
  }

  /**
   * Orders due rows for the free places: one per host in turn, hosts served longest ago (or never) first, each
   * host's rows in their due order. So when the places are scarce, every host gets its turn.
   */
  private roundRobin(rows: DeliveryRow[]): DeliveryRow[] {
    if (rows.length < 2) return rows;
    const byHost = new Map<string, DeliveryRow[]>();
    for (const r of rows) {
      const h = hostKey(r);
      const list = byHost.get(h);
      if (list) list.push(r);
      else byHost.set(h, [r]);
    }
    if (byHost.size === 1) return rows;
    const groups = [...byHost].sort(([a], [b]) => (this.served.get(a) ?? 0) - (this.served.get(b) ?? 0)).map(([, g]) => g);
    const out: DeliveryRow[] = [];
    for (let i = 0; out.length < rows.length; i++) for (const g of groups) if (i < g.length) out.push(g[i]!);
    return out;
  }

  private tryDispatch(row: DeliveryRow, perHost: Map<string, number>): boolean {
    if (this.inFlight.has(row.id)) return true;
    const host = hostKey(row);
    const slow = this.isSlow(host);
    // A slow host's attempts never take a worker: they wait for room in the slow lane (if there is one at all).
    const lane = slow && this.maxStalled > 0 ? 'slow' : 'worker';
    if (lane === 'slow' ? this.stalled >= this.maxStalled : this.workers >= this.maxConcurrent) return false;
    const n = perHost.get(host) ?? 0;
    if (n >= (slow ? this.maxPerSlowTarget : this.maxPerTarget)) return false;
    perHost.set(host, n + 1);
    // Most recently served last (Map order); bounded, the least recent are forgotten (they go first anyway).
    this.served.delete(host);
    this.served.set(host, ++this.serveSeq);
    if (this.served.size > 10_000) this.served.delete(this.served.keys().next().value!);
    this.dispatch(row, lane);
    return true;
  }

  /**
   * Arms the timer for the earliest pending delivery in the store (after a start, retries that were pending).
   * Full targets are left out: a place freeing up there looks at the store anyway.
   */
  private async wakeForStored(): Promise<void> {
    const next = await this.repo.nextDueAt({ ids: [...this.inFlight.keys()], hosts: this.fullTargets() });
    if (next !== null) this.wakeAt(next);
  }

  /** Makes sure the worker looks at the store again by `at`. */
  private wakeAt(at: number): void {
    if (this.stopped || (this.timer && this.timerAt <= at)) return;
    if (this.timer) clearTimeout(this.timer);
    // At most a minute, so a changed clock cannot leave a delivery sleeping.
    const wait = Math.min(Math.max(0, at - this.now()), 60_000);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.storeHasDue = true;
      this.pump();
    }, wait);
    this.timer.unref();
  }

  private dispatch(row: DeliveryRow, lane: InFlight['lane']): void {
    const abort = new AbortController();
    const entry: InFlight = { host: hostKey(row), abort, done: Promise.resolve(), lane, stallTimer: null };
    this.inFlight.set(row.id, entry);
    if (lane === 'worker') this.workers++;
    else this.stalled++;
    const t0 = performance.now();
    entry.stallTimer = setTimeout(() => this.onStalled(entry), this.stalledAfterMs);
    entry.stallTimer.unref();
    entry.done = this.attempt(row, abort.signal)
      .catch((e: Error) => {
        // Not recorded (the store failed): the row is still due, so look at the store again.
        this.storeHasDue = true;
        this.log.error('callback attempt failed unexpectedly', { err: e, deliveryId: row.id });
      })
      .finally(() => {
        if (entry.stallTimer) clearTimeout(entry.stallTimer);
        let wasFull =
          (entry.lane === 'worker' ? this.workers >= this.maxConcurrent : this.stalled >= this.maxStalled) ||
          (this.perTarget().get(entry.host) ?? 0) >= this.limitFor(entry.host);
        // Answered quickly: the host is not slow (any more). Its limit grows back, so rows of it left in the store
        // for want of a place can go now (measured before the mark goes: else a recovered host's backlog waited).
        if (performance.now() - t0 < this.stalledAfterMs && this.slowHosts.delete(entry.host)) wasFull = true;
        if (entry.lane === 'worker') this.workers--;
        else this.stalled--;
        this.inFlight.delete(row.id);
        // Rows left in the store for want of a place can go now.
        if (wasFull) this.storeHasDue = true;
        if (wasFull || this.storeHasDue || this.ready.size > 0) this.pump();
      });
  }

  /**
   * An attempt unanswered for STALLED_AFTER_MS: its host is slow from now on, and the attempt moves to the slow lane
   * if there is room, freeing its worker for another host (if not, it keeps the worker until it ends).
   */
  private onStalled(entry: InFlight): void {
    entry.stallTimer = null;
    this.markSlow(entry.host);
    if (entry.lane === 'slow' || this.stalled >= this.maxStalled) return;
    const wasFull = this.workers >= this.maxConcurrent;
    entry.lane = 'slow';
    this.workers--;
    this.stalled++;
    if (wasFull) this.storeHasDue = true;
    if (wasFull || this.ready.size > 0) this.pump();
  }

  private async attempt(row: DeliveryRow, signal: AbortSignal): Promise<void> {
    const at = this.now();
    const t0 = performance.now();
    const outcome = await attemptDelivery({
      url: row.url,
      headers: { 'user-agent': 'inboxd-callbacks', ...webhookHeaders(row.secret, row.id, Math.floor(at / 1000), row.payload) },
      body: row.payload,
      timeoutMs: this.timeoutMs,
      policy: this.policy,
      resolve: this.resolve,
      agents: this.agents,
      signal,
    });
    if (outcome.aborted) return; // shutdown: the delivery stays pending and is retried after the restart
    const durationMs = Math.round(performance.now() - t0);
    const attempt = row.attempts + 1;
    const status = outcome.statusCode;
    const delivered = status !== null && status >= 200 && status < 300;
    let state: DeliveryRow['state'] = 'pending';
    let next: number | null = null;
    if (delivered) state = 'delivered';
    else if (status === 410) state = 'gone';
    else if (outcome.refused) state = 'refused';
    else {
      next = nextRetryAt(attempt, this.delays, at);
      if (next === null) state = 'failed';
      else this.wakeAt(next);
    }
    this.onAttempt(state === 'pending' ? 'retry' : state);
    await this.record({
      delivery: { id: row.id, state, attempts: attempt, next_attempt_at: next, updated_at: this.now() },
      attempt: {
        delivery_id: row.id,
        inbox_id: row.inbox_id,
        attempt,
        status_code: status,
        error: outcome.error,
        duration_ms: durationMs,
        at,
        next_retry_at: next,
        delivered: delivered ? 1 : 0,
      },
    });
    const fields = { deliveryId: row.id, inboxId: row.inbox_id, attempt, statusCode: status, error: outcome.error, durationMs, state };
    if (delivered) this.log.debug('callback delivered', fields);
    else if (state === 'pending')
      this.log.info('callback attempt failed; will retry', { ...fields, nextRetryAt: new Date(next!).toISOString() });
    else this.log.warn('callback delivery given up', fields);
  }
}

const hostKey = (row: DeliveryRow): string => row.target_host ?? targetHost(row.url);
