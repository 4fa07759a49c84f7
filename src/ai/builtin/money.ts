// Amounts in text: locale-aware numbers ("1.234,56 €", "1 234,56 €", "€1,234.56", "USD 1,684.27", "132,000円")
// next to a currency marker, and the document currency from those markers (rule 12 of the corpus README).

import { APPROX, ISO_CODES, isCode, markerCodes, POST_MARK, PRE_MARK, resolveMarker } from './currency.ts';
import { asciiDigits } from './digits.ts';

export interface Money {
  value: number;
  /** The marker as written ($, €, USD, kr …), upper-cased for codes. */
  marker: string;
  /** Index in the line where the amount (with its marker) starts and ends. */
  start: number;
  end: number;
}

// Group separators: comma, dot, space (NBSP, narrow NBSP, thin and figure space), apostrophe (Swiss 1'234.50, 1’234.50).
const SEP = "[ ,.\\u00a0\\u2007\\u2009\\u202f'’]";
// 1,234.56 · 1.234,56 · 1 234,56 · 1'234.56 · 12,34,567.89 (Indian lakh and crore) · 1234.5 · 12,- (no cents) ·
// 12.500 (three-decimal dinars: parseNumber decides with the currency). At most six groups (10^21): a bounded
// retreat when no marker follows keeps a long line of spaced digit groups linear.
const NUM = `(?<![\\d.,])[-−–]?\\s?(?:\\d{1,2}(?:,\\d{2}){1,6},\\d{3}|\\d{1,3}(?:${SEP}\\d{3}){1,6}|\\d+)(?:[.,](?:\\d{1,3}|[-–—]{1,2}(?![\\d\\-–—])))?`;
// marker before (€12.00, USD 1,684.27, -$26.40, R 4 200,00) or after (12,00 €, 189,00 kr, 3,480(円), 45,80 € EUR)
const MONEY = new RegExp(
  `(?<sign>[-−–])?\\s?(?<pre>${PRE_MARK})\\s?(?<n1>${NUM})|(?<n2>${NUM})\\s?(?<post>${POST_MARK})(?:\\s?(?<![A-Za-z])(?:${ISO_CODES.join('|')})(?![A-Za-z]))?`,
  'gu',
);
/** Currencies with three decimals: "KD 12.500" is 12.5. */
const THREE_DECIMALS = new Set(['KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD']);

/**
 * A written number as a value (2 decimals): any grouping ("1,234.56", "1.234,56", "1 234,56", "1'234.56",
 * "12,34,567.89"), digits of any script, "12,-" for 12.00. A last separator followed by three digits groups
 * thousands, except with `decimals` 3 (dinars) where a lone one is the decimal point.
 */
export function parseNumber(s: string, decimals = 2): number | null {
  let t = asciiDigits(s)
    .replace(/[\s\u00a0\u2007\u2009\u202f]/g, '')
    .replace(/[−–]/g, '-');
  const neg = t.startsWith('-');
  t = t.replace(/^-/, '').replace(/[.,][-–—]{1,2}$/, '');
  const lastSep = Math.max(t.lastIndexOf(','), t.lastIndexOf('.'));
  let intPart = t;
  let frac = '';
  const fracLen = t.length - lastSep - 1;
  const before = t.slice(0, lastSep);
  // "12.500" or "1,234.500" in dinars: a lone separator, or the last of two kinds, is the decimal point
  const dinarPoint = decimals === 3 && fracLen === 3 && (!/[,.]/.test(before) || (/[,.]/.test(before) && !before.includes(t[lastSep]!)));
  if (lastSep >= 0 && (fracLen <= 2 || dinarPoint)) {
    intPart = before;
    frac = t.slice(lastSep + 1);
  }
  intPart = intPart.replace(/[,.'’]/g, '');
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(frac)) return null;
  const v = Number(`${intPart}.${frac || '0'}`);
  if (!Number.isFinite(v)) return null;
  return Math.round((neg ? -v : v) * 100) / 100;
}

/** Every amount with a currency marker in one line, left to right. */
export function moneyIn(lineIn: string): Money[] {
  const out: Money[] = [];
  const line = asciiDigits(lineIn, true);
  if (!/\d/.test(line)) return out;
  // a line that ends in a number writes the symbol first ("4 € 25,00 € 100,00"): "4 €" is a count, not 4 euros
  const symbolFirst = /\d\s*$/.test(line);
  MONEY.lastIndex = 0;
  for (let m = MONEY.exec(line); m !== null; m = MONEY.exec(line)) {
    const g = m.groups!;
    if (symbolFirst && g.post && m[0].endsWith(g.post) && /^\s?[-−]?\d/.test(line.slice(m.index + m[0].length))) {
      MONEY.lastIndex = m.index + m[0].length - g.post.length;
      continue;
    }
    const num = g.n1 ?? g.n2!;
    const marker = (g.pre ?? g.post!).replace(/^\((.+)\)$/, '$1');
    if (/^[A-Z]{3}$/.test(marker) && !isCode(marker)) {
      // three capitals that name no currency ("QTY 2"): read on from the next character
      MONEY.lastIndex = m.index + 1;
      continue;
    }
    let v = parseNumber(num, THREE_DECIMALS.has(markerCodes(marker)[0] ?? '') ? 3 : 2);
    if (v === null) continue;
    if (g.sign && v > 0) v = -v;
    out.push({ value: v, marker, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** A bare amount ("Total: 123.45", "Total: 1,220,000", "12,34,575.00") for lines that carry no marker. */
export function bareAmount(lineIn: string): number | null {
  const line = asciiDigits(lineIn, true);
  const m =
    /(?:^|[\s:])([-−]?(?:\d{1,2}(?:,\d{2}){1,6},\d{3}|\d{1,3}(?:[,.\s'’]\d{3}){0,6})[.,]\d{2})(?!\d|[.,/-]\d|\s?%)/.exec(line) ??
    /(?:^|[\s:])([-−]?(?:\d{1,2}(?:,\d{2}){1,6},\d{3}|\d{1,3}(?:([,.'’])\d{3})(?:\2\d{3}){0,5}))(?!\d|[.,/-]\d|\s?%)/.exec(line);
  return m ? parseNumber(m[1]!) : null;
}

/** ISO code for one marker, given the whole text (for markers several currencies share: $, kr, ¥, Rs …). */
export function codeOf(marker: string, text: string, lang: string): string | null {
  return resolveMarker(marker, text, lang);
}

/** The document currency: the code of the most frequent marker among the amounts in the text. */
export function documentCurrency(lines: string[], lang: string): string | null {
  const text = lines.join('\n');
  const counts = new Map<string, number>();
  for (const l of lines) {
    if (APPROX.test(l)) continue;
    for (const m of moneyIn(l)) {
      const c = codeOf(m.marker, text, lang);
      if (c) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  let best: string | null = null;
  let n = 0;
  for (const [c, k] of counts) if (k > n) [best, n] = [c, k];
  return best;
}
