// Scores code-shaped strings (code-scan.ts) by what surrounds them: a code keyword right before or after
// on the same line, the code alone on its line under/over a sentence that names a code, emphasis, the
// Subject; and rejects the distractor classes (README rule 6). Pure functions, bounded work.

import type { MessageContext } from './code-context.ts';
import { codeKeywords, hasKw, LineCache } from './code-context.ts';
import { promo, promoVerdict, randomShape, wordLike } from './code-promo.ts';
import type { CodeKind, RawCode } from './code-scan.ts';
import { scanCodes } from './code-scan.ts';
import type { Line, Source } from './doc.ts';
import {
  CARD_BEFORE,
  COLOUR_CTX,
  COUNTRY_AFTER,
  CURRENCY_BEFORE,
  DURATION_AFTER,
  MONTH_CTX,
  NEG_LABEL,
  NEG_LABEL_STRONG,
  PHONE_CTX,
  POSTAL_BEFORE,
  REGION_BEFORE,
  STREET_AFTER,
  STREET_AFTER2,
  UNIT_AFTER,
  USE_VERB_AFTER,
  USE_VERB_BEFORE,
  VERIFY_NEAR,
} from './keywords.ts';

export type { CodeHint, MessageContext } from './code-context.ts';
export { codeContext } from './code-context.ts';

export interface ScoredCode {
  value: string;
  kind: CodeKind;
  score: number;
  source: Source;
  line: number;
  segment: number;
  reasons: string[];
  /** Seen as a promo/discount code: the value is never the otp, wherever else it appears. */
  promo?: boolean;
}

/** Candidates scored per line, and lines with digits examined per source. */
const MAX_PER_LINE = 40;
const MAX_CANDIDATE_LINES = 3000;

/** Accept a code at or above this score. */
export const CODE_THRESHOLD = 0.5 - 1e-9;

const SENTENCE_BREAK = /[.!?。！？]\s|[.!?。！？]$/;

/** Scores every code candidate on the lines of one source. */
export function scoreCodes(lines: Line[], ctx: MessageContext): ScoredCode[] {
  const out: ScoredCode[] = [];
  const cache = new LineCache(lines, ctx);
  const mergedSingles = mergeBoxLines(lines);
  let examined = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.quoted || line.text === '') continue;
    if (!/\d/.test(line.text)) continue;
    const masked = cache.mask(i);
    const raws = scanCodes(masked);
    for (const r of raws.slice(0, MAX_PER_LINE)) {
      const s = scoreOne(r, i, masked, lines, cache, ctx);
      if (s) out.push(s);
    }
    if (++examined > MAX_CANDIDATE_LINES || out.length > 300) break;
  }
  for (const m of mergedSingles) {
    const r: RawCode = { value: m.value, kind: 'spaced', start: 0, end: m.value.length, adjacentNumbers: false };
    const s = scoreOne(r, m.line, m.value, lines, cache, ctx, m.last);
    if (s) out.push(s);
  }
  return out;
}

/** Runs of lines that each hold one character (a code laid out one digit per block). */
function mergeBoxLines(lines: Line[]): Array<{ value: string; line: number; last: number }> {
  const out: Array<{ value: string; line: number; last: number }> = [];
  for (let i = 0; i < lines.length; ) {
    if (!/^[A-Za-z0-9]$/.test(lines[i]!.text) || lines[i]!.quoted) {
      i++;
      continue;
    }
    let e = i;
    while (e + 1 < lines.length && /^[A-Za-z0-9]$/.test(lines[e + 1]!.text) && !lines[e + 1]!.quoted) e++;
    const n = e - i + 1;
    if (n >= 4 && n <= 8) {
      const value = lines
        .slice(i, e + 1)
        .map((l) => l.text)
        .join('');
      if (/\d/.test(value)) out.push({ value, line: i, last: e });
    }
    i = e + 1;
  }
  return out;
}

