// The HTML of a message as a tree with source positions, for the static checks (html, a11y, text). parse5 parses it
// the way a browser would (WHATWG), reports the parse errors, and records each element's line and column in the
// decoded HTML, so a finding points at the line the console's source view shows. Pure: no I/O; the engine runs it
// in a sandbox worker (src/checks/engine.ts), never on the thread that serves SMTP and HTTP.
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import type { FindingLocation } from './types.ts';

type Node = DefaultTreeAdapterMap['node'];
export type Element = DefaultTreeAdapterMap['element'];

export interface ParseIssue {
  code: string;
  line: number;
  column: number;
}

export interface HtmlDoc {
  root: DefaultTreeAdapterMap['document'];
  /** Every element in document order. */
  elements: Element[];
  errors: ParseIssue[];
}

/** Parse errors kept at most (a broken mail can produce one per character). */
const MAX_ERRORS = 2_000;

/**
 * The last document parsed in this thread (a sandbox worker, or a bench): the html, a11y and text checks of one message
 * share one parse when they run in the same thread. Checks only read the tree. One entry, replaced by the next parse.
 */
let last: { html: string; doc: HtmlDoc } | null = null;

export function parseHtml(html: string): HtmlDoc {
  if (last !== null && last.html === html) return last.doc;
  const doc = parseFresh(html);
  last = { html, doc };
  return doc;
}

function parseFresh(html: string): HtmlDoc {
  const errors: ParseIssue[] = [];
  const root = parse(html, {
    sourceCodeLocationInfo: true,
    onParseError: (e) => {
      if (errors.length < MAX_ERRORS) errors.push({ code: e.code, line: e.startLine, column: e.startCol });
    },
  });
  const elements: Element[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if ('tagName' in n) elements.push(n);
    const kids = 'childNodes' in n ? n.childNodes : undefined;
    if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    // <template> content is a fragment of its own.
    if ('content' in n && n.content) stack.push(n.content as unknown as Node);
  }
  return { root, elements, errors };
}

export function attr(el: Element, name: string): string | undefined {
  for (const a of el.attrs) if (a.name === name) return a.value;
  return undefined;
}

/** Where an element (or one of its attributes) starts in the HTML: 1-based line and column. */
export function locate(el: Element, attribute?: string): FindingLocation {
  const loc = el.sourceCodeLocation;
  const at = (attribute && loc?.attrs?.[attribute]) || loc;
  const selector = selectorOf(el);
  if (!at) return { part: 'html', selector };
  return { part: 'html', line: at.startLine, column: at.startCol, selector };
}

/** A short selector naming the element and its parent: `p#intro > img`, `td.cell > a`. */
export function selectorOf(el: Element): string {
  const parent = el.parentNode && 'tagName' in el.parentNode ? (el.parentNode as Element) : null;
  return parent && parent.tagName !== 'html' ? `${short(parent)} > ${short(el)}` : short(el);
}

function short(el: Element): string {
  const id = attr(el, 'id');
  if (id) return `${el.tagName}#${id.slice(0, 60)}`;
  const cls = attr(el, 'class')?.trim().split(/\s+/)[0];
  return cls ? `${el.tagName}.${cls.slice(0, 40)}` : el.tagName;
}

/** The text inside an element (collapsed white space, bounded). */
export function textOf(el: Node, max = 2_000): string {
  let out = '';
  const stack: Node[] = [el];
  while (stack.length > 0 && out.length < max) {
    const n = stack.pop()!;
    // Text nodes are joined with a space: block boundaries (</p><p>) must not glue words together.
    if (n.nodeName === '#text') out += ` ${(n as DefaultTreeAdapterMap['textNode']).value}`;
    else if ('tagName' in n && (n.tagName === 'script' || n.tagName === 'style')) continue;
    else if ('childNodes' in n) for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push(n.childNodes[i]!);
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** The `alt` of the images inside an element (what a screen reader reads for an image link). */
export function imageAltsOf(el: Element): string {
  const alts: string[] = [];
  const stack: Node[] = [el];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if ('tagName' in n && n.tagName === 'img') alts.push(attr(n, 'alt') ?? '');
    if ('childNodes' in n) for (const c of n.childNodes) stack.push(c);
  }
  return alts.join(' ').trim();
}

/** Declarations of an inline `style` attribute, property names lower-cased (last one wins). */
export function styleOf(el: Element): Map<string, string> {
  const m = new Map<string, string>();
  const s = attr(el, 'style');
  if (!s) return m;
  for (const decl of s.split(';')) {
    const i = decl.indexOf(':');
    if (i < 0) continue;
    const k = decl.slice(0, i).trim().toLowerCase();
    const v = decl
      .slice(i + 1)
      .replace(/!important/i, '')
      .trim();
    if (k) m.set(k, v);
  }
  return m;
}

/** A bounded excerpt for a finding's evidence. */
export function excerpt(s: string, max = 120): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The source text of an element's start tag (bounded), for evidence. */
export function startTagOf(html: string, el: Element): string {
  const loc = el.sourceCodeLocation?.startTag ?? el.sourceCodeLocation;
  if (!loc) return `<${el.tagName}>`;
  return excerpt(html.slice(loc.startOffset, Math.min(loc.endOffset, loc.startOffset + 400)));
}
