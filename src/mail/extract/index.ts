// Verification extractor: finds the one-time code (otp) and the primary verification link of a parsed
// message and turns them into the agent's primary action. Pure: no I/O, nothing is fetched, and the
// work per message is bounded (see LIMITS in doc.ts).

import type { PresetId } from '../presets.ts';
import { getPreset, serviceFromAddress } from '../presets.ts';
import type { ParsedMessage } from '../types.ts';
import type { CodeHint, ScoredCode } from './codes.ts';
import { CODE_THRESHOLD, codeContext, scoreCodes } from './codes.ts';
import type { Doc, Line, Source } from './doc.ts';
import { newLine, normLine, textToLines } from './doc.ts';
import { CELL_SEP, htmlToDoc } from './html-text.ts';
import {
  INVITE_EVENT,
  INVITE_INTENT,
  NEW_PASSWORD,
  PASSWORD_HELP,
  PASSWORD_WORD,
  PROMO_CTX,
  RESET_INTENT,
  SECURITY_NOTICE,
} from './keywords.ts';
import type { LinkContext, ScoredLink } from './links.ts';
import { LINK_THRESHOLD, registrableDomain, scoreLinks, textLinks, unwrapTracking } from './links.ts';
import { markQuotes, threadHints } from './quotes.ts';

export { htmlToText } from './html-text.ts';
export { unwrapTracking } from './links.ts';

export interface Candidate {
  kind: 'otp' | 'link';
  value: string;
  /** 0..1 */
  confidence: number;
  source: 'subject' | 'text' | 'html';
  /** link: target decoded from a click-tracking wrapper's url=/q=/u= parameter, when present */
  unwrapped?: string;
}

export interface Extraction {
  otp: string | null;
  primaryLink: string | null;
  primaryLinkUnwrapped: string | null;
  service: PresetId | null;
  /** ranked, best first, at most 10 */
  candidates: Candidate[];
}

export interface PrimaryAction {
  type: 'otp' | 'link' | 'manual';
  value: string;
  instruction: string;
}

const MAX_CANDIDATES = 10;

const LOGIN_LINK_INTENT =
  /sign[- ]?in link|log[- ]?in link|login link|magic link|magic sign|link to (?:sign|log) ?in|(?:sign|log) ?in with (?:this|one|a single) (?:link|click)|with one click|one-click|login request|sign[- ]?in request|verify your login|login verification|complete the login|finish (?:signing|logging) in|log in on this device|passwordless|anmeldelink|lien de connexion|enlace de inicio|link di accesso|inloglink|ログインリンク|登录链接/;
/** A Subject about signing in ("Sign in to Slack", "Your login link", "Log in to Figma"). */
const LOGIN_SUBJECT =
  /sign[- ]?in|log[- ]?in|login|magic link|anmeld|connexion|se connecter|iniciar sesión|inicio de sesión|accedi|accesso|inloggen|aanmelden|logga in|zaloguj|ログイン|登录|登入|로그인|вход/;
const ALREADY_DONE =
  /(?:has|have) been (?:successfully )?(?:verified|confirmed|activated)|(?:is|are) now (?:verified|confirmed|activated|active)|(?:successfully|already) (?:verified|confirmed|activated)|thanks? (?:you )?for (?:verifying|confirming|activating)|you'?re all set|your (?:account|email|e-mail address) is (?:now )?(?:ready|verified|confirmed|active)/;
const RESET_REQUEST =
  /request(?:ed)? (?:to reset|a (?:new )?password|a password reset)|forgot (?:your |my )?password|password reset request|(?:got|received) a request to (?:reset|recover|change)|account recovery|recover(?:y)? (?:code|your account)|reset the password for your|choose a new (?:one|password)/;

export interface ExtractOptions {
  service?: PresetId;
  /** Hosts whose links are trusted although they are IP literals or single labels (inboxd's own base URL). */
  trustedHosts?: readonly string[];
}

