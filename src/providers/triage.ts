// Triage of mailbox threads (svc_gmail_triage / svc_gmail_digest): each thread gets one category with a short reason
// and the evidence it rests on. Order of the checks: the team's rules (settings) → a verification code or link (the
// verification extractor inboxd uses for its own mail) → newsletter (List-Unsubscribe, List-Id, Precedence bulk/list)
// → waiting (you wrote last) → receipt → notification (no-reply senders, Auto-Submitted) → needs_reply (a question or
// request to you) → fyi. Pure: the adapters fetch, this only reads.
import { extractVerification } from '../mail/extract/index.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { Category, TriageRule } from './mailbox/settings.ts';
import type { MailboxProvider, MailMessage, ThreadDetail } from './mailbox/types.ts';

export interface Evidence {
  from: string | null;
  subject: string;
  rule?: number;
  header?: string;
  code?: string | null;
  link?: string | null;
  matched?: string;
}

export interface Triaged {
  threadId: string;
  subject: string;
  from: string | null;
  lastMessageAt: string | null;
  messageCount: number;
  unread: boolean;
  category: Category;
  reason: string;
  evidence: Evidence;
}

const RECEIPT =
  /\b(receipt|invoice|order confirm\w*|your order|order (?:#|no\.?|number)|payment (?:received|confirm\w*)|purchase confirm\w*|billing statement|refund)\b/i;
const NOREPLY = /^(?:no-?reply|do-?not-?reply|notifications?|notify|alerts?|mailer-daemon|postmaster|bounces?|automated)[+.\-_@]/i;
const REQUEST =
  /\?|\b(?:can you|could you|would you|will you|please|let me know|are you (?:able|free|available)|what do you think|thoughts\b|get back to me|your (?:feedback|input|approval))/i;

function toParsed(m: MailMessage): ParsedMessage {
  return {
    messageId: m.messageIdHeader,
    subject: m.subject,
    from: m.from,
    to: m.to,
    cc: m.cc,
    replyTo: [],
    date: m.date ? new Date(m.date) : null,
    inReplyTo: m.inReplyTo,
    references: m.references,
    headers: Object.entries(m.headers),
    text: m.text,
    html: m.html,
    attachments: [],
  };
}

function ruleMatch(rules: TriageRule[], m: MailMessage | undefined, subject: string): { i: number; r: TriageRule; what: string } | null {
  const from = (m?.from?.address ?? '').toLowerCase();
  const domain = from.slice(from.lastIndexOf('@') + 1);
  for (const [i, r] of rules.entries()) {
    const hits: string[] = [];
    if (r.from !== undefined) {
      if (from !== r.from.toLowerCase()) continue;
      hits.push(`from ${r.from}`);
    }
    if (r.domain !== undefined) {
      const d = r.domain.toLowerCase();
      if (!(domain === d || domain.endsWith(`.${d}`))) continue;
      hits.push(`domain ${r.domain}`);
    }
    if (r.subjectContains !== undefined) {
      if (!subject.toLowerCase().includes(r.subjectContains.toLowerCase())) continue;
      hits.push(`subject contains "${r.subjectContains}"`);
    }
    return { i, r, what: hits.join(', ') };
  }
  return null;
}

export function classify(t: ThreadDetail, rules: TriageRule[], trustedHosts: readonly string[] = []): Triaged {
  const last = t.messages.at(-1);
  const lastIn = [...t.messages].reverse().find((m) => !m.fromMe);
  const subject = t.subject || last?.subject || '';
  const base = {
    threadId: t.threadId,
    subject,
    from: lastIn?.from?.address ?? last?.from?.address ?? null,
    lastMessageAt: t.lastMessageAt,
    messageCount: t.messageCount,
    unread: t.unread,
  };
  const ev: Evidence = { from: base.from, subject };
  const out = (category: Category, reason: string, extra: Partial<Evidence> = {}): Triaged => ({
    ...base,
    category,
    reason,
    evidence: { ...ev, ...extra },
  });

  const rule = ruleMatch(rules, lastIn ?? last, subject);
  if (rule)
    return out(rule.r.category, rule.r.reason ?? `your triage rule ${rule.i + 1} (${rule.what})`, { rule: rule.i + 1, matched: rule.what });
  if (lastIn) {
    const x = extractVerification(toParsed(lastIn), { trustedHosts });
    if (x.otp || x.primaryLink)
      return out(
        'verification',
        x.otp
          ? `a one-time code from ${lastIn.from?.address ?? 'the sender'}`
          : `a verification link from ${lastIn.from?.address ?? 'the sender'}`,
        { code: x.otp, link: x.primaryLink },
      );
    const h = lastIn.headers;
    const bulk = /^(bulk|list|junk)$/i.test((h.precedence ?? '').trim());
    if (h['list-unsubscribe'] || h['list-id'] || bulk) {
      const header = h['list-unsubscribe'] ? 'List-Unsubscribe' : h['list-id'] ? 'List-Id' : 'Precedence';
      return out('newsletter', `mailing-list mail (${header} header)`, {
        header: `${header}: ${(h[header.toLowerCase()] ?? '').slice(0, 200)}`,
      });
    }
  }
  if (last?.fromMe)
    return out('waiting', `you wrote last${last.date ? ` (${last.date})` : ''} and nobody has answered yet`, {
      from: last.from?.address ?? null,
    });
  if (!lastIn) return out('fyi', 'nothing received in this thread');
  const m = RECEIPT.exec(subject);
  if (m) return out('receipt', `a receipt or order mail (subject says "${m[0]}")`, { matched: m[0] });
  const auto = (lastIn.headers['auto-submitted'] ?? '').trim().toLowerCase();
  if ((auto && auto !== 'no') || NOREPLY.test(lastIn.from?.address ?? ''))
    return out(
      'notification',
      auto && auto !== 'no' ? `automated mail (Auto-Submitted: ${auto})` : `sent from an automated address (${lastIn.from?.address})`,
      {
        ...(auto && auto !== 'no' ? { header: `Auto-Submitted: ${auto}` } : {}),
      },
    );
  const ask = REQUEST.exec(
    lastIn.text
      .split(/\r?\n/)
      .filter((l) => !l.trimStart().startsWith('>'))
      .join('\n')
      .slice(0, 5000),
  );
  if (ask)
    return out(
      'needs_reply',
      `${lastIn.from?.address ?? 'the sender'} asks or requests something ("${ask[0].trim() || '?'}") and you have not answered`,
      { matched: ask[0] },
    );
  return out('fyi', 'no question or request for you, not a list or automated mail');
}

export interface DigestGroup {
  category: Category;
  count: number;
  top: Triaged[];
}

/** Categories in the order a person deals with them; each with its count and newest `top` threads. */
export function digestOf(items: Triaged[], top: number): DigestGroup[] {
  const order: Category[] = ['needs_reply', 'verification', 'waiting', 'receipt', 'notification', 'fyi', 'newsletter'];
  return order
    .map((category) => {
      const all = items.filter((i) => i.category === category);
      return { category, count: all.length, top: all.slice(0, top) };
    })
    .filter((g) => g.count > 0);
}

/**
 * The newest threads of a mailbox, each read (its newest five messages) and classified, up to `limit`; with `since`,
 * listing stops at the first page that reaches older threads (lists are newest first).
 */
export async function triageMailbox(
  m: MailboxProvider,
  rules: TriageRule[],
  trustedHosts: readonly string[],
  o: { folder?: string | undefined; query?: string | undefined; limit: number; since?: number | undefined },
): Promise<Triaged[]> {
  const out: Triaged[] = [];
  let cursor: string | undefined;
  while (out.length < o.limit) {
    const page = await m.listThreads({ folder: o.folder, query: o.query, cursor, limit: Math.min(50, o.limit - out.length) });
    let older = false;
    for (const t of page.items) {
      if (o.since !== undefined && t.lastMessageAt !== null && Date.parse(t.lastMessageAt) < o.since) {
        older = true;
        continue;
      }
      out.push(classify(await m.readThread(t.threadId, 5), rules, trustedHosts));
    }
    if (!page.nextCursor || older || !page.items.length) break;
    cursor = page.nextCursor;
  }
  return out;
}
