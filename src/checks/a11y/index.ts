// The `a11y` check: static accessibility rules for mail, after the Email Markup Consortium's most common issues —
// `lang` on <html>, a <title>, `alt` on images (empty for decorative ones), `role="presentation"` on layout tables,
// heading order, link text that says where it goes, and contrast where both colours are inline. Pure; run by the
// engine in a sandbox worker.
import { attr, type Element, excerpt, imageAltsOf, locate, parseHtml, startTagOf, styleOf, textOf } from '../dom.ts';
import { Findings } from '../findings.ts';
import type { CheckDef, CheckInput, CheckResult, RuleInfo } from '../types.ts';

const DOCS = 'README.md#message-checks';
const VAGUE = new Set([
  'click here',
  'here',
  'click',
  'read more',
  'more',
  'link',
  'this link',
  'learn more',
  'click this link',
  'go',
  'this',
  'details',
]);

export const A11Y_RULES: Record<string, RuleInfo> = {
  'missing-lang': {
    title: 'No lang on <html>',
    why: 'Screen readers pick their voice and pronunciation from lang; without it they read the mail in the reader’s default language.',
    fix: 'Add lang (and dir for right-to-left text) to <html>, e.g. <html lang="en">.',
    docs: DOCS,
  },
  'missing-title': {
    title: 'No <title>',
    why: 'Screen readers and "view in browser" show the title; an empty one reads as "untitled".',
    fix: 'Add <title> with the subject line to <head>.',
    docs: DOCS,
  },
  'img-missing-alt': {
    title: 'Image without alt',
    why: 'A screen reader reads the file name or URL instead, and clients that block images show nothing in its place.',
    fix: 'Add alt text saying what the image shows; alt="" for a decorative image (spacers, borders, tracking pixels).',
    docs: DOCS,
  },
  'img-alt-filename': {
    title: 'alt text is a file name',
    why: 'A screen reader reads "logo underscore final dot png", which tells nothing.',
    fix: 'Write what the image shows, or alt="" when it is decorative.',
    docs: DOCS,
  },
  'layout-table-role': {
    title: 'Layout table without role="presentation"',
    why: 'Screen readers announce rows and columns of every table; a table used for layout becomes noise.',
    fix: 'Add role="presentation" to tables used for layout (those without <th> or <caption>).',
    docs: DOCS,
  },
  'heading-order': {
    title: 'Heading level skipped',
    why: 'Screen reader users move by headings; a jump from h1 to h3 suggests missing content.',
    fix: 'Use heading levels in order (h1, then h2, …), styling them as needed.',
    docs: DOCS,
  },
  'vague-link-text': {
    title: 'Link text that does not say where it goes',
    why: 'Screen reader users list the links of a mail; "click here" repeated tells them nothing.',
    fix: 'Write link text that names the destination or action ("Reset your password").',
    docs: DOCS,
  },
  'link-no-text': {
    title: 'Link without text',
    why: 'A link with neither text nor an image alt is read as its URL or skipped.',
    fix: 'Give the link text, or alt text to the image inside it.',
    docs: DOCS,
  },
  'low-contrast': {
    title: 'Low contrast',
    why: 'Text below WCAG AA contrast (4.5:1, 3:1 for large text) is hard to read, more so on phones outdoors.',
    fix: 'Darken the text or lighten the background until the ratio reaches 4.5:1.',
    docs: DOCS,
  },
};

const NAMED: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  red: '#ff0000',
  green: '#008000',
  blue: '#0000ff',
  yellow: '#ffff00',
  gray: '#808080',
  grey: '#808080',
  silver: '#c0c0c0',
  orange: '#ffa500',
  navy: '#000080',
  maroon: '#800000',
  purple: '#800080',
  teal: '#008080',
  lime: '#00ff00',
  aqua: '#00ffff',
  fuchsia: '#ff00ff',
  olive: '#808000',
  lightgray: '#d3d3d3',
  lightgrey: '#d3d3d3',
  darkgray: '#a9a9a9',
  darkgrey: '#a9a9a9',
};

