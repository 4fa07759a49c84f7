// The tag reader and element tables used by html-text.ts: a hand-written scanner (no regex
// backtracking), attributes limited to the few the renderer needs, attribute values bounded.

export const BLOCK = new Set([
  'p',
  'div',
  'br',
  'tr',
  'li',
  'ul',
  'ol',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'center',
  'pre',
  'dl',
  'dt',
  'dd',
  'form',
  'fieldset',
  'address',
  'figure',
  'figcaption',
  'main',
  'nav',
  'aside',
  'caption',
  'body',
  'html',
  'option',
  'details',
  'summary',
  'legend',
  'textarea',
  'select',
  'button',
  'iframe',
  'frame',
  'video',
  'audio',
  'canvas',
]);
export const CELL = new Set(['td', 'th']);
export const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'basefont',
  'frame',
  'keygen',
  'image',
]);
export const SKIP = new Set(['script', 'style', 'title', 'noscript', 'template', 'xml', 'svg', 'math', 'object', 'head']);
export const EMPH_TAGS = new Set(['b', 'strong', 'h1', 'h2', 'h3', 'big']);
const WANTED_ATTRS = new Set(['href', 'style', 'alt', 'width', 'height', 'class', 'id', 'type', 'hidden', 'aria-hidden']);
const MAX_ATTR_VALUE = 16_384;

export interface Attrs {
  [name: string]: string;
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/** A parsed start or end tag. */
export interface Tag {
  name: string;
  closing: boolean;
  attrs: Attrs;
  selfClose: boolean;
  /** Index just past the tag's '>'. */
  end: number;
}

/** Reads the tag that starts at html[i] === '<'; null when it is not a tag (a literal '<'). */
export function readTag(html: string, i: number): Tag | null {
  const n = html.length;
  const c1 = html.charCodeAt(i + 1);
  const closing = c1 === 47; /* / */
  let j = i + (closing ? 2 : 1);
  if (!isNameStart(html.charCodeAt(j))) return null;
  const ns = j;
  while (j < n) {
    const c = html.charCodeAt(j);
    if (isSpace(c) || c === 47 || c === 62) break;
    j++;
  }
  const name = html.slice(ns, j).toLowerCase();
  // attributes
  const attrs: Attrs = {};
  let selfClose = false;
  while (j < n) {
    let c = html.charCodeAt(j);
    while (j < n && (isSpace(c) || c === 47)) {
      if (c === 47) selfClose = true;
      c = html.charCodeAt(++j);
    }
    if (j >= n || c === 62) break;
    selfClose = false;
    const as = j;
    while (j < n) {
      c = html.charCodeAt(j);
      if (isSpace(c) || c === 61 || c === 62 || c === 47) break;
      j++;
    }
    if (j === as) {
      j++;
      continue;
    }
    const an = html.slice(as, j).toLowerCase();
    while (j < n && isSpace(html.charCodeAt(j))) j++;
    let value = '';
    if (html.charCodeAt(j) === 61 /* = */) {
      j++;
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      if (q === 34 || q === 39) {
        const e = html.indexOf(q === 34 ? '"' : "'", j + 1);
        const end = e < 0 ? n : e;
        value = html.slice(j + 1, Math.min(end, j + 1 + MAX_ATTR_VALUE));
        j = end + 1;
      } else {
        const vs = j;
        while (j < n) {
          const c2 = html.charCodeAt(j);
          if (isSpace(c2) || c2 === 62) break;
          j++;
        }
        value = html.slice(vs, Math.min(j, vs + MAX_ATTR_VALUE));
      }
    }
    if (WANTED_ATTRS.has(an) && !(an in attrs)) attrs[an] = value;
  }
  return { name, closing, attrs, selfClose, end: j + 1 };
}

/** Whether an inline style hides the element or makes its text stand out (bold, large, letter-spaced). */
export function styleFlags(style: string): { hidden: boolean; emph: boolean } {
  const s = style.toLowerCase();
  const hidden =
    /display\s*:\s*none/.test(s) ||
    /visibility\s*:\s*hidden/.test(s) ||
    /(?:^|;|\s)max-height\s*:\s*0(?![.\d])/.test(s) ||
    /(?:^|;|\s)font-size\s*:\s*0(?![.\d])/.test(s) ||
    /opacity\s*:\s*0(?![.\d])/.test(s);
  let emph = /font-weight\s*:\s*(?:bold|bolder|[6-9]00)/.test(s) || /letter-spacing\s*:\s*(?:[1-9]|0?\.[3-9])/.test(s);
  const fs = /font-size\s*:\s*(\d+(?:\.\d+)?)\s*(px|pt|em|rem)/.exec(s);
  if (fs) {
    const n = parseFloat(fs[1] ?? '0');
    const unit = fs[2];
    const px = unit === 'pt' ? n * 1.333 : unit === 'em' || unit === 'rem' ? n * 16 : n;
    if (px >= 20) emph = true;
  }
  return { hidden, emph };
}
