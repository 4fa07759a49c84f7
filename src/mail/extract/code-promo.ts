// Promo codes and generated-looking codes: a letter code seen in a promotion marks its value as never the otp;
// a random mix of letters and digits ("7F3K-92QX") counts as a code where a word with a number ("SAVE20") does not.

import type { LineCache, MessageContext } from './code-context.ts';
import type { RawCode } from './code-scan.ts';
import { generated } from './code-scan.ts';
import type { ScoredCode } from './codes.ts';
import type { Line } from './doc.ts';
import { PROMO_CTX } from './keywords.ts';

/** A code seen in a promotion: it gets no score, and marks its value (see mergeCodes). */
export function promo(r: RawCode, li: number, line: Line): ScoredCode {
  return { value: r.value, kind: r.kind, score: -1, source: line.source, line: li, segment: line.segment, reasons: ['promo'], promo: true };
}

/** Discount wording on the two non-empty lines before or (unless `beforeOnly`: a promo footer under a real code)
 *  the one after a code. */
export function promoAround(cache: LineCache, lines: Line[], li: number, last: number, beforeOnly = false): boolean {
  let seen = 0;
  for (let k = li - 1; k >= 0 && seen < 2; k--) {
    if (lines[k]!.text === '') continue;
    seen++;
    if (cache.promo(k)) return true;
  }
  if (beforeOnly) return false;
  for (let k = last + 1; k < lines.length; k++) {
    if (lines[k]!.text === '') continue;
    return cache.promo(k);
  }
  return false;
}

/** A generated-looking code ("7F3K-92QX", "x7k29q", "k9Rt4Z"), unlike a word with a number ("SAVE20", "RTX4090"). */
export function randomShape(value: string): boolean {
  return generated(value.replace(/-/g, ''));
}

/** A word and a number ("SPRING20", "HELLO15", "iPhone15"): promo codes and product names look like this. */
export function wordLike(value: string): boolean {
  const word = /^([A-Za-z]{4,})\d{1,3}$|^\d{1,3}([A-Za-z]{4,})$/.exec(value);
  return !!word && /[aeiouy]/i.test(word[1] ?? word[2] ?? '');
}

export interface PromoInput {
  value: string;
  li: number;
  last: number;
  /** lower-cased text around the candidate */
  lower: string;
  digitsOnly: boolean;
  /** a verification word in the candidate's sentence */
  verifyHere: boolean;
  reasons: string[];
  wordLike: boolean;
}

/** 'promo' when a candidate is a promo code, else a score change (digit codes near discount wording lose some). */
export function promoVerdict(c: PromoInput, lines: Line[], cache: LineCache, ctx: MessageContext): 'promo' | number {
  const promoNear = PROMO_CTX.test(c.lower) || (c.li > 0 && cache.promo(c.li - 1));
  const shielded = c.verifyHere || !!ctx.subjectVerifyCode; // "Your login code" Subject, a promo footer below
  if (c.digitsOnly) {
    if (promoNear) return -0.4;
    return !shielded && ctx.promo && promoAround(cache, lines, c.li, c.last, true) ? -0.4 : 0;
  }
  if (promoNear) return 'promo';
  // in an advertising mail a letter code that neither a verification word nor a code keyword introduces is a
  // promo code, as is one a line or two away from discount wording, and any word-with-a-number
  const kwLabel = c.reasons.some((x) => x === 'label-before' || x === 'label-after' || x === 'kw-near');
  if (!shielded && ((ctx.promo && !kwLabel) || promoAround(cache, lines, c.li, c.last))) return 'promo';
  if (c.wordLike && ctx.promo) return 'promo';
  return 0;
}
