// The search query language (CONTRACT §11): a tokenizer and a small grammar, compiled into an FTS5 MATCH
// expression made only of double-quoted strings (so nothing typed is FTS5 syntax: NEAR(, *, ^, col: and quotes
// are text) plus SQL time filters. Grammar (OR binds tighter than the implicit AND, as in Gmail):
//   query := group+        group := unary ( "OR" unary )*        unary := "-"? atom
//   atom  := word | "phrase" | name ":" (word | "phrase")
import { AppError } from '../errors.ts';
import type { Dialect } from '../store/dialect.ts';
import { lexemes, tsPhrase, tsToken } from './pg-text.ts';
import { hexToken, isSingleCjk, SHARED_TOKEN, segmentCjkQuery } from './text.ts';

export const MAX_QUERY_CHARS = 1000;
/** Terms (words, phrases, operators) in one query (--search-max-terms). */
export const MAX_TERMS = 32;
/**
 * Words one term expands to in the index (--search-max-term-words): `a-b-c` and a quoted phrase are searched as a
 * phrase of their words, and a Chinese or Japanese run as a phrase of its character pairs. The index checks the
 * positions of every word of a phrase in every message that has them all, so a 997-character hyphenated word (499
 * words) cost seconds per query; this bounds it.
 */
export const MAX_TERM_WORDS = 16;
/** Words of all terms together (a query of 32 phrases of 16 words is still refused). */
export const MAX_QUERY_WORDS = 64;

/** The limits a query is checked against (flags may lower or raise them). */
export interface QueryLimits {
  maxTerms: number;
  maxTermWords: number;
}
export const DEFAULT_LIMITS: QueryLimits = { maxTerms: MAX_TERMS, maxTermWords: MAX_TERM_WORDS };

export type Field = 'any' | 'from' | 'to' | 'subject';
export type Atom =
  | { kind: 'text'; field: Field; text: string; phrase: boolean }
  | { kind: 'label'; label: string }
  | { kind: 'has'; what: 'attachment' | 'code' | 'link' }
  | { kind: 'time'; op: 'before' | 'after'; at: number };

export interface Term {
  atom: Atom;
  negated: boolean;
  pos: number;
}

/** AND of groups; a group is an OR of terms (usually one). */
export interface ParsedQuery {
  groups: Term[][];
}

const OPERATORS = ['from', 'to', 'subject', 'label', 'has', 'before', 'after'] as const;
const HAS = ['attachment', 'code', 'link'] as const;

/** A malformed query: 400 naming the problem and the (1-based) character where it is. */
export function queryError(message: string, pos?: number): AppError {
  const where = pos === undefined ? '' : ` (at character ${pos + 1})`;
  return new AppError('validation_failed', `q: ${message}${where}`, { errors: [{ path: 'q', message: message + where }] });
}

interface Lexeme {
  kind: 'word' | 'phrase' | 'or' | 'minus';
  text: string;
  pos: number;
  /** For a word that is `name:value`: the operator name, and the value (a word or a phrase). */
  op?: { name: string; value: string; phrase: boolean; valuePos: number };
}

function readPhrase(q: string, open: number): { text: string; end: number } {
  const close = q.indexOf('"', open + 1);
  if (close < 0) throw queryError('unclosed quote: add the closing " or remove the opening one', open);
  return { text: q.slice(open + 1, close), end: close + 1 };
}

// Control characters other than whitespace (NUL above all) cannot be stored in mail text the index holds.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

function lex(q: string): Lexeme[] {
  const out: Lexeme[] = [];
  const ctl = CONTROL.exec(q);
  if (ctl)
    throw queryError(
      `control character U+${ctl[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed in a query; remove it`,
      ctl.index,
    );
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const p = readPhrase(q, i);
      out.push({ kind: 'phrase', text: p.text, pos: i });
      i = p.end;
      continue;
    }
    if (c === '-' || c === '!') {
      if (i + 1 >= q.length || /\s/.test(q[i + 1]!)) throw queryError(`'${c}' must be followed by the term it excludes (no space)`, i);
      out.push({ kind: 'minus', text: c, pos: i });
      i++;
      continue;
    }
    let j = i;
    while (j < q.length && !/\s/.test(q[j]!) && q[j] !== '"') j++;
    const word = q.slice(i, j);
    const m = /^([A-Za-z][A-Za-z-]*):(.*)$/.exec(word);
    if (m && !m[2]!.startsWith('//')) {
      const name = m[1]!.toLowerCase();
      if (!(OPERATORS as readonly string[]).includes(name))
        throw queryError(
          `unknown operator '${m[1]}:'; use one of ${OPERATORS.map((o) => o + ':').join(' ')}, or quote it to search the text`,
          i,
        );
      let value = m[2]!;
      let phrase = false;
      const valuePos = i + m[1]!.length + 1;
      if (value === '' && q[j] === '"') {
        const p = readPhrase(q, j);
        value = p.text;
        phrase = true;
        j = p.end;
      }
      if (value.trim() === '') throw queryError(`'${m[1]}:' needs a value (e.g. ${example(name)})`, i);
      out.push({ kind: 'word', text: word, pos: i, op: { name, value, phrase, valuePos } });
    } else if (word === 'OR') out.push({ kind: 'or', text: word, pos: i });
    else out.push({ kind: 'word', text: word, pos: i });
    i = j;
  }
  return out;
}

