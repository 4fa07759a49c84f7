// Currency markers and the currency each stands for (rule 12 of the corpus README). A marker names one currency
// (€, zł, ₹, ৳, RM, Rp, грн, ر.س …) or is shared by several ($, kr, ¥, 元, Rs, ريال, Fr., £); a shared one is decided
// from the mail's other signals, strongest first: an ISO code or a currency name the mail states (outside an
// approximate conversion), a compound symbol of the same family (A$, NT$, $ CA), then the mail's language and
// country (kr: Swedish SEK, Danish DKK, Norwegian NOK; ¥: Chinese CNY, else JPY). `$` alone stays USD unless the
// mail names another dollar: a country alone never overrules rule 12.

import { CURRENCY_NAMES } from './world-names.ts';

export type Family = 'dollar' | 'kr' | 'yen' | 'yuan' | 'rupee' | 'rial' | 'franc' | 'pound';

interface Sym {
  /** Spellings, as written (case matters). */
  s: string[];
  /** The currency, or the currencies of a shared marker (the first is the default). */
  codes: string[];
  family?: Family;
  pre: boolean;
  post: boolean;
}

const sym = (s: string[], codes: string | string[], pre: boolean, post: boolean, family?: Family): Sym => ({
  s,
  codes: typeof codes === 'string' ? [codes] : codes,
  pre,
  post,
  family,
});

export const DOLLARS = [
  'USD',
  'CAD',
  'AUD',
  'NZD',
  'SGD',
  'HKD',
  'TWD',
  'MXN',
  'ARS',
  'CLP',
  'COP',
  'UYU',
  'DOP',
  'JMD',
  'TTD',
  'BSD',
  'BBD',
  'BZD',
  'BMD',
  'KYD',
  'FJD',
  'LRD',
  'NAD',
  'SBD',
  'SRD',
  'XCD',
  'GYD',
  'BND',
]; // prettier-ignore

