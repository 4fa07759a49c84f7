// Raw messages in and out of remote mailboxes: a parsed RFC 5322 message becomes a MailMessage (HTML turned into
// text by the verification extractor's html-text converter), and a draft becomes RFC 5322 bytes (nodemailer's
// MailComposer through src/mail/compose.ts).
import { AppError } from '../../errors.ts';
import { composeMail, isAddress, parseMailbox } from '../../mail/compose.ts';
import { htmlToText } from '../../mail/extract/index.ts';
import { parseMessage } from '../../mail/parse.ts';
import type { ParsedMessage } from '../../mail/types.ts';
import type { AttachmentInfo, DraftRequest, MailMessage } from './types.ts';

/** The headers triage reads; everything else is left out of a MailMessage. */
export const TRIAGE_HEADERS = ['list-id', 'list-unsubscribe', 'precedence', 'auto-submitted', 'x-auto-response-suppress'] as const;

export function pickHeaders(lines: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of lines) {
    const n = k.toLowerCase();
    if ((TRIAGE_HEADERS as readonly string[]).includes(n) && out[n] === undefined) out[n] = v.slice(0, 1000);
  }
  return out;
}

export function bodyText(text: string | null, html: string | null): string {
  if (text && text.trim() !== '') return text;
  return html ? htmlToText(html) : '';
}

export async function messageFromRaw(
  raw: Buffer,
  meta: { id: string; threadId: string; me: string | null; unread: boolean; receivedAt?: Date | null; attachments?: AttachmentInfo[] },
): Promise<MailMessage> {
  const p = await parseMessage(raw);
  return messageFromParsed(p, meta);
}

export function messageFromParsed(
  p: ParsedMessage,
  meta: { id: string; threadId: string; me: string | null; unread: boolean; receivedAt?: Date | null; attachments?: AttachmentInfo[] },
): MailMessage {
  const from = p.from ? { name: p.from.name, address: p.from.address.toLowerCase() } : null;
  const date = p.date ?? meta.receivedAt ?? null;
  return {
    id: meta.id,
    threadId: meta.threadId,
    from,
    to: p.to.map((a) => ({ name: a.name, address: a.address.toLowerCase() })),
    cc: p.cc.map((a) => ({ name: a.name, address: a.address.toLowerCase() })),
    subject: p.subject,
    date: date && !Number.isNaN(date.getTime()) ? date.toISOString() : null,
    messageIdHeader: p.messageId,
    inReplyTo: p.inReplyTo,
    references: p.references,
    text: bodyText(p.text, p.html),
    html: p.html,
    fromMe: meta.me !== null && from?.address === meta.me.toLowerCase(),
    unread: meta.unread,
    headers: pickHeaders(p.headers),
    attachments:
      meta.attachments ??
      p.attachments
        .filter((a) => a.disposition === 'attachment' || a.filename)
        .map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.size })),
  };
}

/** Addresses of a draft, checked: a bad one is a 400 naming the field. */
export function draftAddresses(list: string[], field: string): Array<{ name: string; address: string }> {
  return list.map((s, i) => {
    const m = parseMailbox(s);
    if (!m || !isAddress(m.address))
      throw new AppError('validation_failed', `${field}[${i}] is not an e-mail address`, {
        errors: [{ path: `${field}.${i}`, message: 'not an e-mail address' }],
      });
    return m;
  });
}

/** The draft as RFC 5322 bytes, from the mailbox owner, threaded onto `parent` when it is a reply. */
export async function composeDraft(
  from: string,
  d: DraftRequest,
  parent: { subject: string; messageId: string | null; references: string[] } | null,
  now: Date,
): Promise<{ raw: Buffer; subject: string; messageId: string }> {
  const subject = d.subject ?? (parent ? (/^re\s*:/i.test(parent.subject) ? parent.subject : `Re: ${parent.subject}`) : '');
  const inReplyTo = d.inReplyTo ?? parent?.messageId ?? null;
  const references = parent
    ? [...parent.references, ...(parent.messageId ? [parent.messageId] : [])].slice(-20)
    : inReplyTo
      ? [inReplyTo]
      : [];
  const c = await composeMail({
    from,
    to: draftAddresses(d.to, 'to'),
    cc: draftAddresses(d.cc, 'cc'),
    bcc: [],
    replyTo: [],
    subject,
    text: d.text,
    html: d.html,
    attachments: [],
    inReplyTo,
    references,
    date: now,
  });
  return { raw: c.raw, subject, messageId: c.messageId };
}

/**
 * A draft of `d`, in reply to `parent` (the last message of the thread it names) when there is one: recipients
 * default to the other side of that message, subject and references follow it.
 */
export async function replyDraft(
  from: string,
  d: DraftRequest,
  parent: MailMessage | undefined,
  now: Date,
): Promise<{ raw: Buffer; subject: string; messageId: string; to: string[] }> {
  const to = d.to.length || !parent ? d.to : [parent.fromMe ? (parent.to[0]?.address ?? '') : (parent.from?.address ?? '')].filter(Boolean);
  if (!to.length)
    throw new AppError('validation_failed', 'a draft needs recipients: give `to` or a threadId to reply in', {
      errors: [{ path: 'to', message: 'required without threadId' }],
    });
  const draft = await composeDraft(
    from,
    { ...d, to },
    parent ? { subject: parent.subject, messageId: parent.messageIdHeader, references: parent.references } : null,
    now,
  );
  return { ...draft, to };
}
