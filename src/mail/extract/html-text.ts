// HTML → lines of text and a list of links, in one linear pass with no HTML parser and no backtracking
// regexes. Block elements end a line, <head>/<style>/<script>/<title> are dropped, entities are decoded.
//
// Tables: a row is one line and its cells are separated by a tab ("1\t240.00 EUR"; empty cells are dropped), so
// neither a reader nor a number pattern glues "1" and "240.00" into "1 240.00". A cell's own line breaks (<br>, a
// <p> around each line) are spaces in that line ("Widget<br>blue" → "Widget blue"). A layout row is left as lines: a
// row with one cell, a row with a cell of more than MAX_CELL_LINES lines (or with a cell of several lines when the
// row is longer than MAX_ROW_CHARS), and every row that holds a nested table (each of the nested table's rows is
// then a line of its own).
// Work is bounded by LIMITS (raw characters scanned, text kept, links kept, element depth).

import type { Doc, Line, LinkRef } from './doc.ts';
import { LIMITS, newLine, normLine } from './doc.ts';
import { decodeEntities } from './entities.ts';
import type { Attrs, Tag } from './html-tag.ts';
import { BLOCK, CELL, EMPH_TAGS, readTag, SKIP, styleFlags, VOID } from './html-tag.ts';

/** Separates the cells of a table row in the rendered text. */
export const CELL_SEP = '\t';
const MAX_STACK = 4096;
/** Characters of one text node rendered (the rest of a huge text node is skipped). */
const MAX_TEXT_NODE = 65_536;
/** A cell with more lines than this is page layout: its row is not joined into one line. */
const MAX_CELL_LINES = 3;
/** A row longer than this is not joined into one line either. */
const MAX_ROW_CHARS = 600;
/** Fragments a row holds back at most (a wider row is not a line a reader could use). */
const MAX_ROW_FRAGMENTS = 256;

interface Frame {
  name: string;
  emph: boolean;
  hidden: boolean;
  quote: 0 | 1 | 2;
}

/** One finished run of text (a line, or a line of a table cell), with what a Line is built from. */
interface Fragment {
  text: string;
  /** Alphanumeric characters in emphasised / all text. */
  emphChars: number;
  allChars: number;
  hidden: boolean;
  quote: 0 | 1 | 2;
  emphParts: string[];
  outside: string;
}

/** Something whose `line` is fixed once the row it was found in is placed (an open link, a finished link). */
interface LineRef {
  line: number;
}

/** A table row being read: its fragments wait here until the row ends and its shape is known. */
interface Row {
  /** Number of <table> elements open around the row. */
  tableDepth: number;
  /** Index of the current cell (−1 before the first). */
  cell: number;
  /** Page layout: the row's lines go out as they come (it holds a nested table, or a cell too tall for a line). */
  layout: boolean;
  frags: Array<{ frag: Fragment; cell: number }>;
  /** Characters held; lines held of the current cell. */
  chars: number;
  cellLines: number;
  /** Links (and an open link) that start in fragment `frag` of this row. */
  refs: Array<{ ref: LineRef; frag: number }>;
}

interface OpenLink extends LineRef {
  href: string;
  text: string;
  alt: string;
  imgs: number;
  pixel: boolean;
  before: string;
  hidden: boolean;
  row: Row | null;
  frag: number;
}

/** Renders HTML to plain text: block elements on their own lines, a table row per line with tab-separated cells. */
export function htmlToText(html: string): string {
  return htmlToDoc(html)
    .lines.map((l) => l.text)
    .join('\n');
}

export function htmlToDoc(htmlIn: string): Doc {
  const html = htmlIn.length > LIMITS.htmlRaw ? htmlIn.slice(0, LIMITS.htmlRaw) : htmlIn;
  const r = new Renderer();
  scan(html, r);
  return r.finish();
}

/** The tokenizer: text runs, start and end tags; comments, declarations and skipped elements are stepped over. */
function scan(html: string, r: Renderer): void {
  const n = html.length;
  let i = 0;
  while (i < n && !r.done) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      r.text(html.slice(i, i + MAX_TEXT_NODE));
      break;
    }
    if (lt > i) r.text(html.slice(i, Math.min(lt, i + MAX_TEXT_NODE)));
    i = lt;
    const c1 = html.charCodeAt(i + 1);
    // comments and declarations
    if (c1 === 33 /* ! */) {
      const e = html.startsWith('<!--', i) ? html.indexOf('-->', i + 4) : html.indexOf('>', i + 2);
      i = e < 0 ? n : e + (html.startsWith('<!--', i) ? 3 : 1);
      continue;
    }
    if (c1 === 63 /* ? */) {
      const e = html.indexOf('>', i + 2);
      i = e < 0 ? n : e + 1;
      continue;
    }
    const tag = readTag(html, i);
    if (!tag) {
      // not a tag: a literal '<'
      r.text('<');
      i = i + 1;
      continue;
    }
    i = tag.end;
    if (tag.closing) {
      r.close(tag.name);
    } else if (SKIP.has(tag.name)) {
      const re = new RegExp(`</${tag.name}\\s*>`, 'ig');
      re.lastIndex = i;
      const m = re.exec(html);
      if (m) i = m.index + m[0].length;
      else if (tag.name !== 'head') i = n;
    } else {
      r.open(tag);
    }
  }
}

