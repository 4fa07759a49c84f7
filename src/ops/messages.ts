// Messages of an inbox: list, read, raw .eml, attachments, delete.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { decodeCursor, pageOf } from '../lib/cursor.ts';
import { BlobMissingError } from '../store/blobs.ts';
import type { InboxRow } from '../store/inboxes.ts';
import { MessageRepo, type MessageRow } from '../store/messages.ts';
import { AttachmentId, InboxId, inboxOf, MessageId } from './common.ts';
import { op, type OpContext } from './op.ts';
import {
  AttachmentView,
  attachmentView,
  Cursor,
  Limit,
  listOf,
  MessageSummary,
  messageSummary,
  MessageView,
  messageView,
  rawUrlOf,
} from './views.ts';

async function messageOf(ctx: OpContext, inboxId: string, messageId: string): Promise<{ inbox: InboxRow; msg: MessageRow }> {
  const inbox = await inboxOf(ctx, inboxId);
  const msg = await ctx.services.messages.get(inbox.id, messageId);
  if (!msg) throw new AppError('not_found', `no message ${messageId} in inbox ${inbox.id}`);
  return { inbox, msg };
}

/**
 * Opens a blob for a raw answer. A blob missing from disk is a clean 500 naming the message (never a file path, and
 * never a connection cut halfway through a response), logged once with the message id.
 */
async function openBlob(ctx: OpContext, sha256: string, what: 'raw message' | 'attachment', messageId: string) {
  try {
    // The size of the bytes actually there, not the one recorded at ingest: Content-Length must match the stream.
    const { stream, size } = await ctx.services.blobs.open(sha256);
    return { body: stream, size };
  } catch (e) {
    if (!(e instanceof BlobMissingError)) throw e;
    ctx.services.log.error(`${what} missing from the blob store`, { messageId, sha256 });
    const blobs = ctx.services.blobs;
    const where = blobs.locate
      ? `it should be ${blobs.locate(sha256)}; restore that object from a backup (or the bucket's versioning)`
      : 'check the data dir (its blobs/ folder) and restore it from a backup';
    throw new AppError('internal', `the ${what} of ${messageId} is missing from the blob store; ${where}`);
  }
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
    const rows = await ctx.services.messages.list(inbox.id, input.limit + 1, c?.s);
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
    const { msg } = await messageOf(ctx, input.id, input.messageId);
    const view = messageView(msg, await ctx.services.messages.attachments(msg.id), ctx.services.baseUrl());
    if (msg.direction === 'outbound') view.deliveries = await ctx.services.outbound.deliveriesOf(msg.id);
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
      ...(await openBlob(ctx, msg.raw_sha256, 'raw message', msg.id)),
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
    description: 'List the attachments of a message: file name, type, size and id.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: listOf(AttachmentView),
  async handler(ctx, input) {
    const { inbox, msg } = await messageOf(ctx, input.id, input.messageId);
    const rows = await ctx.services.messages.attachments(msg.id);
    return { items: rows.map((a) => attachmentView(a, inbox.id, ctx.services.baseUrl())), nextCursor: null };
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
    const { inbox, msg } = await messageOf(ctx, input.id, input.messageId);
    const a = await ctx.services.messages.attachment(msg.id, input.attachmentId);
    if (!a) throw new AppError('not_found', `no attachment ${input.attachmentId} in message ${msg.id}`);
    if (/application\/json/i.test(ctx.request.accept)) return attachmentView(a, inbox.id, ctx.services.baseUrl());
    return {
      kind: 'raw' as const,
      contentType: SAFE_TYPE.test(a.content_type) ? a.content_type : 'application/octet-stream',
      ...(await openBlob(ctx, a.sha256, 'attachment', msg.id)),
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
    const s = ctx.services;
    const shas = await s.messages.blobsOf({ messageIds: [msg.id] });
    // Its thread is recounted in the same transaction (an emptied thread goes).
    await s.writer.run(() => s.threads.upkeep.removing([msg.thread_id], (trx) => new MessageRepo(trx).delete(inbox.id, msg.id)));
    await s.writer.collect(shas);
    return { deleted: true as const, messageId: msg.id };
  },
});

export const messageOps = [listMessages, getMessage, getRawMessage, listAttachments, getAttachment, deleteMessage];
