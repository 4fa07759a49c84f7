// Waiting for mail: answer at once from the store when a matching message is already there, else sleep on the
// event bus until ingest publishes one. Idle waits hold a timer and a listener, nothing else: no polling.
// The server's one MailWaits (built in src/server/wire.ts) holds what all waits share: the waiter caps, the queue that
// wakes them a batch at a time, and the cache that reads and encodes a woken message once for all its waiters.
// GET …/wait's answer is made here (`next`); the operation only gives its shape. Verify waits through `forMessage`.

import type { SharedHolds } from '../auth/cluster-limits.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { AttachmentRow, MessageRepo, MessageRow, MessageSummaryRow } from '../store/messages.ts';
import { type BodyFields, withBodyLimit } from './body-limit.ts';
import { type Encoded, encode } from './encoded.ts';
import { OnceCache, WaiterGate, type WaiterLimits, type WaiterOwner } from './waiters.ts';

export interface WaitFilter {
  subjectContains?: string | undefined;
  from?: string | undefined;
  /** Only messages after this one (sequence number) or after this time (epoch ms). */
  since?: { seq?: number; time?: number } | undefined;
}

export function matches(m: MessageSummaryRow, f: WaitFilter): boolean {
  if (f.since?.seq !== undefined && m.seq <= f.since.seq) return false;
  if (f.since?.time !== undefined && m.received_at <= f.since.time) return false;
  if (f.subjectContains && !m.subject.toLowerCase().includes(f.subjectContains.toLowerCase())) return false;
  if (f.from) {
    const want = f.from.toLowerCase();
    const hay = `${m.from_name ?? ''} <${m.from_address ?? ''}> ${m.mail_from ?? ''}`.toLowerCase();
    if (!hay.includes(want)) return false;
  }
  return true;
}

const SCAN_LIMIT = 500;
/** Waiters answered per turn of the event loop when one message wakes many. */
const WAKE_BATCH = 32;

/**
 * Wakes waiters a batch per turn of the event loop: a message that wakes a thousand of them would otherwise answer
 * all of them (each writing a large answer to its socket) before the server reads another request, /health
 * included.
 */
class WakeQueue {
  private readonly pending: Array<() => void> = [];
  private scheduled = false;

  add(wake: () => void): void {
    this.pending.push(wake);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }

  private readonly run = (): void => {
    for (const wake of this.pending.splice(0, WAKE_BATCH)) wake();
    if (this.pending.length > 0) setImmediate(this.run);
    else this.scheduled = false;
  };
}

/** The filters and options of a verify-like call's input, as the agent's waitAndExtract takes them. */
export function waitFields(i: {
  subjectContains?: string | undefined;
  expectFrom?: string | undefined;
  since?: string | undefined;
  deleteAfter: boolean;
}) {
  return { subjectContains: i.subjectContains, expectFrom: i.expectFrom, since: i.since, deleteAfter: i.deleteAfter };
}

/** A long wait as its caller runs it: who it counts against, what ends it early, where progress goes. */
export interface WaitCall {
  owner: WaiterOwner;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  emit?: ((event: string, data: unknown) => void) | undefined;
}

/** What GET …/wait filters on, how long it waits, and whether its answer carries the bodies. */
export interface NextQuery {
  subjectContains?: string | undefined;
  from?: string | undefined;
  /** An ISO time or a message id of the inbox. */
  since?: string | undefined;
  timeoutSeconds: number;
  includeBody: boolean;
}

// Waiters woken by one message ask within a few ticks; half a second covers a loaded event loop without keeping
// large answers around for long.
const ANSWER_KEEP_MS = 500;

export class MailWaits {
  /** Open waits per key, per team and in all (429 beyond the caps); also read by /metrics. */
  readonly gate: WaiterGate;
  private readonly answers = new OnceCache<unknown>(ANSWER_KEEP_MS);
  private readonly wakes = new WakeQueue();
  private readonly messages: MessageRepo;
  private readonly bus: EventBus;
  private readonly shutdown: AbortSignal;
  private readonly maxBodyChars: number;

  constructor(d: {
    messages: MessageRepo;
    bus: EventBus;
    /** --max-waiters-per-key, --max-waiters-per-team, --max-waiters. */
    limits: WaiterLimits;
    /** On a cluster: the waits the other instances hold, so the caps count them too. */
    shared?: SharedHolds | null;
    /** --wait-max-body-chars. */
    maxBodyChars: number;
    /** Aborted when the server begins to stop: a wait then ends with 503 instead of a timeout. */
    shutdown: AbortSignal;
  }) {
    this.messages = d.messages;
    this.bus = d.bus;
    this.gate = new WaiterGate(d.limits, d.shared ?? null);
    this.maxBodyChars = d.maxBodyChars;
    this.shutdown = d.shutdown;
  }

