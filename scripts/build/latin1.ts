// Makes a bundle's source one-byte: V8 keeps a script's source as Latin-1 when every character is ≤ U+00FF and as
// UTF-16 (twice the memory) otherwise. esbuild already escapes every non-ASCII character in strings, templates and
// identifiers, but leaves regular-expression literals alone, and the multilingual extraction patterns (src/verify,
// src/ai/builtin) hold ~2,200 CJK, Cyrillic, Greek, Arabic, Hebrew and Thai characters: one of them turns the whole
// 10 MB main bundle into 20 MB of heap, and each worker's source likewise.
//
// `latin1Source` walks the minified bundle with a small JavaScript tokenizer (strings, templates with nested `${}`,
// comments, regular expressions told from division by the token before them) and writes every character above
// U+00FF inside a regular-expression literal as `\uXXXX` (astral characters as their surrogate pair, which a `u`
// pattern reads as the one code point, and a non-`u` pattern as the same two code units it saw before). A character
// above U+00FF anywhere else (a raw template, where an escape would change String.raw) or a rewritten literal that
// no longer compiles to the same flags stops the build: a wrong guess of the tokenizer fails loudly, never silently.

export class Latin1Error extends Error {}

/** One rewritten literal: where it started in the input and how many characters longer it became. */
export interface Edit {
  at: number;
  grow: number;
}

const REGEX_AFTER_CHARS = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_AFTER_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

function isIdent(c: string): boolean {
  return /[A-Za-z0-9_$]/.test(c) || c.charCodeAt(0) > 0x7f;
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function context(js: string, at: number): string {
  return JSON.stringify(js.slice(Math.max(0, at - 60), at + 40));
}

/** The bundle with every character above U+00FF in a regular-expression literal escaped; see the file comment. */
export function latin1Source(js: string, name: string): { js: string; escaped: number; literals: number; edits: Edit[] } {
  const out: string[] = [];
  let i = 0;
  let last = 0; // start of the not yet copied text
  let escaped = 0;
  let literals = 0;
  const edits: Edit[] = [];
  // What the last significant token was: decides whether a `/` starts a regular expression.
  let prevChar = '';
  let prevWord = '';
  // Template nesting: each entry counts the braces open inside one `${ … }`.
  const braces: number[] = [];
  const n = js.length;

  const stray = (at: number, where: string): never => {
    throw new Latin1Error(
      `${name}: character U+${js.charCodeAt(at).toString(16).toUpperCase()} above U+00FF ${where} at offset ${at} (${context(js, at)}); ` +
        'only regular-expression literals may hold such characters (write it as \\uXXXX in the source)',
    );
  };

  const template = (): void => {
    // i is just past the opening backtick, or just past the `}` that closed a `${`.
    while (i < n) {
      const c = js.charAt(i);
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '`') {
        i++;
        prevChar = '`';
        prevWord = '';
        return;
      }
      if (c === '$' && js.charAt(i + 1) === '{') {
        i += 2;
        braces.push(0);
        prevChar = '{';
        prevWord = '';
        return;
      }
      if (js.charCodeAt(i) > 0xff) stray(i, 'in a template literal');
      i++;
    }
    throw new Latin1Error(`${name}: unterminated template literal`);
  };

  while (i < n) {
    const c = js.charAt(i);
    const code = js.charCodeAt(i);
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && js.charAt(i + 1) === '/') {
      while (i < n && js.charAt(i) !== '\n') {
        if (js.charCodeAt(i) > 0xff) stray(i, 'in a comment');
        i++;
      }
      continue;
    }
    if (c === '/' && js.charAt(i + 1) === '*') {
      const end = js.indexOf('*/', i + 2);
      if (end < 0) throw new Latin1Error(`${name}: unterminated comment`);
      for (let k = i; k < end; k++) if (js.charCodeAt(k) > 0xff) stray(k, 'in a comment');
      i = end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < n && js.charAt(i) !== c) {
        if (js.charAt(i) === '\\') i++;
        else if (js.charCodeAt(i) > 0xff) stray(i, 'in a string literal');
        i++;
      }
      i++;
      prevChar = c;
      prevWord = '';
      continue;
    }
    if (c === '`') {
      i++;
      template();
      continue;
    }
    if (c === '{' && braces.length) {
      braces.push((braces.pop() as number) + 1);
    }
    if (c === '}' && braces.length) {
      if (braces[braces.length - 1] === 0) {
        braces.pop();
        i++;
        template();
        continue;
      }
      braces.push((braces.pop() as number) - 1);
    }
    if (c === '/') {
      const regex = prevWord ? REGEX_AFTER_WORDS.has(prevWord) : prevChar === '' || REGEX_AFTER_CHARS.has(prevChar);
      if (regex) {
        const start = i;
        let inClass = false;
        let wide = false;
        i++;
        while (i < n) {
          const r = js.charAt(i);
          if (r === '\\') {
            i += 2;
            continue;
          }
          if (r === '\n') throw new Latin1Error(`${name}: unterminated regular expression at offset ${start} (${context(js, start)})`);
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
          if (js.charCodeAt(i) > 0xff) wide = true;
          i++;
        }
        i++;
        while (i < n && isIdent(js.charAt(i))) i++; // flags
        if (wide) {
          const literal = js.slice(start, i);
          let rewritten = '';
          for (const ch of literal) {
            if (ch.length === 2) {
              rewritten += escapeChar(ch.charAt(0)) + escapeChar(ch.charAt(1));
              escaped++;
            } else if (ch.charCodeAt(0) > 0xff) {
              rewritten += escapeChar(ch);
              escaped++;
            } else rewritten += ch;
          }
          checkSame(literal, rewritten, name, start);
          out.push(js.slice(last, start), rewritten);
          last = i;
          literals++;
          edits.push({ at: start, grow: rewritten.length - literal.length });
        }
        prevChar = '/';
        prevWord = 'regex';
        continue;
      }
    }
    if (isIdent(c)) {
      const start = i;
      while (i < n && isIdent(js.charAt(i))) {
        if (js.charCodeAt(i) > 0xff) stray(i, 'in an identifier');
        i++;
      }
      prevWord = js.slice(start, i);
      // A number or a name: a `/` after it divides.
      prevChar = 'a';
      if (!REGEX_AFTER_WORDS.has(prevWord)) prevWord = 'ident';
      continue;
    }
    if (code > 0xff) stray(i, 'in code');
    prevChar = c;
    prevWord = '';
    i++;
  }
  out.push(js.slice(last));
  const result = out.join('');
  for (let k = 0; k < result.length; k++) if (result.charCodeAt(k) > 0xff) stray(k, 'after rewriting');
  return { js: result, escaped, literals, edits };
}

