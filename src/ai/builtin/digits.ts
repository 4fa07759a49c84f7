// Digits of every script Unicode knows, read as ASCII: Arabic-Indic ٣, Persian ۳, Devanagari ३, Bengali ৩, Thai ๓,
// full-width ３, Myanmar, Khmer, Tibetan, mathematical 𝟑 … The table is not a hand list: a character is a decimal
// digit when it has General_Category Nd (\p{Nd}), and Unicode encodes every decimal digit set as runs of ten
// consecutive code points valued 0 to 9 (a stability policy), so a digit's value is its distance from the start of
// its run, modulo ten (adjacent runs, such as the mathematical digits, stay aligned on ten). Separators that only
// some scripts use are read as their ASCII counterparts: the Arabic decimal separator ٫ as ".", the Arabic thousands
// separator ٬ as ",", the Arabic percent sign ٪ as "%", and the full-width ，．％＄－ as ,.%$-.

const ND = /\p{Nd}/u;
const isNd = (cp: number): boolean => ND.test(String.fromCodePoint(cp));
const values = new Map<number, number>();

/** The value 0-9 of a decimal digit of any script; null for any other character. */
export function digitValue(cp: number): number | null {
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  if (cp < 0x80) return null;
  const known = values.get(cp);
  if (known !== undefined) return known;
  if (!isNd(cp)) return null;
  // walk back to the start of the run of digits (runs are at most a few tens long)
  let start = cp;
  while (start > 0x80 && isNd(start - 1) && cp - start < 200) start--;
  const v = (cp - start) % 10;
  if (values.size < 4096) values.set(cp, v);
  return v;
}

/** The code points of every "0" that Unicode's Nd digits start with (derived, for tests and documentation). */
export function digitZeros(): number[] {
  const zeros: number[] = [];
  let prev = -2;
  let runStart = -1;
  // decimal digits live in the first two planes
  for (let cp = 0x80; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    if (!isNd(cp)) continue;
    if (cp !== prev + 1) runStart = cp;
    if ((cp - runStart) % 10 === 0) zeros.push(cp);
    prev = cp;
  }
  return zeros;
}

const PUNCT: Record<string, string> = {
  '\u066b': '.', // ARABIC DECIMAL SEPARATOR
  '\u066c': ',', // ARABIC THOUSANDS SEPARATOR
  '\u066a': '%', // ARABIC PERCENT SIGN
  '\uff0c': ',',
  '\uff0e': '.',
  '\uff05': '%',
  '\uff04': '$',
  '\uff0d': '-',
  '\uffe5': '¥',
};

// A digit of any script, or one of the separators above
const CANDIDATE = /[\p{Nd}\u066a-\u066c\uff04\uff05\uff0c-\uff0e\uffe5]/gu;

/**
 * `s` with every decimal digit written in ASCII and the separators above mapped. Digits of the Basic Multilingual
 * Plane keep the string's length (indices stay valid); a digit outside it (two UTF-16 units) becomes one character
 * unless `sameLength`, where it is left as written.
 */
export function asciiDigits(s: string, sameLength = false): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  return s.replace(CANDIDATE, (ch) => {
    const p = PUNCT[ch];
    if (p !== undefined) return p;
    if (ch.length === 1 && ch <= '9') return ch;
    const v = digitValue(ch.codePointAt(0)!);
    if (v === null || (sameLength && ch.length > 1)) return ch;
    return String(v);
  });
}