const SYMS: Sym[] = [
  sym(['US$', 'U$S'], 'USD', true, false),
  sym(['CA$', 'C$', 'CAD$', 'Can$'], 'CAD', true, false),
  sym(['A$', 'AU$', 'AUD$'], 'AUD', true, false),
  sym(['NZ$'], 'NZD', true, false),
  sym(['HK$'], 'HKD', true, false),
  sym(['S$', 'SG$'], 'SGD', true, false),
  sym(['NT$'], 'TWD', true, false),
  sym(['R$'], 'BRL', true, false),
  sym(['MX$', 'Mex$'], 'MXN', true, false),
  sym(['RD$'], 'DOP', true, false),
  sym(['J$'], 'JMD', true, false),
  sym(['TT$'], 'TTD', true, false),
  sym(['N$'], 'NAD', true, false),
  sym(['EC$'], 'XCD', true, false),
  sym(['FJ$'], 'FJD', true, false),
  sym(['$'], DOLLARS, true, true, 'dollar'),
  sym(['dollars', 'dollar'], DOLLARS, false, true, 'dollar'),
  sym(['€'], 'EUR', true, true),
  sym(['euros', 'euro', 'Euro', 'EURO', 'Euros', 'евро', 'ευρώ'], 'EUR', false, true),
  sym(['£'], ['GBP', 'EGP'], true, true, 'pound'),
  sym(['E£'], 'EGP', true, false),
  sym(['¥'], ['JPY', 'CNY'], true, true, 'yen'),
  sym(['円', '(円)'], 'JPY', false, true),
  sym(['元'], ['CNY', 'TWD', 'HKD'], false, true, 'yuan'),
  sym(['RMB', '人民币'], 'CNY', true, true),
  sym(['₩', '원'], 'KRW', true, true),
  sym(['yen'], 'JPY', false, true),
  sym(['yuan'], 'CNY', false, true),
  sym(['₹'], 'INR', true, true),
  sym(['Rs.', 'Rs', '₨'], ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'], true, true, 'rupee'),
  sym(['रु.', 'रु', 'रू', 'रुपये', 'रुपए', 'रुपया', 'रुपयांचे', 'रुपये'], ['INR', 'NPR'], true, true, 'rupee'),
  sym(['රු'], 'LKR', true, true),
  sym(['৳', 'Tk.', 'Tk', 'টাকা', 'taka'], 'BDT', true, true),
  sym(['฿', 'บาท', 'baht'], 'THB', true, true),
  sym(['₫', 'đ', 'VNĐ', 'đồng'], 'VND', true, true),
  sym(['₱'], 'PHP', true, true),
  sym(['₦'], 'NGN', true, true),
  sym(['₵', 'GH₵'], 'GHS', true, true),
  sym(['₡'], 'CRC', true, true),
  sym(['₲'], 'PYG', true, true),
  sym(['₭'], 'LAK', true, true),
  sym(['៛'], 'KHR', true, true),
  sym(['₮'], 'MNT', true, true),
  sym(['₾'], 'GEL', true, true),
  sym(['֏'], 'AMD', true, true),
  sym(['₼'], 'AZN', true, true),
  sym(['₸', 'тг'], 'KZT', true, true),
  sym(['₽', 'руб.', 'руб', 'рублей', 'рубля', 'рубль'], 'RUB', false, true),
  sym(['₽'], 'RUB', true, false),
  sym(['₴', 'грн.', 'грн', 'гривень', 'гривні', 'гривня', 'гривен'], 'UAH', true, true),
  sym(['₺', 'TL'], 'TRY', true, true),
  sym(['lira', 'lirası', 'Lira'], 'TRY', false, true),
  sym(['₪', 'ש"ח', 'ש״ח', 'ש”ח', 'שקל', 'שקלים', 'NIS'], 'ILS', true, true),
  sym(['zł', 'zl', 'złotych', 'zlotych', 'złote', 'złoty'], 'PLN', false, true),
  sym(['Kč', 'korun', 'Kc'], 'CZK', false, true),
  sym(['Ft', 'forint'], 'HUF', false, true),
  sym(['lei', 'Lei'], 'RON', false, true),
  sym(['лв.', 'лв'], 'BGN', false, true),
  sym(['дин.', 'дин'], 'RSD', false, true),
  sym(['ден.', 'ден'], 'MKD', false, true),
  sym(['kr.', 'kr', 'Kr.', 'Kr', ':-'], ['SEK', 'NOK', 'DKK', 'ISK'], false, true, 'kr'),
  sym(['kr.', 'kr', 'Kr.', 'Kr'], ['SEK', 'NOK', 'DKK', 'ISK'], true, false, 'kr'),
  sym(['CHF', 'Fr.', 'SFr.'], ['CHF', 'XOF', 'XAF'], true, true, 'franc'),
  sym(['FCFA', 'CFA'], 'XOF', true, true),
  sym(['R'], 'ZAR', true, false),
  sym(['rand'], 'ZAR', false, true),
  sym(['RM'], 'MYR', true, false),
  sym(['ringgit'], 'MYR', false, true),
  sym(['Rp.', 'Rp'], 'IDR', true, false),
  sym(['rupiah'], 'IDR', false, true),
  sym(['S/.', 'S/'], 'PEN', true, false),
  sym(['KSh', 'Ksh'], 'KES', true, false),
  sym(['USh'], 'UGX', true, false),
  sym(['TSh'], 'TZS', true, false),
  sym(['ریال', 'تومان'], 'IRR', true, true),
  sym(['ريال', 'ر.ي', '﷼'], ['SAR', 'QAR', 'OMR', 'YER', 'IRR'], true, true, 'rial'),
  sym(['ر.س'], 'SAR', true, true),
  sym(['جنيه', 'ج.م.'], 'EGP', true, true),
  sym(['ر.ق'], 'QAR', true, true),
  sym(['ر.ع.', 'ر.ع'], 'OMR', true, true),
  sym(['د.إ', 'درهم'], 'AED', true, true),
  sym(['د.ك', 'KD'], 'KWD', true, true),
  sym(['د.ب', 'ب.د'], 'BHD', true, true),
  sym(['د.أ', 'د.ا'], 'JOD', true, true),
  sym(['ج.م'], 'EGP', true, true),
  sym(['د.م.', 'د.م'], 'MAD', true, true),
  sym(['د.ج'], 'DZD', true, true),
  sym(['د.ت'], 'TND', true, true),
  sym(['ل.ل'], 'LBP', true, true),
];

/** ISO 4217 codes read next to an amount (current ones; codes that are also common words are left out). */
export const ISO_CODES =
  'AED AFN AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SLE SRD SSP STN SYP SZL THB TJS TMT TND TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW'.split(
    ' ',
  );
const CODE_SET = new Set(ISO_CODES);
/** An ISO 4217 code as a word (the first one a mail states, when no amount carries a marker). */
export const ISO_CODE_WORD = new RegExp(`\\b(${ISO_CODES.join('|')})\\b`);
/** Unofficial codes written for an official one. */
const CODE_ALIAS: Record<string, string> = { RMB: 'CNY', NTD: 'TWD', RUR: 'RUB', YTL: 'TRY' };

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const letters = /[\p{L}\p{M}]/u;

/**
 * The spellings as one regex source. A spelling that starts or ends with a letter must not touch another letter
 * there ("R" in "R 4 200,00", not in "EUR"); the spellings are grouped by that so each boundary is written once.
 */
function alternation(post: boolean): string {
  const groups = new Map<string, string[]>();
  for (const x of SYMS) {
    if (!(post ? x.post : x.pre)) continue;
    for (const sp of x.s) {
      const key = `${letters.test(sp[0]!) ? 'L' : '-'}${letters.test(sp[sp.length - 1]!) ? 'L' : '-'}`;
      const list = groups.get(key) ?? [];
      if (!list.includes(sp)) list.push(sp);
      groups.set(key, list);
    }
  }
  const parts: string[] = [];
  for (const [key, list] of groups) {
    list.sort((a, b) => b.length - a.length);
    // "$" after a number belongs to the next amount ("1 $1,500.00"); "12,50 $" and "12,50 $ CA" end one
    const alts = list.map((sp) => (sp === '$' && post ? '\\$(?!\\s?\\d)' : esc(sp))).join('|');
    parts.push(`${key[0] === 'L' ? '(?<![\\p{L}\\p{M}])' : ''}(?:${alts})${key[1] === 'L' ? '(?![\\p{L}\\p{M}])' : ''}`);
  }
  // any three capitals: moneyIn keeps those that are ISO codes (isCode), a short regex instead of 160 alternatives
  return `(?:(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])|${parts.join('|')})`;
}
export const PRE_MARK = alternation(false);
export const POST_MARK = alternation(true);

/** Each spelling's marker (the first listed wins: "kr." after an amount before "kr." in front). */
const BY_SPELLING = new Map<string, Sym>(SYMS.flatMap((x) => x.s.map((sp): [string, Sym] => [sp, x])).reverse());

/** Whether `s` is an ISO 4217 code read as a currency marker (or an unofficial one such as RMB). */
export const isCode = (s: string): boolean => CODE_SET.has(s) || s in CODE_ALIAS;

/** The currencies a marker may stand for (one for most markers, several for $, kr, ¥ …); [] for none. */
export function markerCodes(marker: string): string[] {
  const m = marker.trim();
  if (/^[A-Z]{3}$/.test(m)) return [CODE_ALIAS[m] ?? m];
  return BY_SPELLING.get(m)?.codes ?? [];
}

// ---- the mail's signals ----

/** A line that converts into another currency: its markers never decide the document currency (rule 12). */
export const APPROX =
  /≈|~\s?[A-Z]{0,3}\$|approx|converted|umgerechnet|convertido|conversion|convertis|circa|ungefähr|environ|aproximadamente|ca\.\s?\d|equivalent|entspricht|équivalent|equivale|ungefär|omkring|примерно|около|około|yaklaşık|sekitar|khoảng|تقريب|حدود/i;

/**
 * Names of currencies in the languages of the mail, by code ("Australian dollars"): ICU's display names, harvested by
 * harvestCurrencyNames into world-names.ts (scripts/gen-world-names.ts; a unit test checks the table is ICU's).
 */
interface Name {
  code: string;
  /** Regex source (words, each standing for its inflections), or null for a CJK name. */
  src: string | null;
  re?: RegExp;
  /** A CJK or kana name without spaces, found as written. */
  cjk: string | null;
}
interface Names {
  list: Name[];
  /** The first (up to) four letters of each word of a name → the names with that word. */
  byStem: Map<string, number[]>;
  cjk: number[];
}
let names: Names | null = null;
const NAME_LOCALES = [
  'en',
  'fr',
  'de',
  'es',
  'pt',
  'it',
  'nl',
  'sv',
  'da',
  'nb',
  'pl',
  'zh',
  'zh-Hant',
  'ja',
  'ar',
  'fa',
  'hi',
  'tr',
  'ru',
];
const NAMED = [
  ...DOLLARS,
  'SEK',
  'NOK',
  'DKK',
  'ISK',
  'JPY',
  'CNY',
  'INR',
  'PKR',
  'LKR',
  'NPR',
  'SAR',
  'QAR',
  'OMR',
  'YER',
  'IRR',
  'CHF',
  'XOF',
  'XAF',
  'GBP',
  'EGP',
  'ZAR',
];
const INFLECTION = '[a-zà-ÿа-яёієїґ]{0,4}';
const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;
const stemOf = (w: string): string => (w.length <= 3 ? w : w.slice(0, 4));
const wordsOf = (s: string): string[] => s.split(/[^\p{L}\p{M}]+/u).filter((w) => w.length >= 3);

/** [name, code] for every currency name ICU gives in NAME_LOCALES (lower case, NFKC): the source of CURRENCY_NAMES. */
export function harvestCurrencyNames(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const loc of NAME_LOCALES) {
    const dn = new Intl.DisplayNames([loc], { type: 'currency' });
    for (const code of NAMED) {
      const name = (dn.of(code) ?? '').toLowerCase().normalize('NFKC');
      if (!name || name === code.toLowerCase() || seen.has(name)) continue;
      seen.add(name);
      // a one-word name ("Dollar") names no particular dollar
      if (!CJK.test(name) && name.split(/\s+/).filter(Boolean).length < 2) continue;
      out.push([name, code]);
    }
  }
  return out;
}

