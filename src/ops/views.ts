// The API's shapes of inboxes, messages and attachments: zod schemas (for validation, OpenAPI and MCP output
// schemas) and the converters from store rows. Every operation that returns one of these uses this file.
import { z } from 'zod';
import { rawUrlOf } from '../lib/links.ts';
import { SEEN } from '../mail/flags.ts';
import { cidRefs, isInlinePart, messageText } from '../mail/inline.ts';
import { senderOf, verificationOf } from '../mail/summary.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { AttachmentRow, MessageRow, MessageSummaryRow } from '../store/messages.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const Address = z.object({ name: z.string(), address: z.string() });

export const InboxView = z.object({
  inboxId: z.string().describe('Identifier of the inbox (inb_…)'),
  address: z.string().describe('The e-mail address to give to a signup form'),
  label: z.string().nullable().describe('CI run id or other grouping label'),
  ttlMinutes: z.number().int(),
  createdAt: z.string(),
  expiresAt: z.string(),
  callbackUrl: z.string().nullable(),
  messagesReceived: z.number().int().describe('Messages delivered to this inbox so far'),
  checks: z
    .array(z.string())
    .optional()
    .describe('Checks run on every arrival (the checks option on create); reported as message.checked on SSE and callbacks'),
});
export type InboxView = z.infer<typeof InboxView>;

export function inboxView(r: InboxRow): InboxView {
  return {
    inboxId: r.id,
    address: r.address,
    label: r.label,
    ttlMinutes: r.ttl_minutes,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    callbackUrl: r.callback_url,
    messagesReceived: r.message_seq,
    ...(r.checks_json ? { checks: JSON.parse(r.checks_json) as string[] } : {}),
  };
}

export const Verification = z.object({ otp: z.string().nullable(), primaryLink: z.string().nullable() });

export const MessageSummary = z.object({
  messageId: z.string(),
  inboxId: z.string(),
  from: Address.nullable(),
  to: z.array(Address),
  cc: z.array(Address),
  subject: z.string(),
  receivedAt: z.string(),
  size: z.number().int(),
  hasAttachments: z.boolean().describe('The message has attachments (inline parts, images drawn inside the HTML, do not count)'),
  attachmentCount: z.number().int().describe('Attachments, not counting inline parts (see attachments[].inline)'),
  hasRaw: z.boolean(),
  rawUrl: z.string(),
  verification: Verification,
  via: z
    .string()
    .describe(
      'How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox)',
    ),
  direction: z
    .enum(['inbound', 'outbound'])
    .describe('"inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail)'),
  labels: z
    .array(z.string())
    .optional()
    .describe(
      'Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team\'s label rules; in message lists and reads, and in message.received events (SSE, callbacks)',
    ),
  threadId: z
    .string()
    .nullable()
    .describe('The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox'),
  seen: z
    .boolean()
    .describe('Read state: true once a POP3 client retrieved it or an IMAP client set \\Seen (README "POP3 and IMAP"); false for new mail'),
});
export type MessageSummary = z.infer<typeof MessageSummary>;

export { rawUrlOf };

export function messageSummary(r: MessageSummaryRow & { labels?: string[] }, baseUrl: string): MessageSummary {
  const inboxId = r.inbox_id ?? '';
  return {
    ...(r.labels ? { labels: r.labels } : {}),
    messageId: r.id,
    inboxId,
    from: senderOf(r),
    to: JSON.parse(r.to_json) as Array<z.infer<typeof Address>>,
    cc: JSON.parse(r.cc_json) as Array<z.infer<typeof Address>>,
    subject: r.subject,
    receivedAt: iso(r.received_at),
    size: r.size,
    hasAttachments: r.attachment_count > 0,
    attachmentCount: r.attachment_count,
    hasRaw: true,
    rawUrl: rawUrlOf(baseUrl, inboxId, r.id),
    verification: verificationOf(r),
    via: r.source,
    direction: r.direction,
    threadId: r.thread_id,
    seen: (r.flags & SEEN) !== 0,
  };
}

