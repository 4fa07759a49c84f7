// Finds the caniemail features an HTML mail uses, each occurrence with its offset in the HTML source. Elements,
// attributes, image formats, comments and the doctype come from one htmlparser2 pass; the CSS of `style=""`
// attributes and `<style>` elements goes through the bounded reader in css.ts. The mapping to caniemail slugs is
// ours (caniemail's own matcher is not used); a slug that is not in the data is ignored by the caller.
import { Parser } from 'htmlparser2';
import type { CssSink } from './css.ts';
import { readDeclarations, readStylesheet } from './css.ts';

export interface Occurrence {
  slug: string;
  /** Offset in the HTML source (UTF-16 index). */
  offset: number;
  /** What was found, short (`display:flex`, `<video>`, `:hover`). */
  evidence: string;
  /** The style rule's selector, or the element's tag. */
  selector?: string;
}

export interface Detection {
  occurrences: Occurrence[];
  /** Elements Mailpit's score divides by: those inside <body> (all but html/head/meta when there is no body). */
  nodes: number;
}

const ELEMENTS: Record<string, string> = {
  abbr: 'html-abbr',
  acronym: 'html-acronym',
  address: 'html-address',
  audio: 'html-audio',
  base: 'html-base',
  bdi: 'html-bdi',
  blockquote: 'html-blockquote',
  body: 'html-body',
  code: 'html-code',
  del: 'html-del',
  dfn: 'html-dfn',
  dialog: 'html-dialog',
  div: 'html-div',
  form: 'html-form',
  hr: 'html-hr',
  img: 'html-img',
  link: 'html-link',
  marquee: 'html-marquee',
  meter: 'html-meter',
  object: 'html-object',
  p: 'html-p',
  picture: 'html-picture',
  pre: 'html-pre',
  progress: 'html-progress',
  rp: 'html-rp',
  rt: 'html-rt',
  ruby: 'html-ruby',
  select: 'html-select',
  small: 'html-small',
  span: 'html-span',
  strike: 'html-strike',
  strong: 'html-strong',
  style: 'html-style',
  svg: 'html-svg',
  table: 'html-table',
  textarea: 'html-textarea',
  video: 'html-video',
  wbr: 'html-wbr',
  map: 'html-image-maps',
  embed: 'html-object',
};
for (const h of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) ELEMENTS[h] = 'html-h1-h6';
for (const l of ['ul', 'ol', 'dl']) ELEMENTS[l] = 'html-lists';
for (const s of [
  'article',
  'aside',
  'details',
  'figcaption',
  'figure',
  'footer',
  'header',
  'main',
  'mark',
  'nav',
  'section',
  'summary',
  'time',
])
  ELEMENTS[s] = 'html-semantics';

const ATTRIBUTES: Record<string, string> = {
  align: 'html-align',
  background: 'html-background',
  cellpadding: 'html-cellpadding',
  cellspacing: 'html-cellspacing',
  dir: 'html-dir',
  hidden: 'html-hidden',
  lang: 'html-lang',
  loading: 'html-loading-attribute',
  popover: 'html-popover',
  required: 'html-required',
  role: 'html-role',
  srcset: 'html-srcset',
  target: 'html-target',
  valign: 'html-valign',
  usemap: 'html-image-maps',
  inert: 'css-inert-attribute',
  'aria-describedby': 'html-aria-describedby',
  'aria-hidden': 'html-aria-hidden',
  'aria-label': 'html-aria-label',
  'aria-labelledby': 'html-aria-labelledby',
  'aria-live': 'html-aria-live',
};
/** width/height attributes count on the elements mail uses them on (not on <svg> internals). */
const SIZED = new Set(['img', 'table', 'td', 'th', 'tr', 'col', 'video', 'iframe', 'object', 'embed', 'canvas']);

const IMAGE_EXT: Record<string, string> = {
  png: 'image-png',
  jpg: 'image-jpg',
  jpeg: 'image-jpg',
  gif: 'image-gif',
  webp: 'image-webp',
  avif: 'image-avif',
  svg: 'image-svg',
  bmp: 'image-bmp',
  tif: 'image-tiff',
  tiff: 'image-tiff',
  ico: 'image-ico',
  heif: 'image-heif',
  heic: 'image-heif',
  apng: 'image-apng',
  hdr: 'image-hdr',
  mp4: 'image-mp4',
};

