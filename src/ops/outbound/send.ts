// Send and reply from an inbox (CONTRACT §9): POST /v1/inboxes/:id/send, POST /v1/inboxes/:id/reply, and the MCP
// tool svc_send_message (a reply when given replyToMessageId). The sender is always the inbox's own address.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { type Mailbox, type OutAttachment, parseMailbox } from '../../mail/compose.ts';
import { buildReply } from '../../outbound/reply.ts';
import { MAX_RECIPIENTS, type SendResult } from '../../outbound/service.ts';
import type { InboxRow } from '../../store/inboxes.ts';
import { InboxId, inboxOf, MessageId, principal } from '../common.ts';
import { type OpContext, op } from '../op.ts';
import { DeliveryView } from '../views.ts';

/**
 * CR, LF and NUL split or cut header lines (header injection); other controls have no business in a header either:
 * C0, DEL, the C1 range (U+0080–U+009F: NEL U+0085 is a line break to some readers) and the Unicode line and paragraph
 * separators.
 */
const HEADER_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const headerSafe = (what: string) => (v: string) =>
  !HEADER_UNSAFE.test(v) || `${what} must not contain CR, LF, NUL or other control characters`;

const Recipient = z
  .string()
  .max(998)
  .superRefine((v, c) => {
    const unsafe = headerSafe('an address')(v);
    if (unsafe !== true) c.addIssue({ code: 'custom', message: unsafe });
    else if (!parseMailbox(v))
      c.addIssue({ code: 'custom', message: `"${v.slice(0, 80)}" is not an e-mail address (user@example.com or Name <user@example.com>)` });
  });
const Recipients = z
  .union([Recipient, z.array(Recipient)])
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .refine((v) => v.length <= MAX_RECIPIENTS, { error: `at most ${MAX_RECIPIENTS} recipients per message (to, cc and bcc together)` });

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const Attachment = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .refine((v) => !HEADER_UNSAFE.test(v), { error: 'filename must not contain CR, LF, NUL or other control characters' })
    .describe('File name shown to the recipient, e.g. "invoice.pdf"'),
  contentType: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i,
      'contentType must be a MIME type such as application/pdf',
    )
    .optional()
    .describe('MIME type, e.g. application/pdf (default: from the file name, else application/octet-stream)'),
  contentBase64: z
    .string()
    .refine((v) => {
      const t = v.replace(/\s+/g, '');
      return t.length % 4 === 0 && B64.test(t);
    }, 'contentBase64 must be standard base64 (A-Z a-z 0-9 + /, padded with =)')
    .describe('The file bytes, base64-encoded'),
});
const Attachments = z.array(Attachment).max(100, 'at most 100 attachments').default([]).describe('Files to attach');

const Body = {
  text: z.string().optional().describe('Plain-text body'),
  html: z.string().optional().describe('HTML body (give text too for clients that show no HTML)'),
  attachments: Attachments,
};

const Subject = z
  .string()
  .max(998)
  .refine((v) => !HEADER_UNSAFE.test(v), { error: 'subject must not contain CR, LF, NUL or other control characters' });

const SendFields = {
  to: Recipients.describe('Recipient address, or a list ("user@example.com" or "Name <user@example.com>")'),
  cc: Recipients.optional().describe('Cc recipients (same forms as to)'),
  bcc: Recipients.optional().describe('Bcc recipients: they get the message but are not written into it'),
  subject: Subject.default('').describe('Subject line'),
  replyTo: Recipients.optional().describe('Reply-To address(es) for answers to this message'),
  ...Body,
};

const ReplyFields = {
  messageId: MessageId.describe('The received message (msg_…) of this inbox to answer'),
  replyAll: z
    .boolean()
    .default(false)
    .describe('Answer every participant (From, To, Cc of the original) but this inbox; default: only the sender'),
  ...Body,
};

const SendOutput = z.object({
  messageId: z.string().describe("Id of the sent message's copy stored in this inbox (direction outbound)"),
  inboxId: z.string(),
  from: z.string().describe("Always the inbox's own address"),
  subject: z.string(),
  rfcMessageId: z.string().describe('The Message-ID header of the sent message'),
  inReplyTo: z.string().nullable().describe('In-Reply-To header (replies)'),
  references: z.array(z.string()).describe('References header (replies): the thread so far'),
  recipients: z.array(DeliveryView).describe('Each recipient and its delivery state'),
});

const bodyLimit = (s: { config: { maxMessageBytes: number } }) => Math.ceil((s.config.maxMessageBytes * 4) / 3) + 256 * 1024;

function decodeAttachments(ctx: OpContext, list: Array<z.output<typeof Attachment>>): OutAttachment[] {
  const max = ctx.services.config.maxMessageBytes;
  let total = 0;
  return list.map((a) => {
    const content = Buffer.from(a.contentBase64, 'base64');
    total += content.length;
    if (total > max)
      throw new AppError(
        'payload_too_large',
        `attachments add up to more than the ${max}-byte message limit (--max-message-bytes); "${a.filename}" goes over it`,
      );
    return { filename: a.filename, contentType: a.contentType ?? guessType(a.filename), content };
  });
}

function guessType(filename: string): string {
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = {
    pdf: 'application/pdf',
    txt: 'text/plain',
    csv: 'text/csv',
    json: 'application/json',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    html: 'text/html',
    ics: 'text/calendar',
    zip: 'application/zip',
  };
  return types[ext] ?? 'application/octet-stream';
}

const mailboxes = (list: string[] | undefined): Mailbox[] => (list ?? []).map((s) => parseMailbox(s)!);

function result(inbox: InboxRow, subject: string, r: SendResult): z.output<typeof SendOutput> {
  return { ...r, inboxId: inbox.id, from: inbox.address, subject };
}

