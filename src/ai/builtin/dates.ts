// Calendar dates in text, as ISO YYYY-MM-DD: ISO and CJK year-first forms, numeric day-first or (US English)
// month-first forms, and written months in the languages the engine reads. Times of day are ignored.

import { type Calendar, fromAnyYear, JAPANESE_ERAS, monthKey, monthNames } from './calendars.ts';
import { asciiDigits } from './digits.ts';

// Latin-script month prefixes read without ICU's tables (the common case, and spellings ICU does not list)
const MONTHS: Array<[RegExp, number]> = [
  [/^(?:jan|janv|januar|janvier|enero|ene|gennaio|genn|januari|janeiro|stycznia|styczeń)/, 1],
  [/^(?:feb|febr|februar|février|fevrier|févr|fevr|febrero|febbraio|februari|fevereiro|fev|lutego|luty)/, 2],
  [/^(?:mar|mär|märz|maerz|mars|marzo|maart|março|marco|marca|marzec)/, 3],
  [/^(?:apr|april|avril|avr|abril|abr|aprile|kwietnia|kwiecień)/, 4],
  [/^(?:may|mai|mayo|maggio|maj|mei|maio|maja)/, 5],
  [/^(?:jun|juni|juin|junio|giugno|junho|czerwca|czerwiec)/, 6],
  [/^(?:jul|juli|juillet|juil|julio|luglio|julho|lipca|lipiec)/, 7],
  [/^(?:aug|august|août|aout|agosto|ago|augusti|augustus|sierpnia|sierpień)/, 8],
  [/^(?:sep|sept|september|septembre|septiembre|settembre|set|setembro|września|wrzesień)/, 9],
  [/^(?:oct|okt|oktober|octobre|octubre|ottobre|ott|outubro|out|października|październik)/, 10],
  [/^(?:nov|november|novembre|noviembre|novembro|listopada|listopad)/, 11],
  [/^(?:dec|dez|dezember|décembre|decembre|déc|diciembre|dic|dicembre|december|dezembro|grudnia|grudzień)/, 12],
];

// A month word: letters and marks of any script, an inner dot for abbreviations like Thai "เม.ย.", a final dot,
// and a second word for two-word names ("كانون الثاني", "ذو الحجة"; "marzo de" falls back to "marzo").
const MONTH_WORD = '([\\p{L}\\p{M}]+(?:\\.[\\p{L}\\p{M}]+)*\\.?(?: [\\p{L}\\p{M}]{2,})?)';
const NB = '(?<![\\p{L}\\p{M}\\d])'; // no letter or digit before
const NA = '(?![\\p{L}\\p{M}\\d])'; // none after

function monthOne(word: string): { month: number; cal: Calendar } | null {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 2) return null;
  // Latin-script prefixes first (the common case, and spellings ICU does not list: "Sept", "Dez", "marca")
  if (/^[a-zà-ÿ]{3,}$/.test(w)) for (const [re, n] of MONTHS) if (re.test(w)) return { month: n, cal: 'gregory' };
  const exact = monthNames().get(monthKey(w));
  if (exact) return exact;
  // Hebrew writes "in May" as one word (במאי)
  if (/^ב[\u05d0-\u05ea]/.test(w)) return monthNames().get(monthKey(w.slice(1))) ?? null;
  return null;
}

/** The month a word names (and its calendar): the whole capture, else its first word. */
function monthOf(word: string): { month: number; cal: Calendar } | null {
  return monthOne(word) ?? (word.includes(' ') ? monthOne(word.slice(0, word.indexOf(' '))) : null);
}

function iso(y: number, m: number, d: number, cal?: Calendar): string | null {
  return fromAnyYear(y, m, d, cal);
}

const year4 = (s: string): number => (s.length === 2 ? 2000 + Number(s) : Number(s));

export interface DateHit {
  iso: string;
  index: number;
  /** Index just after the written date. */
  end: number;
}

const named = (m: string, y: string, d: string): string | null => {
  const mo = monthOf(m);
  return mo ? iso(+y, mo.month, +d, mo.cal === 'gregory' ? undefined : mo.cal) : null;
};
const era = (name: string, y: string): number => (JAPANESE_ERAS[name] ?? 0) + (y === '元' ? 1 : Number(y));

