// Event fan-out across instances sharing one PostgreSQL (issue 20): every event is published here at once (local
// waiters, SSE, callbacks) and announced with pg_notify('inboxd_events', ids only — payloads are capped at 8000 bytes)
// after its commit. Each instance LISTENs on a dedicated connection; an announcement from another instance is read
// back from the database (the message summary by id) and handed to this instance's per-inbox subscribers only: the
// instance that stored the mail already queued its callback and search work (and callback rows are unique per
// message, so a second writer would change nothing). A lost connection is re-established with back-off, then the
// inboxes that have waiters are re-read (seq > last seen), and while waiters exist a safety poll does the same, so a
// missed notification delays a wake-up by at most the poll interval, never loses it.

import { randomUUID } from 'node:crypto';
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../log.ts';
import { type MessageSummaryRow, SUMMARY_COLUMNS } from '../store/messages.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { type EventBus, type InboxEvent, type Listener, LocalEventBus } from './bus.ts';

export const CHANNEL = 'inboxd_events';
/** Short messages of the other parts of a cluster (MCP sessions: progress relays, ends), on the same connection. */
export const SIGNAL_CHANNEL = 'inboxd_signals';
const BASELINE_MARGIN = 50;

/** What travels in a notification: ids only. */
interface Note {
  /** The publishing instance (its own notes are skipped). */
  o: string;
  t: 'm' | 'd';
  i: string;
  tm: string;
  m?: string;
  s?: number;
}

export interface PgBusTuning {
  /** Safety poll while waiters exist (default 5 s). */
  pollMs?: number;
  /** First reconnect delay after the LISTEN connection dropped (doubles, at most 10 s). */
  reconnectMs?: number;
}

export class PgEventBus implements EventBus {
  readonly instance = randomUUID();
  private readonly local: LocalEventBus;
  private readonly db: Kysely<Database>;
  private readonly connect: () => pg.Client;
  private readonly log: Logger;
  private readonly pollMs: number;
  private notifyQuery: ((values: { channels: unknown; payloads: unknown }) => CompiledQuery) | null = null;
  private readonly reconnectMs: number;
  private client: pg.Client | null = null;
  private stopped = false;
  /** Channel and payload of each notification queued for the next statement. */
  private outgoing: Array<[string, string]> = [];
  private readonly signalListeners = new Set<(payload: string) => void>();
  private sending: Promise<void> | null = null;
  /** Inbox id → the highest seq handed to its subscribers (or the max in the store when the first one came). */
  private readonly lastSeq = new Map<string, number>();
  private pollTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private fetching: Promise<void> = Promise.resolve();

  constructor(d: { db: Kysely<Database>; connect: () => pg.Client; log: Logger; tuning?: PgBusTuning }) {
    this.db = d.db;
    this.connect = d.connect;
    this.log = d.log;
    this.pollMs = d.tuning?.pollMs ?? 5_000;
    this.reconnectMs = d.tuning?.reconnectMs ?? 250;
    this.local = new LocalEventBus((e) => d.log.error('event listener failed', { err: e as Error }));
  }

  /** Opens the LISTEN connection; a failure here stops the start (the pool worked a moment ago). */
  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.sending;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  subscribe(inboxId: string, listener: Listener): () => void {
    const first = this.local.listenerCount(inboxId) === 0;
    const off = this.local.subscribe(inboxId, listener);
    if (first && !this.lastSeq.has(inboxId)) void this.baseline(inboxId);
    this.armPoll();
    return () => {
      off();
      if (this.local.listenerCount(inboxId) === 0) this.lastSeq.delete(inboxId);
    };
  }

  subscribeAll(listener: Listener): () => void {
    return this.local.subscribeAll(listener);
  }

  listenerCount(inboxId?: string): number {
    return this.local.listenerCount(inboxId);
  }