function checkSame(before: string, after: string, name: string, at: number): void {
  let a: unknown;
  let b: unknown;
  try {
    a = new Function(`return ${before}`)();
    b = new Function(`return ${after}`)();
  } catch (err) {
    throw new Latin1Error(`${name}: not a regular expression at offset ${at} (${context(before, 0)}): ${(err as Error).message}`);
  }
  if (!(a instanceof RegExp) || !(b instanceof RegExp) || a.flags !== b.flags) {
    throw new Latin1Error(`${name}: rewriting the regular expression at offset ${at} changed it (${context(before, 0)})`);
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function vlqDecode(seg: string): number[] {
  const values: number[] = [];
  let shift = 0;
  let value = 0;
  for (const ch of seg) {
    const digit = B64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      shift = 0;
      value = 0;
    }
  }
  return values;
}

function vlqEncode(values: number[]): string {
  let out = '';
  for (const v of values) {
    let rest = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = rest & 31;
      rest >>>= 5;
      if (rest) digit |= 32;
      out += B64[digit];
    } while (rest);
  }
  return out;
}

/**
 * The source map of `js` moved to match the rewritten bundle: on each line that holds a rewritten literal, every
 * mapping that starts after it moves right by the characters the literal grew (the map's other fields are unchanged).
 */
export function shiftSourceMap(mapJson: string, js: string, edits: Edit[]): string {
  if (!edits.length) return mapJson;
  const map = JSON.parse(mapJson) as { mappings: string };
  // Edits per generated line, as [column, grow], in order.
  const byLine = new Map<number, Array<[number, number]>>();
  let line = 0;
  let lineStart = 0;
  let pos = 0;
  for (const e of edits) {
    while (pos < e.at) {
      const nl = js.indexOf('\n', pos);
      if (nl < 0 || nl >= e.at) break;
      line++;
      lineStart = nl + 1;
      pos = nl + 1;
    }
    const list = byLine.get(line) ?? [];
    list.push([e.at - lineStart, e.grow]);
    byLine.set(line, list);
  }
  const lines = map.mappings.split(';');
  for (const [l, list] of byLine) {
    if (!lines[l]) continue;
    let col = 0;
    let prevNew = 0;
    lines[l] = (lines[l] as string)
      .split(',')
      .map((seg) => {
        const v = vlqDecode(seg);
        col += v[0] ?? 0;
        let moved = col;
        for (const [at, grow] of list) if (col > at) moved += grow;
        v[0] = moved - prevNew;
        prevNew = moved;
        return vlqEncode(v);
      })
      .join(',');
  }
  map.mappings = lines.join(';');
  return JSON.stringify(map);
}
