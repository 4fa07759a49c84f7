// Full-text search on PostgreSQL (issue 20): the same words as SQLite's FTS5 unicode61 tokenizer, cut here in
// JavaScript rather than by a PostgreSQL text search configuration. A configuration would differ from SQLite in ways
// users see: the default parser keeps alice@example.com and foo-bar as whole tokens (so `from:github` would not find
// noreply@github.com), 'english' stems codes and names, and diacritics need the unaccent extension. So the document
// is handed to PostgreSQL as a ready tsvector (lexemes, positions and weights) and the query as a ready tsquery, both
// made of the lexemes below: lower case, diacritics removed, split on everything that is not a letter or a digit, no
// stemming, no stop words — a 6-digit code or an address part is a lexeme like any word.
//
// One tsvector per stored content. Weights carry the fields: A subject, B sender, C recipients, D body, attachment
// file names and inbox labels; `from:` `to:` `subject:` restrict a lexeme to its weight (`'x':B`). Scope and has:
// tokens start with `~`, which no word lexeme can contain, so typed text never matches them.
import { fold, type SearchDoc } from './text.ts';

/** Weights for ts_rank_cd, in PostgreSQL's order {D, C, B, A}: body 1, recipients 1.5, sender 2, subject 4 (÷ 4). */
export const RANK_WEIGHTS = '{0.25,0.375,0.5,1}';

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;
/** PostgreSQL keeps positions up to 16383; later words are still found (at the last position), not as phrases. */
const MAX_POS = 16383;
/**
 * PostgreSQL refuses a lexeme of 2 KB or more (and with it the whole tsvector, which would refuse the mail): longer
 * words are cut to their first 500 characters (at most 2,000 bytes) — in documents and queries alike, so they are
 * still found.
 */
const MAX_LEXEME = 500;

/** The lexemes of a text, in order (as FTS5 unicode61 with remove_diacritics 2 cuts and folds them). */
export function lexemes(text: string): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    const w = m[0].replace(MARKS, '');
    if (w) out.push(w.length > MAX_LEXEME ? [...w].slice(0, MAX_LEXEME).join('') : w);
  }
  return out;
}

/** A tsvector / tsquery lexeme literal: single-quoted, quote and backslash escaped (PostgreSQL reads no syntax in it). */
export function tsLexeme(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

type Weight = 'A' | 'B' | 'C' | 'D';

/**
 * The document's tsvector literal. Fields follow each other with a gap of one position, so a phrase never spans
 * two fields; the short fields come first so the body's positions are the ones that may reach PostgreSQL's limit.
 */
export function tsvectorLiteral(doc: SearchDoc, labels: string[], scope: string[]): string {
  const pos = new Map<string, string[]>();
  let at = 0;
  const add = (text: string, w: Weight) => {
    for (const lx of lexemes(text)) {
      at = Math.min(at + 1, MAX_POS);
      let list = pos.get(lx);
      if (!list) pos.set(lx, (list = []));
      if (list.length < 256) list.push(`${at}${w === 'D' ? '' : w}`);
    }
    at = Math.min(at + 1, MAX_POS);
  };
  add(doc.subject, 'A');
  add(doc.sender, 'B');
  add(doc.rcpts, 'C');
  add(doc.files, 'D');
  add(labels.join(' '), 'D');
  add(doc.body, 'D');
  const parts = [...pos].map(([lx, p]) => `${tsLexeme(lx)}:${p.join(',')}`);
  for (const f of doc.flags.split(' ')) if (f) parts.push(tsLexeme(`~${f}`));
  for (const s of scope) parts.push(tsLexeme(`~${s}`));
  return parts.join(' ');
}

const FIELD_WEIGHT: Record<'any' | 'from' | 'to' | 'subject', string> = { any: '', from: ':B', to: ':C', subject: ':A' };

/**
 * A tsquery for words or a phrase in a field: the lexemes in order (`<->`, adjacent), or null when the text has none.
 * `prefix`: the last lexeme matches as a prefix (a single Chinese or Japanese character, as on SQLite).
 */
export function tsPhrase(text: string, field: keyof typeof FIELD_WEIGHT, prefix = false): string | null {
  const lx = lexemes(text);
  if (lx.length === 0) return null;
  const w = FIELD_WEIGHT[field];
  const items = lx.map((l, i) => {
    const star = prefix && i === lx.length - 1 ? '*' : '';
    return `${tsLexeme(l)}${w || star ? ':' : ''}${star}${w.slice(1)}`;
  });
  return items.length === 1 ? items[0]! : `(${items.join(' <-> ')})`;
}

/** A scope or has: token as a tsquery term (`prefix`: every token starting with it, for a label prefix). */
export function tsToken(token: string, prefix = false): string {
  return `${tsLexeme(`~${token}`)}${prefix ? ':*' : ''}`;
}
