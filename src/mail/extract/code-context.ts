// Message-level context for code scoring (bookings, meetings, receipts, whether the mail talks about a
// code at all), code-keyword matching with negations, and a per-line cache of masked/lower-cased text.

import { maskLine } from './code-scan.ts';
import type { Line } from './doc.ts';
import {
  BOOKING_CTX,
  CODE_KW,
  CODE_KW_NEG_AFTER,
  CODE_KW_NEG_BEFORE,
  CODE_KW_NEG_BEFORE2,
  ENTER_CUE,
  MEETING_CTX,
  PROMO_CTX,
  RECEIPT_CTX,
  VERIFY_NEAR,
} from './keywords.ts';

export interface CodeHint {
  lengths: number[];
  alphabet: 'digits' | 'alphanumeric';
  prefix?: string;
}

export interface MessageContext {
  /** Some unquoted line or the subject names a code. */
  codeIntent: boolean;
  /** The Subject names a code ("Your login code", "Re: verification code"). */
  subjectCode: boolean;
  /** The Subject names a verification or sign-in code and advertises nothing ("Your login code"). */
  subjectVerifyCode?: boolean;
  /** Some unquoted line or the subject is about verification / sign-in. */
  verifyIntent: boolean;
  booking: boolean;
  receipt: boolean;
  meeting: boolean;
  /** The message advertises something (discount, coupon, "% off", "first order"): its bare codes are promo codes. */
  promo: boolean;
  hint?: CodeHint | undefined;
}

export interface Kw {
  index: number;
  end: number;
  word: string;
}

/** Code keywords in a lower-cased text, without the negated ones ("promo code", "zip code"). */
export function codeKeywords(lower: string, ctx?: { booking: boolean; meeting: boolean; receipt?: boolean }, max = 200): Kw[] {
  const out: Kw[] = [];
  CODE_KW.lastIndex = 0;
  for (let m = CODE_KW.exec(lower); m; m = CODE_KW.exec(lower)) {
    const before = lower.slice(Math.max(0, m.index - 24), m.index);
    const after = lower.slice(m.index + m[0].length, m.index + m[0].length + 24);
    let neg = CODE_KW_NEG_BEFORE.test(before) || CODE_KW_NEG_BEFORE2.test(before) || CODE_KW_NEG_AFTER.test(after);
    if (!neg && ctx?.booking && /confirmation\s*$|booking\s*$|reservation\s*$/.test(before)) neg = true;
    if (!neg && ctx?.meeting && /^passcode|^pin\b/.test(m[0])) neg = true;
    if (!neg && ctx?.receipt && /(?:authori[sz]ation|auth)\s*$/.test(before)) neg = true;
    if (!neg && /^codes?$/.test(m[0]) && /[a-z]$/.test(before)) {
      // "unicode", "encode", "barcode", "zipcode" are not the word code; compounds such as
      // "sicherheitscode", "verificatiecode", "logincode" are
      if (/(?:uni|en|de|bar|qr|zip|post|geo|op|short|promo|source|re|trans|hex|time|zeit)$/.test(before)) neg = true;
    }
    if (!neg && /^codes?$/.test(m[0]) && /^s?\s+(?:of conduct|review|base|snippet|block|sample|editor|repository|repo)\b/.test(after))
      neg = true;
    if (!neg) out.push({ index: m.index, end: m.index + m[0].length, word: m[0] });
    if (out.length >= max) break;
  }
  return out;
}

export function hasKw(lower: string, ctx: MessageContext): boolean {
  return codeKeywords(lower, ctx, 1).length > 0;
}

/** Lower-cased line text with URL/e-mail masking; cached per line. */
export class LineCache {
  private masked = new Map<number, string>();
  private lowerMap = new Map<number, string>();
  private kwMap = new Map<number, boolean>();
  private lines: Line[];
  private ctx: MessageContext;
  constructor(lines: Line[], ctx: MessageContext) {
    this.lines = lines;
    this.ctx = ctx;
  }
  mask(i: number): string {
    let v = this.masked.get(i);
    if (v === undefined) {
      v = maskLine(this.lines[i]!.text);
      this.masked.set(i, v);
    }
    return v;
  }
  lower(i: number): string {
    let v = this.lowerMap.get(i);
    if (v === undefined) {
      v = this.mask(i).toLowerCase();
      this.lowerMap.set(i, v);
    }
    return v;
  }
  private weakMap = new Map<number, boolean>();
  private promoMap = new Map<number, boolean>();
  weak(i: number): boolean {
    let v = this.weakMap.get(i);
    if (v === undefined) {
      const l = this.lower(i);
      v = VERIFY_NEAR.test(l) || ENTER_CUE.test(l);
      this.weakMap.set(i, v);
    }
    return v;
  }
  promo(i: number): boolean {
    let v = this.promoMap.get(i);
    if (v === undefined) {
      v = PROMO_CTX.test(this.lower(i));
      this.promoMap.set(i, v);
    }
    return v;
  }
  kw(i: number): boolean {
    let v = this.kwMap.get(i);
    if (v === undefined) {
      v = hasKw(this.lower(i), this.ctx);
      this.kwMap.set(i, v);
    }
    return v;
  }
}

/** Message-level flags used by the scorer. */
export function codeContext(allLines: Line[][], subject: string, hint?: CodeHint): MessageContext {
  let text = subject.toLowerCase() + '\n';
  let size = 0;
  for (const lines of allLines) {
    for (const l of lines) {
      if (l.quoted) continue;
      text += l.text.toLowerCase() + '\n';
      size += l.text.length;
      if (size > 40_000) break;
    }
  }
  BOOKING_CTX.lastIndex = 0;
  const bookingHits = (text.match(BOOKING_CTX) ?? []).length;
  const booking = bookingHits >= 2;
  RECEIPT_CTX.lastIndex = 0;
  const receipt = (text.match(RECEIPT_CTX) ?? []).length >= 2;
  const meeting = MEETING_CTX.test(text);
  const masked = maskLine(text);
  const base: MessageContext = {
    codeIntent: false,
    subjectCode: false,
    verifyIntent: VERIFY_NEAR.test(masked),
    booking,
    receipt,
    meeting,
    promo: PROMO_CTX.test(masked),
    hint,
  };
  const codeIntent = hasKw(masked, base);
  const subjectCode = hasKw(maskLine(subject.toLowerCase()), base);
  const sl = maskLine(subject.toLowerCase());
  const subjectVerifyCode = subjectCode && VERIFY_NEAR.test(sl) && !PROMO_CTX.test(sl);
  return { ...base, codeIntent, subjectCode, subjectVerifyCode };
}
