// Finds the strings on one line that are shaped like a one-time code, and canonicalises them
// (README rules 1–5): digit runs of 4–8, equal digit groups ("123 456", "837-261", "40 91 73"), one
// character per box ("6 1 5 0 2 7"), alphanumeric codes with a digit ("Q8RF2M", "r8k2mq7x", "QWJ-7MX",
// "ABCD-1234") and prefixed digit codes ("G-582046" → 582046). Numbers that are part of dates, times,
// prices, IPs, versions, URLs, e-mail addresses or identifiers are not candidates at all.

export type CodeKind = 'digits' | 'grouped' | 'spaced' | 'prefixed' | 'alnum';

export interface RawCode {
  /** Canonical value (what the user types). */
  value: string;
  kind: CodeKind;
  /** Range in the line text. */
  start: number;
  end: number;
  /** Digits that stand next to other numbers ("+1 888 555 0139"). */
  adjacentNumbers: boolean;
  /** Letter prefix that was dropped ("G"). */
  prefix?: string;
  /** Shaped like a number with a unit or ordinal, or a version ("200GB", "4TH", "v12345"). */
  unitLike?: boolean;
}

const MASK = '\u0001';
/** Unit and ordinal suffixes of a number ("100W", "22nd", "1080p", "200GB"). */
const UNIT_SUFFIX =
  /^(?:px|pt|em|rem|gb|mb|kb|tb|gbps|mbps|st|nd|rd|th|am|pm|h|hr|hrs|m|s|ms|min|km|kg|mi|ft|in|w|kw|kwh|v|hz|mhz|ghz|p|k|x|l|ml|mp|fps|mah|yr|yrs|d|cm|mm|oz|lb|lbs)$/i;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isAlnum(c: number): boolean {
  return isDigit(c) || isAlpha(c);
}

