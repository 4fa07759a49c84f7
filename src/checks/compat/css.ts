// A small, bounded CSS reader for the compat check: it reports at-rules, selectors, declarations and comments with
// their offsets in the source, which is all the feature matcher needs. It is not a validating parser: it never
// throws, always advances, skips what it does not understand, and stops descending past MAX_DEPTH nested blocks.

export interface CssSink {
  atRule(name: string, prelude: string, offset: number): void;
  /** A style rule's selector list (`nested` when the rule sits inside another style rule: CSS nesting). */
  selector(text: string, offset: number, nested: boolean): void;
  declaration(prop: string, value: string, important: boolean, offset: number, valueOffset: number): void;
  comment(offset: number): void;
}

const MAX_DEPTH = 16;
/** At-rules whose block holds style rules; other blocks hold declarations (@font-face, @page) or are skipped. */
const RULE_BLOCKS = new Set(['media', 'supports', 'document', '-moz-document', 'container', 'layer', 'scope', 'starting-style']);
const DECLARATION_BLOCKS = new Set(['font-face', 'page', 'property', 'counter-style', 'viewport', '-ms-viewport']);

class Reader {
  i = 0;
  readonly s: string;
  readonly base: number;
  readonly sink: CssSink;
  constructor(s: string, base: number, sink: CssSink) {
    this.s = s;
    this.base = base;
    this.sink = sink;
  }

  /** Skips white space, comments and the `<!--`/`-->` tokens old mail wraps style blocks in. */
  skip(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) this.i++;
      else if (s.startsWith('/*', this.i)) this.comment();
      else if (s.startsWith('<!--', this.i)) this.i += 4;
      else if (s.startsWith('-->', this.i)) this.i += 3;
      else break;
    }
  }

  comment(): void {
    this.sink.comment(this.base + this.i);
    const end = this.s.indexOf('*/', this.i + 2);
    this.i = end < 0 ? this.s.length : end + 2;
  }

  /**
   * Reads up to (not including) the first `{`, `;` or `}` outside strings, parentheses and brackets; comments
   * inside are reported and left out of the text.
   */
  prelude(): { text: string; start: number; stop: string } {
    const s = this.s;
    const start = this.i;
    let text = '';
    let from = this.i;
    let depth = 0;
    while (this.i < s.length) {
      const ch = s[this.i]!;
      if (ch === '"' || ch === "'") {
        const end = this.stringEnd(this.i);
        this.i = end;
        continue;
      }
      if (ch === '/' && s[this.i + 1] === '*') {
        text += s.slice(from, this.i);
        this.comment();
        from = this.i;
        continue;
      }
      if (ch === '\\') {
        this.i += 2;
        continue;
      }
      if (ch === '(' || ch === '[') depth++;
      else if ((ch === ')' || ch === ']') && depth > 0) depth--;
      else if (depth === 0 && (ch === '{' || ch === ';' || ch === '}')) break;
      this.i++;
    }
    text += s.slice(from, Math.min(this.i, s.length));
    return { text, start, stop: this.i < s.length ? s[this.i]! : '' };
  }

  stringEnd(at: number): number {
    const s = this.s;
    const q = s[at];
    let j = at + 1;
    while (j < s.length && s[j] !== q && s[j] !== '\n') j += s[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, s.length);
  }

  /** Skips a block whose `{` was just consumed, through its matching `}`. */
  skipBlock(): void {
    let depth = 1;
    while (this.i < this.s.length && depth > 0) {
      const ch = this.s[this.i]!;
      if (ch === '"' || ch === "'") {
        this.i = this.stringEnd(this.i);
        continue;
      }
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      this.i++;
    }
  }

  /** Style rules and at-rules until `}` (consumed) or the end. */
  rules(depth: number, inKeyframes: boolean): void {
    while (this.i < this.s.length) {
      this.skip();
      if (this.i >= this.s.length) return;
      if (this.s[this.i] === '}') {
        this.i++;
        return;
      }
      const p = this.prelude();
      const lead = p.text.length - p.text.trimStart().length;
      const text = p.text.trim();
      const at = p.start + lead;
      if (p.stop === ';' || p.stop === '') {
        this.i++;
        if (text.startsWith('@')) this.atStatement(text, at);
        continue;
      }
      if (p.stop === '}') continue; // a stray prelude with no block: the loop consumes the `}` next
      this.i++; // `{`
      if (text.startsWith('@')) this.atBlock(text, at, depth);
      else if (depth >= MAX_DEPTH) this.skipBlock();
      else {
        if (!inKeyframes && text) this.sink.selector(text, this.base + at, false);
        this.declarations(depth + 1);
      }
    }
  }

  atStatement(text: string, at: number): void {
    const m = /^@([\w-]+)\s*([\s\S]*)$/.exec(text);
    if (m) this.sink.atRule(m[1]!.toLowerCase(), m[2]!, this.base + at);
  }

  atBlock(text: string, at: number, depth: number): void {
    const m = /^@([\w-]+)\s*([\s\S]*)$/.exec(text);
    const name = m ? m[1]!.toLowerCase() : '';
    if (m) this.sink.atRule(name, m[2]!, this.base + at);
    if (depth >= MAX_DEPTH) this.skipBlock();
    else if (RULE_BLOCKS.has(name)) this.rules(depth + 1, false);
    else if (/keyframes$/.test(name)) this.rules(depth + 1, true);
    else if (DECLARATION_BLOCKS.has(name)) this.declarations(depth + 1);
    else this.skipBlock();
  }

  /** Declarations (and nested rules) until `}` (consumed) or the end. */
  declarations(depth: number): void {
    while (this.i < this.s.length) {
      this.skip();
      if (this.i >= this.s.length) return;
      const ch = this.s[this.i];
      if (ch === '}') {
        this.i++;
        return;
      }
      if (ch === ';') {
        this.i++;
        continue;
      }
      const p = this.prelude();
      const lead = p.text.length - p.text.trimStart().length;
      const at = p.start + lead;
      if (p.stop === '{') {
        this.i++;
        const text = p.text.trim();
        if (text.startsWith('@')) this.atBlock(text, at, depth);
        else if (depth >= MAX_DEPTH) this.skipBlock();
        else {
          this.sink.selector(text, this.base + at, true);
          this.declarations(depth + 1);
        }
        continue;
      }
      if (p.stop === ';') this.i++;
      this.declaration(p.text.slice(lead), at);
    }
  }

  declaration(text: string, at: number): void {
    const colon = text.indexOf(':');
    if (colon <= 0) return;
    const prop = text.slice(0, colon).trim().toLowerCase();
    if (!/^(?:--|-?[a-z])[\w-]*$/.test(prop)) return;
    let value = text.slice(colon + 1);
    const valueLead = value.length - value.trimStart().length;
    value = value.trim();
    const bang = /!\s*important\s*$/i.exec(value);
    if (bang) value = value.slice(0, bang.index).trim();
    this.sink.declaration(prop, value, bang !== null, this.base + at, this.base + at + colon + 1 + valueLead);
  }
}

/** Reads a style sheet (a `<style>` element's text); offsets are reported as `base` + the index in `css`. */
export function readStylesheet(css: string, base: number, sink: CssSink): void {
  new Reader(css, base, sink).rules(0, false);
}

/** Reads a declaration list (a `style=""` attribute's value). */
export function readDeclarations(css: string, base: number, sink: CssSink): void {
  new Reader(css, base, sink).declarations(1);
}
