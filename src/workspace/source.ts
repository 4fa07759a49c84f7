// The one shape of mail the workspace works on, whether it comes from a stored thread, one stored message or messages
// the caller supplies (the reads are in mail-reads.ts). Everything downstream (summaries, drafts, rules) sees the same
// small shape, so the engine never touches the store.
import type { MessageRow } from '../store/messages.ts';

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

export function fromRow(r: MessageRow, inboxAddress: string): WsMessage {
  const from = (r.from_address ?? '').toLowerCase();
  // Mail from the inbox's own address is ours too (a copy that arrived by SMTP has direction inbound).
  const direction = r.direction === 'outbound' || from === inboxAddress.toLowerCase() ? 'outbound' : 'inbound';
  return {
    id: r.id,
    threadId: r.thread_id ?? null,
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

export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).toLowerCase();
}

export function header(m: Pick<WsMessage, 'headers'>, name: string): string | null {
  const n = name.toLowerCase();
  for (const [k, v] of m.headers) if (k.toLowerCase() === n) return v;
  return null;
}

/** A message the caller supplies instead of stored mail. */
export interface SuppliedMail {
  from: string;
  to?: string | string[] | undefined;
  subject?: string | undefined;
  text: string;
  /** ISO 8601. */
  date?: string | undefined;
}

/** What a request names: supplied messages, or an inbox with a stored thread or message. */
export interface SourceInput {
  inboxId?: string | undefined;
  threadId?: string | undefined;
  messageId?: string | undefined;
  messages?: SuppliedMail[] | undefined;
  /** With supplied messages: the caller's own address, so mail from it counts as written by them. */
  me?: string | undefined;
}

export function fromSupplied(messages: SuppliedMail[], me: string | undefined): WsMessage[] {
  const own = me?.toLowerCase();
  return messages.map((m) => {
    const from = m.from.toLowerCase();
    return {
      id: null,
      threadId: null,
      from,
      fromName: '',
      to: (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).map((a) => a.toLowerCase()),
      subject: m.subject ?? '',
      text: m.text,
      date: m.date ? Date.parse(m.date) : null,
      headers: [],
      attachmentCount: 0,
      direction: own && from === own ? 'outbound' : 'inbound',
      messageIdHeader: null,
    } satisfies WsMessage;
  });
}