const PATTERNS: Array<{ re: RegExp; f: (m: RegExpExecArray, monthFirst: boolean) => string | null }> = [
  // Japanese era: 令和8年4月30日, 平成元年5月1日, R8.4.30
  {
    re: /(令和|平成|昭和|大正|明治)\s?(\d{1,2}|元)\s?年\s?(\d{1,2})\s?月\s?(\d{1,2})\s?日?/gu,
    f: (m) => iso(era(m[1]!, m[2]!), +m[3]!, +m[4]!, 'gregory'),
  },
  {
    re: /(?<![A-Za-z\d])([RHS])\s?(\d{1,2})[./](\d{1,2})[./](\d{1,2})(?![\d./])/gu,
    f: (m) => iso(era(m[1]!, m[2]!), +m[3]!, +m[4]!, 'gregory'),
  },
  // ROC (Minguo) years: 民國115年5月1日, 中華民國115/05/01, and a three-digit year before 年 (115年5月1日)
  {
    re: /(?:(?:中華)?民國\s?(\d{1,3})\s?(?:年|[/.-])|(?<!\d)(1\d\d)\s?年)\s?(\d{1,2})\s?(?:月|[/.-])\s?(\d{1,2})\s?日?/gu,
    f: (m) => iso(1911 + Number(m[1] ?? m[2]), +m[3]!, +m[4]!, 'gregory'),
  },
  // ROC years written year-first with slashes (115/05/01): no other calendar writes a three-digit year so
  {
    re: /(?<![\d/.-])(1[01]\d)\/(0[1-9]|1[0-2])\/(0[1-9]|[12]\d|3[01])(?![\d/])/gu,
    f: (m) => iso(1911 + +m[1]!, +m[2]!, +m[3]!, 'gregory'),
  },
  // 2026-04-15, 2026/04/15, 2026.04.15, 1405/02/08 (Solar Hijri), 1447/11/12 (Hijri)
  { re: /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/gu, f: (m) => iso(+m[1]!, +m[2]!, +m[3]!) },
  // 2026. 5. 7. (Korean, Hungarian)
  { re: /(?<!\d)(\d{4})\.\s(\d{1,2})\.\s(\d{1,2})\.?(?!\d)/gu, f: (m) => iso(+m[1]!, +m[2]!, +m[3]!) },
  // 2026年4月15日, 2026년 4월 15일
  { re: /(\d{4})\s?[年년]\s?(\d{1,2})\s?[月월]\s?(\d{1,2})\s?[日일]?/gu, f: (m) => iso(+m[1]!, +m[2]!, +m[3]!) },
  // Vietnamese: ngày 05 tháng 05 năm 2026
  {
    re: /(?<!\d)(\d{1,2})\s+tháng\s+(\d{1,2})(?:\s+năm|,|\s)\s*(\d{4})(?!\d)/giu,
    f: (m) => iso(+m[3]!, +m[2]!, +m[1]!),
  },
  // 15.04.2026, 15/04/2026, 04/15/2026 (US), 15-04-2026, 29/04/2569 (Buddhist)
  {
    re: /(?<!\d)(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})(?!\d|[./-]\d)/gu,
    // the locale's order first; when that reading is no date (04/30/2026 in a day-first mail), the other one
    f: (m, mf) => {
      const [a, b, y] = [+m[1]!, +m[2]!, year4(m[3]!)];
      return (mf ? iso(y, a, b) : iso(y, b, a)) ?? (a > 12 || b > 12 ? (mf ? iso(y, b, a) : iso(y, a, b)) : null);
    },
  },
  // 01-May-2026, 01-May-26, 7/Apr/2026 (Indian and ledger styles)
  {
    re: /(?<![\p{L}\p{M}\d])(\d{1,2})[-/ ]([\p{L}]{3,9})\.?[-/](\d{4}|\d{2})(?!\d)/gu,
    f: (m) => named(m[2]!, String(year4(m[3]!)), m[1]!),
  },
  // 7. 5. 2026 (Czech, Slovak)
  { re: /(?<!\d)(\d{1,2})\.\s(\d{1,2})\.\s(\d{4})(?!\d)/gu, f: (m) => iso(+m[3]!, +m[2]!, +m[1]!) },
  // April 1, 2026 · Apr 7 2026 · March 31st, 2026
  {
    re: new RegExp(`${NB}${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?!\\d)`, 'gu'),
    f: (m) => named(m[1]!, m[3]!, m[2]!),
  },
  // 1 April 2026 · 1er avril 2026 · 5. April 2026 · 31 de marzo de 2026 · 4 avr. 2026 · 2 мая 2026 · 29 เมษายน 2569 ·
  // 8 اردیبهشت 1405 · 5 במאי 2026
  {
    re: new RegExp(
      `${NB}(\\d{1,2})(?:er|st|nd|rd|th|º|°|-?го)?[»”"]?\\.?\\s*(?:de\\s+|of\\s+)?${MONTH_WORD},?\\s+(?:de\\s+|del\\s+|พ\\.\\s?ศ\\.\\s?|ค\\.\\s?ศ\\.\\s?)?(\\d{4})(?!\\d)`,
      'gu',
    ),
    f: (m) => named(m[2]!, m[3]!, m[1]!),
  },
  // 2026. május 7. · 2026 m. gegužės 7 d. · 2026 May 7
  {
    re: new RegExp(`${NB}(\\d{4})\\.?\\s+(?:m\\.\\s+)?${MONTH_WORD}\\s+(\\d{1,2})${NA}`, 'gu'),
    f: (m) => named(m[2]!, m[1]!, m[3]!),
  },
];

/** Every date in the line, in order of position. */
export function datesIn(lineIn: string, monthFirst: boolean): DateHit[] {
  const line = asciiDigits(lineIn, true);
  if (!/\d/.test(line)) return [];
  const hits: DateHit[] = [];
  const taken: Array<[number, number]> = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(line); m !== null; m = p.re.exec(line)) {
      const s = m.index;
      const e = s + m[0].length;
      if (taken.some(([a, b]) => s < b && e > a)) continue;
      const v = p.f(m, monthFirst);
      if (v) {
        hits.push({ iso: v, index: s, end: e });
        taken.push([s, e]);
      }
    }
  }
  return hits.sort((a, b) => a.index - b.index);
}

export function addDays(isoDate: string, days: number): string {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
