// Dates of other calendars as ISO Gregorian: Japanese eras (令和8年, 平成31年, 元年 = year 1), the ROC/Minguo year
// (民國115年 = 2026), the Thai Buddhist year (2569 = 2026), the Persian Solar Hijri calendar (1405/02/08) and the
// Islamic Hijri calendar (Umm al-Qura, 1447/11/12). The lunar and solar Hijri dates are converted with ICU's own
// calendars (Intl.DateTimeFormat with `-u-ca-persian` / `-u-ca-islamic-umalqura`): a Gregorian guess from the mean
// year and month lengths, corrected until ICU formats it as the written date. Month names of every locale come from
// ICU too (monthNames), not from hand lists.

import { MONTH_NAMES } from './world-names.ts';

export type Calendar = 'gregory' | 'persian' | 'islamic-umalqura';

/** Japanese eras and the Gregorian year before their first year (令和1 = 2019). */
export const JAPANESE_ERAS: Record<string, number> = {
  令和: 2018,
  平成: 1988,
  昭和: 1925,
  大正: 1911,
  明治: 1867,
  R: 2018,
  H: 1988,
  S: 1925,
};
export const ROC_OFFSET = 1911;
export const BUDDHIST_OFFSET = 543;

const formats = new Map<string, Intl.DateTimeFormat>();
function fmt(cal: Calendar): Intl.DateTimeFormat {
  let f = formats.get(cal);
  if (!f) {
    f = new Intl.DateTimeFormat(`en-u-ca-${cal}-nu-latn`, { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: 'UTC' });
    formats.set(cal, f);
  }
  return f;
}

function ymdIn(cal: Calendar, ms: number): [number, number, number] {
  let y = 0;
  let m = 0;
  let d = 0;
  for (const p of fmt(cal).formatToParts(new Date(ms))) {
    if (p.type === 'year' || (p.type as string) === 'relatedYear') y = y || Number.parseInt(p.value, 10);
    else if (p.type === 'month') m = Number.parseInt(p.value, 10);
    else if (p.type === 'day') d = Number.parseInt(p.value, 10);
  }
  return [y, m, d];
}

const DAY = 86_400_000;
const MEAN: Record<Exclude<Calendar, 'gregory'>, { year: number; month: number; epoch: number }> = {
  // 1 Farvardin 1 AP = 622-03-22 (Julian 19 March 622); 1 Muharram 1 AH = 622-07-19 (Julian 16 July 622)
  persian: { year: 365.2422, month: 30.44, epoch: Date.UTC(622, 2, 22) },
  'islamic-umalqura': { year: 354.367, month: 29.53, epoch: Date.UTC(622, 6, 19) },
};

/** The Gregorian ISO date of day `d` of month `m` of year `y` in `cal`; null when no such day exists. */
export function toGregorian(cal: Calendar, y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1 || y > 9999) return null;
  if (cal === 'gregory') return gregorian(y, m, d);
  const k = MEAN[cal];
  const ord = (yy: number, mm: number, dd: number) => (yy - 1) * k.year + (mm - 1) * k.month + (dd - 1);
  let ms = k.epoch + Math.round(ord(y, m, d)) * DAY;
  for (let i = 0; i < 12; i++) {
    const [gy, gm, gd] = ymdIn(cal, ms);
    if (gy === y && gm === m && gd === d) return new Date(ms).toISOString().slice(0, 10);
    // step by the estimated distance; once close, by single days (month lengths vary)
    const diff = ord(y, m, d) - ord(gy, gm, gd);
    const step = Math.abs(diff) > 3 ? Math.round(diff) : Math.sign(diff);
    if (step === 0) return null;
    ms += step * DAY;
  }
  // near a month's end the estimate can oscillate: the date, if it exists, is within a few days
  for (let off = -3; off <= 3; off++) {
    const [gy, gm, gd] = ymdIn(cal, ms + off * DAY);
    if (gy === y && gm === m && gd === d) return new Date(ms + off * DAY).toISOString().slice(0, 10);
  }
  return null;
}

