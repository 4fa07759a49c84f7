// The safety rules of `auto_send_safe` (CONTRACT §13), each named, described and testable on its own. `hard` rules
// also bind `full_auto` (they stop replies to machines, loops, spoofed senders and runaway volume); the rest are
// what makes a reply "safe" enough to leave without a person reading it. Evaluation has no side effect.
import { domainOf, header, type WsMessage } from './source.ts';
import type { PolicyMode } from './tables.ts';

export interface PolicySettings {
  /** Replies per thread (or source message, without threads) in 24 h that may be sent automatically. */
  maxPerThreadPerDay: number;
  /** Automatic replies per team in 24 h. */
  maxPerDay: number;
  /** Longest reply text, in characters, that may be sent without a person. */
  maxLength: number;
  /** When not empty, automatic replies go only to these recipient domains. */
  allowRecipientDomains: string[];
}

export const DEFAULT_SETTINGS: PolicySettings = { maxPerThreadPerDay: 1, maxPerDay: 50, maxLength: 1200, allowRecipientDomains: [] };

export interface RuleContext {
  /** The message being answered. */
  source: WsMessage;
  /** The thread up to and including the source, oldest first (just the source when there is no thread). */
  thread: WsMessage[];
  reply: { to: string; text: string; html?: string; attachmentCount: number };
  /** Domains that mailed this inbox before the source message; null when unknown (supplied mail). */
  knownDomains: Set<string> | null;
  isServedDomain: (domain: string) => boolean;
  /** Whether mail can leave this server (--smtp-relay); without a relay only served domains can be sent to. */
  relayConfigured: boolean;
  sentToday: { team: number; thread: number };
  settings: PolicySettings;
}

export interface Check {
  rule: string;
  passed: boolean;
  detail: string;
}

interface Rule {
  name: string;
  hard: boolean;
  description: string;
  check(c: RuleContext): { passed: boolean; detail: string };
}

const ROLE_LOCALS =
  /^(no-?reply|do-?not-?reply|donotreply|mailer-daemon|postmaster|bounces?(?:[+-].*)?|abuse|admin|administrator|billing|hostmaster|info|marketing|newsletter|noc|notifications?|alerts?|root|sales|security|support|webmaster|help|hello|contact|team|jobs|careers|privacy|legal|list|lists|owner-.*|.*-owner|.*-request)$/i;

const SENSITIVE: Array<[RegExp, string]> = [
  [/\b(password|passcode|passphrase|one[- ]time (?:code|password)|otp|2fa code|verification code|security code|pin)\b/i, 'credentials'],
  [/\b(api[- ]?key|access token|secret key|private key|ssh key|recovery code)\b/i, 'credentials'],
  [/\b(sk|ibx|ibt|ghp|xox[bp])[-_][A-Za-z0-9]{12,}/, 'a secret-looking token'],
  [
    /\b(iban|swift|bic|routing number|account number|sort code|wire transfer|bank transfer|bank details|credit card|card number|cvv|gift card|bitcoin|crypto(?:currency)?|payment details|pay (?:the|this) invoice)\b/i,
    'payment',
  ],
  [/\b(?:\d[ -]?){13,19}\b/, 'a card-like number'],
  [
    /\b(contract|agreement|legal|lawyer|attorney|lawsuit|litigation|liabilit(?:y|ies)|indemnif\w*|nda|non-disclosure|terms and conditions|subpoena|settlement|gdpr request)\b/i,
    'legal',
  ],
];