/** Replaces URLs, e-mail addresses and URI schemes with MASK characters (same length, so offsets hold). */
export function maskLine(text: string): string {
  let t = text;
  if (t.indexOf('://') >= 0 || t.indexOf('www.') >= 0 || /(?:mailto|tel|sms|callto):/i.test(t)) {
    t = t.replace(/(?:\b[a-z][a-z0-9+.-]{1,15}:\/\/|\bwww\.|\b(?:mailto|tel|sms|callto):)[^\s<>"'\u0001]*/gi, (m) => MASK.repeat(m.length));
  }
  if (t.indexOf('@') >= 0) {
    const chars = t.split('');
    for (let i = 0; i < chars.length; i++) {
      if (chars[i] !== '@') continue;
      let a = i;
      while (a > 0 && /[A-Za-z0-9._%+-]/.test(chars[a - 1]!)) a--;
      let b = i + 1;
      while (b < chars.length && /[A-Za-z0-9.-]/.test(chars[b]!)) b++;
      const domain = chars.slice(i + 1, b).join('');
      if (domain.indexOf('.') > 0 || a < i) {
        // an address, or an @handle
        for (let k = a; k < b; k++) chars[k] = MASK;
      }
    }
    t = chars.join('');
  }
  return t;
}

interface Atom {
  s: string;
  start: number;
  end: number;
  digits: boolean;
  letters: boolean;
}

function atomsOf(t: string): Atom[] {
  const out: Atom[] = [];
  let i = 0;
  const n = t.length;
  while (i < n) {
    if (!isAlnum(t.charCodeAt(i))) {
      i++;
      continue;
    }
    const s = i;
    let d = false;
    let l = false;
    while (i < n && isAlnum(t.charCodeAt(i))) {
      if (isDigit(t.charCodeAt(i))) d = true;
      else l = true;
      i++;
    }
    // a run glued to a non-ASCII letter (e.g. "Zoom-Konto", "abc€") is still a separate atom
    out.push({ s: t.slice(s, i), start: s, end: i, digits: d, letters: l });
    if (out.length > 2000) break;
  }
  return out;
}

const BAD_NEIGHBOUR = new Set(['#', '$', '€', '£', '¥', '₹', '%', '*', '+', '=', '&', '@', '/', '\\', '_', '~', '^', '|', MASK]);

function neighbourBad(t: string, start: number, end: number): boolean {
  const l = t.charAt(start - 1);
  const r = t.charAt(end);
  // '#' before a number is judged by the scorer ("Order #48213" vs "code #482913")
  if ((BAD_NEIGHBOUR.has(l) && l !== '#') || BAD_NEIGHBOUR.has(r)) return true;
  if (l === '#' && isAlnum(t.charCodeAt(start - 2))) return true; // "C#7", "abc#123"

  // "1.234", "v2.0", "a.b12c" — part of a dotted/comma'd token
  if ((l === '.' || l === ',' || l === ':') && isAlnum(t.charCodeAt(start - 2))) return true;
  if ((r === '.' || r === ',' || r === ':') && isAlnum(t.charCodeAt(end + 1))) return true;
  // glued to a non-ASCII letter or digit ("¥1000", "Nr.1234", "2026年")
  return false;
}

function isYear(s: string): boolean {
  return s.length === 4 && (s.startsWith('19') || s.startsWith('20'));
}

function caseOk(s: string): boolean {
  return !(/[a-z]/.test(s) && /[A-Z]/.test(s));
}

/** Scans one line (already masked) for code-shaped strings. */
export function scanCodes(t: string): RawCode[] {
  const atoms = atomsOf(t);
  const out: RawCode[] = [];
  const used = new Set<number>(); // atom indexes consumed by a multi-atom candidate
  const gap = (k: number): string => t.slice(atoms[k]!.end, atoms[k + 1]!.start);

  // 1. numeric runs: digit atoms joined by one of " -.,:/"
  for (let k = 0; k < atoms.length; ) {
    if (!(atoms[k]!.digits && !atoms[k]!.letters)) {
      k++;
      continue;
    }
    let e = k;
    const seps: string[] = [];
    while (e + 1 < atoms.length) {
      const nx = atoms[e + 1]!;
      const g = gap(e);
      if (nx.digits && !nx.letters && g.length === 1 && ' -.,:/'.includes(g)) {
        seps.push(g);
        e++;
      } else break;
    }
    const group = atoms.slice(k, e + 1);
    const first = group[0]!;
    const last = group[group.length - 1]!;
    k = e + 1;
    // "G-582046", "x-1881": a letter atom joined by '-' owns this run (handled below)
    const lch = t.charAt(first.start - 1);
    if (lch === '-' && isAlpha(t.charCodeAt(first.start - 2))) continue;
    if (t.charAt(last.end) === '-' && isAlpha(t.charCodeAt(last.end + 1))) continue;
    if (seps.some((s) => s !== ' ' && s !== '-')) continue; // dates, times, prices, IPs, versions
    if (neighbourBad(t, first.start, last.end)) continue;
    const lens = group.map((a) => a.s.length);
    const total = lens.reduce((a, b) => a + b, 0);
    const mark = (): void => {
      for (let q = 0; q < group.length; q++) used.add(atoms.indexOf(group[q]!));
    };
    if (group.length === 1) {
      if (total >= 4 && total <= 8)
        out.push({ value: first.s, kind: 'digits', start: first.start, end: first.end, adjacentNumbers: false });
      continue;
    }
    const equal = lens.every((x) => x === lens[0]);
    if (equal && lens[0] === 1) {
      if (seps.every((s) => s === ' ') && group.length >= 4 && group.length <= 8) {
        out.push({ value: group.map((a) => a.s).join(''), kind: 'spaced', start: first.start, end: last.end, adjacentNumbers: false });
        mark();
      }
      continue;
    }
    if (equal && total >= 4 && total <= 8) {
      if (group.length === 2 && isYear(first.s) && isYear(last.s)) continue; // "1999-2026"
      out.push({ value: group.map((a) => a.s).join(''), kind: 'grouped', start: first.start, end: last.end, adjacentNumbers: false });
      mark();
      continue;
    }
    // unequal groups: phone numbers, postal codes, IDs — only space-separated runs keep their parts
    if (seps.every((s) => s === ' ')) {
      for (const a of group) {
        if (a.s.length >= 4 && a.s.length <= 8) out.push({ value: a.s, kind: 'digits', start: a.start, end: a.end, adjacentNumbers: true });
      }
    }
  }

  // 2. dash groups containing letters: "QWJ-7MX", "ABCD-1234", "G-582046", "FB-12345"
  for (let k = 0; k < atoms.length; ) {
    let e = k;
    while (e + 1 < atoms.length && gap(e) === '-') e++;
    if (e === k) {
      k++;
      continue;
    }
    const group = atoms.slice(k, e + 1);
    const start = group[0]!.start;
    const end = group[group.length - 1]!.end;
    const idx = Array.from({ length: e - k + 1 }, (_, q) => k + q);
    k = e + 1;
    if (!group.some((a) => a.letters)) continue; // pure digits: handled above
    for (const q of idx) used.add(q);
    if (neighbourBad(t, start, end)) continue;
    if (t.charAt(start - 1) === '-' || t.charAt(end) === '-') continue;
    const a0 = group[0]!;
    const a1 = group[1]!;
    if (group.length === 2 && !a0.digits && a0.s.length <= 3 && !a1.letters && a1.s.length >= 4 && a1.s.length <= 8) {
      out.push({ value: a1.s, kind: 'prefixed', start, end, adjacentNumbers: false, prefix: a0.s });
      continue;
    }
    if (group.length > 3) continue;
    const joined = group.map((a) => a.s).join('');
    if (joined.length < 5 || joined.length > 8 || !/\d/.test(joined)) continue;
    const upperOrDigits = group.every((a) => !/[a-z]/.test(a.s));
    const eachHasDigit = group.every((a) => a.digits);
    if (!upperOrDigits && !eachHasDigit) continue; // "6-digit", "2-Pack", "e-mail2"
    out.push({ value: group.map((a) => a.s).join('-'), kind: 'alnum', start, end, adjacentNumbers: false });
  }

  // 2b. two space-separated groups of four that together look generated: "K7XQ 2P9M" → "K7XQ2P9M" (not "ABCD 1234",
  // not postcodes such as "SW1A 2AA" or "K2P 2L8")
  for (let k = 0; k + 1 < atoms.length; k++) {
    const a = atoms[k]!;
    const b = atoms[k + 1]!;
    if (used.has(k) || used.has(k + 1) || gap(k) !== ' ' || a.s.length !== 4 || b.s.length !== 4) continue;
    const joined = a.s + b.s;
    if (/[a-z]/.test(joined) || !generated(joined)) continue;
    if (atoms[k + 2] && gap(k + 1) === ' ' && atoms[k + 2]!.s.length === 4) continue; // a longer key ("AB12 CD34 EF56")
    if (k > 0 && gap(k - 1) === ' ' && atoms[k - 1]!.s.length === 4) continue;
    if (neighbourBad(t, a.start, b.end)) continue;
    out.push({ value: joined, kind: 'alnum', start: a.start, end: b.end, adjacentNumbers: false });
    used.add(k);
    used.add(k + 1);
  }

  // 3. one letter-or-digit per box: "K 7 X Q 2"
  for (let k = 0; k < atoms.length; ) {
    if (atoms[k]!.s.length !== 1 || used.has(k)) {
      k++;
      continue;
    }
    let e = k;
    while (e + 1 < atoms.length && atoms[e + 1]!.s.length === 1 && gap(e) === ' ' && !used.has(e + 1)) e++;
    const group = atoms.slice(k, e + 1);
    k = e + 1;
    if (group.length < 4 || group.length > 8) continue;
    const joined = group.map((a) => a.s).join('');
    if (!/\d/.test(joined) || !/[A-Za-z]/.test(joined) || !caseOk(joined)) continue;
    if (neighbourBad(t, group[0]!.start, group[group.length - 1]!.end)) continue;
    out.push({ value: joined, kind: 'spaced', start: group[0]!.start, end: group[group.length - 1]!.end, adjacentNumbers: false });
  }

  // 4. single alphanumeric atoms: "Q8RF2M", "r8k2mq7x"
  for (let k = 0; k < atoms.length; k++) {
    const a = atoms[k]!;
    if (used.has(k) || !a.digits || !a.letters) continue;
    if (a.s.length < 5 || a.s.length > 8) continue;
    if (t.charAt(a.start - 1) === '-' || t.charAt(a.end) === '-') continue;
    if (neighbourBad(t, a.start, a.end)) continue;
    // number + unit / ordinal: "100W", "22nd", "15min", "1080p"
    const unit = /^\d+([A-Za-z]{1,4})$/.exec(a.s);
    if (unit && /^[a-z]+$/.test(unit[1]!)) continue; // "100w", "22nd", "1080p", "15min"
    // "200GB", "4TH", "v2026": only with a tight label
    const unitLike = (unit !== null && UNIT_SUFFIX.test(unit[1]!)) || /^[vV]\d+$/.test(a.s);
    out.push({ value: a.s, kind: 'alnum', start: a.start, end: a.end, adjacentNumbers: false, ...(unitLike ? { unitLike } : {}) });
  }
  return out;
}

/** Letters and digits mixed the way generated codes are: two or more letter/digit switches, no run of four letters. */
export function generated(v: string): boolean {
  if (!/\d/.test(v) || !/[A-Za-z]/.test(v) || /[A-Za-z]{4}/.test(v)) return false;
  let switches = 0;
  for (let i = 1; i < v.length; i++) if (isDigit(v.charCodeAt(i - 1)) !== isDigit(v.charCodeAt(i))) switches++;
  return switches >= 2;
}
