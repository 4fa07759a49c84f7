// Waiting for mail: answer at once from the store when a matching message is already there, else sleep on the
// event bus until ingest publishes one. Idle waits hold a timer and a listener, nothing else: no polling.
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo, MessageSummaryRow } from '../store/messages.ts';
import type { WaiterGate, WaiterOwner } from './waiters.ts';

export interface WaitDeps {
  messages: MessageRepo;
  bus: EventBus;
  /** Counts this wait against the caller's and the server's caps (429 beyond them). */
  gate?: { gate: WaiterGate; owner: WaiterOwner } | undefined;
}

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

/** Resolves `since` (an ISO time or a message id of this inbox) to a sequence or time bound. */
export async function resolveSince(messages: MessageRepo, inboxId: string, since: string | undefined): Promise<WaitFilter['since']> {
  if (since === undefined || since === '') return undefined;
  if (since.startsWith('msg_')) {
    const m = await messages.get(inboxId, since);
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
    throw new AppError('validation_failed', `since must be an ISO 8601 time or a message id of this inbox; got ${JSON.stringify(since)}`, {
      errors: [{ path: 'since', message: 'not a time or message id' }],
    });
  }
  return { time: t };
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

const queues = new WeakMap<EventBus, WakeQueue>();
function wakeQueue(bus: EventBus): WakeQueue {
  let q = queues.get(bus);
  if (!q) queues.set(bus, (q = new WakeQueue()));
  return q;
}

/**
 * The newest matching message, waiting up to `timeoutMs` for one. Resolves null on timeout or when `signal`
 * aborts; rejects with 404 if the inbox is deleted meanwhile. `onTick` is called every second while waiting.
 */
export function waitForMessage(
  deps: WaitDeps,
  inbox: InboxRow,
  filter: WaitFilter,
  timeoutMs: number,
  signal: AbortSignal,
  onTick?: (elapsedMs: number) => void,
): Promise<MessageSummaryRow | null> {
  return new Promise((resolve, reject) => {
    const release = deps.gate ? deps.gate.gate.acquire(deps.gate.owner) : undefined;
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
    const unsubscribe = deps.bus.subscribe(inbox.id, (e) => {
      if (e.type === 'inbox.deleted')
        wakeQueue(deps.bus).add(() => finish(null, new AppError('not_found', `inbox ${inbox.id} was deleted while waiting`)));
      else if (matches(e.message, filter)) wakeQueue(deps.bus).add(() => finish(e.message));
    });
    const onAbort = () => finish(null);
    if (signal.aborted) return finish(null);
    signal.addEventListener('abort', onAbort, { once: true });
    const scanned = deps.messages.after(inbox.id, filter.since ?? {}, SCAN_LIMIT).then(
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