function currencyNames(): Names {
  if (names) return names;
  const list: Name[] = [];
  const byStem = new Map<string, number[]>();
  const cjk: number[] = [];
  for (const [name, code] of CURRENCY_NAMES) {
    if (CJK.test(name)) {
      cjk.push(list.length);
      list.push({ code, src: null, cjk: name.replace(/\s+/g, '') });
      continue;
    }
    // a word stands for its inflections ("dollar" for "dollars", "mexicano" for "mexicanos")
    const src = name
      .split(/\s+/)
      .filter(Boolean)
      .map((w) =>
        /^[a-zà-ÿа-яёієїґ]+$/.test(w) ? (w.length > 4 ? `${esc(w.slice(0, w.length - 2))}${INFLECTION}` : `${esc(w)}[a-z]{0,2}`) : esc(w),
      )
      .join('\\s+');
    const i = list.length;
    list.push({ code, src, cjk: null });
    for (const w of wordsOf(name)) {
      const k = stemOf(w);
      const at = byStem.get(k) ?? [];
      if (!at.includes(i)) at.push(i);
      byStem.set(k, at);
    }
  }
  names = { list, byStem, cjk };
  return names;
}

/** The codes of the currencies `line` names in words ("Australian dollars", "pesos mexicanos", "人民币"), each once. */
export function namedCurrencies(line: string): string[] {
  const n = currencyNames();
  const lower = line.toLowerCase().normalize('NFKC');
  const found = new Set<string>();
  const tried = new Set<number>();
  // only the names that share a word with the line are tried
  for (const w of wordsOf(lower)) {
    for (const i of n.byStem.get(stemOf(w)) ?? []) {
      if (tried.has(i)) continue;
      tried.add(i);
      const name = n.list[i]!;
      name.re ??= new RegExp(`(?<![\\p{L}])${name.src}(?![\\p{L}])`, 'u');
      if (name.re.test(lower)) found.add(name.code);
    }
  }
  if (CJK.test(lower)) {
    const compact = lower.replace(/\s+/g, '');
    for (const i of n.cjk) if (compact.includes(n.list[i]!.cjk!)) found.add(n.list[i]!.code);
  }
  return [...found];
}