  publish(event: InboxEvent): void {
    if (event.type === 'message.received') this.seen(event.inboxId, event.message.seq);
    this.local.publish(event);
    // Check results are heard where the checks ran (README "Message checks"): the other instances are not told.
    if (event.type === 'message.checked') return;
    const note: Note =
      event.type === 'message.received'
        ? { o: this.instance, t: 'm', i: event.inboxId, tm: event.teamId, m: event.message.id, s: event.message.seq }
        : { o: this.instance, t: 'd', i: event.inboxId, tm: event.teamId };
    this.queue(CHANNEL, JSON.stringify(note));
  }

  /**
   * Sends `payload` (under 8000 bytes) to the signal listeners of the other instances, batched with the events of
   * the same tick; this instance's own listeners are not called. A lost signal is logged, not retried.
   */
  signal(payload: string): void {
    this.queue(SIGNAL_CHANNEL, JSON.stringify({ o: this.instance, p: payload }));
  }

  /** Hears the signals of the other instances. */
  onSignal(listener: (payload: string) => void): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  private queue(channel: string, payload: string): void {
    this.outgoing.push([channel, payload]);
    this.sending ??= new Promise<void>((r) => setImmediate(r)).then(() => this.send());
  }

  /** One statement for every note queued meanwhile. A failure is logged: waiters elsewhere recover by their poll. */
  private async send(): Promise<void> {
    while (this.outgoing.length > 0) {
      const batch = this.outgoing.splice(0, 500);
      const channels = batch.map((b) => b[0]);
      const payloads = batch.map((b) => b[1]);
      try {
        this.notifyQuery ??= precompile(['channels', 'payloads'], (p) =>
          sql`select pg_notify(c, n) from unnest(${p.channels}::text[], ${p.payloads}::text[]) as t(c, n)`.compile(this.db),
        );
        await this.db.executeQuery(this.notifyQuery({ channels, payloads }));
      } catch (e) {
        this.log.warn('could not announce events to the other instances (they catch up by polling)', { err: e as Error });
      }
    }
    this.sending = null;
  }

  private seen(inboxId: string, seq: number): void {
    const cur = this.lastSeq.get(inboxId);
    if (cur === undefined || seq > cur) this.lastSeq.set(inboxId, seq);
  }

  private async baseline(inboxId: string): Promise<void> {
    try {
      const r = await this.db
        .selectFrom('message_rows')
        .select((eb) => eb.fn.max('seq').as('s'))
        .where('inbox_id', '=', inboxId)
        .executeTakeFirst();
      // A little below the newest: mail committed between the subscriber's own read of the store and this query
      // would otherwise be skipped. Handing a subscriber older mail again is harmless (SSE skips seqs it sent, a wait
      // has already matched or rejected everything its own read saw).
      if (this.local.listenerCount(inboxId) > 0 && !this.lastSeq.has(inboxId))
        this.lastSeq.set(inboxId, Math.max(0, Number(r?.s ?? 0) - BASELINE_MARGIN));
    } catch {
      // the poll sets it later
    }
  }

  private async listen(): Promise<void> {
    const c = this.connect();
    c.on('notification', (n) => {
      if (n.channel === CHANNEL && n.payload) this.onNote(n.payload);
      else if (n.channel === SIGNAL_CHANNEL && n.payload) this.onSignalNote(n.payload);
    });
    const lost = () => {
      if (this.client !== c) return;
      this.client = null;
      c.end().catch(() => undefined);
      if (!this.stopped) this.scheduleReconnect(this.reconnectMs);
    };
    c.on('error', (e) => {
      if (!this.stopped) this.log.warn('event LISTEN connection lost; reconnecting', { err: e });
      lost();
    });
    c.on('end', lost);
    await c.connect();
    await c.query(`listen ${CHANNEL}; listen ${SIGNAL_CHANNEL}`);
    this.client = c;
  }

