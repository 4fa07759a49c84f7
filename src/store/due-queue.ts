// The two retry queues (callback deliveries, the outbox) share one shape: a row is due when `next_attempt_at <= now`
// and is taken oldest first. On a database several instances share, due rows are *claimed*: locked with
// FOR UPDATE SKIP LOCKED and moved one lease ahead in the same transaction, so no other instance takes them until
// the lease ends or the owner records the attempt; rows it then cannot start are released at once.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.ts';

export type QueueTable = 'callback_deliveries' | 'outbound_deliveries';

/** Rows to leave out: those in flight here, and (callbacks) hosts at their limit. */
export interface QueueExclusions {
  ids: string[];
  hosts?: string[];
}

// The queries are the same for both tables; Kysely cannot type a query over a union of table names, hence `any`
// inside and the typed signatures outside.
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyDb = Kysely<any>;

function dueQuery(db: AnyDb, table: QueueTable, now: number, limit: number, exclude: QueueExclusions) {
  let q = db.selectFrom(table).selectAll().where('next_attempt_at', 'is not', null).where('next_attempt_at', '<=', now);
  if (exclude.ids.length > 0) q = q.where('id', 'not in', exclude.ids);
  if (exclude.hosts && exclude.hosts.length > 0) q = q.where('target_host', 'not in', exclude.hosts);
  return q.orderBy('next_attempt_at').orderBy('id').limit(limit);
}

/** Due rows, oldest first; with `leaseMs` (a shared database) claimed for that long. */
export async function dueRows<T extends QueueTable>(
  db: Kysely<Database>,
  table: T,
  o: { now: number; limit: number; exclude: QueueExclusions; leaseMs: number | null },
): Promise<Selectable<Database[T]>[]> {
  type Row = Selectable<Database[T]>;
  if (o.leaseMs === null) return (await dueQuery(db as AnyDb, table, o.now, o.limit, o.exclude).execute()) as Row[];
  const leaseMs = o.leaseMs;
  const name: QueueTable = table;
  return (db as AnyDb).transaction().execute(async (trx) => {
    const rows = await dueQuery(trx, table, o.now, o.limit, o.exclude).forUpdate().skipLocked().execute();
    if (rows.length > 0)
      await trx
        .updateTable(name)
        .set({ next_attempt_at: o.now + leaseMs })
        .where(
          'id',
          'in',
          rows.map((r) => r.id as string),
        )
        .execute();
    return rows as Row[];
  });
}

/** Gives claimed rows that were not attempted back, due as they were before the claim. */
export async function releaseRows(
  db: Kysely<Database>,
  table: QueueTable,
  rows: Array<{ id: string; next_attempt_at: number | null }>,
): Promise<void> {
  if (rows.length === 0) return;
  await (db as AnyDb).transaction().execute(async (trx) => {
    for (const r of rows) await trx.updateTable(table).set({ next_attempt_at: r.next_attempt_at }).where('id', '=', r.id).execute();
  });
}

/** When the next row (not excluded) is due, or null when none is. */
export async function nextDueAt(db: Kysely<Database>, table: QueueTable, exclude: QueueExclusions): Promise<number | null> {
  let q = (db as AnyDb)
    .selectFrom(table)
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('next_attempt_at', 'is not', null);
  if (exclude.ids.length > 0) q = q.where('id', 'not in', exclude.ids);
  if (exclude.hosts && exclude.hosts.length > 0) q = q.where('target_host', 'not in', exclude.hosts);
  const r = await q.executeTakeFirst();
  return (r?.next as number | null | undefined) ?? null;
}