/** The language of the mail where it decides a shared marker (kr, ¥, 元, Rs, ريال); '' when none of those. */
export function markerLanguage(text: string): string {
  const t = text.slice(0, 20_000);
  if (/[\u3040-\u30ff]/.test(t)) return 'ja';
  if (/[\u4e00-\u9fff]/.test(t)) return /[們這個訂單費發號碼額與為會員應際與經購運總計]/.test(t) ? 'zh-Hant' : 'zh';
  if (/[\u0600-\u06ff]/.test(t)) return /[پچژگ]|ی|ک/.test(t) ? (/[ٹڈڑںے]/.test(t) ? 'ur' : 'fa') : 'ar';
  if (/[\u0900-\u097f]/.test(t)) return /नेपाल|रुपैयाँ|छ।/.test(t) ? 'ne' : 'hi';
  if (/[\u0d80-\u0dff]/.test(t)) return 'si';
  const lower = t.toLowerCase();
  const count = (re: RegExp): number => lower.match(re)?.length ?? 0;
  const W = (words: string) => new RegExp(`(?<![\\p{L}])(?:${words})(?![\\p{L}])`, 'gu');
  // Swedish writes ä ö, Danish and Norwegian æ ø; then the words each spells its own way
  const sv =
    count(W('och|för|att|inte|tack|från|jag|är|köp\\p{L}*|belopp|förfallodatum|varav|frågor|dagar|kvitto|vänliga|hälsningar|summa')) +
    Math.min(3, count(/[äö]/g));
  const da = count(W('af|tak|venlig|kære|køb\\p{L}*|beløb|forfaldsdato|heraf|jer|jeres|spørgsmål|dage|bestilt|i alt|hilsen|hej'));
  const no = count(W('av|takk|vennlig|kjære|kjøp\\p{L}*|beløp|forfallsdato|herav|dere|deres|spørsmål|mva|dager|å|hei|hilsen|totalt'));
  const is = /[ðþ]/.test(lower) ? count(W('og|ekki|takk|frá|ég|þín|pöntun|upphæð|reikningur|kvittun')) + 2 : 0;
  const dn = Math.min(3, count(/[æø]/g));
  const nordic: Array<[string, number]> = [
    ['sv', sv],
    ['da', da + (da > 0 ? dn : 0)],
    ['no', no + (no > 0 ? dn : 0)],
    ['is', is],
  ];
  nordic.sort((a, b) => b[1] - a[1]);
  if (nordic[0]![1] >= 2 && nordic[0]![1] > nordic[1]![1]) return nordic[0]![0];
  return '';
}