/** Properties whose caniemail slug is not `css-<property>`. */
const PROPERTY_SLUGS: Record<string, string> = {
  'row-gap': 'css-gap',
  'column-gap': 'css-gap',
  'grid-gap': 'css-gap',
  'grid-template-columns': 'css-grid-template',
  'grid-template-rows': 'css-grid-template',
  'grid-template-areas': 'css-grid-template',
  'border-top': 'css-border',
  'border-right': 'css-border',
  'border-bottom': 'css-border',
  'border-left': 'css-border',
  'border-width': 'css-border',
  'border-style': 'css-border',
  'border-color': 'css-border',
  'border-top-left-radius': 'css-border-radius',
  'border-top-right-radius': 'css-border-radius',
  'border-bottom-left-radius': 'css-border-radius',
  'border-bottom-right-radius': 'css-border-radius',
  'border-start-start-radius': 'css-border-radius-logical',
  'border-start-end-radius': 'css-border-radius-logical',
  'border-end-start-radius': 'css-border-radius-logical',
  'border-end-end-radius': 'css-border-radius-logical',
  'border-inline': 'css-border-inline-block',
  'border-block': 'css-border-inline-block',
  'border-image-source': 'css-border-image',
  'border-image-slice': 'css-border-image',
  'border-image-width': 'css-border-image',
  'border-image-outset': 'css-border-image',
  'border-image-repeat': 'css-border-image',
  'margin-top': 'css-margin',
  'margin-right': 'css-margin',
  'margin-bottom': 'css-margin',
  'margin-left': 'css-margin',
  'margin-inline': 'css-margin-inline-block',
  'margin-block': 'css-margin-inline-block',
  'margin-inline-start': 'css-margin-inline-start-end',
  'margin-inline-end': 'css-margin-inline-start-end',
  'margin-block-start': 'css-margin-block-start-end',
  'margin-block-end': 'css-margin-block-start-end',
  'padding-top': 'css-padding',
  'padding-right': 'css-padding',
  'padding-bottom': 'css-padding',
  'padding-left': 'css-padding',
  'padding-inline': 'css-padding-inline-block',
  'padding-block': 'css-padding-inline-block',
  'padding-inline-start': 'css-padding-inline-start-end',
  'padding-inline-end': 'css-padding-inline-start-end',
  'padding-block-start': 'css-padding-block-start-end',
  'padding-block-end': 'css-padding-block-start-end',
  left: 'css-left-right-top-bottom',
  right: 'css-left-right-top-bottom',
  top: 'css-left-right-top-bottom',
  bottom: 'css-left-right-top-bottom',
  'block-size': 'css-block-inline-size',
  columns: 'css-column-layout-properties',
  'column-width': 'css-column-layout-properties',
  'column-fill': 'css-column-layout-properties',
  'column-rule': 'css-column-layout-properties',
  'column-rule-color': 'css-column-layout-properties',
  'column-rule-style': 'css-column-layout-properties',
  'column-rule-width': 'css-column-layout-properties',
  'column-span': 'css-column-layout-properties',
  'overflow-x': 'css-overflow',
  'overflow-y': 'css-overflow',
  'transform-origin': 'css-transform',
  'list-style-image': 'css-list-style-image',
  'text-decoration-skip': 'css-text-decoration-skip-ink',
};
for (const side of ['inline', 'block']) {
  for (const part of ['color', 'style', 'width', 'start', 'end'])
    PROPERTY_SLUGS[`border-${side}-${part}`] = 'css-border-inline-block-individual';
  for (const end of ['start', 'end'])
    for (const part of ['color', 'style', 'width']) PROPERTY_SLUGS[`border-${side}-${end}-${part}`] = 'css-border-inline-block-longhand';
}
for (const p of ['animation', 'transition', 'scroll-snap'])
  for (const sub of [
    'name',
    'duration',
    'timing-function',
    'delay',
    'iteration-count',
    'direction',
    'fill-mode',
    'play-state',
    'property',
    'type',
    'align',
    'stop',
  ])
    PROPERTY_SLUGS[`${p}-${sub}`] ??= p === 'scroll-snap' ? 'css-scroll-snap' : `css-${p}`;

