// Server-sent events of one inbox: `message.received` with the per-inbox sequence as `id`, replay of what a
// reconnecting client missed (from the store, so nothing is lost while it was away), comment heartbeats, and an
// `inbox.deleted` event before the stream closes. A reader that falls too far behind is disconnected rather than
// buffered without bound: it reconnects with Last-Event-ID and the store replays exactly what it had not read.
import { PassThrough, type Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Logger } from '../log.ts';
import type { MessageSummaryRow } from '../store/messages.ts';
import { messagesAfterSeq } from '../store/replay.ts';
import type { Database } from '../store/schema.ts';
import type { EventBus, InboxEvent } from './bus.ts';

export const HEARTBEAT_MS = 15_000;
/** Bytes a stream may hold for a reader that is not keeping up before it is dropped. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
const REPLAY_PAGE = 200;
/** Live events queued while a replay is still running; more means the reader cannot keep up. */
const MAX_HELD = 10_000;
const RETRY_MS = 2_000;

export interface SseTuning {
  heartbeatMs?: number;
  maxBufferedBytes?: number;
}

export interface OpenStream {
  inboxId: string;
  /** Replay messages with seq > this first; null: only what arrives from now on. */
  lastEventId: number | null;
  /** The `data` JSON of a message event; the same for every stream (a live event's frame is shared by all). */
  render: (m: MessageSummaryRow) => unknown;
  /** Client gone or server stopping: the stream ends. */
  signal: AbortSignal;
}

export class EventStreams {
  private readonly db: Kysely<Database>;
  private readonly bus: EventBus;
  private readonly log: Logger;
  private readonly heartbeatMs: number;
  private readonly maxBuffered: number;
  private open = 0;
  /** Frames of messages being sent, by the message object the bus handed to every subscriber. */
  private readonly frames = new WeakMap<MessageSummaryRow, Buffer>();

  constructor(d: { db: Kysely<Database>; bus: EventBus; log: Logger; tuning?: SseTuning | undefined }) {
    this.db = d.db;
    this.bus = d.bus;
    this.log = d.log;
    this.heartbeatMs = d.tuning?.heartbeatMs ?? HEARTBEAT_MS;
    this.maxBuffered = d.tuning?.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  }

  /** Streams open now (diagnostics, tests). */
  count(): number {
    return this.open;
  }

  stream(o: OpenStream): Readable {
    // Each side of the PassThrough buffers up to its high-water mark before write() says "wait"; keep both well
    // under the drop bound so a replay that waits on drain never trips it.
    const out = new PassThrough({ highWaterMark: Math.max(1024, Math.min(64 * 1024, Math.floor(this.maxBuffered / 4))) });
    let closed = false;
    let lastSent = o.lastEventId ?? -1;
    let replaying = o.lastEventId !== null;
    const held: InboxEvent[] = [];
    this.open++;

    const buffered = () => out.writableLength + out.readableLength;
    const tooSlow = () => {
      this.log.warn('SSE reader too slow; disconnected (it resumes with Last-Event-ID)', {
        inboxId: o.inboxId,
        bufferedBytes: buffered(),
        lastEventId: lastSent,
      });
      close(new Error('SSE reader too slow'));
    };
    /** False when the reader is behind (replay then waits for it to drain). */
    const write = (frame: string | Buffer): boolean => {
      if (closed) return false;
      // Checked before writing, so one event larger than the bound still goes to a reader that keeps up.
      if (buffered() > this.maxBuffered) {
        tooSlow();
        return false;
      }
      return out.write(frame);
    };
    const sendMessage = (m: MessageSummaryRow): boolean => {
      if (m.seq <= lastSent) return true;
      lastSent = m.seq;
      // A live event is one object for every stream of the inbox: its frame is encoded once and written to all.
      let frame = this.frames.get(m);
      if (!frame)
        this.frames.set(m, (frame = Buffer.from(`id: ${m.seq}\nevent: message.received\ndata: ${JSON.stringify(o.render(m))}\n\n`)));
      return write(frame);
    };
    const onEvent = (e: InboxEvent) => {
      if (!replaying) return handle(e);
      held.push(e);
      if (held.length > MAX_HELD) tooSlow();
    };
    const handle = (e: InboxEvent) => {
      if (e.type === 'message.received') sendMessage(e.message);
      else if (e.type === 'message.checked') write(`event: message.checked\ndata: ${JSON.stringify(e.data)}\n\n`);
      else {
        write(`event: inbox.deleted\ndata: ${JSON.stringify({ inboxId: e.inboxId })}\n\n`);
        close();
      }
    };
    const close = (err?: Error) => {
      if (closed) return;
      closed = true;
      this.open--;
      unsubscribe();
      clearInterval(heartbeat);
      o.signal.removeEventListener('abort', onAbort);
      if (err) out.destroy(err);
      else out.end();
    };
    const onAbort = () => {
      write(': stream closed by the server\n\n');
      close();
    };

    // Subscribe before reading the store, so nothing that lands in between is missed (duplicates are skipped by seq).
    const unsubscribe = this.bus.subscribe(o.inboxId, onEvent);
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), this.heartbeatMs);
    heartbeat.unref();
    out.once('close', () => close());
    o.signal.addEventListener('abort', onAbort, { once: true });
    write(`retry: ${RETRY_MS}\n: connected\n\n`);
    if (o.signal.aborted) onAbort();
    else if (replaying)
      void this.replay(
        o,
        () => lastSent,
        sendMessage,
        () => closed,
        out,
      ).then(
        () => {
          replaying = false;
          for (const e of held.splice(0)) if (!closed) handle(e);
        },
        (e: unknown) => {
          this.log.error('SSE replay failed', { err: e as Error, inboxId: o.inboxId });
          close(e as Error);
        },
      );
    return out;
  }

  /** Sends stored messages after the client's last id, page by page, at the pace the reader takes them. */
  private async replay(
    o: OpenStream,
    last: () => number,
    send: (m: MessageSummaryRow) => boolean,
    closed: () => boolean,
    out: PassThrough,
  ): Promise<void> {
    for (;;) {
      const page = await messagesAfterSeq(this.db, o.inboxId, last(), REPLAY_PAGE);
      for (const m of page) {
        if (closed()) return;
        if (!send(m)) await drained(out);
      }
      if (closed() || page.length < REPLAY_PAGE) return;
    }
  }
}

function drained(out: PassThrough): Promise<void> {
  return new Promise<void>((r) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      r();
    };
    out.once('drain', done);
    out.once('close', done);
  });
}
