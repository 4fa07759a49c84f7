// The in-process event bus: ingest publishes once per stored message; waits, SSE and callbacks subscribe.
// Subscribers see only this interface, so a PostgreSQL LISTEN/NOTIFY fan-out can replace the implementation.
import type { MessageSummaryRow } from '../store/messages.ts';

export type InboxEvent =
  | {
      type: 'message.received';
      inboxId: string;
      teamId: string;
      /** The summary row, with the message's labels (plus address, X-Tags, label rules) as the messages list gives them. */
      message: MessageSummaryRow & { labels?: string[] };
      /** Stored by another instance and announced here (PostgreSQL): work done once per message skips it. */
      remote?: true;
    }
  | { type: 'inbox.deleted'; inboxId: string; teamId: string }
  /**
   * The on-arrival checks of a message finished (src/checks/service.ts); `data` is the event's JSON (message id,
   * summary, per-check status). Published on this instance only: SSE streams and callbacks of this instance send it.
   */
  | { type: 'message.checked'; inboxId: string; teamId: string; messageId: string; data: Record<string, unknown> };

export type Listener = (event: InboxEvent) => void;

export interface EventBus {
  /** Listen to one inbox's events; returns the unsubscribe function. */
  subscribe(inboxId: string, listener: Listener): () => void;
  /** Listen to every inbox (callbacks, stats). */
  subscribeAll(listener: Listener): () => void;
  publish(event: InboxEvent): void;
  /** Active per-inbox listeners, for diagnostics and tests. */
  listenerCount(inboxId?: string): number;
}

export class LocalEventBus implements EventBus {
  private readonly byInbox = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();
  private readonly onError: (e: unknown) => void;

  constructor(onError: (e: unknown) => void = () => undefined) {
    this.onError = onError;
  }

  subscribe(inboxId: string, listener: Listener): () => void {
    let set = this.byInbox.get(inboxId);
    if (!set) this.byInbox.set(inboxId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byInbox.get(inboxId) === set) this.byInbox.delete(inboxId);
    };
  }

  subscribeAll(listener: Listener): () => void {
    this.all.add(listener);
    return () => this.all.delete(listener);
  }

  publish(event: InboxEvent): void {
    const set = this.byInbox.get(event.inboxId);
    // Copy first: a listener commonly unsubscribes itself while being called.
    for (const l of set ? [...set, ...this.all] : this.all) {
      try {
        l(event);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  listenerCount(inboxId?: string): number {
    if (inboxId !== undefined) return this.byInbox.get(inboxId)?.size ?? 0;
    let n = 0;
    for (const s of this.byInbox.values()) n += s.size;
    return n;
  }
}
