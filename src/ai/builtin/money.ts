// Amounts in text: locale-aware numbers ("1.234,56 €", "1 234,56 €", "€1,234.56", "USD 1,684.27", "132,000円")
// next to a currency marker, and the document currency from those markers (rule 12 of the corpus README).

export interface Money {
  value: number;
  /** The marker as written ($, €, USD, kr …), upper-cased for codes. */
  marker: string;
  /** Index in the line where the amount (with its marker) starts and ends. */
  start: number;
  end: number;
}

const CODES =
  'USD|EUR|GBP|JPY|CNY|RMB|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|CZK|HUF|RON|BGN|BRL|MXN|ARS|CLP|COP|INR|KRW|SGD|HKD|TWD|ZAR|TRY|ILS|AED|SAR|THB|IDR|MYR|PHP|VND|UAH|RUB';
const SYMBOLS = 'US\\$|CA\\$|C\\$|A\\$|AU\\$|NZ\\$|HK\\$|S\\$|R\\$|MX\\$|\\$|€|£|¥|￥|₩|₹|₽|₺|₪|zł|Kč|円|元|원|kr\\.?|Fr\\.|CHF';
const MARK = `(?:${SYMBOLS}|\\b(?:${CODES})\\b|\\(円\\))`;
// "$" and "£" are written before the amount; after a number they belong to the next amount ("1 $1,500.00")
const POST_MARK = `(?:€|¥|￥|₩|₹|₽|₺|₪|zł|Kč|円|元|원|kr\\.?|Fr\\.|CHF|\\b(?:${CODES})\\b|\\(円\\))`;
const NUM = "(?<![\\d.,])[-−–]?\\s?\\d{1,3}(?:[ ,.\\u00a0\\u202f'’]\\d{3})+(?:[.,]\\d{1,2})?|(?<![\\d.,])[-−–]?\\d+(?:[.,]\\d{1,2})?";
// marker before (€12.00, USD 1,684.27, -$26.40) or after (12,00 €, 189,00 kr, 3,480(円), 45,80 € EUR)
const MONEY = new RegExp(
  `(?<sign>[-−–])?\\s?(?<pre>${MARK})\\s?(?<n1>${NUM})|(?<n2>${NUM})\\s?(?<post>${POST_MARK})(?:\\s?\\b(?:${CODES})\\b)?`,
  'gu',
);

export function parseNumber(s: string): number | null {
  let t = s.replace(/[\s\u00a0\u202f]/g, '').replace(/[−–]/g, '-');
  const neg = t.startsWith('-');
  t = t.replace(/^-/, '');
  const lastSep = Math.max(t.lastIndexOf(','), t.lastIndexOf('.'));
  let intPart = t;
  let frac = '';
  if (lastSep >= 0 && t.length - lastSep - 1 <= 2) {
    intPart = t.slice(0, lastSep);
    frac = t.slice(lastSep + 1);
  }
  intPart = intPart.replace(/[,.'’]/g, '');
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(frac)) return null;
  const v = Number(`${intPart}.${frac || '0'}`);
  if (!Number.isFinite(v)) return null;
  return Math.round((neg ? -v : v) * 100) / 100;
}

/** Every amount with a currency marker in one line, left to right. */
export function moneyIn(line: string): Money[] {
  const out: Money[] = [];
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
    let v = parseNumber(num);
    if (v === null) continue;
    if (g.sign && v > 0) v = -v;
    out.push({ value: v, marker: (g.pre ?? g.post!).replace(/[()]/g, ''), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** A bare decimal amount ("Total: 123.45") for lines that carry no marker. */
export function bareAmount(line: string): number | null {
  const m = /(?:^|[\s:])([-−]?\d{1,3}(?:[,.\s]\d{3})*[.,]\d{2})(?!\d|[.,/-]\d|\s?%)/.exec(line);
  return m ? parseNumber(m[1]!) : null;
}

const SYMBOL_CODE: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '₩': 'KRW',
  원: 'KRW',
  '₹': 'INR',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  zł: 'PLN',
  Kč: 'CZK',
  円: 'JPY',
  '￥': 'JPY',
  元: 'CNY',
  RMB: 'CNY',
  R$: 'BRL',
  A$: 'AUD',
  AU$: 'AUD',
  CA$: 'CAD',
  C$: 'CAD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  MX$: 'MXN',
  US$: 'USD',
  'Fr.': 'CHF',
};

/** ISO code for one marker, given the whole text (for `$`, `¥` and `kr`). */
export function codeOf(marker: string, text: string, lang: string): string | null {
  if (/^[A-Z]{3}$/.test(marker)) return marker === 'RMB' ? 'CNY' : marker;
  if (marker === '$') {
    const other = /\b(CAD|AUD|NZD|SGD|HKD|MXN)\b|Canadian dollars?|Australian dollars?/.exec(text);
    if (!other) return 'USD';
    const c = other[1] ?? (/Canadian/.test(other[0]) ? 'CAD' : 'AUD');
    return /\bUSD\b|US\$/.test(text) && !/amounts? (?:are )?in/i.test(text) ? 'USD' : c;
  }
  if (marker === '¥') return lang === 'zh' || /元|RMB|人民币/.test(text) ? 'CNY' : 'JPY';
  if (marker.startsWith('kr')) return lang === 'sv' ? 'SEK' : /\bNOK\b/.test(text) ? 'NOK' : /\bDKK\b/.test(text) ? 'DKK' : 'SEK';
  return SYMBOL_CODE[marker] ?? null;
}

/** The document currency: the code of the most frequent marker among the amounts in the text. */
export function documentCurrency(lines: string[], lang: string): string | null {
  const text = lines.join('\n');
  const counts = new Map<string, number>();
  for (const l of lines) {
    if (/≈|approx|converted|umgerechnet|convertido|conversion/i.test(l)) continue;
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