async function doSend(ctx: OpContext, inbox: InboxRow, input: z.output<z.ZodObject<typeof SendFields>>) {
  const r = await ctx.services.outbound.send({
    inbox,
    to: mailboxes(input.to),
    cc: mailboxes(input.cc),
    bcc: mailboxes(input.bcc),
    replyTo: mailboxes(input.replyTo),
    subject: input.subject,
    text: input.text,
    html: input.html,
    attachments: decodeAttachments(ctx, input.attachments),
    inReplyTo: null,
    references: [],
    keyId: principal(ctx).keyId,
    ...deliveryGuard(ctx),
  });
  return result(inbox, input.subject, r);
}

/**
 * Under `--smtp-auth required` a key reaches only its own scope's inboxes, by SMTP and by a local send alike; and the
 * answer names only inboxes inside the key's label scope.
 */
function deliveryGuard(ctx: OpContext): { mayNotDeliverTo?: (address: string) => Promise<string | null>; labelPrefix: string | null } {
  const p = principal(ctx);
  if (ctx.services.config.smtpAuth !== 'required') return { labelPrefix: p.scope.labelPrefix };
  return { mayNotDeliverTo: (address) => ctx.services.inboxes.refusesSender(p, address), labelPrefix: p.scope.labelPrefix };
}

async function doReply(ctx: OpContext, inbox: InboxRow, input: z.output<z.ZodObject<typeof ReplyFields>>) {
  const original = await ctx.services.inboxMessages.get(inbox, input.messageId);
  const req = buildReply(inbox, original, {
    text: input.text,
    html: input.html,
    replyAll: input.replyAll,
    attachments: decodeAttachments(ctx, input.attachments),
  });
  const r = await ctx.services.outbound.send({ ...req, keyId: principal(ctx).keyId, ...deliveryGuard(ctx) });
  return result(inbox, req.subject, r);
}

export const sendMessage = op({
  name: 'messages.send',
  summary: 'Send a message from an inbox',
  description:
    "Sends mail from the inbox's own address. Recipients at a domain this server serves are delivered locally at once; others go through the operator's relay (--smtp-relay; without one they get 501 and nothing is sent). Answers 202 with the stored copy's id and each recipient's delivery state.",
  access: 'write',
  http: { method: 'POST', path: '/v1/inboxes/:id/send', status: 202, bodyLimit },
  input: z.strictObject({ id: InboxId, ...SendFields }),
  output: SendOutput,
  audit: { action: 'message.send', target: (_i, o) => o.messageId },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return doSend(ctx, inbox, input);
  },
});

export const replyMessage = op({
  name: 'messages.reply',
  summary: 'Reply to a received message',
  description:
    'Answers a message this inbox received: To is its Reply-To (else From), with replyAll also its To and Cc, never the inbox itself; the subject gets "Re:" (not doubled) and In-Reply-To / References continue the thread. Delivery as for send.',
  access: 'write',
  http: { method: 'POST', path: '/v1/inboxes/:id/reply', status: 202, bodyLimit },
  input: z.strictObject({ id: InboxId, ...ReplyFields }),
  output: SendOutput,
  audit: { action: 'message.reply', target: (_i, o) => o.messageId },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return doReply(ctx, inbox, input);
  },
});

export const sendTool = op({
  name: 'messages.send-tool',
  summary: 'Send or reply (MCP)',
  access: 'write',
  tool: {
    name: 'svc_send_message',
    description: 'Send mail from an inbox, or reply to a received message with replyToMessageId (replyAll for everyone).',
    args: { inboxId: 'id' },
    annotations: { openWorldHint: true },
  },
  input: z.strictObject({
    id: InboxId.describe('The sending inbox (inb_…)'),
    replyToMessageId: MessageId.optional().describe('Reply to this received message (msg_…) of the inbox instead of writing a new one'),
    replyAll: z.boolean().optional().describe('With replyToMessageId: answer every participant, not only the sender'),
    to: Recipients.optional().describe('New message: recipient address or list ("user@example.com" or "Name <user@example.com>")'),
    cc: Recipients.optional().describe('New message: Cc recipients'),
    bcc: Recipients.optional().describe('New message: Bcc recipients (not written into the message)'),
    subject: Subject.optional().describe('New message: subject line'),
    replyTo: Recipients.optional().describe('New message: Reply-To address(es)'),
    ...Body,
  }),
  output: SendOutput,
  audit: { action: 'message.send', target: (_i, o) => o.messageId },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    if (input.replyToMessageId) {
      const extra = (['to', 'cc', 'bcc', 'subject', 'replyTo'] as const).filter((k) => input[k] !== undefined);
      if (extra.length > 0)
        throw new AppError(
          'validation_failed',
          `a reply takes its recipients and subject from the original; leave out ${extra.join(', ')}`,
          {
            errors: extra.map((k) => ({ path: k, message: 'not allowed with replyToMessageId' })),
          },
        );
      return doReply(ctx, inbox, {
        messageId: input.replyToMessageId,
        replyAll: input.replyAll ?? false,
        text: input.text,
        html: input.html,
        attachments: input.attachments,
      });
    }
    if (!input.to && !input.cc && !input.bcc)
      throw new AppError('validation_failed', 'give to (and/or cc, bcc) for a new message, or replyToMessageId to reply', {
        errors: [{ path: 'to', message: 'required without replyToMessageId' }],
      });
    return doSend(ctx, inbox, {
      to: input.to ?? [],
      cc: input.cc,
      bcc: input.bcc,
      subject: input.subject ?? '',
      replyTo: input.replyTo,
      text: input.text,
      html: input.html,
      attachments: input.attachments,
    });
  },
});

export const outboundOps = [sendMessage, replyMessage, sendTool];
