// Keeping threads right outside ingest: mail that was stored unclaimed joins its threads when an inbox claims it, and
// a deleted message leaves its thread with the right count, times, participants and snippet (an emptied thread and
// its Message-ID map entries go). Deleting an inbox needs nothing here: its threads and refs go with it (cascade).
// On PostgreSQL several instances write at once. Ingest orders the writers of one inbox by its row lock (the
// message_seq update comes before thread assignment); claims and deletes take the same lock first, so a thread is never
// recounted from a stale read while another instance adds to it (SQLite has one writer and needs none of this).
import type { Kysely, Transaction } from 'kysely';
import { mergeParticipants, participantsOf, threadFieldsOf } from '../mail/threads.ts';
import { dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { ThreadAssigner } from './assign.ts';

/** Messages read to rebuild a thread's participants after a delete (the list holds at most 50 anyway). */
const PARTICIPANT_SCAN = 1000;

export class ThreadUpkeep {
  private readonly db: Kysely<Database>;
  private readonly assigner: ThreadAssigner;
  private readonly shared: boolean;

  constructor(db: Kysely<Database>, now: () => number) {
    this.db = db;
    this.assigner = new ThreadAssigner(now);
    this.shared = dialectOf(db as never) === 'postgres';
  }

  /** PostgreSQL: waits for (and holds until commit) the row locks of these inboxes, in id order (no deadlock). */
  private async lockInboxes(trx: Kysely<Database>, ids: string[]): Promise<void> {
    if (!this.shared || ids.length === 0) return;
    await trx.selectFrom('inboxes').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
  }

  /** Threads one just-claimed message (its row already carries the inbox), inside the claim's transaction. */
  async claimed(trx: Transaction<Database>, messageId: string): Promise<void> {
    const m = await trx
      .selectFrom('messages as m')
      .innerJoin('inboxes as i', 'i.id', 'm.inbox_id')
      .select([
        'm.id',
        'm.inbox_id',
        'i.team_id',
        'm.received_at',
        'm.message_id_header',
        'm.in_reply_to',
        'm.references_json',
        'm.subject',
        'm.from_address',
        'm.to_json',
        'm.cc_json',
      ])
      .where('m.id', '=', messageId)
      .executeTakeFirst();
    if (!m?.inbox_id) return;
    await this.lockInboxes(trx, [m.inbox_id]);
    const thread = await this.assigner.assign(
      trx,
      { inboxId: m.inbox_id, teamId: m.team_id, messageId: m.id, receivedAt: m.received_at },
      threadFieldsOf(m),
    );
    await trx.updateTable('message_rows').set({ thread_id: thread }).where('id', '=', m.id).execute();
  }

  /**
   * Runs `remove` (a delete of message rows) and, in the same transaction, brings the threads those messages were in
   * up to date. Pass the thread ids of the messages being removed.
   */
  async removing<T>(threadIds: Array<string | null>, remove: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const ids = threadIds.filter((t): t is string => t !== null);
      if (this.shared && ids.length > 0) {
        const inboxes = await trx.selectFrom('threads').select('inbox_id').distinct().where('id', 'in', ids).execute();
        await this.lockInboxes(
          trx,
          inboxes.map((r) => r.inbox_id),
        );
      }
      const out = await remove(trx);
      for (const id of new Set(threadIds)) if (id) await this.refresh(trx, id);
      return out;
    });
  }

  /** Recounts a thread from its messages (no drift), or removes it with its refs when it has none left. */
  async refresh(trx: Kysely<Database>, threadId: string): Promise<void> {
    const { n } = await trx
      .selectFrom('message_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('thread_id', '=', threadId)
      .executeTakeFirstOrThrow();
    if (Number(n) === 0) {
      await trx.deleteFrom('thread_refs').where('thread_id', '=', threadId).execute();
      await trx.deleteFrom('threads').where('id', '=', threadId).execute();
      return;
    }
    const edge = (dir: 'asc' | 'desc') =>
      trx
        .selectFrom('message_rows')
        .select(['id', 'received_at'])
        .where('thread_id', '=', threadId)
        .orderBy('seq', dir)
        .limit(1)
        .executeTakeFirstOrThrow();
    const first = await edge('asc');
    const last = await edge('desc');
    let participants: string[] = [];
    for (const r of await trx
      .selectFrom('messages')
      .select(['from_address', 'to_json', 'cc_json'])
      .where('thread_id', '=', threadId)
      .orderBy('seq')
      .limit(PARTICIPANT_SCAN)
      .execute())
      participants = mergeParticipants(participants, participantsOf(r.from_address, r.to_json, r.cc_json));
    await trx
      .updateTable('threads')
      .set({
        message_count: Number(n),
        first_message_at: first.received_at,
        last_message_at: last.received_at,
        last_message_id: last.id,
        participants_json: JSON.stringify(participants),
      })
      .where('id', '=', threadId)
      .execute();
  }
}