  private scheduleReconnect(delay: number): void {
    if (this.stopped || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.listen().then(
        () => {
          this.log.info('event LISTEN connection re-established; re-reading inboxes with waiters');
          void this.resync();
        },
        () => this.scheduleReconnect(Math.min(delay * 2, 10_000)),
      );
    }, delay);
    this.reconnectTimer.unref();
  }

  private onSignalNote(payload: string): void {
    let n: { o: string; p: string };
    try {
      n = JSON.parse(payload) as { o: string; p: string };
    } catch {
      return;
    }
    if (n.o === this.instance) return;
    for (const l of this.signalListeners) {
      try {
        l(n.p);
      } catch (e) {
        this.log.error('signal listener failed', { err: e as Error });
      }
    }
  }

  private onNote(payload: string): void {
    let n: Note;
    try {
      n = JSON.parse(payload) as Note;
    } catch {
      return;
    }
    if (n.o === this.instance) return;
    if (n.t === 'd') {
      this.lastSeq.delete(n.i);
      this.local.publish({ type: 'inbox.deleted', inboxId: n.i, teamId: n.tm });
      return;
    }
    // Read back only what a subscriber here waits for.
    if (this.local.listenerCount(n.i) === 0) return;
    if (n.s !== undefined) {
      if (!this.lastSeq.has(n.i)) this.lastSeq.set(n.i, n.s - 1);
      if (n.s <= this.lastSeq.get(n.i)!) return;
    }
    this.fetching = this.fetching.then(() => this.deliverAfter([n.i]));
  }

  /** Hands each inbox's messages above the last seq seen to its subscribers, in seq order. */
  private async deliverAfter(inboxIds: string[]): Promise<void> {
    const wanted = inboxIds.filter((id) => this.local.listenerCount(id) > 0);
    if (wanted.length === 0 || this.stopped) return;
    let rows: Array<MessageSummaryRow & { team_id: string }>;
    try {
      rows = (await this.db
        .selectFrom('messages as m')
        .innerJoin('inboxes as i', 'i.id', 'm.inbox_id')
        .select(SUMMARY_COLUMNS.map((c) => `m.${c}` as const))
        .select('i.team_id')
        .where('m.direction', '=', 'inbound')
        .where((eb) => eb.or(wanted.map((id) => eb.and([eb('m.inbox_id', '=', id), eb('m.seq', '>', this.lastSeq.get(id) ?? 0)]))))
        .orderBy('m.seq')
        .limit(500)
        .execute()) as Array<MessageSummaryRow & { team_id: string }>;
    } catch (e) {
      this.log.warn('could not read announced messages (the poll retries)', { err: e as Error });
      return;
    }
    // The labels ingest stored with them (README "Labels by rule"), as the messages list gives them: one query.
    const labels = new Map<string, string[]>();
    if (rows.length > 0)
      try {
        for (const l of await this.db
          .selectFrom('message_labels')
          .select(['message_id', 'label'])
          .where(
            'message_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('message_id')
          .orderBy('label')
          .execute())
          labels.set(l.message_id, [...(labels.get(l.message_id) ?? []), l.label]);
      } catch (e) {
        this.log.warn('could not read announced messages (the poll retries)', { err: e as Error });
        return;
      }
    for (const { team_id, ...row } of rows) {
      const message = { ...row, labels: labels.get(row.id) ?? [] };
      const inboxId = message.inbox_id!;
      if (message.seq <= (this.lastSeq.get(inboxId) ?? -1)) continue;
      this.seen(inboxId, message.seq);
      this.local.publish({ type: 'message.received', inboxId, teamId: team_id, message, remote: true });
    }
  }

  private resync(): Promise<void> {
    const ids = [...this.lastSeq.keys()].filter((id) => this.local.listenerCount(id) > 0);
    this.fetching = this.fetching.then(() => this.deliverAfter(ids));
    return this.fetching;
  }

  private armPoll(): void {
    if (this.pollTimer || this.stopped) return;
    this.pollTimer = setInterval(() => {
      if (this.local.listenerCount() === 0) {
        if (this.pollTimer) clearInterval(this.pollTimer);
        this.pollTimer = null;
        return;
      }
      void this.resync();
    }, this.pollMs);
    this.pollTimer.unref();
  }
}