function example(op: string): string {
  switch (op) {
    case 'has':
      return 'has:attachment';
    case 'before':
    case 'after':
      return `${op}:2026-11-20, ${op}:2026-11-20T14:00, ${op}:3d`;
    case 'label':
      return 'label:ci-42';
    default:
      return `${op}:alice@example.com or ${op}:"Alice Smith"`;
  }
}

const RELATIVE = /^(\d{1,6})(m|min|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A date (2026-11-20, UTC midnight), a date and time (2026-11-20T14:00[:00][Z|±hh:mm]), a time today (14:00, UTC) or a relative age (2h, 3d). */
export function parseWhen(v: string, now: number): number | null {
  const rel = RELATIVE.exec(v);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return strictDate(`${v}T00:00:00Z`, v);
  const dt = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:\d{2})?$/.exec(v);
  if (dt) return strictDate(`${dt[1]}T${dt[2]!.length === 5 ? dt[2] + ':00' : dt[2]}${dt[3] ?? 'Z'}`, dt[1]!);
  const t = /^(\d{2}):(\d{2})$/.exec(v);
  if (t) {
    const h = Number(t[1]);
    const m = Number(t[2]);
    if (h > 23 || m > 59) return null;
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), h, m);
  }
  return null;
}

function strictDate(iso: string, day: string): number | null {
  const ms = Date.parse(iso);
  // Date.parse accepts 2026-02-31 as March 3rd; a date that does not round-trip is refused.
  if (Number.isNaN(ms) || new Date(Date.parse(`${day}T00:00:00Z`)).toISOString().slice(0, 10) !== day) return null;
  return ms;
}

function atomOf(l: Lexeme, now: number): Atom | null {
  if (l.kind === 'phrase') return { kind: 'text', field: 'any', text: l.text, phrase: true };
  if (!l.op) return { kind: 'text', field: 'any', text: l.text, phrase: false };
  const { name, value, phrase, valuePos } = l.op;
  switch (name) {
    case 'from':
    case 'to':
    case 'subject':
      return { kind: 'text', field: name, text: value, phrase };
    case 'label':
      return { kind: 'label', label: value };
    case 'has': {
      const v = value.toLowerCase().replace(/s$/, '');
      if (!(HAS as readonly string[]).includes(v))
        throw queryError(`has:${value} is not known; use has:attachment, has:code or has:link`, valuePos);
      return { kind: 'has', what: v as (typeof HAS)[number] };
    }
    default: {
      const at = parseWhen(value, now);
      if (at === null)
        throw queryError(
          `${name}:${value} is not a date, time or age; use e.g. ${name}:2026-11-20, ${name}:2026-11-20T14:00, ${name}:14:00 or ${name}:3d (m, h, d, w)`,
          valuePos,
        );
      return { kind: 'time', op: name as 'before' | 'after', at };
    }
  }
}

/** The words a text term expands to in the index (as FTS5's unicode61 cuts them, CJK runs as character pairs). */
export function termWords(text: string): number {
  return lexemes(segmentCjkQuery(text)).length;
}

