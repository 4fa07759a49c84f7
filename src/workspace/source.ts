// Where the workspace reads mail from: a stored thread (by thread_id, which the threads feature adds to the
// `messages` view), one stored message, or messages the caller supplies. Everything downstream (summaries, drafts,
// rules) sees the same small shape, so the engine never touches the store.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MessageRow } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';

export interface WsMessage {
  /** msg_… for stored mail; null for supplied messages. */
  id: string | null;
  threadId: string | null;
  from: string;
  fromName: string;
  to: string[];
  subject: string;
  text: string;
  /** ms since the epoch; null when unknown. */
  date: number | null;
  headers: Array<[string, string]>;
  attachmentCount: number;
  /** `outbound` when the inbox itself wrote it (the sent copy of a reply). */
  direction: 'inbound' | 'outbound';
  messageIdHeader: string | null;
}

/** A stored thread's messages, oldest first, at most this many (the newest ones win). */
export const MAX_THREAD_MESSAGES = 200;

type StoredRow = MessageRow & { thread_id?: string | null; direction?: string | null };

export function fromRow(r: MessageRow, inboxAddress: string): WsMessage {
  const row = r as StoredRow;
  const from = (r.from_address ?? '').toLowerCase();
  // Until the outbound feature's direction column exists, mail from the inbox's own address is ours.
  const direction = row.direction === 'outbound' || from === inboxAddress.toLowerCase() ? 'outbound' : 'inbound';
  return {
    id: r.id,
    threadId: row.thread_id ?? null,
    from,
    fromName: r.from_name ?? '',
    to: (JSON.parse(r.to_json) as Array<{ address: string }>).map((a) => a.address.toLowerCase()),
    subject: r.subject,
    text: r.text_body ?? stripHtml(r.html_body ?? ''),
    date: r.date ?? r.received_at,
    headers: JSON.parse(r.headers_json) as Array<[string, string]>,
    attachmentCount: r.attachment_count,
    direction,
    messageIdHeader: r.message_id_header,
  };
}

function stripHtml(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/[ \t]+/g, ' ');
}

/**
 * A stored thread of one inbox, oldest first. Reads the `thread_id` column of the `messages` view (added by the
 * threads feature); until that column exists the query fails and the caller answers 501.
 */
export async function loadThread(db: Kysely<Database>, inboxId: string, threadId: string): Promise<MessageRow[]> {
  const rows = await db
    .selectFrom('messages')
    .selectAll()
    .where('inbox_id', '=', inboxId)
    .where(sql.ref('thread_id'), '=', threadId)
    .orderBy('received_at', 'desc')
    .limit(MAX_THREAD_MESSAGES)
    .execute();
  return rows.reverse();
}

/** Sender domains of the inbox's mail received before `beforeMs`, not counting the message itself. */
export async function knownDomains(db: Kysely<Database>, inboxId: string, exceptId: string, beforeMs: number): Promise<Set<string>> {
  const rows = await db
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

export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).toLowerCase();
}

export function header(m: Pick<WsMessage, 'headers'>, name: string): string | null {
  const n = name.toLowerCase();
  for (const [k, v] of m.headers) if (k.toLowerCase() === n) return v;
  return null;
}
