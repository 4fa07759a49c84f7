// What a message contributes to the full-text index, and the same text handling for queries and snippets.
// FTS5's unicode61 tokenizer splits on spaces and punctuation and folds case and diacritics; it keeps a run of
// Chinese or Japanese characters as one token, so such runs are cut into overlapping character pairs first
// (請求書 → 請求 求書 書), and a query's run into the same pairs as a phrase: any substring of two or more
// characters is found, whatever the word boundaries (README "Search": why not Intl.Segmenter or trigram).
import { htmlToText } from '../mail/extract/html-text.ts';

/** Characters of body text indexed per message (the rest is not searchable; bounds the cost of huge mail). */
export const MAX_BODY_CHARS = 64 * 1024;

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

function pairs(run: string, tail: boolean): string {
  const c = [...run];
  if (c.length === 1) return ` ${run} `;
  const out: string[] = [];
  for (let i = 0; i < c.length - 1; i++) out.push(c[i]! + c[i + 1]!);
  // The last character alone, so a one-character query finds it at the end of a run too (as a prefix).
  if (tail) out.push(c.at(-1)!);
  return ` ${out.join(' ')} `;
}

/** Index side: every Chinese or Japanese run as character pairs and its last character; other text unchanged. */
export function segmentCjk(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => pairs(run, true));
}

/** Query side: the pairs only (they follow each other in the index, so the query is a phrase of them). */
export function segmentCjkQuery(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => pairs(run, false));
}

/** A single Chinese or Japanese character (searched as a prefix of the pairs). */
export function isSingleCjk(text: string): boolean {
  return [...text].length === 1 && HAS_CJK.test(text);
}

interface Addr {
  name?: string;
  address?: string;
}

function people(json: string | null | undefined): string {
  if (!json) return '';
  try {
    const list = JSON.parse(json) as Addr[];
    return list.map((a) => `${a.name ?? ''} ${a.address ?? ''}`).join(' ');
  } catch {
    return '';
  }
}

/** The parsed content a document is built from (a `contents` row's columns). */
export interface DocSource {
  subject: string;
  from_name: string | null;
  from_address: string | null;
  to_json: string;
  cc_json: string;
  text_body: string | null;
  html_body: string | null;
  otp: string | null;
  attachment_count: number;
}

/** The text columns of one message's FTS row (the scope is added per recipient, in SQL). */
export interface SearchDoc {
  subject: string;
  sender: string;
  rcpts: string;
  body: string;
  files: string;
  /** has: flag tokens (xatt, xcode, xlink), space-separated. */
  flags: string;
}

/** The searchable body: the text part, or the HTML part converted to text when there is no text part. */
export function bodyText(text: string | null, html: string | null): string {
  const t = text ?? (html ? htmlToText(html.length > MAX_BODY_CHARS * 4 ? html.slice(0, MAX_BODY_CHARS * 4) : html) : '');
  return t.length > MAX_BODY_CHARS ? t.slice(0, MAX_BODY_CHARS) : t;
}

const LINK = /\bhttps?:\/\/[^\s<>"']{3}/i;

export function searchDoc(c: DocSource, filenames: Array<string | null>): SearchDoc {
  const body = bodyText(c.text_body, c.html_body);
  const flags: string[] = [];
  if (c.attachment_count > 0) flags.push('xatt');
  if (c.otp) flags.push('xcode');
  if (LINK.test(body) || (c.html_body !== null && /href\s*=\s*["']?https?:/i.test(c.html_body))) flags.push('xlink');
  return {
    subject: segmentCjk(c.subject),
    sender: segmentCjk(`${c.from_name ?? ''} ${c.from_address ?? ''}`),
    rcpts: segmentCjk(`${people(c.to_json)} ${people(c.cc_json)}`),
    body: segmentCjk(body),
    files: segmentCjk(filenames.filter((f): f is string => !!f).join(' ')),
    flags: flags.join(' '),
  };
}

/** Lower case without diacritics, one output character per input UTF-16 unit so offsets map back. */
export function fold(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch.charCodeAt(0) < 0x80) {
      out += ch.toLowerCase();
      continue;
    }
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    out += f.length === 1 ? f : ch;
  }
  return out;
}

/** A hex token of a string (ids and labels as single unicode61 tokens: letters and digits only). */
/**
 * The scope token of a content held by more inboxes than its row lists (src/search/indexer.ts SCOPE_INBOXES): every
 * scoped query accepts it, and the exact scope in SQL tells the copies apart.
 */
export const SHARED_TOKEN = 'xmany';

export function hexToken(prefix: string, value: string | null): string {
  return prefix + Buffer.from(value ?? '', 'utf8').toString('hex');
}

const WORDISH = /[\p{L}\p{N}]/u;
export const MARK_OPEN = '«';
export const MARK_CLOSE = '»';

/**
 * A short passage of `text` around the first of `terms` found (case and diacritics folded), with every term in
 * it marked «like this». Null when no term occurs.
 */
export function snippet(text: string, terms: string[], width = 160): string | null {
  if (!text || terms.length === 0) return null;
  const flat = text.replace(/\s+/g, ' ');
  const folded = fold(flat);
  const needles = [...new Set(terms.map(fold).filter((t) => WORDISH.test(t)))].sort((a, b) => b.length - a.length);
  if (needles.length === 0) return null;
  const hits: Array<[number, number]> = [];
  for (const n of needles) {
    let from = 0;
    for (;;) {
      const at = folded.indexOf(n, from);
      if (at < 0) break;
      const before = at === 0 ? '' : folded[at - 1]!;
      const after = folded[at + n.length] ?? '';
      // Whole words for Latin text (a term "art" does not mark "party"); CJK has no spaces between words.
      const cjk = HAS_CJK.test(n);
      if (cjk || (!WORDISH.test(before) && !WORDISH.test(after))) hits.push([at, at + n.length]);
      from = at + n.length;
      if (hits.length > 200) break;
    }
  }
  if (hits.length === 0) return null;
  hits.sort((a, b) => a[0] - b[0]);
  const first = hits[0]![0];
  let start = Math.max(0, first - Math.floor(width / 3));
  if (start > 0) {
    const sp = flat.indexOf(' ', start);
    if (sp >= 0 && sp < first) start = sp + 1;
  }
  let end = Math.min(flat.length, start + width);
  if (end < flat.length) {
    const sp = flat.lastIndexOf(' ', end);
    if (sp > first) end = sp;
  }
  let out = start > 0 ? '…' : '';
  let pos = start;
  for (const [a, b] of hits) {
    if (a < pos || b > end) continue;
    out += flat.slice(pos, a) + MARK_OPEN + flat.slice(a, b) + MARK_CLOSE;
    pos = b;
  }
  out += flat.slice(pos, end) + (end < flat.length ? '…' : '');
  return out;
}
