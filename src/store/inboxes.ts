// Inbox rows. Label-scope filtering happens in SQL so a scoped key never even loads another label's inbox.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, InboxTable } from './schema.ts';

export type InboxRow = Selectable<InboxTable>;

export interface InboxListQuery {
  teamId: string;
  /** Exact label match (the `label` filter). */
  label?: string | undefined;
  /** The key's scope: only labels starting with this. */
  labelPrefix?: string | null | undefined;
  limit: number;
  /** Keyset cursor: rows created before (created_at, id). */
  before?: { createdAt: number; id: string } | undefined;
}

export class InboxRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async insert(row: Omit<InboxRow, 'message_seq' | 'checks_json'> & { checks_json?: string | null }): Promise<void> {
    await this.db.insertInto('inboxes').values(row).execute();
  }

  async byId(id: string): Promise<InboxRow | undefined> {
    return this.db.selectFrom('inboxes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async byAddress(address: string): Promise<InboxRow | undefined> {
    return this.db.selectFrom('inboxes').selectAll().where('address', '=', address).executeTakeFirst();
  }

  async list(q: InboxListQuery): Promise<InboxRow[]> {
    let sel = this.db.selectFrom('inboxes').selectAll().where('team_id', '=', q.teamId);
    if (q.label !== undefined) sel = sel.where('label', '=', q.label);
    if (q.labelPrefix) sel = sel.where('label', '>=', q.labelPrefix).where('label', '<', q.labelPrefix + '\u{10FFFF}');
    if (q.before) {
      const b = q.before;
      sel = sel.where((eb) =>
        eb.or([eb('created_at', '<', b.createdAt), eb.and([eb('created_at', '=', b.createdAt), eb('id', '<', b.id)])]),
      );
    }
    return sel.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
  }

  async countForTeam(teamId: string): Promise<number> {
    const r = await this.db
      .selectFrom('inboxes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async expiredIds(now: number, limit: number): Promise<string[]> {
    const rows = await this.db.selectFrom('inboxes').select('id').where('expires_at', '<=', now).limit(limit).execute();
    return rows.map((r) => r.id);
  }

  /**
   * Hands unclaimed mail for this address (received since `since`) to the inbox, at most `max` messages (the
   * newest; 0 = all), oldest first so the sequence follows arrival; returns how many. `onClaimed` runs for each
   * message in the same transaction, after it is the inbox's (threads join it there).
   */
  async claim(
    inboxId: string,
    address: string,
    since: number,
    max = 0,
    onClaimed?: (trx: Transaction<Database>, messageId: string) => Promise<void>,
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx
        .selectFrom('message_rows')
        .select('id')
        .where('inbox_id', 'is', null)
        .where('rcpt', '=', address)
        .where('received_at', '>=', since)
        .orderBy('received_at', 'desc')
        .orderBy('id', 'desc');
      if (max > 0) q = q.limit(max);
      const rows = (await q.execute()).reverse();
      for (const r of rows) {
        const inbox = await trx
          .updateTable('inboxes')
          .set((eb) => ({ message_seq: eb('message_seq', '+', 1) }))
          .where('id', '=', inboxId)
          .returning('message_seq')
          .executeTakeFirstOrThrow();
        await trx.updateTable('message_rows').set({ inbox_id: inboxId, seq: inbox.message_seq }).where('id', '=', r.id).execute();
        if (onClaimed) await onClaimed(trx, r.id);
      }
      return rows.length;
    });
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('inboxes').where('id', '=', id).execute();
  }
}
