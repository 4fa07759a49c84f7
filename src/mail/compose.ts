// Outbound mail as real MIME (nodemailer's composer), and the reply rules (CONTRACT §9): who a reply goes to, its
// `Re:` subject and its threading headers. Pure: no I/O, no store; the caller has validated every field.
import crypto from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';

export interface OutAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface Mailbox {
  name: string;
  address: string;
}

export interface ComposeInput {
  /** Always the sending inbox's own address. */
  from: string;
  to: Mailbox[];
  cc: Mailbox[];
  /** Not written into the message (that is what makes them blind); the caller puts them on the envelope. */
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  text: string | undefined;
  html: string | undefined;
  attachments: OutAttachment[];
  inReplyTo: string | null;
  references: string[];
  date: Date;
  /** A reply no person approved (the workspace's automatic sends): marked `Auto-Submitted: auto-replied` (RFC 3834). */
  autoSubmitted?: boolean;
}

export interface Composed {
  raw: Buffer;
  /** The Message-ID header value, with its angle brackets. */
  messageId: string;
}

export const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

// A dot-atom local part (no quoted strings, no comments) at a domain of LDH labels: what every relay takes as is.
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** True for `local@domain.tld` as above, at most 254 characters (RFC 5321 path limit). */
export function isAddress(a: string): boolean {
  const at = a.lastIndexOf('@');
  if (at < 1 || a.length > 254) return false;
  const local = a.slice(0, at);
  return local.length <= 64 && LOCAL.test(local) && DOMAIN.test(a.slice(at + 1));
}

/** `addr@x.test` or `Name <addr@x.test>` (the name optionally in double quotes); null when it is neither. */
export function parseMailbox(s: string): Mailbox | null {
  const t = s.trim();
  const m = /^(?:"([^"\\]*)"|([^"<>]*?))\s*<([^<>\s]+)>$/.exec(t);
  const name = m ? (m[1] ?? m[2] ?? '').trim() : '';
  const address = m ? m[3]! : t;
  return isAddress(address) ? { name, address } : null;
}

/** A Message-ID at the sender's domain, so replies to it thread and the id says where it came from. */
export function newMessageId(from: string): string {
  return `<${crypto.randomUUID()}@${domainOf(from)}>`;
}

export async function composeMail(m: ComposeInput): Promise<Composed> {
  const messageId = newMessageId(m.from);
  const mail = new MailComposer({
    from: m.from,
    to: m.to.length > 0 ? m.to : undefined,
    cc: m.cc.length > 0 ? m.cc : undefined,
    replyTo: m.replyTo.length > 0 ? m.replyTo : undefined,
    subject: m.subject,
    text: m.text,
    html: m.html,
    messageId,
    date: m.date,
    inReplyTo: m.inReplyTo ?? undefined,
    references: m.references.length > 0 ? m.references : undefined,
    attachments: m.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    // Everything is UTF-8; nodemailer encodes headers (RFC 2047) and picks QP/base64 for the parts.
    textEncoding: 'quoted-printable',
    ...(m.autoSubmitted ? { headers: { 'Auto-Submitted': 'auto-replied' } } : {}),
  });
  // Bcc must not be in the bytes every recipient gets; nodemailer keeps it out of the header unless asked.
  const raw = await mail.compile().build();
  return { raw, messageId };
}

/** `Re: <subject>` without stacking prefixes: a subject that already starts with `Re:` (any case) is kept. */
export function replySubject(original: string): string {
  // A received subject may hold controls (C0, DEL, C1 such as NEL, U+2028/9); a reply's subject header holds none.
  const s = original.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (/^re\s*:/i.test(s)) return s;
  return `Re: ${s}`.trimEnd();
}

/** Most ids a References header carries; the first (thread root) and the newest are kept (JWZ's advice). */
export const MAX_REFERENCES = 20;

/** The original's References (or, lacking them, its In-Reply-To) plus its own Message-ID, bounded. */
export function replyReferences(original: { references: string[]; inReplyTo: string | null; messageId: string | null }): string[] {
  const chain = original.references.length > 0 ? [...original.references] : original.inReplyTo ? [original.inReplyTo] : [];
  if (original.messageId) chain.push(original.messageId);
  const ids = [...new Set(chain.map(bracket).filter((id) => id.length <= 998))];
  if (ids.length <= MAX_REFERENCES) return ids;
  return [ids[0]!, ...ids.slice(ids.length - (MAX_REFERENCES - 1))];
}

const bracket = (id: string): string => {
  const t = id.trim();
  return t.startsWith('<') ? t : `<${t}>`;
};

export interface ReplyParticipants {
  from: string | null;
  replyTo: string[];
  to: string[];
  cc: string[];
}

/**
 * Who a reply goes to: the original's Reply-To, else its From; with `all`, also its From, To and Cc. The inbox itself is
 * never a recipient of its own reply, and nobody appears twice (a Cc that is already a To is dropped).
 */
export function replyRecipients(o: ReplyParticipants, self: string, all: boolean): { to: string[]; cc: string[] } {
  const me = self.toLowerCase();
  const seen = new Set<string>([me]);
  const take = (list: string[]) => {
    const out: string[] = [];
    for (const a of list) {
      const k = a.toLowerCase();
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(a);
    }
    return out;
  };
  const to = take(o.replyTo.length > 0 ? o.replyTo : o.from ? [o.from] : []);
  if (!all) return { to, cc: [] };
  const more = take([...(o.from ? [o.from] : []), ...o.to]);
  const cc = take(o.cc);
  return { to: [...to, ...more], cc };
}