export function extractVerification(msg: ParsedMessage, opts: ExtractOptions = {}): Extraction {
  const service = opts.service ?? (msg.from ? serviceFromAddress(msg.from.address) : null);
  const preset = service ? getPreset(service) : undefined;
  const hint: CodeHint | undefined = preset?.code
    ? { lengths: preset.code.lengths, alphabet: preset.code.alphabet, ...(preset.code.prefix ? { prefix: preset.code.prefix } : {}) }
    : undefined;

  const subject = normLine(msg.subject ?? '');
  const hints = threadHints(subject, msg.inReplyTo);
  const subjectLines: Line[] = subject ? [newLine(subject, 'subject')] : [];
  const textLines = msg.text ? textToLines(msg.text) : [];
  const htmlDoc: Doc = msg.html ? cellsAsSpaces(htmlToDoc(msg.html)) : { lines: [], links: [] };
  const qText = markQuotes(textLines, hints);
  const qHtml = markQuotes(htmlDoc.lines, hints);
  const thread = qText.thread || qHtml.thread;

  // ---- codes
  const ctx = codeContext([subjectLines, textLines, htmlDoc.lines], subject, hint);
  const scored: ScoredCode[] = [
    ...(hints.forward ? [] : scoreCodes(subjectLines, ctx)),
    ...scoreCodes(textLines, ctx),
    ...scoreCodes(htmlDoc.lines, ctx),
  ];
  const codes = mergeCodes(scored);
  const otp = pickCode(codes, thread);

  // ---- links
  const lower = (subject + '\n' + bodySample(textLines, htmlDoc.lines)).toLowerCase();
  const lctx: LinkContext = {
    senderDomain: msg.from?.address.includes('@') ? registrableDomain(msg.from.address.split('@').pop() ?? '') : null,
    senderService: msg.from ? serviceFromAddress(msg.from.address) : null,
    // a reset mail: it says so, or it is about a password without being a changed-password / new-sign-in notice
    resetIntent:
      RESET_INTENT.test(subject.toLowerCase()) ||
      RESET_REQUEST.test(lower) ||
      ((RESET_INTENT.test(lower) ||
        NEW_PASSWORD.test(lower) ||
        (PASSWORD_WORD.test(subject.toLowerCase()) && PASSWORD_HELP.test(subject.toLowerCase()))) &&
        !SECURITY_NOTICE.test(lower)),
    // a team/workspace invitation; calendar invitations (an event, a .ics part) answer an event, and an
    // "exclusive invitation" to a sale is advertising
    inviteIntent:
      INVITE_INTENT.test(lower) &&
      !INVITE_EVENT.test(lower) &&
      !PROMO_CTX.test(lower) &&
      !msg.attachments.some((a) => /calendar|ics/i.test(a.contentType) || /\.ics$/i.test(a.filename ?? '')),
    loginLinkIntent: LOGIN_LINK_INTENT.test(lower) || LOGIN_SUBJECT.test(subject.toLowerCase()),
    alreadyDone: ALREADY_DONE.test(lower),
    unsubscribe: listUnsubscribe(msg),
    ...(opts.trustedHosts ? { trustedHosts: opts.trustedHosts } : {}),
  };
  const scoredLinks: ScoredLink[] = [
    ...scoreLinks(htmlDoc.links, htmlDoc.lines, lctx, 0),
    ...scoreLinks(textLinks(textLines), textLines, lctx, 10_000),
    ...scoreLinks(textLinks(htmlDoc.lines, true), htmlDoc.lines, lctx, 20_000).map((l): ScoredLink => ({ ...l, source: 'html' })),
  ];
  const links = mergeLinks(scoredLinks);
  const best = links[0] && links[0].score >= LINK_THRESHOLD ? links[0] : null;

  const candidates: Candidate[] = [
    ...codes.slice(0, MAX_CANDIDATES).map((c): Candidate => ({ kind: 'otp', value: c.value, confidence: conf(c.score), source: c.source })),
    ...links.slice(0, MAX_CANDIDATES).map((l): Candidate => {
      const c: Candidate = { kind: 'link', value: l.href, confidence: conf(l.score), source: l.source };
      if (l.unwrapped) c.unwrapped = l.unwrapped;
      return c;
    }),
  ]
    .filter((c) => c.confidence > 0)
    // the chosen code and link first (a thread's newest code can score below an older one), then by confidence
    .sort((a, b) => rank(b) - rank(a) || b.confidence - a.confidence)
    .slice(0, MAX_CANDIDATES);
  function rank(c: Candidate): number {
    return (c.kind === 'otp' && c.value === otp?.value) || (c.kind === 'link' && c.value === best?.href) ? 1 : 0;
  }

  return {
    otp: otp ? otp.value : null,
    primaryLink: best ? best.href : null,
    primaryLinkUnwrapped: best ? (best.unwrapped ?? unwrapTracking(best.href)) : null,
    service: service ?? null,
    candidates,
  };
}

/**
 * The code scanner reads the cells of a table row as words of one line: "6\t1\t5\t0\t2\t7" (a code laid out one
 * digit per cell) is "6 1 5 0 2 7" to it, as a code written with spaces would be.
 */
