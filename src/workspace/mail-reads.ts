// The workspace's reads of stored mail (the `messages` view): a stored thread, the senders an inbox knows, an inbox's
// recent mail and the team's recent mail for the today view. The one home of these queries in the workspace.
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { MessageRow } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { scopedInboxIds } from './repo.ts';
import { domainOf } from './source.ts';
import type { WorkspaceTables } from './tables.ts';

/** A stored thread's messages, oldest first, at most this many (the newest ones win). */
export const MAX_THREAD_MESSAGES = 200;

export class MailReads {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** A stored thread of one inbox, oldest first (migration 012 gave every message its thread_id). */
  async thread(inboxId: string, threadId: string): Promise<MessageRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('thread_id', '=', threadId)
      .orderBy('received_at', 'desc')
      .limit(MAX_THREAD_MESSAGES)
      .execute();
    return rows.reverse();
  }

  /** Sender domains of the inbox's mail received before `beforeMs`, not counting the message itself. */
  async knownDomains(inboxId: string, exceptId: string, beforeMs: number): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('messages')
      .select('from_address')
      .where('inbox_id', '=', inboxId)
      .where('id', '!=', exceptId)
      .where('received_at', '<=', beforeMs)
      .orderBy('received_at', 'desc')
      .limit(5000)
      .execute();
    const out = new Set<string>();
    for (const r of rows) {
      const d = domainOf(r.from_address ?? '');
      if (d) out.add(d);
    }
    return out;
  }

  /** The inbox's newest `limit` messages, oldest first. */
  async recentOfInbox(inboxId: string, limit: number): Promise<MessageRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .orderBy('received_at', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** The team's mail received since `since` in the key's scope, newest 500, oldest first, with each inbox's address. */
  async recentOfTeam(p: Principal, since: number): Promise<Array<MessageRow & { inbox_address: string }>> {
    let q = this.db
      .selectFrom('messages')
      .innerJoin('inboxes', 'inboxes.id', 'messages.inbox_id')
      .selectAll('messages')
      .select('inboxes.address as inbox_address')
      .where('inboxes.team_id', '=', p.teamId)
      .where('messages.received_at', '>', since);
    const ids = scopedInboxIds(this.db.withTables<WorkspaceTables>(), p);
    if (ids) q = q.where('messages.inbox_id', 'in', ids);
    const rows = await q.orderBy('messages.received_at', 'desc').limit(500).execute();
    return rows.reverse();
  }

  /** The inbox of a message of the team; null when the team has no such message. */
  async inboxOfMessage(teamId: string, messageId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('messages')
      .innerJoin('inboxes', 'inboxes.id', 'messages.inbox_id')
      .select(['messages.inbox_id'])
      .where('messages.id', '=', messageId)
      .where('inboxes.team_id', '=', teamId)
      .executeTakeFirst();
    return row?.inbox_id ?? null;
  }
}