export function parseQuery(q: string, now: number, limits: QueryLimits = DEFAULT_LIMITS): ParsedQuery {
  if (q.length > MAX_QUERY_CHARS) throw queryError(`the query is ${q.length} characters; the limit is ${MAX_QUERY_CHARS} — shorten it`);
  const { maxTerms, maxTermWords } = limits;
  const lx = lex(q);
  const groups: Term[][] = [];
  let i = 0;
  let terms = 0;
  let words = 0;
  const unary = (): Term => {
    const l = lx[i];
    if (!l) throw queryError('the query ends where a term was expected', q.length);
    if (l.kind === 'or') throw queryError('OR needs a term on each side', l.pos);
    let negated = false;
    let tok = l;
    if (l.kind === 'minus') {
      negated = true;
      i++;
      const n = lx[i];
      if (!n || n.kind === 'or' || n.kind === 'minus') throw queryError(`'${l.text}' must be followed by the term it excludes`, l.pos);
      tok = n;
    }
    i++;
    if (++terms > maxTerms)
      throw queryError(`more than ${maxTerms} terms; the limit is ${maxTerms} (--search-max-terms) — remove some`, tok.pos);
    const atom = atomOf(tok, now);
    if (!atom) throw queryError('unexpected term', tok.pos);
    if (atom.kind === 'text') {
      const n = termWords(atom.text);
      if (n > maxTermWords)
        throw queryError(
          `this term is searched as a phrase of ${n} words (hyphens, dots and other punctuation split words; Chinese and Japanese text counts its character pairs); the limit is ${maxTermWords} words per term (--search-max-term-words) — shorten it or split it into separate words`,
          tok.pos,
        );
      words += n;
      const maxWords = Math.max(MAX_QUERY_WORDS, maxTermWords);
      if (words > maxWords)
        throw queryError(`the query's terms add up to more than ${maxWords} words; the limit is ${maxWords} — remove some`, tok.pos);
    }
    if (atom.kind === 'time' && negated)
      return { atom: { ...atom, op: atom.op === 'before' ? 'after' : 'before' }, negated: false, pos: tok.pos };
    return { atom, negated, pos: l.pos };
  };
  while (i < lx.length) {
    const group = [unary()];
    while (lx[i]?.kind === 'or') {
      const orPos = lx[i]!.pos;
      i++;
      if (i >= lx.length) throw queryError('OR needs a term on each side', orPos);
      group.push(unary());
    }
    if (group.length > 1)
      for (const t of group) {
        if (t.negated) throw queryError('a negated term cannot be one side of OR; move it out of the OR', t.pos);
        if (t.atom.kind === 'time') throw queryError('before:/after: cannot be one side of OR', t.pos);
      }
    groups.push(group);
  }
  const meaningful = groups.some((g) => g.some((t) => t.atom.kind !== 'text' || hasWords(t.atom.text)));
  if (!meaningful) throw queryError('nothing to search for: give words, "a phrase" or an operator such as from:');
  return { groups };
}

const WORDISH = /[\p{L}\p{N}]/u;
function hasWords(s: string): boolean {
  return WORDISH.test(s);
}

