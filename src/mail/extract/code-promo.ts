// Promo codes and generated-looking codes: a letter code seen in a promotion marks its value as never the otp;
// a random mix of letters and digits ("7F3K-92QX") counts as a code where a word with a number ("SAVE20") does not.

import type { Line } from './doc.ts';
import type { RawCode } from './code-scan.ts';
import { generated } from './code-scan.ts';
import type { LineCache } from './code-context.ts';
import type { ScoredCode } from './codes.ts';

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
