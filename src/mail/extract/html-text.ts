// HTML → lines of text and a list of links, in one linear pass with no HTML parser and no backtracking
// regexes. Block elements end a line, table cells in a row are joined with a space (so digits laid out
// one per cell read "6 1 5 0 2 7"), <head>/<style>/<script>/<title> are dropped, entities are decoded.
// Work is bounded by LIMITS (raw characters scanned, text kept, links kept, element depth).

import type { Doc, Line, LinkRef } from './doc.ts';
import { LIMITS, newLine, normLine } from './doc.ts';
import { decodeEntities } from './entities.ts';
import { BLOCK, CELL, EMPH_TAGS, readTag, SKIP, styleFlags, VOID } from './html-tag.ts';

const MAX_STACK = 4096;
/** Characters of one text node rendered (the rest of a huge text node is skipped). */
const MAX_TEXT_NODE = 65_536;

interface Frame {
  name: string;
  emph: boolean;
  hidden: boolean;
  quote: 0 | 1 | 2;
}

/** Renders HTML to plain text (block elements on their own lines). */
export function htmlToText(html: string): string {
  return htmlToDoc(html)
    .lines.map((l) => l.text)
    .join('\n');
}

export function htmlToDoc(htmlIn: string): Doc {
  const html = htmlIn.length > LIMITS.htmlRaw ? htmlIn.slice(0, LIMITS.htmlRaw) : htmlIn;
  const n = html.length;
  const lines: Line[] = [];
  const links: LinkRef[] = [];
  const stack: Frame[] = [];
  let emphDepth = 0;
  let hiddenDepth = 0;
  let quotePlain = 0;
  let quoteCite = 0;
  let preDepth = 0;
  let totalText = 0;
  let done = false;

  // current line
  let cur = '';
  let curEmph = 0;
  let curAll = 0;
  let curHidden = true;
  let curQuote: 0 | 1 | 2 = 0;
  let curEmphParts: string[] = [];
  let curOut = '';
  let emphBuf = '';

  // current link
  let link: {
    href: string;
    text: string;
    alt: string;
    imgs: number;
    pixel: boolean;
    line: number;
    before: string;
    hidden: boolean;
  } | null = null;

  const flush = (): void => {
    if (emphBuf !== '') {
      curEmphParts.push(emphBuf);
      emphBuf = '';
    }
    const text = normLine(cur);
    if (text !== '') {
      if (lines.length < LIMITS.lines && totalText < LIMITS.htmlText) {
        const l = newLine(text, 'html');
        l.emph = curAll > 0 && curEmph >= curAll * 0.6;
        l.hidden = curHidden;
        l.quoteHint = curQuote;
        if (curOut.indexOf('://') >= 0) l.outsideLinks = normLine(curOut);
        if (curEmphParts.length > 0 && !l.emph) {
          const parts = curEmphParts.map(normLine).filter((p) => p !== '');
          if (parts.length > 0) l.emphParts = parts.slice(0, 16);
        }
        lines.push(l);
        totalText += text.length;
      } else done = true;
    }
    cur = '';
    curEmph = 0;
    curAll = 0;
    curHidden = true;
    curQuote = 0;
    curEmphParts = [];
    curOut = '';
  };

  const addText = (raw: string): void => {
    if (raw === '') return;
    let t = decodeEntities(raw);
    if (preDepth > 0 && t.indexOf('\n') >= 0) {
      const parts = t.split('\n');
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) flush();
        addText2(parts[i] ?? '');
      }
      return;
    }
    t = t.replace(/[\r\n\t\f]+/g, ' ');
    addText2(t);
  };
  const addText2 = (t: string): void => {
    if (t === '') return;
    cur += t;
    curOut += link ? ' ' : t;
    if (emphDepth > 0) {
      if (emphBuf.length < 200) emphBuf += t;
    } else if (emphBuf !== '' && /\S/.test(t)) {
      curEmphParts.push(emphBuf);
      emphBuf = '';
    }
    let alnum = 0;
    for (let i = 0; i < t.length && i < 200; i++) {
      const c = t.charCodeAt(i);
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127) alnum++;
    }
    if (alnum > 0) {
      curAll += alnum;
      if (emphDepth > 0) curEmph += alnum;
      if (hiddenDepth === 0) curHidden = false;
      const q: 0 | 1 | 2 = quoteCite > 0 ? 2 : quotePlain > 0 ? 1 : 0;
      if (q > curQuote) curQuote = q;
    }
    if (link && link.text.length < 300) link.text += t;
    if (cur.length > LIMITS.line * 2) flush();
  };

  const endLink = (): void => {
    if (!link) return;
    if (links.length < LIMITS.links) {
      const text = normLine(link.text);
      links.push({
        href: link.href,
        text: text !== '' ? text : normLine(link.alt),
        imageOnly: text === '' && link.imgs > 0,
        pixel: link.pixel,
        line: link.line,
        before: link.before,
        after: '',
        source: 'html',
        hidden: link.hidden,
      });
    }
    link = null;
  };

  const push = (f: Frame): void => {
    if (stack.length >= MAX_STACK) return;
    stack.push(f);
    if (f.emph) emphDepth++;
    if (f.hidden) hiddenDepth++;
    if (f.quote === 1) quotePlain++;
    if (f.quote === 2) quoteCite++;
    if (f.name === 'pre') preDepth++;
  };
  const popTo = (name: string): boolean => {
    const lim = Math.max(0, stack.length - 64);
    for (let k = stack.length - 1; k >= lim; k--) {
      if (stack[k]!.name === name) {
        while (stack.length > k) {
          const f = stack.pop()!;
          if (f.emph) emphDepth--;
          if (f.hidden) hiddenDepth--;
          if (f.quote === 1) quotePlain--;
          if (f.quote === 2) quoteCite--;
          if (f.name === 'pre') preDepth--;
        }
        return true;
      }
    }
    return false;
  };

  let i = 0;
  while (i < n && !done) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      addText(html.slice(i, i + MAX_TEXT_NODE));
      break;
    }
    if (lt > i) addText(html.slice(i, Math.min(lt, i + MAX_TEXT_NODE)));
    i = lt;
    const c1 = html.charCodeAt(i + 1);
    // comments and declarations
    if (c1 === 33 /* ! */) {
      if (html.startsWith('<!--', i)) {
        const e = html.indexOf('-->', i + 4);
        i = e < 0 ? n : e + 3;
      } else {
        const e = html.indexOf('>', i + 2);
        i = e < 0 ? n : e + 1;
      }
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
      addText('<');
      i = i + 1;
      continue;
    }
    const { name, closing, attrs, selfClose } = tag;
    i = tag.end;

    if (closing) {
      if (name === 'a') endLink();
      if (popTo(name) || BLOCK.has(name) || CELL.has(name)) {
        if (BLOCK.has(name)) flush();
      }
      continue;
    }

    if (SKIP.has(name)) {
      const re = new RegExp(`</${name}\\s*>`, 'ig');
      re.lastIndex = i;
      const m = re.exec(html);
      if (m) i = m.index + m[0].length;
      else if (name !== 'head') i = n;
      continue;
    }

    if (name === 'br') {
      flush();
      continue;
    }
    if (BLOCK.has(name)) flush();
    if (CELL.has(name) && cur !== '') {
      cur += ' ';
      curOut += ' ';
    }

    if (name === 'a') {
      endLink();
      const href = attrs['href'];
      if (href !== undefined && links.length < LIMITS.links) {
        link = {
          href: decodeEntities(href)
            .replace(/[\t\n\r]/g, '')
            .trim(),
          text: '',
          alt: '',
          imgs: 0,
          pixel: false,
          line: lines.length,
          before: normLine(cur.length > 400 ? cur.slice(-400) : cur),
          hidden: hiddenDepth > 0,
        };
      }
    }
    if (name === 'img' && link) {
      link.imgs++;
      const alt = attrs['alt'];
      if (alt) link.alt += (link.alt ? ' ' : '') + decodeEntities(alt);
      const w = parseInt(attrs['width'] ?? '', 10);
      const h = parseInt(attrs['height'] ?? '', 10);
      if ((w > 0 && w <= 2) || (h > 0 && h <= 2)) link.pixel = true;
    }

    if (VOID.has(name) || selfClose) continue;

    const st = attrs['style'] ? styleFlags(attrs['style']) : { hidden: false, emph: false };
    const cls = (attrs['class'] ?? '').toLowerCase();
    const id = (attrs['id'] ?? '').toLowerCase();
    let quote: 0 | 1 | 2 = 0;
    if (name === 'blockquote') {
      quote = /cite/i.test(attrs['type'] ?? '') || /quote/.test(cls) ? 2 : 1;
    } else if (/(?:^|\s)(?:x_)?yahoo_quoted/.test(cls) || id === 'divrplyfwdmsg' || id === 'x_divrplyfwdmsg') {
      quote = 2;
    }
    push({
      name,
      emph: EMPH_TAGS.has(name) || st.emph,
      hidden: st.hidden || 'hidden' in attrs || (attrs['aria-hidden'] === 'true' && /preheader/.test(cls)),
      quote,
    });
  }
  endLink();
  flush();
  return { lines, links };
}