/** An FTS5 string literal: the text between double quotes, quotes doubled. FTS5 reads nothing in it as syntax. */
export function ftsString(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

const COLUMN: Record<Field, string> = {
  any: '{subject sender rcpts body files label}',
  from: 'sender',
  to: 'rcpts',
  subject: 'subject',
};

/** The has: operators' flag tokens (src/search/text.ts searchDoc). */
const FLAG: Record<'attachment' | 'code' | 'link', string> = { attachment: 'xatt', code: 'xcode', link: 'xlink' };

/**
 * A scope token in a MATCH expression (a tsquery on PostgreSQL), or the shared token of a content held by too many
 * inboxes to list them (text.ts SHARED_TOKEN). `prefix`: every token starting with it. `exact`: the token alone (for
 * a negation, which must not exclude every shared content; the exact scope is checked in SQL).
 */
export function scopeToken(token: string, dialect: Dialect, prefix = false, exact = false): string {
  if (dialect === 'postgres') return exact ? tsToken(token, prefix) : `(${tsToken(token, prefix)} | ${tsToken(SHARED_TOKEN)})`;
  const own = `scope : ${ftsString(token)}${prefix ? '*' : ''}`;
  return exact ? own : `(${own} OR scope : ${ftsString(SHARED_TOKEN)})`;
}

/** The same atom as a PostgreSQL tsquery (src/search/pg-text.ts): lexemes quoted, never parsed from the text. */
function atomTsQuery(a: Atom, negated = false): string | null {
  switch (a.kind) {
    case 'text': {
      if (!hasWords(a.text)) return null;
      const t = a.text.trim();
      if (isSingleCjk(t)) return tsPhrase(t, a.field, true);
      return tsPhrase(segmentCjkQuery(a.text), a.field);
    }
    case 'label':
      return scopeToken(hexToken('l', a.label), 'postgres', false, negated);
    case 'has':
      return tsToken(FLAG[a.what]);
    default:
      return null;
  }
}

/**
 * The atom with a phrase relaxed to the AND of its words (SQLite): it matches at least the rows the phrase does, and
 * FTS5 answers it from the posting lists without reading positions, so counting it is cheap where the phrase is not.
 */
function atomMatchWords(a: Atom): string | null {
  if (a.kind !== 'text' || isSingleCjk(a.text.trim())) return atomMatch(a);
  const words = lexemes(segmentCjkQuery(a.text));
  if (words.length <= 1) return atomMatch(a);
  return `(${words.map((w) => `${COLUMN[a.field]} : ${ftsString(w)}`).join(' AND ')})`;
}

function atomMatch(a: Atom, negated = false): string | null {
  switch (a.kind) {
    case 'text':
      if (!hasWords(a.text)) return null;
      if (isSingleCjk(a.text.trim())) return `${COLUMN[a.field]} : ${ftsString(a.text.trim())}*`;
      return `${COLUMN[a.field]} : ${ftsString(segmentCjkQuery(a.text).trim())}`;
    case 'label':
      return scopeToken(hexToken('l', a.label), 'sqlite', false, negated);
    case 'has':
      return `scope : ${ftsString(FLAG[a.what])}`;
    default:
      return null;
  }
}

export interface CompiledQuery {
  /** FTS5 expression of the user's terms (null when there are only time filters). */
  match: string | null;
  /** The same without free words and phrases: the operators only (semantic search filters with it). */
  filter: string | null;
  /** Excluded terms, each an FTS5 expression, applied with NOT. */
  not: string[];
  /** received_at >= after and < before. */
  after: number | null;
  before: number | null;
  /** Words and phrases to mark in snippets and to embed for semantic search. */
  terms: string[];
  /** The free text of the query (no operators), for the semantic embedding. */
  text: string;
  /** Labels the query requires (label: outside OR and negation), checked per message row in SQL too. */
  labels: string[];
  /** Labels the query excludes (-label: alone), checked per message row in SQL (a shared content's row has none). */
  notLabels: string[];
  /** The ANDed parts of `match`, one FTS5 expression each. */
  parts: string[];
  /** The same parts with each phrase relaxed to the AND of its words (SQLite; PostgreSQL: the parts), for counting. */
  countParts: string[];
  /**
   * Words of the longest text term (a phrase when more than 1). FTS5 evaluates a phrase over the posting lists of all
   * its words whatever rowid range a query asks for, so a query with a phrase is not cut into rowid steps.
   */
  longest: number;
}

/**
 * Compiles a parsed query into the search engine's expressions: an FTS5 MATCH expression (SQLite, the default) or a
 * tsquery (PostgreSQL). Everything else (dates, labels, snippet terms, the text to embed) is the same for both.
 */
export function compileQuery(p: ParsedQuery, dialect: Dialect = 'sqlite'): CompiledQuery {
  const toExpr = dialect === 'postgres' ? atomTsQuery : atomMatch;
  const orOp = dialect === 'postgres' ? ' | ' : ' OR ';
  const andOp = dialect === 'postgres' ? ' & ' : ' AND ';
  const and: string[] = [];
  const relaxed: string[] = [];
  const filter: string[] = [];
  const not: string[] = [];
  let after: number | null = null;
  let before: number | null = null;
  const terms: string[] = [];
  const text: string[] = [];
  const labels: string[] = [];
  const notLabels: string[] = [];
  let longest = 0;
  for (const group of p.groups) {
    const parts: string[] = [];
    const loose: string[] = [];
    let free = false;
    for (const t of group) {
      const a = t.atom;
      if (a.kind === 'time') {
        if (a.op === 'after') after = Math.max(after ?? a.at, a.at);
        else before = Math.min(before ?? a.at, a.at);
        continue;
      }
      const m = toExpr(a, t.negated);
      if (m === null) continue;
      if (a.kind === 'text') longest = Math.max(longest, termWords(a.text));
      if (t.negated) not.push(m);
      else {
        parts.push(m);
        loose.push(dialect === 'postgres' ? m : (atomMatchWords(a) ?? m));
        if (a.kind === 'text') {
          terms.push(...(a.phrase ? [a.text] : [a.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')]));
          if (a.field === 'any' || a.field === 'subject') text.push(a.text);
          if (a.field === 'any') free = true;
        }
      }
    }
    const only = group[0]!;
    if (group.length === 1 && only.atom.kind === 'label') (only.negated ? notLabels : labels).push(only.atom.label);
    const expr = parts.length === 1 ? parts[0]! : parts.length > 1 ? `(${parts.join(orOp)})` : null;
    if (expr === null) continue;
    and.push(expr);
    relaxed.push(loose.length === 1 ? loose[0]! : `(${loose.join(orOp)})`);
    if (!free) filter.push(expr);
  }
  return {
    match: and.length ? and.join(andOp) : null,
    filter: filter.length ? filter.join(andOp) : null,
    not,
    after,
    before,
    terms: terms.filter(Boolean),
    text: text.join(' '),
    labels,
    notLabels,
    parts: and,
    countParts: relaxed,
    longest,
  };
}
