// Hands queued outbox rows to the relay. The same shape as the callback worker (src/events/callbacks.ts): the store
// is the queue (rows due at `next_attempt_at`), a pass reads the due rows not in flight, a timer wakes the worker for
// the next retry, and the retry schedule is the callbacks' one (about 5 s, 30 s, 2 min, 10 min, 30 min). Rows of
// one message due together go to the relay as one SMTP transaction (one DATA, several RCPT).

import { nextRetryAt } from '../events/retry.ts';
import { Pump } from '../lib/pump.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { OutboundOutcome, OutboundRow, OutboxRepo } from './outbox.ts';
import type { DkimFor, MailSender } from './relay.ts';

export interface WorkerTuning {
  /** Delays before attempts 2, 3, …; after the last one a temporary failure becomes `failed`. */
  retryDelaysMs?: readonly number[];
  /** Messages being handed to the relay at once. */
  maxConcurrent?: number;
}

export class OutboundWorker {
  private readonly outbox: OutboxRepo;
  private readonly blobs: BlobStore;
  private readonly sender: MailSender | null;
  private readonly dkimFor: DkimFor;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly delays: readonly number[];
  private readonly maxConcurrent: number;
  /** Row id → the attempt carrying it. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private attempts = new Set<Promise<void>>();
  private readonly pump = new Pump(
    () => this.fill(),
    (e) => this.log.error('outbound dispatch failed', { err: e }),
  );
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  private stopped = false;

  constructor(d: {
    outbox: OutboxRepo;
    blobs: BlobStore;
    sender: MailSender | null;
    dkimFor: DkimFor;
    log: Logger;
    now: () => number;
    tuning: WorkerTuning;
  }) {
    this.outbox = d.outbox;
    this.blobs = d.blobs;
    this.sender = d.sender;
    this.dkimFor = d.dkimFor;
    this.log = d.log;
    this.now = d.now;
    this.delays = d.tuning.retryDelaysMs ?? [];
    this.maxConcurrent = d.tuning.maxConcurrent ?? 8;
  }

  async start(): Promise<void> {
    const queued = await this.outbox.queuedCount();
    if (queued > 0) {
      if (this.sender) this.log.info('resuming queued outbound deliveries', { queued });
      else this.log.warn('outbound deliveries are queued but no relay is configured (--smtp-relay); they wait for one', { queued });
    }
    this.poke();
  }

  /** Gives in-flight attempts a moment, then closes the relay connections (unfinished rows stay queued). */
  async stop(graceMs = 2_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pump.idle();
    const all = [...this.attempts];
    if (all.length > 0) await Promise.race([Promise.all(all), new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
    this.sender?.close();
    await Promise.all([...this.attempts]);
  }

  /** Look at the store for due rows (a send was queued, a place freed, a retry fell due). */
  poke(): void {
    if (this.stopped || !this.sender) return;
    this.pump.run();
  }

  inFlightCount(): number {
    return this.attempts.size;
  }

  private async fill(): Promise<void> {
    for (;;) {
      this.pump.clearPending();
      if (this.stopped || this.attempts.size >= this.maxConcurrent) return;
      const rows = await this.outbox.due(this.now(), 500, [...this.inFlight.keys()]);
      if (this.stopped) return;
      const byMessage = new Map<string, OutboundRow[]>();
      for (const r of rows) {
        const g = byMessage.get(r.message_id);
        if (g) g.push(r);
        else byMessage.set(r.message_id, [r]);
      }
      let started = 0;
      const left: OutboundRow[] = [];
      for (const group of byMessage.values()) {
        if (this.attempts.size >= this.maxConcurrent) left.push(...group);
        else {
          this.dispatch(group);
          started++;
        }
      }
      // Full: a finishing attempt looks again. A full page may hide more due rows. On a shared outbox (PostgreSQL)
      // the rows read were claimed: those not started go back at once, for this or another instance.
      if (started < byMessage.size) {
        await this.outbox.release(left);
        return;
      }
      if (rows.length === 500) continue;
      const next = await this.outbox.nextDueAt([...this.inFlight.keys()]);
      if (next !== null) this.wakeAt(next);
      // A poke during this pass makes the pump run another one.
      return;
    }
  }

  private wakeAt(at: number): void {
    if (this.stopped || (this.timer && this.timerAt <= at)) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.min(Math.max(0, at - this.now()), 60_000);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.poke();
    }, wait);
    this.timer.unref();
  }

  private dispatch(group: OutboundRow[]): void {
    const p = this.attempt(group)
      .catch((e: Error) => this.log.error('outbound attempt failed unexpectedly', { err: e, messageId: group[0]!.message_id }))
      .finally(() => {
        for (const r of group) this.inFlight.delete(r.id);
        this.attempts.delete(p);
        this.poke();
      });
    this.attempts.add(p);
    for (const r of group) this.inFlight.set(r.id, p);
  }

  private async attempt(group: OutboundRow[]): Promise<void> {
    const first = group[0]!;
    let raw: Buffer;
    try {
      raw = await this.blobs.get(first.raw_sha256);
    } catch (e) {
      // The message was deleted meanwhile (its rows go with it); nothing left to send.
      this.log.warn('outbound message bytes are gone; dropping its deliveries', { messageId: first.message_id, err: e as Error });
      await this.outbox.record(
        group.map((r) => this.outcome(r, { ok: false, permanent: true, response: 'the sent message was deleted before delivery' })),
      );
      return;
    }
    const results = await this.sender!.send(
      raw,
      first.mail_from,
      group.map((r) => r.rcpt),
      await this.dkimFor(first.sender_domain, first.team_id),
    );
    // Stopping closed the connections under this attempt: its rows stay queued for after the restart, unrecorded.
    if (this.stopped && results.every((r) => !r.accepted && !r.permanent)) return;
    const byRcpt = new Map(results.map((r) => [r.rcpt, r]));
    const outcomes = group.map((r) => {
      const res = byRcpt.get(r.rcpt)!;
      return this.outcome(r, { ok: res.accepted, permanent: res.permanent, response: res.response });
    });
    await this.outbox.record(outcomes);
    for (const o of outcomes) {
      // Relay answers often quote the address; logs name deliveries by id, not by recipient.
      const response = o.response?.replace(/<?[^\s<>@]+@[^\s<>]+>?/g, '<address>') ?? null;
      const fields = { deliveryId: o.id, messageId: first.message_id, attempt: o.attempts, state: o.state, response };
      if (o.state === 'sent') this.log.debug('outbound delivery relayed', fields);
      else if (o.state === 'queued')
        this.log.info('outbound delivery deferred; will retry', { ...fields, nextAttemptAt: o.next_attempt_at });
      else this.log.warn('outbound delivery failed', fields);
    }
  }

  private outcome(r: OutboundRow, res: { ok: boolean; permanent: boolean; response: string }): OutboundOutcome {
    const attempts = r.attempts + 1;
    const now = this.now();
    let state: OutboundRow['state'] = 'queued';
    let next: number | null = null;
    if (res.ok) state = 'sent';
    else if (!res.permanent) next = nextRetryAt(attempts, this.delays, now);
    if (next !== null) this.wakeAt(next);
    else if (!res.ok) state = 'failed';
    return { id: r.id, state, attempts, response: res.response, next_attempt_at: next, updated_at: now };
  }
}