class Renderer {
  readonly lines: Line[] = [];
  readonly links: LinkRef[] = [];
  done = false;
  private readonly stack: Frame[] = [];
  private emphDepth = 0;
  private hiddenDepth = 0;
  private quotePlain = 0;
  private quoteCite = 0;
  private preDepth = 0;
  private tableDepth = 0;
  private totalText = 0;
  /** Open table rows, innermost last. Only the innermost one can be holding fragments back. */
  private readonly rows: Row[] = [];

  // the current line
  private cur = '';
  private curEmph = 0;
  private curAll = 0;
  private curHidden = true;
  private curQuote: 0 | 1 | 2 = 0;
  private curEmphParts: string[] = [];
  private curOut = '';
  private emphBuf = '';

  private link: OpenLink | null = null;

  finish(): Doc {
    this.endLink();
    this.flush();
    this.endRows(0);
    return { lines: this.lines, links: this.links };
  }

  // ---- text

  text(raw: string): void {
    if (raw === '') return;
    const t = decodeEntities(raw);
    if (this.preDepth > 0 && t.indexOf('\n') >= 0) {
      const parts = t.split('\n');
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) this.flush();
        this.append(parts[i] ?? '');
      }
      return;
    }
    this.append(t.replace(/[\r\n\t\f]+/g, ' '));
  }

  private append(t: string): void {
    if (t === '') return;
    this.cur += t;
    this.curOut += this.link ? ' ' : t;
    if (this.emphDepth > 0) {
      if (this.emphBuf.length < 200) this.emphBuf += t;
    } else if (this.emphBuf !== '' && /\S/.test(t)) {
      this.curEmphParts.push(this.emphBuf);
      this.emphBuf = '';
    }
    const alnum = alnumCount(t);
    if (alnum > 0) {
      this.curAll += alnum;
      if (this.emphDepth > 0) this.curEmph += alnum;
      if (this.hiddenDepth === 0) this.curHidden = false;
      const q: 0 | 1 | 2 = this.quoteCite > 0 ? 2 : this.quotePlain > 0 ? 1 : 0;
      if (q > this.curQuote) this.curQuote = q;
    }
    if (this.link && this.link.text.length < 300) this.link.text += t;
    if (this.cur.length > LIMITS.line * 2) this.flush();
  }

  /** Ends the current line (or the current line of a table cell). */
  private flush(): void {
    if (this.emphBuf !== '') {
      this.curEmphParts.push(this.emphBuf);
      this.emphBuf = '';
    }
    const text = normLine(this.cur);
    if (text !== '') {
      this.place({
        text,
        emphChars: this.curEmph,
        allChars: this.curAll,
        hidden: this.curHidden,
        quote: this.curQuote,
        emphParts: this.curEmphParts,
        outside: this.curOut,
      });
    }
    this.cur = '';
    this.curEmph = 0;
    this.curAll = 0;
    this.curHidden = true;
    this.curQuote = 0;
    this.curEmphParts = [];
    this.curOut = '';
  }

  /** A finished fragment goes into the row that is holding its fragments back, or out as a line. */
  private place(frag: Fragment): void {
    const row = this.heldRow();
    if (!row) {
      this.pushLine([frag]);
      return;
    }
    row.frags.push({ frag, cell: row.cell });
    row.chars += frag.text.length + 1;
    // a row that can no longer be one line goes out as it comes (and the line limit stops a huge one early)
    if (++row.cellLines > MAX_CELL_LINES || row.chars > LIMITS.line * 2 || row.frags.length > MAX_ROW_FRAGMENTS) {
      row.layout = true;
      this.emitEach(row);
    }
  }

  /** Adds one line made of fragments: those of one cell are joined by a space, cells (`cellOf`) by CELL_SEP. */
  private pushLine(frags: Fragment[], cellOf?: number[]): void {
    if (frags.length === 0) return;
    let text = frags[0]!.text;
    for (let k = 1; k < frags.length; k++) text += (cellOf && cellOf[k] !== cellOf[k - 1] ? CELL_SEP : ' ') + frags[k]!.text;
    if (this.lines.length >= LIMITS.lines || this.totalText >= LIMITS.htmlText) {
      this.done = true;
      return;
    }
    const l = newLine(text, 'html');
    let emph = 0;
    let all = 0;
    const parts: string[] = [];
    let out = '';
    for (const f of frags) {
      emph += f.emphChars;
      all += f.allChars;
      parts.push(...f.emphParts);
      out += (out === '' ? '' : ' ') + f.outside;
      if (f.quote > l.quoteHint) l.quoteHint = f.quote;
    }
    l.hidden = frags.every((f) => f.hidden);
    l.emph = all > 0 && emph >= all * 0.6;
    if (out.indexOf('://') >= 0) l.outsideLinks = normLine(out);
    if (parts.length > 0 && !l.emph) {
      const kept = parts.map(normLine).filter((p) => p !== '');
      if (kept.length > 0) l.emphParts = kept.slice(0, 16);
    }
    this.lines.push(l);
    this.totalText += text.length;
  }

  // ---- tags

  open(tag: Tag): void {
    const { name, attrs } = tag;
    if (name === 'br') {
      this.flush();
      return;
    }
    if (name === 'tr') this.openRow();
    else if (name === 'table') this.openTable();
    else if (BLOCK.has(name)) this.flush();
    if (CELL.has(name)) this.openCell();
    if (name === 'a') this.startLink(attrs);
    if (name === 'img' && this.link) this.linkImage(attrs);
    if (VOID.has(name) || tag.selfClose) return;
    this.push(frameOf(name, attrs));
  }

  close(name: string): void {
    if (name === 'a') this.endLink();
    this.popTo(name);
    if (BLOCK.has(name)) this.flush();
    // a </table> (or an end tag that closed one implicitly) ends the rows inside it
    this.endRows(this.tableDepth + 1);
    if (name === 'tr') this.endRows(this.tableDepth);
  }

  private push(f: Frame): void {
    if (this.stack.length >= MAX_STACK) return;
    this.stack.push(f);
    this.count(f, 1);
  }

  private popTo(name: string): boolean {
    const lim = Math.max(0, this.stack.length - 64);
    for (let k = this.stack.length - 1; k >= lim; k--) {
      if (this.stack[k]!.name !== name) continue;
      while (this.stack.length > k) this.count(this.stack.pop()!, -1);
      return true;
    }
    return false;
  }

  private count(f: Frame, d: 1 | -1): void {
    if (f.emph) this.emphDepth += d;
    if (f.hidden) this.hiddenDepth += d;
    if (f.quote === 1) this.quotePlain += d;
    if (f.quote === 2) this.quoteCite += d;
    if (f.name === 'pre') this.preDepth += d;
    if (f.name === 'table') this.tableDepth += d;
  }

  // ---- tables

  /** The innermost row, when it is holding its fragments back. */
  private heldRow(): Row | null {
    const row = this.rows.at(-1);
    return row && !row.layout ? row : null;
  }

  private openTable(): void {
    this.flush();
    // a table inside a row makes the rows around it page layout (only the innermost one can still be holding
    // fragments: the others already hold a table); what it held goes out now, in order
    const row = this.heldRow();
    if (row) {
      row.layout = true;
      this.emitEach(row);
    }
  }

  private openRow(): void {
    // an unclosed row of this table ends where the next one starts
    this.endRows(this.tableDepth);
    this.flush();
    this.rows.push(newRow(this.tableDepth));
  }

  private openCell(): void {
    this.flush();
    let row = this.rows.at(-1);
    if (!row || row.tableDepth < this.tableDepth) {
      // a cell with no <tr> around it (sloppy markup): it starts a row of its own
      row = newRow(this.tableDepth);
      this.rows.push(row);
    }
    row.cell++;
    row.cellLines = 0;
  }

  /** Ends every open row at table depth `depth` or deeper. */
  private endRows(depth: number): void {
    while (this.rows.length > 0 && this.rows.at(-1)!.tableDepth >= depth) {
      this.flush();
      const row = this.rows.pop()!;
      if (row.layout) continue;
      if (isDataRow(row)) this.emitJoined(row);
      else this.emitEach(row);
    }
  }

  /** The row as one line: its cells separated by CELL_SEP. */
  private emitJoined(row: Row): void {
    const at = this.lines.length;
    this.pushLine(
      row.frags.map((f) => f.frag),
      row.frags.map((f) => f.cell),
    );
    for (const r of row.refs) r.ref.line = at;
    this.release(row);
  }

  /** The row's fragments as lines of their own. */
  private emitEach(row: Row): void {
    const first = this.lines.length;
    const at: number[] = [];
    for (const f of row.frags) {
      at.push(this.lines.length);
      this.pushLine([f.frag]);
    }
    for (const r of row.refs) r.ref.line = at[r.frag] ?? Math.max(first, this.lines.length);
    row.frags = [];
    this.release(row);
  }

  /** After a row went out, an open link that started in it points at real lines from now on. */
  private release(row: Row): void {
    row.refs = [];
    if (this.link?.row === row) this.link.row = null;
  }

  // ---- links

  private startLink(attrs: Attrs): void {
    this.endLink();
    const href = attrs['href'];
    if (href === undefined || this.links.length >= LIMITS.links) return;
    const row = this.heldRow();
    this.link = {
      href: decodeEntities(href)
        .replace(/[\t\n\r]/g, '')
        .trim(),
      text: '',
      alt: '',
      imgs: 0,
      pixel: false,
      line: this.lines.length,
      before: normLine(this.cur.length > 400 ? this.cur.slice(-400) : this.cur),
      hidden: this.hiddenDepth > 0,
      row,
      frag: row ? row.frags.length : 0,
    };
    if (row) row.refs.push({ ref: this.link, frag: this.link.frag });
  }

  private linkImage(attrs: Attrs): void {
    const link = this.link!;
    link.imgs++;
    const alt = attrs['alt'];
    if (alt) link.alt += (link.alt ? ' ' : '') + decodeEntities(alt);
    const w = parseInt(attrs['width'] ?? '', 10);
    const h = parseInt(attrs['height'] ?? '', 10);
    if ((w > 0 && w <= 2) || (h > 0 && h <= 2)) link.pixel = true;
  }

  private endLink(): void {
    const link = this.link;
    if (!link) return;
    this.link = null;
    if (this.links.length >= LIMITS.links) return;
    const text = normLine(link.text);
    const ref: LinkRef = {
      href: link.href,
      text: text !== '' ? text : normLine(link.alt),
      imageOnly: text === '' && link.imgs > 0,
      pixel: link.pixel,
      line: link.line,
      before: link.before,
      after: '',
      source: 'html',
      hidden: link.hidden,
    };
    this.links.push(ref);
    // still inside the row it started in: its line is known when that row goes out
    if (link.row) link.row.refs.push({ ref, frag: link.frag });
  }
}