const UNITS: Record<string, string> = {
  px: 'css-unit-px',
  em: 'css-unit-em',
  rem: 'css-unit-rem',
  ex: 'css-unit-ex',
  ch: 'css-unit-ch',
  vw: 'css-unit-vw',
  vh: 'css-unit-vh',
  vmin: 'css-unit-vmin',
  vmax: 'css-unit-vmax',
  cm: 'css-unit-cm',
  mm: 'css-unit-mm',
  in: 'css-unit-in',
  pt: 'css-unit-pt',
  pc: 'css-unit-pc',
  '%': 'css-unit-percent',
};

const FUNCTIONS: Record<string, string> = {
  clamp: 'css-function-clamp',
  max: 'css-function-max',
  min: 'css-function-min',
  'light-dark': 'css-function-light-dark',
  calc: 'css-unit-calc',
  'linear-gradient': 'css-linear-gradient',
  'repeating-linear-gradient': 'css-linear-gradient',
  'radial-gradient': 'css-radial-gradient',
  'repeating-radial-gradient': 'css-radial-gradient',
  'conic-gradient': 'css-conic-gradient',
  'repeating-conic-gradient': 'css-conic-gradient',
  rgb: 'css-rgb',
  rgba: 'css-rgba',
  lch: 'css-modern-color',
  oklch: 'css-modern-color',
  lab: 'css-modern-color',
  oklab: 'css-modern-color',
  var: 'css-variables',
};

const PSEUDO = new Set([
  'active',
  'checked',
  'default',
  'first-child',
  'first-of-type',
  'focus-visible',
  'focus-within',
  'focus',
  'has',
  'hover',
  'lang',
  'last-child',
  'last-of-type',
  'link',
  'not',
  'nth-child',
  'nth-last-child',
  'nth-last-of-type',
  'nth-of-type',
  'only-child',
  'only-of-type',
  'target',
  'visited',
]);
const PSEUDO_ELEMENTS = new Set(['after', 'before', 'first-letter', 'first-line', 'marker', 'placeholder']);

