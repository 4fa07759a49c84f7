// Messages of an inbox: list, read, raw .eml, attachments, delete (reads, deliveries and the blob store through
// MessageService, src/inboxes/messages.ts; each op looks up the caller's inbox and calls one method).
import { z } from 'zod';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { cidRefs } from '../../mail/inline.ts';
import type { InboxRow } from '../../store/inboxes.ts';
import type { MessageRow } from '../../store/messages.ts';
import { AttachmentId, InboxId, inboxOf, MessageId } from '../common.ts';
import { type OpContext, op } from '../op.ts';
import {
  AttachmentView,
  attachmentView,
  Cursor,
  Limit,
  listOf,
  MessageSummary,
  MessageView,
  messageSummary,
  messageView,
  rawUrlOf,
} from '../views.ts';

async function messageOf(ctx: OpContext, inboxId: string, messageId: string): Promise<{ inbox: InboxRow; msg: MessageRow }> {
  const inbox = await inboxOf(ctx, inboxId);
  return { inbox, msg: await ctx.services.inboxMessages.get(inbox, messageId) };
}

const isSeqCursor = (v: unknown): v is { s: number } => typeof v === 'object' && v !== null && Number.isInteger((v as { s: unknown }).s);

export const listMessages = op({
  name: 'messages.list',
  summary: 'List messages',
  description: 'Messages of an inbox, newest first, with the code and link extracted from each.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages' },
  tool: {
    name: 'svc_list_messages',
    description: 'List the messages of an inbox, newest first, each with sender, subject and the extracted code/link (verification).',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({ id: InboxId, limit: Limit, cursor: Cursor }),
  output: listOf(MessageSummary),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const c = decodeCursor(input.cursor, isSeqCursor);
    const rows = await ctx.services.inboxMessages.list(inbox.id, input.limit + 1, c?.s);
    return pageOf(
      rows,
      input.limit,
      (r) => messageSummary(r, ctx.services.baseUrl()),
      (r) => ({ s: r.seq }),
    );
  },
});

export const getMessage = op({
  name: 'messages.get',
  summary: 'Get a message',
  description: 'One message: addresses, subject, text, html, headers, attachments and the extracted verification data.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId' },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: MessageView,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const { msg, attachments, deliveries, labels } = await ctx.services.inboxMessages.read(inbox, input.messageId);
    const view = messageView(msg, attachments, ctx.services.baseUrl());
    view.labels = labels;
    if (deliveries) view.deliveries = deliveries;
    return view;
  },
});

const RawMeta = z.object({
  messageId: z.string(),
  inboxId: z.string(),
  contentType: z.literal('message/rfc822'),
  size: z.number().int(),
  sha256: z.string(),
  receivedAt: z.string(),
  envelope: z.object({ mailFrom: z.string().nullable(), rcptTo: z.string() }),
  rawUrl: z.string(),
});

export const getRawMessage = op({
  name: 'messages.raw',
  summary: 'Get the raw message (.eml)',
  description: 'The archived message exactly as received, as message/rfc822. With "Accept: application/json", its metadata instead.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/raw', raw: ['message/rfc822'] },
  tool: {
    name: 'svc_get_raw_message',
    description:
      'Get the raw message (.eml source: headers and MIME body) exactly as received. Use it when the extracted data is not enough (primaryAction type manual).',
    args: { inboxId: 'id' },
    accept: 'message/rfc822',
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: RawMeta,
  async handler(ctx, input) {
    const { inbox, msg } = await messageOf(ctx, input.id, input.messageId);
    if (/application\/json/i.test(ctx.request.accept)) {
      return {
        messageId: msg.id,
        inboxId: inbox.id,
        contentType: 'message/rfc822' as const,
        size: msg.size,
        sha256: msg.raw_sha256,
        receivedAt: new Date(msg.received_at).toISOString(),
        envelope: { mailFrom: msg.mail_from, rcptTo: msg.rcpt },
        rawUrl: rawUrlOf(ctx.services.baseUrl(), inbox.id, msg.id),
      };
    }
    return {
      kind: 'raw' as const,
      contentType: 'message/rfc822',
      ...(await ctx.services.inboxMessages.open(msg.raw_sha256, 'raw message', msg.id)),
      headers: { 'Content-Disposition': `attachment; filename="${msg.id}.eml"`, 'X-Content-Type-Options': 'nosniff' },
    };
  },
});

