// The outbox (migration 011): one row per recipient of a sent message. Rows are written in the send's own ingest
// transaction; the relay worker reads the due ones (the pattern of src/store/deliveries.ts) and records outcomes.
import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { dialectOf } from '../store/dialect.ts';
import type { Database, OutboundDeliveryTable } from '../store/schema.ts';

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

/** How long a claimed delivery stays one instance's on a shared outbox: well beyond any relay session. */
export const OUTBOX_LEASE_MS = 10 * 60_000;

export class OutboxRepo {
  private readonly db: Kysely<Database>;
  /**
   * PostgreSQL: several instances share the outbox, so due() claims (FOR UPDATE SKIP LOCKED, next_attempt_at moved
   * one lease ahead) and the worker releases what it did not start. A crash mid-attempt: retried after the lease.
   */
  readonly shared: boolean;
  constructor(db: Kysely<Database>) {
    this.db = db;
    this.shared = dialectOf(db) === 'postgres';
  }

  async insert(trx: Transaction<Database>, rows: NewOutbound[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100)
      await trx
        .insertInto('outbound_deliveries')
        .values(rows.slice(i, i + 100))
        .execute();
  }

  /** Queued relay deliveries due by `now`, oldest due first, leaving out those in flight. */
  async due(now: number, limit: number, inFlight: string[]): Promise<OutboundRow[]> {
    if (this.shared)
      return this.db.transaction().execute(async (trx) => {
        let q = trx
          .selectFrom('outbound_deliveries')
          .selectAll()
          .where('next_attempt_at', 'is not', null)
          .where('next_attempt_at', '<=', now);
        if (inFlight.length > 0) q = q.where('id', 'not in', inFlight);
        const rows = await q.orderBy('next_attempt_at').orderBy('id').limit(limit).forUpdate().skipLocked().execute();
        if (rows.length > 0)
          await trx
            .updateTable('outbound_deliveries')
            .set({ next_attempt_at: now + OUTBOX_LEASE_MS })
            .where(
              'id',
              'in',
              rows.map((r) => r.id),
            )
            .execute();
        return rows;
      });
    let q = this.db
      .selectFrom('outbound_deliveries')
      .selectAll()
      .where('next_attempt_at', 'is not', null)
      .where('next_attempt_at', '<=', now);
    if (inFlight.length > 0) q = q.where('id', 'not in', inFlight);
    return q.orderBy('next_attempt_at').orderBy('id').limit(limit).execute();
  }

  /** Shared outbox: hands claimed rows that were not started back, due as before the claim. */
  async release(rows: OutboundRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const r of rows)
        await trx.updateTable('outbound_deliveries').set({ next_attempt_at: r.next_attempt_at }).where('id', '=', r.id).execute();
    });
  }

  /** When the next queued delivery (not in flight) is due, or null when none is. */
  async nextDueAt(inFlight: string[]): Promise<number | null> {
    let q = this.db
      .selectFrom('outbound_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('next'))
      .where('next_attempt_at', 'is not', null);
    if (inFlight.length > 0) q = q.where('id', 'not in', inFlight);
    const r = await q.executeTakeFirst();
    return r?.next ?? null;
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
