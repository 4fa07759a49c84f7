// Reading an inbox's messages in arrival order after a sequence number: SSE `Last-Event-ID` replay and the start-up
// check for messages that never got their callback delivery.
import type { Kysely } from 'kysely';
import { type MessageSummaryRow, SUMMARY_COLUMNS } from './messages.ts';
import type { Database } from './schema.ts';

/** Received messages of the inbox with seq > afterSeq, oldest first (the stream is message.received only: sent copies are not replayed). */
export function messagesAfterSeq(db: Kysely<Database>, inboxId: string, afterSeq: number, limit: number): Promise<MessageSummaryRow[]> {
  return db
    .selectFrom('messages')
    .select(SUMMARY_COLUMNS)
    .where('inbox_id', '=', inboxId)
    .where('seq', '>', afterSeq)
    .where('direction', '=', 'inbound')
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}