  /** `since` (an ISO time or a message id of this inbox) as a sequence or time bound; 404 or 400 when it names nothing. */
  async resolveSince(inboxId: string, since: string | undefined): Promise<WaitFilter['since']> {
    if (since === undefined || since === '') return undefined;
    if (since.startsWith('msg_')) {
      const m = await this.messages.get(inboxId, since);
      // 404, not 400: the id is well formed but names nothing in this inbox (deleted, or from another inbox).
      if (!m)
        throw new AppError(
          'not_found',
          `since: no message ${since} in inbox ${inboxId}; pass a messageId of this inbox or an ISO 8601 time`,
          {
            errors: [{ path: 'since', message: 'no such message in this inbox' }],
          },
        );
      return { seq: m.seq };
    }
    const t = Date.parse(since);
    if (Number.isNaN(t)) {
      throw new AppError(
        'validation_failed',
        `since must be an ISO 8601 time or a message id of this inbox; got ${JSON.stringify(since)}`,
        {
          errors: [{ path: 'since', message: 'not a time or message id' }],
        },
      );
    }
    return { time: t };
  }

  /**
   * Builds a value once for everyone asking for `key` within a short window (a hundred verify waiters woken by one
   * large message read it once).
   */
  shared<T>(key: string, make: () => Promise<T>): Promise<T> {
    return (this.answers as OnceCache<T>).get(key, make);
  }

  /**
   * The newest matching message, waiting up to `timeoutMs` for one. Resolves null on timeout or when `signal`
   * aborts; rejects with 404 if the inbox is deleted meanwhile. `onTick` is called every second while waiting. With
   * `owner` the wait counts against the waiter caps (429 beyond them).
   */
  forMessage(
    inbox: InboxRow,
    filter: WaitFilter,
    timeoutMs: number,
    signal: AbortSignal,
    onTick?: (elapsedMs: number) => void,
    owner?: WaiterOwner,
  ): Promise<MessageSummaryRow | null> {
    return new Promise((resolve, reject) => {
      const release = owner ? this.gate.acquire(owner) : undefined;
      let done = false;
      const started = Date.now();
      const timers: NodeJS.Timeout[] = [];
      const finish = (v: MessageSummaryRow | null, err?: unknown) => {
        if (done) return;
        done = true;
        release?.();
        unsubscribe();
        for (const t of timers) clearTimeout(t), clearInterval(t);
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(v);
      };
      // Subscribe before looking in the store, so a message that lands in between is not missed.
      // Both kinds of event go through the wake queue, so they are seen in the order they were published.
      const unsubscribe = this.bus.subscribe(inbox.id, (e) => {
        if (e.type === 'inbox.deleted')
          this.wakes.add(() => finish(null, new AppError('not_found', `inbox ${inbox.id} was deleted while waiting`)));
        else if (e.type === 'message.received' && matches(e.message, filter)) this.wakes.add(() => finish(e.message));
      });
      const onAbort = () => finish(null);
      if (signal.aborted) return finish(null);
      signal.addEventListener('abort', onAbort, { once: true });
      const scanned = this.messages.after(inbox.id, filter.since ?? {}, SCAN_LIMIT).then(
        (rows) => {
          const hit = rows.find((m) => matches(m, filter));
          if (hit) finish(hit);
        },
        (e: unknown) => finish(null, e),
      );
      // The store is always looked at, even with a timeout shorter than the read (timeoutSeconds=0 on a networked
      // database such as PostgreSQL): a timeout only ends the wait once that read has answered.
      timers.push(setTimeout(() => void scanned.then(() => finish(null)), timeoutMs));
      if (onTick) timers.push(setInterval(() => onTick(Date.now() - started), 1000));
    });
  }

  /**
   * GET …/wait: the newest message matching `q` that arrived after `since`, at once or as soon as one arrives, in the
   * caller's `view` with text, html and headers bounded (--wait-max-body-chars; left out without includeBody).
   * Every waiter woken by one message shares one read and one JSON, and every edge writes those bytes (the body, the
   * SSE `result` data, the MCP tool result). 408 when nothing arrives in time, 503 when the server stops meanwhile.
   */
  async next<V extends BodyFields>(
    call: WaitCall,
    inbox: InboxRow,
    q: NextQuery,
    view: (row: MessageRow, attachments: AttachmentRow[]) => V,
  ): Promise<Encoded<V & { truncated: boolean }>> {
    const since = await this.resolveSince(inbox.id, q.since);
    const total = q.timeoutSeconds;
    const hit = await this.forMessage(
      inbox,
      { subjectContains: q.subjectContains, from: q.from, since },
      total * 1000,
      call.signal,
      (ms) => call.emit?.('progress', { elapsedSeconds: Math.round(ms / 1000), timeoutSeconds: total }),
      call.owner,
    );
    if (!hit) {
      if (this.shutdown.aborted)
        throw new AppError('unavailable', 'inboxd is shutting down; retry the wait against the restarted server', {
          headers: { 'Retry-After': '1' },
        });
      if (call.signal.aborted) throw new AppError('wait_timeout', 'the client went away');
      throw new AppError(
        'wait_timeout',
        `no matching message arrived in inbox ${inbox.id} within ${q.timeoutSeconds} s; send the mail, then call again (pass since= to skip older mail)`,
      );
    }
    const limit = q.includeBody ? this.maxBodyChars : 0;
    const answer = await this.shared<Encoded<V & { truncated: boolean }> | null>(`${hit.id}:${q.includeBody}`, async () => {
      const row = await this.messages.get(inbox.id, hit.id);
      if (!row) return null;
      return encode(withBodyLimit(view(row, await this.messages.attachments(row.id)), limit));
    });
    if (!answer) throw new AppError('not_found', `message ${hit.id} was deleted meanwhile`);
    return answer;
  }
}
