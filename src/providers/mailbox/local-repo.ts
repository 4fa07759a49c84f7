// The local mailbox's own reads of stored mail (the rest goes through the thread, message and search services):
// which inbox a thread belongs to, and a thread's newest message ids. The one home of its queries.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

export class LocalMailboxRepo {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** The inbox of a thread of the team; undefined when the team has no such thread. */
  async inboxOfThread(teamId: string, threadId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('threads')
      .select('inbox_id')
      .where('id', '=', threadId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row?.inbox_id;
  }

  /** The ids of a thread's newest `limit` messages in the inbox, oldest first. */
  async threadMessageIds(inboxId: string, threadId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select('id')
      .where('thread_id', '=', threadId)
      .where('inbox_id', '=', inboxId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id).reverse();
  }
}
