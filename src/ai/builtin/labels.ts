// Label-anchored lookups shared by the presets: an amount, a date, an identifier or a name that follows a
// label on the same line (or alone on the next line, for two-column layouts rendered label-above-value).

import { datesIn } from './dates.ts';
import { bareAmount, type Money, moneyIn } from './money.ts';

export interface Hit {
  line: number;
  /** Text after the label on its line. */
  rest: string;
}

/** Lines whose lower-cased text matches `re`; `rest` is what follows the match. */
export function labelHits(lines: readonly string[], re: RegExp, exclude?: RegExp): Hit[] {
  const out: Hit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lower = line.toLowerCase();
    if (exclude?.test(lower)) continue;
    const m = re.exec(lower);
    if (!m) continue;
    // lower-casing keeps lengths for the scripts read here, so the index maps back to the original line
    out.push({ line: i, rest: line.slice(m.index + m[0].length) });
  }
  return out;
}

/** The first amount after a label (or on the next line when the label stands alone). */
export function amountAt(lines: readonly string[], h: Hit): Money | null {
  const own = moneyIn(h.rest);
  if (own.length > 0) return own[0]!;
  // "Total: 123.45" with the currency stated elsewhere
  const bare = bareAmount(h.rest);
  if (bare !== null) return { value: bare, marker: '', start: 0, end: 0 };
  if (h.rest.replace(/[\s:：.()（）-]/g, '').length > 0) return null;
  const next = lines[h.line + 1] ?? '';
  const m = moneyIn(next);
  return m.length > 0 && m[0]!.start <= 2 ? m[0]! : null;
}

export function firstAmount(lines: readonly string[], re: RegExp, exclude?: RegExp): Money | null {
  for (const h of labelHits(lines, re, exclude)) {
    const m = amountAt(lines, h);
    if (m) return m;
  }
  return null;
}

export function dateAt(lines: readonly string[], h: Hit, monthFirst: boolean): string | null {
  const own = datesIn(h.rest, monthFirst);
  if (own.length > 0) return own[0]!.iso;
  if (h.rest.replace(/[\s:：.()（）-]/g, '').length > 0) return null;
  const next = datesIn(lines[h.line + 1] ?? '', monthFirst);
  return next.length > 0 && next[0]!.index <= 2 ? next[0]!.iso : null;
}

export function firstDate(lines: readonly string[], re: RegExp, monthFirst: boolean, exclude?: RegExp): string | null {
  for (const h of labelHits(lines, re, exclude)) {
    const d = dateAt(lines, h, monthFirst);
    if (d) return d;
  }
  return null;
}

const ID_PREFIX =
  /^[\s:：#№.\-–)\]】]*(?:(?:n[.°º]?\s?o\.?|no\.?|nr\.?|n°|nº|num\.?|number|nummer|número|numéro|numero|id|ref\.?)(?=[\s:#.]|$))?[\s:：#№.\-–)\]】]*/i;
const ID_TOKEN = /^([A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]|[A-Za-z0-9])/;

export interface IdOptions {
  /** Accept a token without digits (booking references such as "EJKQZM"). */
  lettersOk?: boolean;
}

function idFrom(text: string, opts: IdOptions): string | null {
  const t = text.replace(ID_PREFIX, '');
  const m = ID_TOKEN.exec(t);
  if (!m) return null;
  const v = m[1]!;
  if (v.length < 2 && !/\d/.test(v)) return null;
  if (v.length > 40) return null;
  if (!/\d/.test(v) && !(opts.lettersOk && /^[A-Z0-9]{5,8}$/.test(v))) return null;
  if (datesIn(v, false).length > 0 && /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(v)) return null;
  return v;
}

/** The identifier that follows a label (or heads the next line when the label ends its line). */
export function idAt(lines: readonly string[], h: Hit, opts: IdOptions = {}): string | null {
  const own = idFrom(h.rest, opts);
  if (own) return own;
  if (h.rest.replace(/[\s:：#.()\]】-]/g, '').length > 0) return null;
  return idFrom(lines[h.line + 1] ?? '', opts);
}

export function firstId(lines: readonly string[], re: RegExp, opts: IdOptions = {}, exclude?: RegExp): string | null {
  for (const h of labelHits(lines, re, exclude)) {
    const v = idAt(lines, h, opts);
    if (v) return v;
  }
  return null;
}

/** A name after a label ("Händler", "Merchant:", "[ショップ名]"): the rest of the line or the next line. */
export function firstName(lines: readonly string[], re: RegExp): string | null {
  for (const h of labelHits(lines, re)) {
    let v = h.rest.replace(/^[\s:：\]】)-]+/, '').trim();
    if (v === '') v = (lines[h.line + 1] ?? '').trim();
    v = v.replace(/\s+\S+@\S+.*$/, '').trim();
    if (v.length >= 2 && v.length <= 80 && !/@|https?:/.test(v) && /\p{L}/u.test(v)) return v;
  }
  return null;
}