/**
 * A row read as data: two or more cells with text, each of one line, or each of at most MAX_CELL_LINES lines (a row
 * with a taller cell was let go in `place`) in a row of at most MAX_ROW_CHARS characters.
 */
function isDataRow(row: Row): boolean {
  if (row.frags.length < 2) return false;
  const cells = new Set<number>();
  for (const f of row.frags) cells.add(f.cell);
  if (cells.size < 2) return false;
  // cells of one line each are a row as written; cells of a few lines each are joined while the row stays short
  return cells.size === row.frags.length || row.chars <= MAX_ROW_CHARS;
}

function newRow(tableDepth: number): Row {
  return { tableDepth, cell: -1, layout: false, frags: [], refs: [], chars: 0, cellLines: 0 };
}

function frameOf(name: string, attrs: Attrs): Frame {
  const st = attrs['style'] ? styleFlags(attrs['style']) : { hidden: false, emph: false };
  const cls = (attrs['class'] ?? '').toLowerCase();
  const id = (attrs['id'] ?? '').toLowerCase();
  let quote: 0 | 1 | 2 = 0;
  if (name === 'blockquote') {
    quote = /cite/i.test(attrs['type'] ?? '') || /quote/.test(cls) ? 2 : 1;
  } else if (/(?:^|\s)(?:x_)?yahoo_quoted/.test(cls) || id === 'divrplyfwdmsg' || id === 'x_divrplyfwdmsg') {
    quote = 2;
  }
  return {
    name,
    emph: EMPH_TAGS.has(name) || st.emph,
    hidden: st.hidden || 'hidden' in attrs || (attrs['aria-hidden'] === 'true' && /preheader/.test(cls)),
    quote,
  };
}

/** Letters and digits (any non-ASCII character counts) in the first 200 characters of `t`. */
function alnumCount(t: string): number {
  let alnum = 0;
  for (let i = 0; i < t.length && i < 200; i++) {
    const c = t.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127) alnum++;
  }
  return alnum;
}