/** [r, g, b] 0–255 of a CSS colour written inline (hex, rgb(), a few names), or null when not understood. */
export function parseColor(v: string | undefined): [number, number, number] | null {
  if (!v) return null;
  const s = v.trim().toLowerCase();
  const hex = NAMED[s] ?? s;
  let m = /^#([0-9a-f]{3})$/.exec(hex);
  if (m) return [...m[1]!].map((c) => Number.parseInt(c + c, 16)) as [number, number, number];
  m = /^#([0-9a-f]{6})$/.exec(hex);
  if (m) return [0, 2, 4].map((i) => Number.parseInt(m![1]!.slice(i, i + 2), 16)) as [number, number, number];
  m = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*([\d.]+)\s*)?\)$/.exec(s);
  if (m && (m[4] === undefined || Number(m[4]) >= 1)) return [Number(m[1]), Number(m[2]), Number(m[3])];
  return null;
}

function luminance([r, g, b]: [number, number, number]): number {
  const c = [r, g, b].map((x) => {
    const v = x / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
}

/** WCAG contrast ratio of two colours (1–21). */
export function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

function isLarge(style: Map<string, string>, tag: string): boolean {
  if (/^h[12]$/.test(tag)) return true;
  const size = /^([\d.]+)px$/.exec(style.get('font-size') ?? '');
  const bold = /bold|[6-9]00/.test(style.get('font-weight') ?? '') || tag === 'b' || tag === 'strong';
  return size ? Number(size[1]) >= 24 || (bold && Number(size[1]) >= 18.66) : false;
}

export function runA11y(input: CheckInput): CheckResult {
  const html = input.html;
  if (html === null) return { status: 'skipped', reason: 'the message has no HTML part', findings: [] };
  const f = new Findings('a11y');
  const doc = parseHtml(html);
  let images = 0;
  let imagesWithoutAlt = 0;
  let lastHeading = 0;
  let title: Element | null = null;
  let htmlEl: Element | null = null;
  const dataTables = new Set<Element | null>();
  for (const el of doc.elements) if (el.tagName === 'th' || el.tagName === 'caption') dataTables.add(closestTable(el));
  for (const el of doc.elements) {
    const tag = el.tagName;
    if (tag === 'html') htmlEl ??= el;
    else if (tag === 'title') title ??= el;
    else if (tag === 'img') {
      images++;
      const alt = attr(el, 'alt');
      if (alt === undefined) {
        imagesWithoutAlt++;
        const w = attr(el, 'width');
        const pixel = (w === '1' || w === '0') && (attr(el, 'height') === '1' || attr(el, 'height') === '0');
        f.add({
          rule: 'img-missing-alt',
          severity: pixel ? 'warning' : 'error',
          title: pixel ? 'Tracking pixel without alt=""' : 'Image without alt',
          detail: pixel
            ? 'Give the pixel alt="" so screen readers skip it.'
            : 'Add alt text saying what the image shows, or alt="" if it is decorative.',
          location: locate(el),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
      } else if (/^[\w-]+\.(png|jpe?g|gif|webp|svg)$/i.test(alt.trim()))
        f.add({
          rule: 'img-alt-filename',
          severity: 'warning',
          title: `alt text is a file name: "${excerpt(alt, 60)}"`,
          detail: 'Write what the image shows, or alt="" when it is decorative.',
          location: locate(el, 'alt'),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
    } else if (tag === 'table') {
      const role = attr(el, 'role')?.toLowerCase();
      if (role !== 'presentation' && role !== 'none') {
        if (!dataTables.has(el))
          f.add({
            rule: 'layout-table-role',
            severity: 'warning',
            title: 'Layout table without role="presentation"',
            detail: 'The table has no <th> or <caption>, so it is read as layout: add role="presentation".',
            location: locate(el),
            evidence: startTagOf(html, el),
            docs: DOCS,
          });
      }
    } else if (/^h[1-6]$/.test(tag)) {
      const level = Number(tag[1]);
      if (lastHeading > 0 && level > lastHeading + 1)
        f.add({
          rule: 'heading-order',
          severity: 'warning',
          title: `<${tag}> follows <h${lastHeading}>`,
          detail: `Heading level ${lastHeading + 1} is skipped.`,
          location: locate(el),
          evidence: excerpt(textOf(el, 200)),
          docs: DOCS,
        });
      lastHeading = level;
    } else if (tag === 'a' && attr(el, 'href') !== undefined) {
      const text = textOf(el, 300);
      const label = attr(el, 'aria-label') ?? attr(el, 'title') ?? '';
      const spoken = (text || imageAltsOf(el) || label).trim();
      if (spoken === '')
        f.add({
          rule: 'link-no-text',
          severity: 'error',
          title: 'Link without text',
          detail: 'Neither text, an image alt nor aria-label says where the link goes.',
          location: locate(el),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
      else if (VAGUE.has(spoken.toLowerCase().replace(/[.!…:»›>\s]+$/u, '')) && label === '')
        f.add({
          rule: 'vague-link-text',
          severity: 'warning',
          title: `Link text "${excerpt(spoken, 40)}"`,
          detail: 'Say where the link goes or what it does.',
          location: locate(el),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
    }
    const style = styleOf(el);
    const fg = parseColor(style.get('color') ?? attr(el, 'color'));
    const bg = parseColor(style.get('background-color') ?? bgOf(style.get('background')) ?? attr(el, 'bgcolor'));
    if (fg && bg && textOf(el, 50) !== '') {
      const ratio = contrast(fg, bg);
      const need = isLarge(style, tag) ? 3 : 4.5;
      if (ratio < need)
        f.add({
          rule: 'low-contrast',
          severity: ratio < need / 1.5 ? 'error' : 'warning',
          title: `Contrast ${ratio.toFixed(2)}:1 (needs ${need}:1)`,
          detail: `Text colour and background are both set inline on this element; WCAG AA needs ${need}:1.`,
          location: locate(el, 'style'),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
    }
  }
  if (!htmlEl || (attr(htmlEl, 'lang') ?? '').trim() === '')
    f.add({
      rule: 'missing-lang',
      severity: 'warning',
      title: 'No lang on <html>',
      detail: 'Add lang="…" to <html> so screen readers read the mail in its language.',
      location: htmlEl ? locate(htmlEl) : { part: 'html', line: 1, column: 1 },
      docs: DOCS,
    });
  if (!title || textOf(title, 10) === '')
    f.add({
      rule: 'missing-title',
      severity: 'warning',
      title: title ? 'Empty <title>' : 'No <title>',
      detail: 'Add a <title> (the subject line) to <head>.',
      location: title ? locate(title) : { part: 'html', line: 1, column: 1 },
      docs: DOCS,
    });
  return f.result({ images, imagesWithoutAlt, lowContrast: f.count('low-contrast'), vagueLinks: f.count('vague-link-text') });
}

const bgOf = (background: string | undefined) =>
  background ? /#[0-9a-f]{3,6}\b|rgb\([^)]*\)|^[a-z]+$/i.exec(background.trim())?.[0] : undefined;

function closestTable(el: Element): Element | null {
  for (let p = el.parentNode; p && 'tagName' in p; p = p.parentNode) if ((p as Element).tagName === 'table') return p as Element;
  return null;
}

export const a11yCheck: CheckDef = {
  name: 'a11y',
  description: 'Accessibility: lang, title, image alt, layout tables, heading order, link text, inline contrast',
  version: '1',
  rules: A11Y_RULES,
  run: async (input) => runA11y(input),
};
