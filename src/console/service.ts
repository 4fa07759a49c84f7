// What the browser console's two aggregate pages read (CONTRACT §16), each in one call: the dashboard (counts, top
// labels, newest mail across the key's scope) and one inbox's page (its mail, its callback deliveries, its threads).
// Rows and counts only; the operations (src/ops/console/aggregates.ts) shape them into the API's views. Today starts at
// 00:00 UTC.
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { Clock } from '../lib/clock.ts';
import type { AttemptLogRow, DeliveryRepo } from '../store/deliveries.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo, MessageSummaryRow } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import type { ThreadRow, ThreadService } from '../threads/service.ts';
import {
  type CallbackCounts,
  callbackCounts,
  inboxCounts,
  type MessageCounts,
  messageCounts,
  recentMessages,
  type TopLabel,
  topLabels,
} from './queries.ts';

const DAY_MS = 86_400_000;

export interface ConsoleSummary {
  now: number;
  dayStart: number;
  inboxes: { total: number; withCallback: number };
  messages: MessageCounts;
  callbacks: CallbackCounts;
  topLabels: TopLabel[];
  recent: Array<MessageSummaryRow & { address: string; label: string | null }>;
}

export interface ConsoleInboxPage {
  inbox: InboxRow;
  counts: MessageCounts;
  recent: MessageSummaryRow[];
  deliveries: CallbackCounts;
  /** Newest first. */
  attempts: AttemptLogRow[];
  /** By last activity. */
  threads: ThreadRow[];
}

export interface ConsoleDeps {
  db: Kysely<Database>;
  /** The inbox within the caller's scope (404 otherwise). */
  inboxes: Pick<InboxService, 'get'>;
  messages: Pick<MessageRepo, 'list'>;
  deliveries: Pick<DeliveryRepo, 'attempts'>;
  threads: Pick<ThreadService, 'list'>;
  clock: Clock;
}

export class ConsoleService {
  private readonly d: ConsoleDeps;

  constructor(d: ConsoleDeps) {
    this.d = d;
  }

  async summary(p: Principal, o: { recent: number; labels: number }): Promise<ConsoleSummary> {
    const { db } = this.d;
    const now = this.d.clock.now();
    const dayStart = now - (now % DAY_MS);
    const [inboxes, messages, callbacks, labels, recent] = await Promise.all([
      inboxCounts(db, p),
      messageCounts(db, p, dayStart),
      callbackCounts(db, p),
      topLabels(db, p, o.labels),
      recentMessages(db, p, o.recent),
    ]);
    return { now, dayStart, inboxes, messages, callbacks, topLabels: labels, recent };
  }

  /** `limit` bounds the messages, the callback attempts and the threads alike. */
  async inbox(p: Principal, inboxId: string, limit: number): Promise<ConsoleInboxPage> {
    const inbox = await this.d.inboxes.get(p, inboxId);
    const now = this.d.clock.now();
    const [counts, recent, deliveries, attempts, threads] = await Promise.all([
      messageCounts(this.d.db, p, now - (now % DAY_MS), inbox.id),
      this.d.messages.list(inbox.id, limit),
      callbackCounts(this.d.db, p, inbox.id),
      this.d.deliveries.attempts(inbox.id, { limit }),
      this.d.threads.list(inbox.id, limit),
    ]);
    return { inbox, counts, recent, deliveries, attempts, threads };
  }
}
