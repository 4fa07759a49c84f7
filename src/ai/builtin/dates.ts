// Calendar dates in text, as ISO YYYY-MM-DD: ISO and CJK year-first forms, numeric day-first or (US English)
// month-first forms, and written months in the languages the engine reads. Times of day are ignored.

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

const MONTH_WORD = '([A-Za-zÀ-ÿąćęłńóśźżÄäÖöÜüßéûçñ]{3,11})\\.?';

function monthOf(word: string): number | null {
  const w = word.toLowerCase();
  for (const [re, n] of MONTHS) if (re.test(w)) return n;
  return null;
}

function iso(y: number, m: number, d: number): string | null {
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1) return null;
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

const year4 = (s: string): number => (s.length === 2 ? 2000 + Number(s) : Number(s));

export interface DateHit {
  iso: string;
  index: number;
  /** Index just after the written date. */
  end: number;
}

const PATTERNS: Array<{ re: RegExp; f: (m: RegExpExecArray, monthFirst: boolean) => string | null }> = [
  // 2026-04-15, 2026/04/15, 2026.04.15, 2026年4月15日, 2026년 4월 15일
  { re: /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g, f: (m) => iso(+m[1]!, +m[2]!, +m[3]!) },
  { re: /(\d{4})\s?[年년]\s?(\d{1,2})\s?[月월]\s?(\d{1,2})\s?[日일]?/g, f: (m) => iso(+m[1]!, +m[2]!, +m[3]!) },
  // 15.04.2026, 15/04/2026, 04/15/2026 (US), 15-04-2026
  {
    re: /\b(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})(?!\d|[./-]\d)/g,
    f: (m, mf) => (mf ? iso(year4(m[3]!), +m[1]!, +m[2]!) : iso(year4(m[3]!), +m[2]!, +m[1]!)),
  },
  // April 1, 2026 · Apr 7 2026 · March 31st, 2026
  {
    re: new RegExp(`\\b${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'g'),
    f: (m) => {
      const mo = monthOf(m[1]!);
      return mo ? iso(+m[3]!, mo, +m[2]!) : null;
    },
  },
  // 1 April 2026 · 1er avril 2026 · 5. April 2026 · 31 de marzo de 2026 · 4 avr. 2026 · 10 apr. 2026
  {
    re: new RegExp(`\\b(\\d{1,2})(?:er|st|nd|rd|th|º|°)?\\.?\\s+(?:de\\s+)?${MONTH_WORD}\\s+(?:de\\s+|del\\s+)?(\\d{4})\\b`, 'g'),
    f: (m) => {
      const mo = monthOf(m[2]!);
      return mo ? iso(+m[3]!, mo, +m[1]!) : null;
    },
  },
];

/** Every date in the line, in order of position. */
export function datesIn(line: string, monthFirst: boolean): DateHit[] {
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