const COUNTRY_WORDS: Array<[RegExp, string]> = [
  [/danmark|denmark|københavn|copenhagen|aarhus|odense|aalborg|\bcvr\b|\+45\s?\d/i, 'DKK'],
  [/norge|norway|\boslo\b|bergen|trondheim|stavanger|org\.?\s?nr\.?[\s\d]{9,12}\s?mva|\+47\s?\d/i, 'NOK'],
  [/sverige|sweden|stockholm|göteborg|malmö|\+46\s?\d/i, 'SEK'],
  [/ísland|iceland|reykjavík|\+354\s?\d/i, 'ISK'],
  [/pakistan|karachi|lahore|islamabad|\+92\s?\d/i, 'PKR'],
  [/sri lanka|colombo|\+94\s?\d/i, 'LKR'],
  [/nepal|kathmandu|नेपाल|\+977\s?\d/i, 'NPR'],
  [/mauritius|\+230\s?\d/i, 'MUR'],
  [/seychelles|\+248\s?\d/i, 'SCR'],
  [/قطر|qatar|doha|\+974\s?\d/i, 'QAR'],
  [/عُمان|سلطنة عمان|\boman\b|muscat|مسقط|\+968\s?\d/i, 'OMR'],
  [/اليمن|yemen|صنعاء|\+967\s?\d/i, 'YER'],
  [/台灣|臺灣|台北|臺北|台中|臺中|高雄|新北|taiwan|新台幣|新臺幣|台幣|臺幣|\+886\s?\d/i, 'TWD'],
  [/香港|hong kong|港幣|港元|\+852\s?\d/i, 'HKD'],
  [/egypt|مصر|القاهرة|cairo|\+20\s?\d/i, 'EGP'],
  [/sénégal|senegal|côte d'ivoire|abidjan|dakar|bamako|ouagadougou|lomé|cotonou|niamey|\bbceao\b/i, 'XOF'],
  [/cameroun|cameroon|gabon|douala|yaoundé|libreville|brazzaville|\bbeac\b/i, 'XAF'],
];

interface Context {
  text: string;
  /** Codes the mail states outside approximate conversions, with a weight (next to an amount counts more). */
  stated: Map<string, number>;
  lang: string;
  countries: Set<string>;
}

let last: Context | null = null;

function contextOf(text: string): Context {
  if (last && last.text === text) return last;
  const stated = new Map<string, number>();
  const add = (c: string, w: number) => stated.set(c, (stated.get(c) ?? 0) + w);
  const codeRe = /(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])/g;
  const compound =
    /(?<![A-Za-z])(US|CA|C|CAD|Can|A|AU|AUD|NZ|HK|S|SG|NT|MX|Mex|RD|J|TT|N|EC|FJ)\$|\$\s?(CA|AU|NZ|US|HK|SG|MX)(?![A-Za-z])/g;
  const compoundCode: Record<string, string> = {
    US: 'USD',
    CA: 'CAD',
    C: 'CAD',
    CAD: 'CAD',
    Can: 'CAD',
    A: 'AUD',
    AU: 'AUD',
    AUD: 'AUD',
    NZ: 'NZD',
    HK: 'HKD',
    S: 'SGD',
    SG: 'SGD',
    NT: 'TWD',
    MX: 'MXN',
    Mex: 'MXN',
    RD: 'DOP',
    J: 'JMD',
    TT: 'TTD',
    N: 'NAD',
    EC: 'XCD',
    FJ: 'FJD',
  }; // prettier-ignore
  for (const line of text.slice(0, 200_000).split('\n').slice(0, 4000)) {
    if (APPROX.test(line)) continue;
    for (const m of line.matchAll(codeRe)) {
      const code = CODE_ALIAS[m[0]] ?? m[0];
      if (!CODE_SET.has(code)) continue;
      const near =
        /\d\s?$/.test(line.slice(Math.max(0, m.index - 3), m.index)) || /^\s?[-−]?\s?[$€£¥]?\s?\d/.test(line.slice(m.index + m[0].length));
      add(code, near ? 3 : 2);
    }
    for (const m of line.matchAll(compound)) {
      const code = compoundCode[m[1] ?? m[2]!];
      if (code) add(code, 3);
    }
    for (const code of namedCurrencies(line)) add(code, 2);
  }
  const countries = new Set<string>();
  const head = text.slice(0, 50_000);
  for (const [re, code] of COUNTRY_WORDS) if (re.test(head)) countries.add(code);
  last = { text, stated, lang: markerLanguage(text), countries };
  return last;
}

