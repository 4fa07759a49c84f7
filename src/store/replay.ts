// Reading an inbox's messages in arrival order after a sequence number: SSE `Last-Event-ID` replay and the start-up
// check for messages that never got their callback delivery.
import type { Kysely } from 'kysely';
import type { MessageSummaryRow } from './messages.ts';
import type { Database } from './schema.ts';

/** The summary columns (everything but bodies and headers). `satisfies` keeps the list in step with the type. */
export const SUMMARY_COLUMNS = [
  'id',
  'inbox_id',
  'rcpt',
  'seq',
  'received_at',
  'mail_from',
  'from_address',
  'from_name',
  'to_json',
  'cc_json',
  'subject',
  'date',
  'message_id_header',
  'in_reply_to',
  'references_json',
  'size',
  'raw_sha256',
  'attachment_count',
  'otp',
  'primary_link',
  'source',
] as const satisfies ReadonlyArray<keyof MessageSummaryRow>;

// Fails to compile when MessageSummaryRow gains a column that the list above lacks.
type Missing = Exclude<keyof MessageSummaryRow, (typeof SUMMARY_COLUMNS)[number]>;
const _complete: [Missing] extends [never] ? true : Missing = true;
void _complete;

/** Messages of the inbox with seq > afterSeq, oldest first. */
export function messagesAfterSeq(db: Kysely<Database>, inboxId: string, afterSeq: number, limit: number): Promise<MessageSummaryRow[]> {
  return db
    .selectFrom('messages')
    .select(SUMMARY_COLUMNS)
    .where('inbox_id', '=', inboxId)
    .where('seq', '>', afterSeq)
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}
