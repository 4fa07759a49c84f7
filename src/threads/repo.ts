// The threads capability's read queries: an inbox's threads and one thread's messages, and the recent threads of every
// inbox a key may see (the console), newest activity first with a keyset cursor. Label scope is applied in SQL, as for
// inboxes. The writes live beside it: assignment's statements in src/threads/queries.ts, claim and delete upkeep in
// src/threads/upkeep.ts. ThreadService (src/threads/service.ts) is the one caller.
import { type Kysely, sql } from 'kysely';
import { type MessageSummaryRow, SUMMARY_COLUMNS } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';

export interface ThreadRow {
  id: string;
  inbox_id: string;
  subject: string;
  message_count: number;
  participants_json: string;
  first_message_at: number;
  last_message_at: number;
  last_message_id: string | null;
  /** The start of the newest message's text (for the snippet). */
  last_text: string | null;
  /** When that message has no text part: the start of its HTML (the snippet is derived from it). */
  last_html: string | null;
}

export interface ConsoleThreadRow extends ThreadRow {
  address: string;
  label: string | null;
}

/** Keyset position in a newest-activity-first list. */
export interface ActivityCursor {
  at: number;
  id: string;
}

/** Characters of the newest message's text read for a snippet (the snippet itself is shorter). */
const SNIPPET_SOURCE = 1000;
/** Characters of its HTML read instead when it has no text part (a <head> with styles comes first). */
const SNIPPET_HTML_SOURCE = 16_384;

export class ThreadRepo {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  private base() {
    return this.db
      .selectFrom('threads as t')
      .leftJoin('message_rows as lm', 'lm.id', 't.last_message_id')
      .leftJoin('contents as lc', 'lc.sha256', 'lm.content_sha256')
      .select([
        't.id',
        't.inbox_id',
        't.subject',
        't.message_count',
        't.participants_json',
        't.first_message_at',
        't.last_message_at',
        't.last_message_id',
      ])
      .select((eb) => eb.fn<string | null>('substr', ['lc.text_body', eb.val(1), eb.val(SNIPPET_SOURCE)]).as('last_text'))
      .select(sql<string | null>`case when lc.text_body is null then substr(lc.html_body, 1, ${SNIPPET_HTML_SOURCE}) end`.as('last_html'));
  }

  /** Newest activity first. */
  async list(inboxId: string, limit: number, before?: ActivityCursor): Promise<ThreadRow[]> {
    let q = this.base().where('t.inbox_id', '=', inboxId);
    if (before)
      q = q.where((eb) =>
        eb.or([eb('t.last_message_at', '<', before.at), eb.and([eb('t.last_message_at', '=', before.at), eb('t.id', '<', before.id)])]),
      );
    return q.orderBy('t.last_message_at', 'desc').orderBy('t.id', 'desc').limit(limit).execute();
  }

  async get(inboxId: string, threadId: string): Promise<ThreadRow | undefined> {
    return this.base().where('t.id', '=', threadId).where('t.inbox_id', '=', inboxId).executeTakeFirst();
  }

  /** The thread's messages, oldest first, after the given inbox sequence number. */
  async messages(inboxId: string, threadId: string, limit: number, afterSeq?: number): Promise<MessageSummaryRow[]> {
    let q = this.db.selectFrom('messages').select(SUMMARY_COLUMNS).where('thread_id', '=', threadId).where('inbox_id', '=', inboxId);
    if (afterSeq !== undefined) q = q.where('seq', '>', afterSeq);
    return q.orderBy('seq', 'asc').limit(limit).execute();
  }

  /** Threads of every inbox of the team within the label prefix, newest activity first, with their inbox. */
  async recent(teamId: string, labelPrefix: string | null, limit: number, before?: ActivityCursor): Promise<ConsoleThreadRow[]> {
    let q = this.base().innerJoin('inboxes as i', 'i.id', 't.inbox_id').select(['i.address', 'i.label']).where('t.team_id', '=', teamId);
    if (labelPrefix) q = q.where('i.label', '>=', labelPrefix).where('i.label', '<', labelPrefix + '\u{10FFFF}');
    if (before)
      q = q.where((eb) =>
        eb.or([eb('t.last_message_at', '<', before.at), eb.and([eb('t.last_message_at', '=', before.at), eb('t.id', '<', before.id)])]),
      );
    return q.orderBy('t.last_message_at', 'desc').orderBy('t.id', 'desc').limit(limit).execute();
  }
}