/** The stated code among `codes` with the most weight (ties: the first in `codes`). */
function statedAmong(ctx: Context, codes: string[]): string | null {
  let best: string | null = null;
  let w = 0;
  for (const c of codes) {
    const x = ctx.stated.get(c) ?? 0;
    if (x > w) [best, w] = [c, x];
  }
  return best;
}

/** The ISO code for one marker, given the whole text of the mail and its language (view.lang). */
export function resolveMarker(marker: string, text: string, lang: string): string | null {
  const codes = markerCodes(marker);
  if (codes.length <= 1) return codes[0] ?? null;
  const fam = BY_SPELLING.get(marker.trim())?.family;
  const ctx = contextOf(text);
  switch (fam) {
    case 'dollar': {
      // USD unless the mail names another dollar; when it names both, the one it writes next to amounts or names
      // more often wins, and a tie stays USD
      const other = statedAmong(ctx, codes.slice(1));
      if (!other) return 'USD';
      const usd = ctx.stated.get('USD') ?? 0;
      return (ctx.stated.get(other) ?? 0) > usd ||
        (usd > 0 && /amounts? (?:are )?in|prices? (?:are )?in|all prices|montants? en|importes? en|precios? en/i.test(text))
        ? other
        : 'USD';
    }
    case 'kr': {
      const s = statedAmong(ctx, codes);
      if (s) return s;
      const l = ctx.lang || lang;
      if (l === 'da') return 'DKK';
      if (l === 'no' || l === 'nb' || l === 'nn') return 'NOK';
      if (l === 'is') return 'ISK';
      if (l === 'sv') return 'SEK';
      for (const c of ['DKK', 'NOK', 'ISK', 'SEK']) if (ctx.countries.has(c)) return c;
      return 'SEK';
    }
    case 'yen':
      return statedAmong(ctx, ['CNY', 'JPY']) ?? (lang === 'zh' || /元|人民币|RMB/.test(text) ? 'CNY' : 'JPY');
    case 'yuan': {
      const s = statedAmong(ctx, codes);
      if (s) return s;
      if (ctx.countries.has('TWD') && ctx.lang === 'zh-Hant') return 'TWD';
      if (ctx.countries.has('HKD') && ctx.lang === 'zh-Hant') return 'HKD';
      return 'CNY';
    }
    case 'rupee': {
      const s = statedAmong(ctx, codes);
      if (s) return s;
      if (ctx.lang === 'ur') return 'PKR';
      if (ctx.lang === 'ne') return 'NPR';
      if (ctx.lang === 'si') return 'LKR';
      for (const c of ['PKR', 'LKR', 'NPR', 'MUR', 'SCR']) if (ctx.countries.has(c)) return c;
      return 'INR';
    }
    case 'rial': {
      const s = statedAmong(ctx, codes);
      if (s) return s;
      if (ctx.lang === 'fa') return 'IRR';
      for (const c of ['QAR', 'OMR', 'YER']) if (ctx.countries.has(c)) return c;
      return 'SAR';
    }
    case 'franc': {
      if (/^CHF$/.test(marker)) return 'CHF';
      const s = statedAmong(ctx, codes);
      if (s) return s;
      if (/FCFA|franc cfa/i.test(text) || ctx.countries.has('XOF')) return 'XOF';
      if (ctx.countries.has('XAF')) return 'XAF';
      return 'CHF';
    }
    case 'pound':
      return (
        statedAmong(ctx, codes) ?? (ctx.countries.has('EGP') && !/\bGBP\b|united kingdom|\bUK\b|england|london/i.test(text) ? 'EGP' : 'GBP')
      );
    default:
      return codes[0]!;
  }
}

/** An ISO code the mail states with no marker next to an amount ("All amounts in SEK"), outside conversions. */
export function statedCode(text: string): string | null {
  const ctx = contextOf(text);
  let best: string | null = null;
  let w = 0;
  for (const [c, x] of ctx.stated) if (x > w) [best, w] = [c, x];
  return best;
}
