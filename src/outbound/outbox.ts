// The outbox (migration 011): one row per recipient of a sent message. Rows are written in the send's own ingest
// transaction; the relay worker reads the due ones (the pattern of src/store/deliveries.ts) and records outcomes.
// On PostgreSQL several instances share the outbox: a due row is claimed (FOR UPDATE SKIP LOCKED, next_attempt_at moved
// one lease ahead) before it is handed to the relay, so two instances never send one recipient twice; an instance that
// dies mid-send leaves its rows due again when the lease ends (retried, never dropped — as after a crash on SQLite).
import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { dialectOf } from '../store/dialect.ts';
import { dueRows, nextDueAt, releaseRows } from '../store/due-queue.ts';
import type { Database, OutboundDeliveryTable } from '../store/schema.ts';

/** How long a claimed row stays one instance's (PostgreSQL): longer than a relay attempt can take (60 s per step). */
export const OUTBOX_LEASE_MS = 10 * 60_000;

export type OutboundRow = Selectable<OutboundDeliveryTable>;
export type NewOutbound = Insertable<OutboundDeliveryTable>;

export interface OutboundOutcome {
  id: string;
  state: OutboundRow['state'];
  attempts: number;
  response: string | null;
  next_attempt_at: number | null;
  updated_at: number;
}

export class OutboxRepo {
  private readonly db: Kysely<Database>;
  /** PostgreSQL: the outbox is shared by every instance, so due rows are claimed (see above). */
  readonly shared: boolean;
  constructor(db: Kysely<Database>) {
    this.db = db;
    this.shared = dialectOf(db as never) === 'postgres';
  }

  async insert(trx: Transaction<Database>, rows: NewOutbound[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100)
      await trx
        .insertInto('outbound_deliveries')
        .values(rows.slice(i, i + 100))
        .execute();
  }

  /**
   * Queued relay deliveries due by `now`, oldest due first, leaving out those in flight; on a shared outbox claimed
   * for `leaseMs` (src/store/due-queue.ts).
   */
  due(now: number, limit: number, inFlight: string[], leaseMs = OUTBOX_LEASE_MS): Promise<OutboundRow[]> {
    return dueRows(this.db, 'outbound_deliveries', { now, limit, exclude: { ids: inFlight }, leaseMs: this.shared ? leaseMs : null });
  }

  /** Shared outbox: gives claimed rows that were not handed to the relay back (due as they were before the claim). */
  async release(rows: OutboundRow[]): Promise<void> {
    if (this.shared) await releaseRows(this.db, 'outbound_deliveries', rows);
  }

  /** When the next queued delivery (not in flight) is due, or null when none is. */
  nextDueAt(inFlight: string[]): Promise<number | null> {
    return nextDueAt(this.db, 'outbound_deliveries', { ids: inFlight });
  }

  /** Moves deliveries on, in one transaction (a row deleted meanwhile, with its message, is simply not there). */
  async record(outcomes: OutboundOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const o of outcomes) {
        const { id, ...set } = o;
        await trx.updateTable('outbound_deliveries').set(set).where('id', '=', id).execute();
      }
    });
  }

  /** Queues deliveries outside a send (a release of a captured message), in one transaction. */
  async insertNow(rows: NewOutbound[]): Promise<void> {
    await this.db.transaction().execute((trx) => this.insert(trx, rows));
  }

  /** A message of an inbox as a release needs it: its raw bytes' hash and direction, or undefined. */
  captured(inboxId: string, messageId: string): Promise<{ id: string; raw_sha256: string; direction: string; size: number } | undefined> {
    return this.db
      .selectFrom('messages')
      .select(['id', 'raw_sha256', 'direction', 'size'])
      .where('inbox_id', '=', inboxId)
      .where('id', '=', messageId)
      .executeTakeFirst();
  }

  /** The deliveries of one sent message, in recipient order. */
  async ofMessage(messageId: string): Promise<OutboundRow[]> {
    return this.db.selectFrom('outbound_deliveries').selectAll().where('message_id', '=', messageId).orderBy(sql`rowid`).execute();
  }

  /** Recipients per delivery state, for GET /metrics (a scan of the outbox, run only when it is scraped). */
  async countByState(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('outbound_deliveries')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('state')
      .execute();
    const out: Record<string, number> = { queued: 0, sent: 0, failed: 0 };
    for (const r of rows) out[r.state] = Number(r.n);
    return out;
  }

  async queuedCount(): Promise<number> {
    const r = await this.db
      .selectFrom('outbound_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('next_attempt_at', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
