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

/** A value and the whole line it was read from (for `sources`, src/ai/builtin/provenance.ts). */
export interface Found<T> {
  value: T;
  line: string;
}

/** The first amount after a label (or on the next line when the label stands alone), with the line it is on. */
export function amountWhere(lines: readonly string[], h: Hit): Found<Money> | null {
  const line = lines[h.line]!;
  const own = moneyIn(h.rest);
  if (own.length > 0) return { value: own[0]!, line };
  // "Total: 123.45" with the currency stated elsewhere
  const bare = bareAmount(h.rest);
  if (bare !== null) return { value: { value: bare, marker: '', start: 0, end: 0 }, line };
  if (h.rest.replace(/[\s:：.()（）-]/g, '').length > 0) return null;
  const next = lines[h.line + 1] ?? '';
  const m = moneyIn(next);
  return m.length > 0 && m[0]!.start <= 2 ? { value: m[0]!, line: next } : null;
}

export function amountAt(lines: readonly string[], h: Hit): Money | null {
  return amountWhere(lines, h)?.value ?? null;
}

export function firstAmountWhere(lines: readonly string[], re: RegExp, exclude?: RegExp): Found<Money> | null {
  for (const h of labelHits(lines, re, exclude)) {
    const m = amountWhere(lines, h);
    if (m) return m;
  }
  return null;
}

export function firstAmount(lines: readonly string[], re: RegExp, exclude?: RegExp): Money | null {
  return firstAmountWhere(lines, re, exclude)?.value ?? null;
}

export function dateWhere(lines: readonly string[], h: Hit, monthFirst: boolean): Found<string> | null {
  const own = datesIn(h.rest, monthFirst);
  if (own.length > 0) return { value: own[0]!.iso, line: lines[h.line]! };
  if (h.rest.replace(/[\s:：.()（）-]/g, '').length > 0) return null;
  const next = datesIn(lines[h.line + 1] ?? '', monthFirst);
  return next.length > 0 && next[0]!.index <= 2 ? { value: next[0]!.iso, line: lines[h.line + 1]! } : null;
}

export function dateAt(lines: readonly string[], h: Hit, monthFirst: boolean): string | null {
  return dateWhere(lines, h, monthFirst)?.value ?? null;
}

export function firstDateWhere(lines: readonly string[], re: RegExp, monthFirst: boolean, exclude?: RegExp): Found<string> | null {
  for (const h of labelHits(lines, re, exclude)) {
    const d = dateWhere(lines, h, monthFirst);
    if (d) return d;
  }
  return null;
}

export function firstDate(lines: readonly string[], re: RegExp, monthFirst: boolean, exclude?: RegExp): string | null {
  return firstDateWhere(lines, re, monthFirst, exclude)?.value ?? null;
}

const ID_PREFIX =
  /^[\s:：#№.\-–)\]】]*(?:(?:n[.°º]?\s?o\.?|no\.?|nr\.?|n°|nº|num\.?|number|nummer|número|numéro|numero|id|ref\.?)(?=[\s:#.]|$))?[\s:：#№.\-–)\]】]*/i;
const ID_TOKEN = /^([\p{L}\p{N}][\p{L}\p{N}\-/._]*[\p{L}\p{N}]|[\p{L}\p{N}])/u;
/** A document series before its number, as Portuguese and Spanish invoices print it ("FT 2026/14", "FR A/123"). */
const SERIES_ID = /^([A-Z]{1,4} [A-Z]?\/?\d[\d.-]*\/\d+)(?![\p{L}\p{N}])/u;

export interface IdOptions {
  /** Accept a token without digits (booking references such as "EJKQZM"). */
  lettersOk?: boolean;
}

function idFrom(text: string, opts: IdOptions): string | null {
  const t = text.replace(ID_PREFIX, '');
  const series = SERIES_ID.exec(t);
  const m = series ?? ID_TOKEN.exec(t);
  if (!m) return null;
  const v = m[1]!;
  if (v.length < 2 && !/\p{Nd}/u.test(v)) return null;
  if (v.length > 40) return null;
  if (!/\p{Nd}/u.test(v) && !(opts.lettersOk && /^[A-Z0-9]{5,8}$/.test(v))) return null;
  if (datesIn(v, false).length > 0 && /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(v)) return null;
  return v;
}

/** The identifier that follows a label (or heads the next line when the label ends its line). */
export function idWhere(lines: readonly string[], h: Hit, opts: IdOptions = {}): Found<string> | null {
  const own = idFrom(h.rest, opts);
  if (own) return { value: own, line: lines[h.line]! };
  if (h.rest.replace(/[\s:：#.()\]】-]/g, '').length > 0) return null;
  const next = idFrom(lines[h.line + 1] ?? '', opts);
  return next ? { value: next, line: lines[h.line + 1]! } : null;
}

export function idAt(lines: readonly string[], h: Hit, opts: IdOptions = {}): string | null {
  return idWhere(lines, h, opts)?.value ?? null;
}

export function firstIdWhere(lines: readonly string[], re: RegExp, opts: IdOptions = {}, exclude?: RegExp): Found<string> | null {
  for (const h of labelHits(lines, re, exclude)) {
    const v = idWhere(lines, h, opts);
    if (v) return v;
  }
  return null;
}

export function firstId(lines: readonly string[], re: RegExp, opts: IdOptions = {}, exclude?: RegExp): string | null {
  return firstIdWhere(lines, re, opts, exclude)?.value ?? null;
}

/**
 * The name a label names, without what follows it on the line: another "Label:" ("… 统一社会信用代码: …"), or an
 * address, tax or registration number after a comma, bracket or dash ("Kestrel Tools Ltd, 22 Forge Road",
 * "ООО «Северный ветер», ИНН 7700000000").
 */
export function nameOnly(value: string): string {
  let v = value.slice(0, 200);
  const label = /\s+[^\s:：]{1,30}[:：]/u.exec(v);
  if (label && label.index >= 2) v = v.slice(0, label.index);
  const sep = /\s*(?:[,;|·•(（]|\s[-–—]\s)/gu;
  for (let m = sep.exec(v); m !== null; m = sep.exec(v)) {
    if (m.index >= 2 && /\d/.test(v.slice(m.index))) return v.slice(0, m.index).trim();
  }
  return v.trim();
}

/** A name after a label ("Händler", "Merchant:", "[ショップ名]"): the rest of the line or the next line. */
export function firstNameWhere(lines: readonly string[], re: RegExp): Found<string> | null {
  for (const h of labelHits(lines, re)) {
    let v = h.rest.replace(/^[\s:：\]】)-]+/, '').trim();
    let line = lines[h.line]!;
    if (v === '') {
      line = lines[h.line + 1] ?? '';
      v = line.trim();
    }
    v = nameOnly(v.replace(/\s+\S+@\S+.*$/, '').trim());
    if (v.length >= 2 && v.length <= 80 && !/@|https?:/.test(v) && /\p{L}/u.test(v)) return { value: v, line };
  }
  return null;
}

export function firstName(lines: readonly string[], re: RegExp): string | null {
  return firstNameWhere(lines, re)?.value ?? null;
}