function scoreOne(
  r: RawCode,
  li: number,
  masked: string,
  lines: Line[],
  cache: LineCache,
  ctx: MessageContext,
  lastLine = li,
): ScoredCode | null {
  const line = lines[li]!;
  // the text around the candidate (whole-line tests stay bounded on long lines)
  const w0 = Math.max(0, r.start - 200);
  const lower = masked.slice(w0, r.end + 200).toLowerCase();
  const left = lower.slice(Math.max(0, r.start - w0 - 80), r.start - w0);
  const leftRaw = masked.slice(Math.max(0, r.start - 40), r.start);
  const right = lower.slice(r.end - w0, r.end - w0 + 80);
  const rightRaw = masked.slice(r.end, r.end + 60);
  const reasons: string[] = [];
  const reject = (why: string): null => {
    void why;
    return null;
  };
  const digitsOnly = r.kind !== 'alnum' && !(r.kind === 'spaced' && /[A-Za-z]/.test(r.value));

  // ---- hard distractor rules
  if (CURRENCY_BEFORE.test(left)) return reject('price');
  if (UNIT_AFTER.test(right)) return reject('unit');
  if (DURATION_AFTER.test(right)) return reject('duration');
  if (/^\s*(?:st|nd|rd|th)\b/.test(right) && digitsOnly) return reject('ordinal');
  if (CARD_BEFORE.test(left)) return reject('card');
  if (POSTAL_BEFORE.test(left)) return reject('postal');
  if (digitsOnly && (STREET_AFTER.test(rightRaw) || STREET_AFTER2.test(rightRaw))) return reject('street');
  if (digitsOnly && r.value.length <= 6 && REGION_BEFORE.test(leftRaw)) return reject('region+zip');
  if (/^\s*[年月日時分秒円元원년월일시분초号號번]/.test(right)) return reject('cjk-unit');
  if (/[#№]\s*$/.test(left)) {
    // "#48213" is an order/ticket/suite number unless a code keyword labels it ("code #482913")
    const kws = codeKeywords(left.replace(/[#№]\s*$/, ''), ctx);
    const k = kws[kws.length - 1];
    if (!k || left.length - k.end > 8) return reject('number-sign');
  }
  if (/\bv(?:er(?:sion)?)?\.?\s*$/.test(left) && digitsOnly) return reject('version');
  if (/\bip(?: address)?:?\s*$/.test(left)) return reject('ip');
  if (ctx.meeting && /(?:passcode|password|pin|meeting|id|code)\W*$/.test(left)) return reject('meeting');
  if (digitsOnly && (r.adjacentNumbers || r.kind === 'grouped') && PHONE_CTX.test(lower)) {
    if (r.adjacentNumbers || /\(\d{3}\)\s*$|\+\d[\d\s]*$/.test(left)) return reject('phone');
  }
  if (digitsOnly && /(?:call|phone|tel|fax|mobile|whatsapp|sms|telefon|電話|电话|전화|телефон)\W{0,3}$/.test(left)) return reject('phone');

  // ---- positive evidence
  let score = 0;
  const len = r.value.replace(/-/g, '').length;
  if (r.kind === 'prefixed') score += 0.1;
  if (digitsOnly) score += len === 6 ? 0.1 : 0.05;

  // keyword immediately before on the same line ("Verification code: 730481", "code is 7294")
  const kwsLeft = codeKeywords(left, ctx);
  let labelled = false;
  let strongLabel = false;
  let tight = false; // a label within a few words (before or after)
  const lastKw = kwsLeft[kwsLeft.length - 1];
  if (lastKw) {
    const between = left.slice(lastKw.end).replace(/\u0001+/g, ' ');
    const btrim = between.trim();
    if (!SENTENCE_BREAK.test(between) || btrim.length <= 3) {
      if (btrim.length <= 8) {
        score += 0.6;
        strongLabel = true;
      } else if (btrim.length <= 30) {
        score += 0.5;
        tight = true;
      } else score += btrim.length <= 60 ? 0.35 : 0.25;
      labelled = true;
      reasons.push('label-before');
    }
  }
  // keyword right after ("582046 is your verification code")
  const kwsRight = codeKeywords(right, ctx);
  const firstKw = kwsRight[0];
  if (firstKw && firstKw.index <= 40) {
    const between = right.slice(0, firstKw.index);
    if (!SENTENCE_BREAK.test(between)) {
      score += firstKw.index <= 25 ? 0.5 : firstKw.index <= 40 ? 0.45 : 0.3;
      if (firstKw.index <= 25) tight = true;
      labelled = true;
      reasons.push('label-after');
    }
  }

  // verification words in the same sentence ("Use 482913 to verify your account", "geben Sie k9Rt4Z ein, um … zu bestätigen")
  const l60 = left.slice(-60);
  const verifyHere =
    (VERIFY_NEAR.test(l60) && !SENTENCE_BREAK.test(l60.slice(l60.search(VERIFY_NEAR)))) ||
    VERIFY_NEAR.test(right.slice(0, 60).split(SENTENCE_BREAK)[0] ?? '');
  // (a booking's or receipt's "confirmation/approval code" is a reference, however random it looks)
  const random = !digitsOnly && !ctx.booking && !ctx.receipt && randomShape(r.value);
  const useVerb = USE_VERB_BEFORE.test(left.replace(/\u0001+/g, ' ').slice(-40)) || USE_VERB_AFTER.test(right.slice(0, 30));
  if (!labelled && verifyHere) {
    score += 0.3;
    labelled = true;
    reasons.push('verify-word');
    // a random-looking mix of letters and digits handed over with "use/enter/paste … to sign in" is a code even
    // without the word "code"; words with a number ("SAVE20", "iPhone15") are not random-looking
    if (random) score += useVerb ? 0.35 : 0.2;
  } else if (!labelled && random && useVerb && ctx.verifyIntent) {
    // "Please enter 7F3K92 when prompted" in a sign-in mail: handed over to be typed
    score += 0.45;
    labelled = true;
    reasons.push('use-verb');
  }

  // alone on its line (or with a short label): look at the neighbouring lines
  const rest =
    masked.length - (r.end - r.start) > 100
      ? 'x x x x x x'
      : (masked.slice(0, r.start) + ' ' + masked.slice(r.end)).replace(/[\s:：.,;!()[\]{}"'“”«»<>*·•|\u0001-]+/g, ' ').trim();
  const alone = rest === '';
  const short = !alone && !labelled && rest.split(' ').length <= 4;
  if (alone || short) {
    if (alone) score += 0.12;
    reasons.push(alone ? 'alone' : 'short-line');
    let near = 0;
    let seen = 0;
    for (let k = li - 1; k >= 0 && seen < 3; k--) {
      const l = lines[k]!;
      if (l.text === '') continue;
      if (l.quoted) break;
      seen++;
      if (cache.kw(k)) {
        near = Math.max(near, seen === 1 ? 0.5 : seen === 2 ? 0.38 : 0.25);
        break;
      }
      if (seen <= 2 && cache.weak(k)) near = Math.max(near, seen === 1 ? 0.3 : 0.2);
    }
    seen = 0;
    for (let k = lastLine + 1; k < lines.length && seen < 2; k++) {
      const l = lines[k]!;
      if (l.text === '') continue;
      if (l.quoted) break;
      seen++;
      if (cache.kw(k)) {
        near = Math.max(near, seen === 1 ? 0.35 : 0.25);
        break;
      }
    }
    if (near > 0) reasons.push('kw-near');
    if (alone && near >= 0.38) tight = true;
    score += alone ? near : near * 0.7;
    // a generated-looking code alone under "Enter the following:" or a code sentence
    if (alone && random && near > 0) score += 0.15;
  }
  const emph = line.emph || (line.emphParts?.some((p) => p.includes(masked.slice(r.start, r.end))) ?? false);
  if (emph) score += 0.1;
  if (line.source === 'subject' && labelled) score += 0.1;
  // presented as a value ("…: 771204", bold, alone) in a mail whose Subject names a code
  const afterColon = /[:：]\s*$/.test(left);
  if (afterColon && !strongLabel) score += 0.1;
  if (ctx.subjectCode && line.source !== 'subject' && !labelled && (alone || emph || afterColon)) {
    score += random ? 0.3 : 0.15;
    reasons.push('subject-kw');
  }
  if (line.hidden) score -= 0.05;
  score += ctx.codeIntent ? 0.05 : ctx.verifyIntent ? -0.1 : -0.25;

  // ---- softer distractor evidence
  if (r.unitLike && !strongLabel && !tight) return reject('unit-like');
  const leftTail = left.replace(/\u0001+/g, ' ').slice(-40);
  if (!strongLabel && NEG_LABEL_STRONG.test(leftTail)) return reject('neg-label-strong');
  if (!strongLabel && NEG_LABEL.test(leftTail)) {
    // a positive keyword among the last few words overrides ("code to verify your account: 123456")
    const words = leftTail.trim().split(/\s+/).slice(-6).join(' ');
    if (!hasKw(words, ctx)) return reject('neg-label');
  }
  if (alone && li > 0) {
    // "DOCUMENT NO." / "Confirmation code" (booking) on the line above
    const prev = prevText(lines, li);
    // only a short label line counts ("DOCUMENT NO.", "Order ID"), not a sentence that ends in "password."
    const isLabel = prev !== null && prev.length <= 32 && !/[.!?。]$/.test(prev) && prev.split(/\s+/).length <= 4;
    if (isLabel && NEG_LABEL.test(prev.toLowerCase()) && !hasKw(prev.toLowerCase(), ctx)) return reject('neg-label-above');
    if (prev !== null && ctx.booking && /confirmation|booking|reservation|reserva|buchung/i.test(prev)) return reject('booking');
  }
  if (digitsOnly && r.value.length === 4 && /^(?:19|20)\d\d$/.test(r.value) && !strongLabel) {
    // a year: in a date ("April 14, 2026", "14 avril 2026"), after ©, or anywhere without a tight label
    const near = left.slice(-24) + ' ' + right.slice(0, 12);
    if (MONTH_CTX.test(near) || /^\s*[-–/]\s*\d/.test(right)) return reject('year');
    if (!labelled && MONTH_CTX.test(lower)) return reject('year');
    score -= 0.3;
  }
  if (!strongLabel && !tight && digitsOnly && len === 8 && /^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/.test(r.value))
    score -= 0.2;
  if (digitsOnly && COUNTRY_AFTER.test(right)) score -= 0.3;
  if (digitsOnly && !labelled && /^\s+[A-Z][a-zà-ÿ]+(?:[ -][A-Z][a-zà-ÿ]+)*\s*(?:,|$)/.test(rightRaw) && /,\s*$/.test(leftRaw))
    score -= 0.3;
  if (r.adjacentNumbers) score -= 0.3;
  if (
    /(?:order|receipt|invoice|transaction|ticket|reservation|booking|tracking|shipment|account|customer|member|reference|ref\b|license|plate|serial)/.test(
      left.slice(-30),
    ) &&
    !labelled
  )
    score -= 0.35;
  const word = wordLike(r.value);
  const pv = promoVerdict(
    { value: r.value, li, last: lastLine, lower, digitsOnly, verifyHere, reasons, wordLike: word },
    lines,
    cache,
    ctx,
  );
  if (pv === 'promo') return promo(r, li, line);
  score += pv;
  if (!digitsOnly && /^[0-9a-f]{6}$/i.test(r.value) && COLOUR_CTX.test(lower)) return reject('colour');
  if (!digitsOnly) {
    if (!caseOk(r.value.replace(/-/g, '')) && !random) score -= 0.3;
    if (word && (!labelled || !verifyHere)) score -= 0.1;
    if (/^[0-9a-f]{7,8}$/.test(r.value) && /commit|sha|hash|build|rev/.test(lower)) return reject('commit');
  }
  if (ctx.hint) {
    const h = ctx.hint;
    const alphaOk = h.alphabet === 'alphanumeric' || digitsOnly;
    if (alphaOk && h.lengths.includes(len)) score += 0.1;
    else score -= 0.15;
  }
  return { value: r.value, kind: r.kind, score, source: line.source, line: li, segment: line.segment, reasons };
}

function caseOk(s: string): boolean {
  return !(/[a-z]/.test(s) && /[A-Z]/.test(s));
}

function prevText(lines: Line[], li: number): string | null {
  for (let k = li - 1; k >= 0 && k >= li - 2; k--) if (lines[k]!.text !== '') return lines[k]!.text;
  return null;
}