export const AttachmentView = z.object({
  attachmentId: z.string(),
  filename: z.string().nullable(),
  contentType: z.string(),
  disposition: z.enum(['attachment', 'inline']).describe('The part’s Content-Disposition as the sender wrote it'),
  contentId: z
    .string()
    .nullable()
    .describe('The part’s Content-ID without angle brackets; the HTML draws an inline part with src="cid:<contentId>"'),
  inline: z
    .boolean()
    .describe(
      'true: an inline part — the HTML body refers to its contentId with a cid: URL (a logo, a signature image), whatever its disposition; it is not counted in attachmentCount. Download it from url like any attachment',
    ),
  size: z.number().int(),
  sha256: z.string(),
  url: z.string(),
});
export type AttachmentView = z.infer<typeof AttachmentView>;

/** One attachment; `refs` are the Content-IDs the message's HTML refers to (cidRefs of its html_body). */
export function attachmentView(a: AttachmentRow, inboxId: string, baseUrl: string, refs: ReadonlySet<string>): AttachmentView {
  return {
    attachmentId: a.id,
    filename: a.filename,
    contentType: a.content_type,
    disposition: a.disposition === 'inline' ? 'inline' : 'attachment',
    contentId: a.content_id,
    inline: isInlinePart(a.content_id, refs),
    size: a.size,
    sha256: a.sha256,
    url: `${baseUrl}/v1/inboxes/${inboxId}/messages/${a.message_id}/attachments/${a.id}`,
  };
}

/** One recipient of a sent message and how its delivery stands (src/outbound/). */
export const DeliveryView = z.object({
  address: z.string(),
  kind: z.enum(['to', 'cc', 'bcc']),
  route: z.enum(['local', 'relay']).describe('local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay'),
  state: z
    .enum(['queued', 'sent', 'failed'])
    .describe('queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up'),
  attempts: z.number().int(),
  response: z
    .string()
    .nullable()
    .describe("The relay's last answer (or the error talking to it); for local recipients where the copy was stored"),
  deliveredMessageId: z.string().nullable().describe('Local recipients: the id of the copy stored for them'),
  nextAttemptAt: z.string().nullable(),
});

export const MessageView = MessageSummary.extend({
  date: z.string().nullable().describe('The Date header'),
  headerMessageId: z.string().nullable().describe('The Message-ID header'),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  text: z
    .string()
    .nullable()
    .describe(
      'The text/plain part; for mail with only HTML, the text derived from the HTML (table rows as lines, cells separated by a tab) — textSource says which',
    ),
  textSource: z
    .enum(['part', 'html'])
    .nullable()
    .describe('Where text comes from: "part" (a text/plain part), "html" (derived from the HTML part), null (the message has no text)'),
  html: z.string().nullable(),
  headers: z.array(z.object({ name: z.string(), value: z.string() })),
  attachments: z.array(AttachmentView),
  deliveries: z
    .array(DeliveryView)
    .optional()
    .describe(
      'Outbound messages: the delivery state of each recipient (queued, sent, failed with the relay answer); received messages that were released (POST …/release): the state of each release target',
    ),
});
export type MessageView = z.infer<typeof MessageView>;

export function messageView(r: MessageRow, atts: AttachmentRow[], baseUrl: string): MessageView {
  const inboxId = r.inbox_id ?? '';
  const refs = cidRefs(atts.some((a) => a.content_id !== null) ? r.html_body : null);
  return {
    ...messageSummary(r, baseUrl),
    date: r.date === null ? null : iso(r.date),
    headerMessageId: r.message_id_header,
    inReplyTo: r.in_reply_to,
    references: JSON.parse(r.references_json) as string[],
    ...messageText(r.text_body, r.html_body),
    html: r.html_body,
    headers: (JSON.parse(r.headers_json) as Array<[string, string]>).map(([name, value]) => ({ name, value })),
    attachments: atts.map((a) => attachmentView(a, inboxId, baseUrl, refs)),
  };
}

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

export const Limit = z.coerce
  .number()
  .int('limit must be a whole number')
  .min(1)
  .max(500)
  .default(50)
  .describe('Page size, 1-500 (default 50)');
export const Cursor = z.string().max(512).optional().describe('nextCursor of the previous page');