/** The slugs a declaration uses, each with the offset of what triggered it. */
function declarationFeatures(
  prop: string,
  value: string,
  important: boolean,
  at: number,
  valueAt: number,
  known: Set<string>,
): Occurrence[] {
  const out: Occurrence[] = [];
  const add = (slug: string, offset: number, evidence: string) => {
    if (known.has(slug) && !out.some((o) => o.slug === slug)) out.push({ slug, offset, evidence });
  };
  const decl = `${prop}:${value.length > 60 ? `${value.slice(0, 57)}…` : value}`;
  const v = value.toLowerCase();
  if (prop.startsWith('--')) add('css-variables', at, decl);
  else if (prop === 'display') {
    const d = v.trim();
    add(
      /^(?:inline-)?flex$/.test(d)
        ? 'css-display-flex'
        : /^(?:inline-)?grid$/.test(d)
          ? 'css-display-grid'
          : d === 'none'
            ? 'css-display-none'
            : 'css-display',
      at,
      decl,
    );
  } else if (!prop.startsWith('-')) add(PROPERTY_SLUGS[prop] ?? `css-${prop}`, at, decl);
  if (important) add('css-important', at, `${decl} !important`);
  // Value features, with strings and url(...) blanked (same length, so offsets still hold).
  const blanked = v.replace(/url\([^)]*\)|"[^"]*"|'[^']*'/g, (m) => ' '.repeat(m.length));
  for (const m of blanked.matchAll(/([a-z-]+)\(/g)) {
    const slug = FUNCTIONS[m[1]!];
    if (slug) add(slug, valueAt + m.index, `${m[1]}()`);
  }
  for (const m of blanked.matchAll(/(?<![\w#.-])[+-]?(?:\d+\.?\d*|\.\d+)(px|em|rem|ex|ch|vw|vh|vmin|vmax|cm|mm|in|pt|pc|%)(?![\w-])/g)) {
    add(UNITS[m[1]!]!, valueAt + m.index, m[0]);
  }
  const kw = /(?<![\w-])(initial|system-ui|ui-serif|ui-sans-serif|ui-rounded|ui-monospace|fit-content|min-content|max-content)(?![\w-])/g;
  for (const m of blanked.matchAll(kw)) {
    const word = m[1]!;
    add(
      word === 'initial' ? 'css-unit-initial' : word.endsWith('-content') ? 'css-intrinsic-size' : 'css-sytem-ui',
      valueAt + m.index,
      word,
    );
  }
  return out;
}

function selectorFeatures(text: string, at: number, known: Set<string>): Occurrence[] {
  const out: Occurrence[] = [];
  const selector = text.length > 80 ? `${text.slice(0, 77)}…` : text;
  const add = (slug: string, evidence: string) => {
    if (known.has(slug) && !out.some((o) => o.slug === slug)) out.push({ slug, offset: at, evidence, selector });
  };
  for (const m of text.matchAll(/(::?)([a-zA-Z-]+)/g)) {
    const name = m[2]!.toLowerCase();
    if (PSEUDO_ELEMENTS.has(name)) add(`css-pseudo-element-${name}`, `${m[1]}${name}`);
    else if (m[1] === ':' && PSEUDO.has(name)) add(`css-pseudo-class-${name}`, `:${name}`);
  }
  // Structure: drop strings, parenthesised arguments and attribute selectors (noted first) before reading combinators.
  let s = text.replace(/"[^"]*"|'[^']*'/g, '""');
  if (/\[/.test(s)) add('css-selector-attribute', '[attr]');
  s = s.replace(/\[[^\]]*\]/g, '[]');
  for (let k = 0; k < 8 && /\([^()]*\)/.test(s); k++) s = s.replace(/\([^()]*\)/g, '');
  const groups = s.split(',').map((g) => g.trim());
  if (groups.length > 1) add('css-selector-grouping', ',');
  for (const g of groups) {
    if (/>/.test(g)) add('css-selector-child', '>');
    if (/\+/.test(g)) add('css-selector-adjacent-sibling', '+');
    if (/~/.test(g)) add('css-selector-general-sibling', '~');
    const compounds = g
      .replace(/\s*[>+~]\s*/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
    if (/[^\s>+~]\s+[^\s>+~]/.test(g)) add('css-selector-descendant', 'a b');
    for (const c of compounds) {
      const bare = c.replace(/::?[a-zA-Z-]+/g, '').replace(/\[\]/g, '[]');
      if (bare.includes('*')) add('css-selector-universal', '*');
      if (/^[a-zA-Z]/.test(bare)) add('css-selector-type', bare.match(/^[a-zA-Z][\w-]*/)![0]);
      if (/\.[\w-]/.test(bare)) add('css-selector-class', '.class');
      if (/#[\w-]/.test(bare)) add('css-selector-id', '#id');
      const simple = (bare.match(/^[a-zA-Z*][\w-]*|[.#][\w-]+|\[\]/g) ?? []).length;
      if (simple > 1) add('css-selector-chaining', c);
    }
  }
  return out;
}

const MEDIA_FEATURES: Array<[RegExp, string]> = [
  [/prefers-color-scheme/, 'css-at-media-prefers-color-scheme'],
  [/prefers-reduced-motion/, 'css-at-media-prefers-reduced-motion'],
  [/orientation/, 'css-at-media-orientation'],
  [/\(\s*(?:any-)?hover/, 'css-at-media-hover'],
  [/device-pixel-ratio|resolution/, 'css-at-media-device-pixel-ratio'],
];

function atRuleFeatures(name: string, prelude: string, at: number, known: Set<string>): Occurrence[] {
  const out: Occurrence[] = [];
  const evidence = `@${name} ${prelude.trim()}`.slice(0, 80);
  const add = (slug: string) => {
    if (known.has(slug)) out.push({ slug, offset: at, evidence });
  };
  if (name === 'media') {
    add('css-at-media');
    const p = prelude.toLowerCase();
    for (const [re, slug] of MEDIA_FEATURES) if (re.test(p)) add(slug);
  } else if (name === 'font-face') add('css-at-font-face');
  else if (name === 'import') add('css-at-import');
  else if (name === 'supports') add('css-at-supports');
  else if (/keyframes$/.test(name)) add('css-at-keyframes');
  return out;
}

function imageFeatures(src: string, at: number, known: Set<string>): Occurrence[] {
  const out: Occurrence[] = [];
  const data = /^\s*data:image\/([\w.+-]+)[^,]*?(;base64)?,/i.exec(src);
  let ext: string | undefined;
  if (data) {
    if (data[2] && known.has('image-base64')) out.push({ slug: 'image-base64', offset: at, evidence: `data:image/${data[1]};base64` });
    ext = data[1]!.toLowerCase().replace('svg+xml', 'svg');
  } else {
    ext = /\.([a-z0-9]{3,4})(?:[?#]|$)/i.exec(src.trim())?.[1]?.toLowerCase();
  }
  const slug = ext ? IMAGE_EXT[ext] : undefined;
  if (slug && known.has(slug)) out.push({ slug, offset: at, evidence: src.length > 80 ? `${src.slice(0, 77)}…` : src });
  return out;
}

/**
 * A style attribute's source with the entities that matter to CSS syntax decoded in place, padded with spaces so
 * every offset still points at the same source position (`&quot;` would otherwise end a declaration at its `;`).
 */
function sameLengthEntities(css: string): string {
  if (!css.includes('&')) return css;
  return css.replace(/&(?:quot|#34|#x22|apos|#39|#x27|amp|#38|lt|gt);/gi, (m) => {
    const e = m.toLowerCase();
    const ch =
      e === '&quot;' || e === '&#34;' || e === '&#x22;'
        ? '"'
        : e === '&apos;' || e === '&#39;' || e === '&#x27;'
          ? "'"
          : e === '&lt;'
            ? '<'
            : e === '&gt;'
              ? '>'
              : '&';
    return ch + ' '.repeat(m.length - 1);
  });
}

/**
 * The features an HTML document uses. `known` is the set of slugs the data has (others are not reported);
 * `signal` is checked every 256 elements.
 */
export function detectFeatures(html: string, known: Set<string>, signal?: AbortSignal): Detection {
  const occurrences: Occurrence[] = [];
  const push = (list: Occurrence[]) => {
    for (const o of list) occurrences.push(o);
  };
  const sink: CssSink = {
    atRule: (name, prelude, offset) => push(atRuleFeatures(name, prelude, offset, known)),
    selector: (text, offset, nested) => {
      if (nested && known.has('css-nesting'))
        occurrences.push({ slug: 'css-nesting', offset, evidence: text.slice(0, 80), selector: text });
      push(selectorFeatures(text, offset, known));
    },
    declaration: (prop, value, important, offset, valueOffset) =>
      push(declarationFeatures(prop, value, important, offset, valueOffset, known).map((o) => ({ ...o, selector: currentSelector }))),
    comment: (offset) => {
      if (known.has('css-comments')) occurrences.push({ slug: 'css-comments', offset, evidence: '/* … */' });
    },
  };
  let currentSelector: string | undefined;
  let bodyNodes = 0;
  let otherNodes = 0;
  let inBody = false;
  let sawBody = false;
  let elements = 0;
  let styleText = '';
  let styleStart = -1;
  let inStyle = false;
  let attrs: Array<{ name: string; start: number; end: number }> = [];

  const parser: Parser = new Parser(
    {
      onopentagname() {
        attrs = [];
      },
      onattribute(name, _value) {
        attrs.push({ name: name.toLowerCase(), start: parser.startIndex, end: parser.endIndex });
      },
      onopentag(name, attribs) {
        if (++elements % 256 === 0) signal?.throwIfAborted();
        const at = parser.startIndex;
        if (name === 'body') {
          inBody = true;
          sawBody = true;
        } else if (inBody) bodyNodes++;
        if (name !== 'html' && name !== 'head' && name !== 'meta' && name !== 'body') otherNodes++;
        const tagSlug = name === 'input' ? `html-input-${(attribs.type ?? 'text').toLowerCase()}` : ELEMENTS[name];
        if (name === 'button') {
          const type = (attribs.type ?? 'submit').toLowerCase();
          if (type === 'submit' || type === 'reset')
            occurrences.push({ slug: `html-button-${type}`, offset: at, evidence: `<button type="${type}">`, selector: name });
        }
        // A client that drops `<body>` keeps what is inside it: only a body with attributes (a background, a style,
        // a class) loses something, so a bare `<body>` is not a finding.
        const bareBody = name === 'body' && attrs.length === 0;
        if (tagSlug && known.has(tagSlug) && !bareBody)
          occurrences.push({ slug: tagSlug, offset: at, evidence: `<${name}>`, selector: name });
        if (
          name === 'meta' &&
          /^(?:color-scheme|supported-color-schemes)$/i.test(attribs.name ?? '') &&
          known.has('html-meta-color-scheme')
        )
          occurrences.push({ slug: 'html-meta-color-scheme', offset: at, evidence: `<meta name="${attribs.name}">`, selector: name });
        for (const a of attrs) {
          const slug = a.name === 'width' || a.name === 'height' ? (SIZED.has(name) ? `html-${a.name}` : undefined) : ATTRIBUTES[a.name];
          if (slug && known.has(slug)) occurrences.push({ slug, offset: a.start, evidence: `<${name} ${a.name}>`, selector: name });
          if (a.name === 'style') {
            currentSelector = name;
            const rawAttr = html.slice(a.start, a.end + 1);
            const eq = /^[^=]*=\s*(["']?)/.exec(rawAttr);
            if (eq) {
              const valueStart = a.start + eq[0].length;
              const quote = eq[1];
              const valueEnd = quote ? html.indexOf(quote, valueStart) : a.end + 1;
              readDeclarations(sameLengthEntities(html.slice(valueStart, valueEnd < 0 ? a.end + 1 : valueEnd)), valueStart, sink);
            }
            currentSelector = undefined;
          }
          if (a.name === 'src' && (name === 'img' || name === 'source')) push(imageFeatures(attribs.src ?? '', a.start, known));
        }
        if (name === 'a') {
          const href = (attribs.href ?? '').trim();
          if (href.startsWith('#') && href.length > 1 && known.has('html-anchor-links'))
            occurrences.push({ slug: 'html-anchor-links', offset: at, evidence: `<a href="${href.slice(0, 40)}">`, selector: 'a' });
          if (/^mailto:/i.test(href) && known.has('html-mailto-links'))
            occurrences.push({ slug: 'html-mailto-links', offset: at, evidence: `<a href="${href.slice(0, 60)}">`, selector: 'a' });
        }
        if (name === 'style') {
          inStyle = true;
          styleText = '';
          styleStart = -1;
        }
        attrs = [];
      },
      ontext(text) {
        // <style> content is raw text (possibly reported in chunks): gather it, read it when the element closes
        if (!inStyle) return;
        if (styleStart < 0) styleStart = parser.startIndex;
        styleText += text;
      },
      onclosetag(name) {
        if (name === 'style' && inStyle) {
          inStyle = false;
          if (styleStart >= 0) readStylesheet(styleText, styleStart, withSelector);
          currentSelector = undefined;
        }
        if (name === 'body') inBody = false;
      },
      oncomment() {
        if (known.has('html-comments')) occurrences.push({ slug: 'html-comments', offset: parser.startIndex, evidence: '<!-- … -->' });
      },
      onprocessinginstruction(name) {
        if (name.toLowerCase() === '!doctype' && known.has('html-doctype'))
          occurrences.push({ slug: 'html-doctype', offset: parser.startIndex, evidence: '<!DOCTYPE>' });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  // In <style> blocks the declaration's selector is the enclosing rule's.
  const withSelector: CssSink = {
    ...sink,
    selector: (text, offset, nested) => {
      currentSelector = text.length > 80 ? `${text.slice(0, 77)}…` : text;
      sink.selector(text, offset, nested);
    },
  };
  parser.end(html);
  return { occurrences, nodes: sawBody ? bodyNodes : otherNodes };
}