function cellsAsSpaces(doc: Doc): Doc {
  for (const l of doc.lines) if (l.text.includes(CELL_SEP)) l.text = l.text.replaceAll(CELL_SEP, ' ');
  return doc;
}

function conf(score: number): number {
  return Math.round(Math.max(0, Math.min(1, score)) * 100) / 100;
}

interface MergedCode extends ScoredCode {
  sources: Set<Source>;
}

function mergeCodes(list: ScoredCode[]): MergedCode[] {
  const byValue = new Map<string, MergedCode>();
  for (const c of list) {
    const m = byValue.get(c.value);
    if (!m) {
      byValue.set(c.value, { ...c, sources: new Set([c.source]) });
      continue;
    }
    m.sources.add(c.source);
    if (c.promo || m.promo) {
      m.promo = true;
      m.score = -1;
      continue;
    }
    if (c.score > m.score) {
      m.score = c.score;
      m.kind = c.kind;
      m.reasons = c.reasons;
      m.source = c.source;
    }
    if (c.source !== 'subject' && (m.source === 'subject' || c.segment < m.segment)) {
      m.segment = Math.min(m.segment, c.segment);
      m.line = Math.min(m.line, c.line);
    }
  }
  const out = [...byValue.values()];
  for (const m of out) {
    if (m.sources.size > 1 && m.sources.has('subject')) m.score += 0.05;
  }
  out.sort((a, b) => b.score - a.score || a.segment - b.segment || a.line - b.line);
  return out;
}

/** The newest (topmost) code in a thread; the best-scored one otherwise. */
function pickCode(codes: MergedCode[], thread: boolean): MergedCode | null {
  const ok = codes.filter((c) => c.score >= CODE_THRESHOLD);
  if (ok.length === 0) return null;
  if (!thread) return ok[0]!;
  const body = ok.filter((c) => c.source !== 'subject');
  const pool = body.length > 0 ? body : ok;
  const top = Math.min(...pool.map((c) => c.segment));
  return pool.filter((c) => c.segment === top).sort((a, b) => b.score - a.score)[0] ?? null;
}

function mergeLinks(list: ScoredLink[]): ScoredLink[] {
  const by = new Map<string, ScoredLink>();
  for (const l of list) {
    const m = by.get(l.href);
    if (!m) by.set(l.href, { ...l });
    else {
      if (l.score > m.score) {
        m.score = l.score;
        m.reasons = l.reasons;
      }
      m.order = Math.min(m.order, l.order);
    }
  }
  return [...by.values()].sort((a, b) => b.score - a.score || a.order - b.order);
}

function bodySample(a: Line[], b: Line[]): string {
  let out = '';
  for (const lines of [a, b]) {
    for (const l of lines) {
      if (l.quoted) continue;
      out += l.text + '\n';
      if (out.length > 20_000) return out;
    }
  }
  return out;
}

function listUnsubscribe(msg: ParsedMessage): Set<string> {
  const out = new Set<string>();
  for (const [name, value] of msg.headers) {
    if (name !== 'list-unsubscribe') continue;
    for (const m of value.matchAll(/<([^<>\s]+)>/g)) if (m[1]) out.add(m[1]);
  }
  return out;
}

/** The agent's next step for an extraction. */
export function primaryActionFor(x: Extraction, ctx: { rawUrl: string | null; serviceName?: string }): PrimaryAction {
  const name = ctx.serviceName ?? (x.service ? getPreset(x.service)?.displayName : undefined);
  if (x.otp) {
    const where = name ? `on the ${name} sign-up or sign-in page` : 'on the page that asked for it';
    const also = x.primaryLink ? ' (A verification link is also available in verification.primaryLink.)' : '';
    return {
      type: 'otp',
      value: x.otp,
      instruction: `Type ${x.otp} into the verification code field ${where}.${also}`,
    };
  }
  if (x.primaryLink) {
    return {
      type: 'link',
      value: x.primaryLink,
      instruction: `Open this link in the browser to confirm ${name ? `the ${name} account` : 'the e-mail address or sign-in'}; it is single-use, so open it once.`,
    };
  }
  const raw = ctx.rawUrl ?? '';
  return {
    type: 'manual',
    value: raw,
    instruction: raw
      ? `No verification code or link was found. Read the raw message at ${raw} and its attachments to decide the next step.`
      : 'No verification code or link was found. Read the raw message and its attachments to decide the next step.',
  };
}