function gregorian(y: number, m: number, d: number): string | null {
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * The Gregorian date for a year written in an era or another calendar's count, when the year alone says which:
 * Buddhist years (2443-2743, i.e. 1900-2200), Solar Hijri years of the decades around now (1380-1426, i.e. 2001-2048)
 * and Hijri years (1427-1480, i.e. 2006-2058). A Gregorian year is kept; anything else is null.
 */
export function fromAnyYear(y: number, m: number, d: number, cal?: Calendar): string | null {
  if (cal && cal !== 'gregory') return toGregorian(cal, y, m, d);
  if (y >= 1900 && y <= 2200) return gregorian(y, m, d);
  if (cal === 'gregory') return null;
  if (y >= 1900 + BUDDHIST_OFFSET && y <= 2200 + BUDDHIST_OFFSET) return gregorian(y - BUDDHIST_OFFSET, m, d);
  if (y >= 1380 && y <= 1426) return toGregorian('persian', y, m, d);
  if (y >= 1427 && y <= 1480) return toGregorian('islamic-umalqura', y, m, d);
  return null;
}

// ---- month names of many languages, from ICU ----

/** Locales whose month names are read, in order of precedence when two languages spell a month alike. */
const LOCALES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'nb',
  'fi',
  'pl',
  'cs',
  'sk',
  'hu',
  'ro',
  'tr',
  'id',
  'ms',
  'ru',
  'uk',
  'bg',
  'el',
  'he',
  'ar',
  'ar-SY',
  'fa-u-ca-gregory',
  'hi',
  'mr',
  'bn',
  'th-u-ca-gregory',
  'ta',
  'te',
  'ur',
  'ne',
  'sl',
  'hr',
  'sr-Latn',
  'sr',
  'lt',
  'lv',
  'et',
  'is',
  'ca',
  'gl',
  'eu',
  'sq',
  'af',
  'sw',
  'fil',
  'ka',
  'hy',
  'az',
  'kk',
  'uz',
  'mk',
  'be',
  'km',
  'lo',
  'my',
  'si',
  'am',
  'gu',
  'kn',
  'ml',
  'pa',
]; // prettier-ignore
const OTHER_CALENDARS: Array<[string, Calendar]> = [
  ['fa-u-ca-persian', 'persian'],
  ['ar-u-ca-islamic-umalqura', 'islamic-umalqura'],
  ['en-u-ca-islamic-umalqura', 'islamic-umalqura'],
];

/** A month name as a lookup key: lower case, compatibility forms folded, combining marks and a final dot dropped. */
export function monthKey(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ');
}

/** [key, month, calendar] for every month name ICU gives in LOCALES and OTHER_CALENDARS: the source of MONTH_NAMES. */
export function harvestMonthNames(): Array<[string, number, Calendar]> {
  const out: Array<[string, number, Calendar]> = [];
  const seen = new Set<string>();
  const add = (name: string, month: number, cal: Calendar) => {
    const k = monthKey(name);
    if (k.length >= 2 && !/\d/.test(k) && !seen.has(k)) {
      seen.add(k);
      out.push([k, month, cal]);
    }
  };
  const harvest = (tag: string, cal: Calendar) => {
    const locale = tag.includes('-u-') ? tag : `${tag}-u-ca-gregory`;
    let forms: Intl.DateTimeFormat[];
    try {
      forms = [
        new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' }),
        new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', timeZone: 'UTC' }),
        new Intl.DateTimeFormat(locale, { month: 'short', timeZone: 'UTC' }),
        new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }),
      ];
    } catch {
      return;
    }
    const probe = new Intl.DateTimeFormat(`en-u-ca-${cal}-nu-latn`, { month: 'numeric', timeZone: 'UTC' });
    // one day in each month of that calendar: walk a year and a half in 20-day steps
    const months = new Set<number>();
    for (let i = 0; i < 30 && months.size < 12; i++) {
      const ms = Date.UTC(2026, 0, 10) + i * 20 * DAY;
      const m = Number.parseInt(probe.format(new Date(ms)), 10);
      if (months.has(m)) continue;
      months.add(m);
      for (const f of forms) for (const p of f.formatToParts(new Date(ms))) if (p.type === 'month') add(p.value, m, cal);
    }
  };
  for (const l of LOCALES) harvest(l, 'gregory');
  for (const [l, cal] of OTHER_CALENDARS) harvest(l, cal);
  return out;
}

let table: Map<string, { month: number; cal: Calendar }> | null = null;

/**
 * Month names (full, short, standalone and in-date forms) → month number and calendar: ICU's names, harvested by
 * harvestMonthNames into world-names.ts (scripts/gen-world-names.ts; a unit test checks the table is ICU's).
 */
export function monthNames(): Map<string, { month: number; cal: Calendar }> {
  if (table) return table;
  table = new Map(MONTH_NAMES.map(([k, month, cal]) => [k, { month, cal }]));
  return table;
}
