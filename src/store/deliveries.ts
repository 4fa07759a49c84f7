// Callback deliveries (the persisted job queue) and their attempts (the delivery log).
import type { Insertable, Kysely, Selectable } from 'kysely';
import { dialectOf } from './dialect.ts';
import { dueRows, nextDueAt, releaseRows } from './due-queue.ts';
import type { MessageSummaryRow } from './messages.ts';
import { SUMMARY_COLUMNS } from './messages.ts';
import type { CallbackAttemptTable, CallbackDeliveryTable, Database } from './schema.ts';

export type DeliveryRow = Selectable<CallbackDeliveryTable>;
export type NewDelivery = Insertable<CallbackDeliveryTable>;
export type AttemptRow = Selectable<CallbackAttemptTable>;
export type AttemptLogRow = AttemptRow & { message_id: string; event: string; url: string };

/** What a delivery needs to know about the inbox it comes from. */
export interface CallbackInbox {
  id: string;
  team_id: string;
  address: string;
  label: string | null;
  callback_url: string;
  callback_secret: string;
}

export interface AttemptRecord {
  delivery: { id: string; state: DeliveryRow['state']; attempts: number; next_attempt_at: number | null; updated_at: number };
  attempt: Omit<Insertable<CallbackAttemptTable>, 'id'>;
}

/**
 * The receiving host of a callback URL as host:port (hostname as the URL parser normalises it — lower case,
 * IPv4 in dotted form, IPv6 compressed — without a trailing dot; the scheme's port when none is given). URLs that
 * differ only in path, query, user or case share it, and with it one concurrency limit.
 */
export function targetHost(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.hostname.replace(/\.$/, '')}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return raw;
  }
}

export class DeliveryRepo {
  private readonly db: Kysely<Database>;
  /**
   * PostgreSQL: several instances share the queue, so every attempt starts with a claim: due() takes rows with
   * FOR UPDATE SKIP LOCKED and moves their next_attempt_at one lease ahead, in one transaction.
   * An instance that dies mid-attempt leaves the row due again when the lease ends (retried, never dropped).
   */
  readonly shared: boolean;
  constructor(db: Kysely<Database>) {
    this.db = db;
    this.shared = dialectOf(db) === 'postgres';
  }

  /** The given inboxes that have a callback (others are left out). */
  async callbackInboxes(ids: string[]): Promise<CallbackInbox[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('inboxes')
      .select(['id', 'team_id', 'address', 'label', 'callback_url', 'callback_secret'])
      .where('id', 'in', ids)
      .where('callback_url', 'is not', null)
      .where('callback_secret', 'is not', null)
      .execute();
    return rows as CallbackInbox[];
  }

  /** Inserts new deliveries and returns the ids inserted; one that exists already for the same message and event is left alone. */
  async insert(rows: NewDelivery[]): Promise<string[]> {
    if (rows.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < rows.length; i += 100) {
        const done = await trx
          .insertInto('callback_deliveries')
          .values(rows.slice(i, i + 100))
          .onConflict((oc) => oc.columns(['message_id', 'event']).doNothing())
          .returning('id')
          .execute();
        for (const r of done) ids.push(r.id);
      }
      return ids;
    });
  }

  /**
   * Pending deliveries due by `now`, oldest due first, leaving out those in flight and hosts at their limit; on a
   * shared database claimed for `leaseMs` (src/store/due-queue.ts).
   */
  due(now: number, limit: number, exclude: { ids: string[]; hosts: string[] }, leaseMs = 0): Promise<DeliveryRow[]> {
    return dueRows(this.db, 'callback_deliveries', { now, limit, exclude, leaseMs: this.shared ? leaseMs : null });
  }

  /** Shared queue: gives claimed rows that were not attempted back (due as they were before the claim). */
  release(rows: DeliveryRow[]): Promise<void> {
    return releaseRows(this.db, 'callback_deliveries', rows);
  }

  /** When the next pending delivery (not in flight, host not full) is due, or null when none is. */
  nextDueAt(exclude: { ids: string[]; hosts: string[] }): Promise<number | null> {
    return nextDueAt(this.db, 'callback_deliveries', exclude);
  }

  /** Logs attempts and moves their deliveries on, all in one transaction. */
  async record(records: AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < records.length; i += 100) {
        await trx
          .insertInto('callback_attempts')
          .values(records.slice(i, i + 100).map((r) => r.attempt))
          .execute();
      }
      for (const r of records) {
        const { id, ...set } = r.delivery;
        await trx.updateTable('callback_deliveries').set(set).where('id', '=', id).execute();
      }
    });
  }

  /** The delivery log of an inbox, newest attempt first. */
  async attempts(
    inboxId: string,
    q: { limit: number; beforeId?: number | undefined; messageId?: string | undefined },
  ): Promise<AttemptLogRow[]> {
    let sel = this.db
      .selectFrom('callback_attempts as a')
      .innerJoin('callback_deliveries as d', 'd.id', 'a.delivery_id')
      .selectAll('a')
      .select(['d.message_id', 'd.event', 'd.url'])
      .where('a.inbox_id', '=', inboxId);
    if (q.beforeId !== undefined) sel = sel.where('a.id', '<', q.beforeId);
    if (q.messageId !== undefined) sel = sel.where('d.message_id', '=', q.messageId);
    return sel.orderBy('a.id', 'desc').limit(q.limit).execute();
  }

  /**
   * Messages of callback inboxes that have no delivery yet: the few that were stored just before a crash, before
   * their delivery row was written. Inboxes made before callbacks had secrets are skipped.
   */
  async undelivered(event: string, limit: number): Promise<Array<{ message: MessageSummaryRow; inbox: CallbackInbox }>> {
    const rows = await this.db
      .selectFrom('messages as m')
      .innerJoin('inboxes as i', 'i.id', 'm.inbox_id')
      .select(SUMMARY_COLUMNS.map((c) => `m.${c}` as const))
      .select(['i.team_id', 'i.address', 'i.label', 'i.callback_url', 'i.callback_secret'])
      .where('i.callback_url', 'is not', null)
      .where('i.callback_secret', 'is not', null)
      // Sent copies never fire message.received (src/outbound/).
      .where('m.direction', '=', 'inbound')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(selectFrom('callback_deliveries as d').select('d.id').whereRef('d.message_id', '=', 'm.id').where('d.event', '=', event)),
        ),
      )
      .orderBy('m.inbox_id')
      .orderBy('m.seq')
      .limit(limit)
      .execute();
    return rows.map((r) => {
      const { team_id, address, label, callback_url, callback_secret, ...message } = r;
      return {
        message,
        inbox: { id: message.inbox_id!, team_id, address, label, callback_url: callback_url!, callback_secret: callback_secret! },
      };
    });
  }

  /** Removes finished deliveries (and their attempts) whose inbox no longer exists. */
  async pruneOrphans(): Promise<number> {
    const r = await this.db
      .deleteFrom('callback_deliveries')
      .where('next_attempt_at', 'is', null)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('inboxes').select('inboxes.id').whereRef('inboxes.id', '=', 'callback_deliveries.inbox_id'))),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async pendingCount(): Promise<number> {
    const r = await this.db
      .selectFrom('callback_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('next_attempt_at', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