const URL_RE = /\bhttps?:\/\/[^\s<>"')\]]+/gi;
const hostsIn = (s: string) => new Set([...s.matchAll(URL_RE)].map((m) => hostOf(m[0])).filter((h): h is string => h !== null));
function hostOf(u: string): string | null {
  try {
    return new URL(u).hostname.toLowerCase();
  } catch {
    return null;
  }
}
/** Amounts and numbers of two digits or more (dates, prices, quantities, codes): a reply must not introduce new ones. */
const numbersIn = (s: string) => new Set([...s.matchAll(/\d[\d.,:/]*\d/g)].map((m) => m[0].replace(/[.,]$/, '')));

export const RULES: readonly Rule[] = [
  {
    name: 'not_automated_mail',
    hard: true,
    description:
      'RFC 3834: never answer automated mail — Auto-Submitted other than "no", Precedence bulk/list/junk, List-Id or List-Unsubscribe, X-Autoreply/X-Autorespond, or an empty sender.',
    check({ source: m }) {
      const auto = header(m, 'auto-submitted');
      if (auto && auto.trim().toLowerCase() !== 'no') return { passed: false, detail: `the mail is Auto-Submitted: ${auto.trim()}` };
      const prec = header(m, 'precedence');
      if (prec && /bulk|list|junk/i.test(prec)) return { passed: false, detail: `the mail has Precedence: ${prec.trim()}` };
      for (const h of ['list-id', 'list-unsubscribe', 'x-autoreply', 'x-autorespond', 'x-auto-response-suppress'])
        if (header(m, h) !== null) return { passed: false, detail: `the mail has a ${h} header (mailing list or automatic mail)` };
      if (!m.from) return { passed: false, detail: 'the mail has no sender address' };
      return { passed: true, detail: 'no automated-mail markers (Auto-Submitted, Precedence, List-*)' };
    },
  },
  {
    name: 'not_role_or_noreply',
    hard: true,
    description: 'Never reply to no-reply, bounce or role addresses (postmaster, support, info, billing, admin, …).',
    check({ reply }) {
      const local = reply.to.slice(0, reply.to.lastIndexOf('@'));
      return ROLE_LOCALS.test(local)
        ? { passed: false, detail: `${reply.to} is a no-reply or role address` }
        : { passed: true, detail: `${reply.to} is a personal address` };
    },
  },
  {
    name: 'original_sender_only',
    hard: true,
    description:
      "The reply goes to exactly one recipient: the thread's original sender, who also wrote the message answered; a Reply-To at another domain is refused.",
    check({ source, thread, reply }) {
      const first = thread.find((m) => m.direction === 'inbound') ?? source;
      if (reply.to !== source.from) return { passed: false, detail: `the reply would go to ${reply.to}, not to the sender ${source.from}` };
      if (first.from !== source.from)
        return { passed: false, detail: `the thread was started by ${first.from}; ${source.from} joined later` };
      const rt = header(source, 'reply-to');
      const rtAddr = rt ? (/<([^>]+)>/.exec(rt)?.[1] ?? rt).trim().toLowerCase() : null;
      if (rtAddr && rtAddr !== source.from && domainOf(rtAddr) !== domainOf(source.from))
        return { passed: false, detail: `Reply-To ${rtAddr} is at another domain than the sender ${source.from}` };
      return { passed: true, detail: `only ${source.from}, who started the thread` };
    },
  },
  {
    name: 'sender_not_failing_authentication',
    hard: true,
    description:
      'No automatic reply when the mail carries an Authentication-Results verdict of dmarc, dkim or spf fail (a spoofed sender).',
    check({ source }) {
      const ar = source.headers.filter(([k]) => k.toLowerCase() === 'authentication-results').map(([, v]) => v);
      const fail = ar.map((v) => /\b(dmarc|dkim|spf)=(fail|softfail|permerror)\b/i.exec(v)).find(Boolean);
      if (fail) return { passed: false, detail: `Authentication-Results says ${fail[0]}` };
      return {
        passed: true,
        detail: ar.length ? 'no failing authentication verdict' : 'no authentication verdict recorded (none failing)',
      };
    },
  },
  {
    name: 'recipient_deliverable',
    hard: true,
    description:
      'The reply can be delivered: its recipient is at a domain this inboxd serves, or an SMTP relay (--smtp-relay) is configured for outside domains.',
    check({ reply, isServedDomain, relayConfigured }) {
      const d = domainOf(reply.to);
      if (isServedDomain(d)) return { passed: true, detail: `${d} is served by this inboxd: delivered locally` };
      if (relayConfigured) return { passed: true, detail: `${d} is an outside domain: sent through the relay (--smtp-relay)` };
      return {
        passed: false,
        detail: `no SMTP relay is configured: this inboxd delivers only to the domains it serves, so a send to ${reply.to} would be refused (501 not_configured); the operator sets --smtp-relay (INBOXD_SMTP_RELAY)`,
      };
    },
  },
  {
    name: 'within_rate_limits',
    hard: true,
    description: 'At most maxPerThreadPerDay automatic replies per thread and maxPerDay per team in 24 hours (stops agent-to-agent loops).',
    check({ sentToday, settings }) {
      if (sentToday.thread >= settings.maxPerThreadPerDay)
        return {
          passed: false,
          detail: `${sentToday.thread} repl${sentToday.thread === 1 ? 'y' : 'ies'} already sent in this thread in 24 h (limit ${settings.maxPerThreadPerDay})`,
        };
      if (sentToday.team >= settings.maxPerDay)
        return { passed: false, detail: `${sentToday.team} replies sent in 24 h (limit ${settings.maxPerDay})` };
      return {
        passed: true,
        detail: `${sentToday.thread}/${settings.maxPerThreadPerDay} in this thread, ${sentToday.team}/${settings.maxPerDay} today`,
      };
    },
  },
  {
    name: 'known_sender_domain',
    hard: false,
    description: "The recipient's domain has mailed this inbox before this message (a first contact is never answered automatically).",
    check({ reply, knownDomains }) {
      const d = domainOf(reply.to);
      if (!knownDomains) return { passed: false, detail: 'supplied mail has no history; only stored mail can show a known domain' };
      return knownDomains.has(d)
        ? { passed: true, detail: `${d} has mailed this inbox before` }
        : { passed: false, detail: `${d} has not mailed this inbox before this message` };
    },
  },
  {
    name: 'recipient_domain_allowed',
    hard: false,
    description: 'Not a domain inboxd serves itself (no loops between agents), and in allowRecipientDomains when that list is set.',
    check({ reply, isServedDomain, settings }) {
      const d = domainOf(reply.to);
      if (isServedDomain(d))
        return { passed: false, detail: `${d} is served by this inboxd: automatic replies between its own inboxes could loop` };
      if (settings.allowRecipientDomains.length && !settings.allowRecipientDomains.includes(d))
        return { passed: false, detail: `${d} is not in allowRecipientDomains` };
      return { passed: true, detail: `${d} is an outside domain${settings.allowRecipientDomains.length ? ' on the allow list' : ''}` };
    },
  },
  {
    name: 'no_attachments',
    hard: false,
    description: 'The reply carries no attachments.',
    check({ reply }) {
      return reply.attachmentCount > 0
        ? { passed: false, detail: `the reply has ${reply.attachmentCount} attachment(s)` }
        : { passed: true, detail: 'no attachments' };
    },
  },
  {
    name: 'no_new_links',
    hard: false,
    description: 'Every link in the reply points at a host already linked in the thread.',
    check({ thread, reply }) {
      const known = new Set(thread.flatMap((m) => [...hostsIn(m.text)]));
      const fresh = [...hostsIn(`${reply.text}\n${reply.html ?? ''}`)].filter((h) => !known.has(h));
      return fresh.length
        ? { passed: false, detail: `new link host(s): ${fresh.slice(0, 5).join(', ')}` }
        : { passed: true, detail: 'no links to new hosts' };
    },
  },
  {
    name: 'no_new_numbers',
    hard: false,
    description: 'No amounts, dates or other numbers that the thread does not already contain (no new commitments).',
    check({ thread, reply }) {
      const known = new Set(thread.flatMap((m) => [...numbersIn(`${m.subject} ${m.text}`)]));
      const fresh = [...numbersIn(reply.text)].filter((n) => !known.has(n));
      return fresh.length
        ? { passed: false, detail: `numbers not in the thread: ${fresh.slice(0, 5).join(', ')}` }
        : { passed: true, detail: 'no new numbers or amounts' };
    },
  },
  {
    name: 'no_sensitive_wording',
    hard: false,
    description:
      'Neither the mail answered nor the reply mentions credentials (passwords, codes, keys), payment (bank, card, transfer) or legal matters.',
    check({ source, reply }) {
      for (const [where, text] of [
        ['the reply', reply.text],
        ['the mail answered', `${source.subject}\n${source.text}`],
      ] as const)
        for (const [re, what] of SENSITIVE) if (re.test(text)) return { passed: false, detail: `${where} mentions ${what}` };
      return { passed: true, detail: 'no credential, payment or legal wording' };
    },
  },
  {
    name: 'bounded_length',
    hard: false,
    description: 'The reply is not empty and at most maxLength characters (default 1200).',
    check({ reply, settings }) {
      const n = reply.text.trim().length;
      if (n === 0) return { passed: false, detail: 'the reply is empty' };
      return n > settings.maxLength
        ? { passed: false, detail: `the reply has ${n} characters (limit ${settings.maxLength})` }
        : { passed: true, detail: `${n} of at most ${settings.maxLength} characters` };
    },
  },
];

export function evaluateRules(c: RuleContext): Check[] {
  return RULES.map((r) => ({ rule: r.name, ...r.check(c) }));
}

export interface Decision {
  outcome: 'sent' | 'drafted' | 'blocked';
  reasons: string[];
}

/**
 * The one gate every send path goes through. `draft_only` never sends, whatever the request or the mail says;
 * `auto_send_safe` sends only when every rule passes; `full_auto` sends unless a hard rule fails.
 */
export function decide(mode: PolicyMode, checks: Check[]): Decision {
  if (mode === 'draft_only')
    return { outcome: 'drafted', reasons: ['policy mode is draft_only: replies are stored as drafts, never sent'] };
  const hard = new Set(RULES.filter((r) => r.hard).map((r) => r.name));
  const failing = checks.filter((c) => !c.passed && (mode === 'auto_send_safe' || hard.has(c.rule)));
  if (failing.length) return { outcome: 'blocked', reasons: failing.map((c) => `${c.rule}: ${c.detail}`) };
  return { outcome: 'sent', reasons: [`policy mode ${mode}: ${mode === 'full_auto' ? 'every hard rule' : 'every rule'} passed`] };
}

export function ruleList(): Array<{ name: string; description: string; appliesTo: PolicyMode[] }> {
  return RULES.map((r) => ({
    name: r.name,
    description: r.description,
    appliesTo: r.hard ? (['auto_send_safe', 'full_auto'] as PolicyMode[]) : (['auto_send_safe'] as PolicyMode[]),
  }));
}