export const listAttachments = op({
  name: 'messages.attachments',
  summary: 'List attachments',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/attachments' },
  tool: {
    name: 'svc_list_attachments',
    description:
      'List the attachments of a message: file name, type, size, id, and inline (true for an image the HTML body draws with a cid: URL, not a file the sender attached).',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: listOf(AttachmentView),
  async handler(ctx, input) {
    const { inbox, msg } = await messageOf(ctx, input.id, input.messageId);
    const rows = await ctx.services.inboxMessages.attachments(msg.id);
    const refs = cidRefs(msg.html_body);
    return { items: rows.map((a) => attachmentView(a, inbox.id, ctx.services.baseUrl(), refs)), nextCursor: null };
  },
});

const SAFE_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name; always `attachment`, never rendered. */
export function contentDisposition(filename: string | null, fallback: string): string {
  const name = (filename ?? '').replace(/[\x00-\x1f\x7f]/g, '').trim() || fallback;
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
}

export const getAttachment = op({
  name: 'messages.attachment',
  summary: 'Download an attachment',
  description:
    'The attachment bytes with their content type; always served as a download. With "Accept: application/json", its metadata instead.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/attachments/:attachmentId', raw: ['application/octet-stream'] },
  tool: {
    name: 'svc_get_attachment',
    description: 'Get the bytes of one attachment (as an embedded resource, base64), up to 5 MB.',
    args: { inboxId: 'id' },
    accept: '*/*',
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId, attachmentId: AttachmentId }),
  output: AttachmentView,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const json = /application\/json/i.test(ctx.request.accept);
    const { msg, attachment: a, file } = await ctx.services.inboxMessages.download(inbox, input.messageId, input.attachmentId, !json);
    if (!file) return attachmentView(a, inbox.id, ctx.services.baseUrl(), cidRefs(a.content_id === null ? null : msg.html_body));
    return {
      kind: 'raw' as const,
      contentType: SAFE_TYPE.test(a.content_type) ? a.content_type : 'application/octet-stream',
      ...file,
      headers: {
        'Content-Disposition': contentDisposition(a.filename, a.id),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "sandbox; default-src 'none'",
      },
    };
  },
});

export const deleteMessage = op({
  name: 'messages.delete',
  summary: 'Delete a message',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/inboxes/:id/messages/:messageId' },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: z.object({ deleted: z.literal(true), messageId: z.string() }),
  audit: false,
  async handler(ctx, input) {
    const { inbox, msg } = await messageOf(ctx, input.id, input.messageId);
    await ctx.services.inboxMessages.delete(inbox, msg);
    return { deleted: true as const, messageId: msg.id };
  },
});

export const markMessage = op({
  name: 'messages.mark',
  summary: 'Mark a message read or unread',
  description:
    'Sets the read state (`seen`) of a message: the IMAP \\Seen flag that POP3 RETR and IMAP fetches set, shown as `seen` in every message answer.',
  access: 'write',
  http: { method: 'PATCH', path: '/v1/inboxes/:id/messages/:messageId' },
  tool: {
    name: 'svc_mark_message',
    description:
      'Mark a message of an inbox read (seen: true) or unread (seen: false). This is the read state IMAP and POP3 clients see as the \\Seen flag.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({
    id: InboxId,
    messageId: MessageId,
    seen: z.boolean({ error: () => 'seen must be true (read) or false (unread)' }).describe('true: read; false: unread'),
  }),
  output: z.object({ messageId: z.string(), seen: z.boolean() }),
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return { messageId: input.messageId, seen: await ctx.services.inboxMessages.markSeen(inbox, input.messageId, input.seen) };
  },
});

export const clearMessages = op({
  name: 'messages.clear',
  summary: 'Delete every message of an inbox',
  description:
    'Empties the inbox (received mail and sent copies, their raw files and attachments) and keeps the inbox itself, its address and settings.',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/inboxes/:id/messages' },
  input: z.strictObject({ id: InboxId }),
  output: z.object({ deleted: z.number().int() }),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return { deleted: await ctx.services.inboxMessages.clear(inbox) };
  },
});

export const messageOps = [
  listMessages,
  getMessage,
  getRawMessage,
  listAttachments,
  getAttachment,
  deleteMessage,
  markMessage,
  clearMessages,
];
