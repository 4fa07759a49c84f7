// The line model the extractor works on: the Subject, the text/plain part and the HTML part (rendered to
// text by html-text.ts) each become a list of lines with a little layout information.

export type Source = 'subject' | 'text' | 'html';

export interface Line {
  /** Text with whitespace collapsed, NFKC-normalised (full-width digits become ASCII). */
  text: string;
  source: Source;
  /** 0 = none, 1 = inside a plain <blockquote>, 2 = inside a cite blockquote / quoted reply container. */
  quoteHint: 0 | 1 | 2;
  /** Set by quotes.ts: the line is quoted (older) content. */
  quoted: boolean;
  /** Set by quotes.ts: thread segment, 0 = the topmost part of the message. */
  segment: number;
  /** Most of the line is bold, a heading or a large font. */
  emph: boolean;
  /** HTML only: the line's text outside <a> elements, when it holds a bare URL. */
  outsideLinks?: string;
  /** The emphasised fragments of the line (HTML only), e.g. the "482913" of "code: <b>482913</b>". */
  emphParts?: string[];
  /** Inside a display:none element (preheader). */
  hidden: boolean;
  /** HTML block boundary: the line is its own block (always true for text lines). */
  block: boolean;
}

export interface LinkRef {
  /** The href / URL exactly as written after entity decoding (trimmed). */
  href: string;
  /** Anchor text, or the alt text of the images inside the anchor. */
  text: string;
  imageOnly: boolean;
  /** The anchor wraps a 1×1 (tracking) image. */
  pixel: boolean;
  /** Index of the line the link starts on. */
  line: number;
  /** Text of that line before the link. */
  before: string;
  /** Text of that line after the link (text/plain only). */
  after: string;
  source: 'text' | 'html';
  hidden: boolean;
}

export interface Doc {
  lines: Line[];
  links: LinkRef[];
}

/** Bounds on the work done per message. */
export const LIMITS = {
  /** Characters of text/plain examined. */
  text: 200_000,
  /** Characters of raw HTML scanned. */
  htmlRaw: 512 * 1024,
  /** Characters of rendered HTML text kept. */
  htmlText: 200_000,
  /** Lines kept per source. */
  lines: 8_000,
  /** Characters of one line examined for codes. */
  line: 4_000,
  /** Links considered per source. */
  links: 400,
} as const;

const ZERO_WIDTH = /\u00ad|\u034f|\u180e|[\u200b-\u200d]|\u2060|\ufeff/g;
const SPACES = /[\s\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g;

/** Normalises one line of text: NFKC, zero-width characters removed, whitespace collapsed. */
export function normLine(s: string): string {
  let t = s.length > LIMITS.line * 2 ? s.slice(0, LIMITS.line * 2) : s;
  t = t.replace(ZERO_WIDTH, '');
  // keep CJK full-width punctuation separate from what follows once NFKC turns it into ASCII
  // (a full-width comma inside a grouped number, "１２０，０００", stays a thousands separator)
  if (/[，：；]/.test(t))
    t = t
      .replace(/(?<![0-9０-９])[0-9０-９]{1,3}(?:，[0-9０-９]{3})+(?![0-9０-９])/g, (n) => n.replace(/，/g, ','))
      .replace(/，/g, ', ')
      .replace(/：/g, ': ')
      .replace(/；/g, '; ');
  // NFKC maps full-width digits/letters/colons to ASCII; skip it for pure ASCII lines (the common case)
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(t)) t = t.normalize('NFKC');
  return t.replace(SPACES, ' ').trim();
}

export function newLine(text: string, source: Source): Line {
  return { text, source, quoteHint: 0, quoted: false, segment: 0, emph: false, hidden: false, block: true };
}

/** Splits a text/plain body into lines (bounded). */
export function textToLines(text: string, source: Source = 'text'): Line[] {
  const t = text.length > LIMITS.text ? text.slice(0, LIMITS.text) : text;
  const out: Line[] = [];
  let start = 0;
  while (start <= t.length && out.length < LIMITS.lines) {
    let end = t.indexOf('\n', start);
    if (end < 0) end = t.length;
    let raw = t.slice(start, end);
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    out.push(newLine(normLine(raw), source));
    start = end + 1;
  }
  return out;
}
