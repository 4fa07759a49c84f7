// The `html` check: what in a mail's HTML breaks or endangers it in mail clients. Parse errors that change the tree a
// client builds, a missing charset, elements clients strip or refuse (script, form, base, iframe, object, embed),
// duplicate ids, the HTML's size against Gmail's clipping threshold, heavy `data:` URIs, and `cid:` references to
// parts the message does not have. Pure (reads only its input); run by the engine in a sandbox worker.
import { attr, type Element, excerpt, locate, parseHtml, startTagOf } from '../dom.ts';
import { Findings } from '../findings.ts';
import type { CheckDef, CheckInput, CheckResult, RuleInfo } from '../types.ts';

/** Gmail clips a message whose HTML is over about 102 KB ("[Message clipped] View entire message"). */
export const GMAIL_CLIP_BYTES = 102 * 1024;
/** From here the HTML is close enough to the threshold that a longer variant of the same template will clip. */
const CLIP_WARN_BYTES = 90 * 1024;
/** A single `data:` URI over this many bytes is heavy (most clients block or strip them anyway). */
const DATA_URI_BYTES = 8 * 1024;
/** A whole message over this size is slow to open and may be refused by receiving servers. */
const HEAVY_MESSAGE_BYTES = 10 * 1024 * 1024;

const DOCS = 'README.md#message-checks';

/** Parse errors that change the tree a client builds (or show on screen); the others are listed as info. */
const HARMFUL = new Set([
  'duplicate-attribute',
  'eof-in-tag',
  'eof-in-comment',
  'unexpected-character-in-attribute-name',
  'unexpected-equals-sign-before-attribute-name',
  'missing-whitespace-between-attributes',
  'unexpected-character-in-unquoted-attribute-value',
  'end-tag-without-matching-open-element',
  'closing-of-element-with-open-child-elements',
  'unexpected-null-character',
  'nested-comment',
  'abrupt-closing-of-empty-comment',
  'incorrectly-closed-comment',
  'misplaced-start-tag-for-head-element',
  'misplaced-doctype',
]);
/** Parse errors that say nothing a mail client cares about. */
const NOISE = new Set([
  'non-void-html-element-start-tag-with-trailing-solidus',
  'end-tag-with-attributes',
  'end-tag-with-trailing-solidus',
]);

const STRIPPED: Record<string, { rule: string; severity: 'error' | 'warning'; why: string }> = {
  script: { rule: 'script', severity: 'error', why: 'every mail client removes scripts, and spam filters score them' },
  form: { rule: 'form', severity: 'warning', why: 'Gmail, Outlook and most webmail disable or strip forms' },
  base: { rule: 'base', severity: 'warning', why: 'clients ignore or rewrite <base>, so relative links break' },
  iframe: { rule: 'embedded-content', severity: 'warning', why: 'clients strip iframes' },
  object: { rule: 'embedded-content', severity: 'warning', why: 'clients strip <object>' },
  embed: { rule: 'embedded-content', severity: 'warning', why: 'clients strip <embed>' },
};

export const HTML_RULES: Record<string, RuleInfo> = {
  'parse-error': {
    title: 'HTML parse error',
    why: 'A parse error makes each client repair the markup its own way: a lost attribute, a swallowed element, a layout that differs between clients.',
    fix: 'Fix the markup at the line shown (close the tag, quote the attribute, remove the duplicate attribute); validate the template after rendering it.',
    docs: DOCS,
  },
  'missing-charset': {
    title: 'No charset declared in the HTML',
    why: 'Without <meta charset> a client that shows the HTML apart from its MIME header (forwarding, "view in browser", saved files) guesses the encoding and garbles accents and symbols.',
    fix: 'Add <meta charset="utf-8"> (or <meta http-equiv="Content-Type" content="text/html; charset=utf-8">) at the top of <head>.',
    docs: DOCS,
  },
  script: {
    title: '<script> in mail',
    why: 'Every mail client removes scripts, and spam filters count them against the message.',
    fix: 'Remove the script; do the work on the server before sending or on the page the mail links to.',
    docs: DOCS,
  },
  form: {
    title: '<form> in mail',
    why: 'Gmail, Outlook and most webmail disable or strip forms, so the reader cannot submit it.',
    fix: 'Replace the form with a link or button to a page that holds the form.',
    docs: DOCS,
  },
  base: {
    title: '<base> in mail',
    why: 'Clients ignore or rewrite <base>, so links relative to it break.',
    fix: 'Remove <base> and write every link and image URL in full (https://…).',
    docs: DOCS,
  },
  'embedded-content': {
    title: 'iframe, object or embed in mail',
    why: 'Mail clients strip embedded content.',
    fix: 'Replace it with an image linking to the content.',
    docs: DOCS,
  },
  'duplicate-id': {
    title: 'Duplicate id',
    why: 'Two elements with one id break anchors and CSS that targets the id; clients that prefix ids (Gmail) keep the clash.',
    fix: 'Give each element its own id, or use a class.',
    docs: DOCS,
  },
  'gmail-clipping': {
    title: 'HTML over Gmail’s clipping threshold',
    why: 'Gmail clips a message whose HTML is over about 102 KB: the rest (often the footer with the unsubscribe link, and the open pixel) is hidden behind "View entire message".',
    fix: 'Shrink the HTML: remove unused CSS and comments, minify, shorten tracking URLs, move content to a web page.',
    docs: DOCS,
  },
  'near-gmail-clipping': {
    title: 'HTML close to Gmail’s clipping threshold',
    why: 'A longer variant of this template (a longer name, more items) will be clipped by Gmail.',
    fix: 'Leave room: remove unused CSS and comments, minify.',
    docs: DOCS,
  },
  'heavy-message': {
    title: 'Message very large',
    why: 'Large messages are slow to open on phones and may be refused by receiving servers (many limit at 10–25 MB).',
    fix: 'Link to large files instead of attaching them.',
    docs: DOCS,
  },
  'heavy-data-uri': {
    title: 'Heavy data: URI',
    why: 'Gmail and Outlook block data: images, and the bytes count towards Gmail’s clipping threshold.',
    fix: 'Host the image and link it with https://, or attach it as an inline part referenced with cid:.',
    docs: DOCS,
  },
  'missing-cid-part': {
    title: 'cid: reference with no part',
    why: 'The HTML draws an image from a cid: URL whose Content-ID no part of the message has: every client shows a broken image.',
    fix: 'Attach the image as an inline part with that Content-ID, or correct the cid: URL.',
    docs: DOCS,
  },
};

const bareCid = (s: string) => s.trim().replace(/^</, '').replace(/>$/, '').toLowerCase();

function contentIds(input: CheckInput): Set<string> {
  const ids = new Set<string>();
  for (const a of input.parsed.attachments) if (a.contentId) ids.add(bareCid(a.contentId));
  return ids;
}

export function runHtml(input: CheckInput): CheckResult {
  const html = input.html;
  if (html === null) return { status: 'skipped', reason: 'the message has no HTML part', findings: [] };
  const f = new Findings('html');
  const doc = parseHtml(html);
  const htmlBytes = Buffer.byteLength(html, 'utf8');

  let parseErrors = 0;
  for (const e of doc.errors) {
    if (NOISE.has(e.code)) continue;
    if (e.code === 'missing-doctype' || e.code === 'non-conforming-doctype') {
      f.add({
        rule: 'parse-error',
        severity: 'info',
        title: e.code === 'missing-doctype' ? 'No <!DOCTYPE html>' : 'Old or unusual doctype',
        detail: 'Clients render the mail in quirks mode, where box sizes and table spacing differ.',
        location: { part: 'html', line: e.line, column: e.column },
        evidence: e.code,
        docs: DOCS,
      });
      continue;
    }
    parseErrors++;
    f.add({
      rule: 'parse-error',
      severity: HARMFUL.has(e.code) ? 'warning' : 'info',
      title: `Parse error: ${e.code.replaceAll('-', ' ')}`,
      detail: 'Clients repair broken markup each their own way; fix it so every client builds the same tree.',
      location: { part: 'html', line: e.line, column: e.column },
      evidence: e.code,
      docs: DOCS,
    });
  }

  let hasCharset = false;
  const ids = new Map<string, Element>();
  const cids = contentIds(input);
  let dataUriBytes = 0;
  let duplicateIds = 0;
  for (const el of doc.elements) {
    const tag = el.tagName;
    if (tag === 'meta') {
      const equiv = attr(el, 'http-equiv')?.toLowerCase();
      if (attr(el, 'charset') !== undefined || (equiv === 'content-type' && /charset=/i.test(attr(el, 'content') ?? ''))) hasCharset = true;
    }
    const stripped = STRIPPED[tag];
    if (stripped)
      f.add({
        rule: stripped.rule,
        severity: stripped.severity,
        title: `<${tag}> in mail`,
        detail: `${stripped.why}.`,
        location: locate(el),
        evidence: startTagOf(html, el),
        docs: DOCS,
      });
    const id = attr(el, 'id');
    if (id !== undefined && id !== '') {
      const first = ids.get(id);
      if (first) {
        duplicateIds++;
        const at = first.sourceCodeLocation;
        f.add({
          rule: 'duplicate-id',
          severity: 'warning',
          title: `Duplicate id "${excerpt(id, 60)}"`,
          detail: at ? `The id is used first at line ${at.startLine}, column ${at.startCol}.` : 'The id is used more than once.',
          location: locate(el, 'id'),
          evidence: startTagOf(html, el),
          docs: DOCS,
        });
      } else ids.set(id, el);
    }
    for (const a of el.attrs) {
      if (a.name !== 'src' && a.name !== 'href' && a.name !== 'background' && a.name !== 'style') continue;
      const values = a.name === 'style' ? [...a.value.matchAll(/url\(\s*['"]?([^'")]+)/gi)].map((m) => m[1]!) : [a.value];
      for (const v of values) {
        const url = v.trim();
        if (/^data:/i.test(url)) {
          const bytes = url.length;
          dataUriBytes += bytes;
          if (bytes > DATA_URI_BYTES)
            f.add({
              rule: 'heavy-data-uri',
              severity: 'warning',
              title: `data: URI of ${Math.round(bytes / 1024)} KB`,
              detail: 'Gmail and Outlook block data: images, and the bytes count towards Gmail’s clipping threshold.',
              location: locate(el, a.name),
              evidence: excerpt(url, 60),
              docs: DOCS,
            });
        } else if (/^cid:/i.test(url)) {
          const cid = bareCid(decodeURIComponent(url.slice(4).replace(/%(?![0-9a-f]{2})/gi, '%25')));
          if (!cids.has(cid))
            f.add({
              rule: 'missing-cid-part',
              severity: 'error',
              title: `cid:${excerpt(cid, 60)} has no part`,
              detail: `No part of the message has Content-ID <${excerpt(cid, 60)}>; the image shows broken in every client.`,
              location: locate(el, a.name),
              evidence: excerpt(url, 80),
              docs: DOCS,
            });
        }
      }
    }
  }

  if (!hasCharset)
    f.add({
      rule: 'missing-charset',
      severity: 'warning',
      title: 'No charset declared in the HTML',
      detail:
        'Add <meta charset="utf-8"> to <head>: the HTML shown apart from its MIME header (forwarded, saved, "view in browser") is otherwise decoded by guess.',
      location: { part: 'html', line: 1, column: 1 },
      docs: DOCS,
    });
  if (htmlBytes > GMAIL_CLIP_BYTES)
    f.add({
      rule: 'gmail-clipping',
      severity: 'error',
      title: `HTML is ${(htmlBytes / 1024).toFixed(1)} KB: Gmail clips it`,
      detail: `Gmail clips HTML over about ${GMAIL_CLIP_BYTES / 1024} KB; everything after that point is hidden behind "View entire message".`,
      location: { part: 'html', line: lineAtByte(html, GMAIL_CLIP_BYTES), column: 1 },
      docs: DOCS,
    });
  else if (htmlBytes > CLIP_WARN_BYTES)
    f.add({
      rule: 'near-gmail-clipping',
      severity: 'warning',
      title: `HTML is ${(htmlBytes / 1024).toFixed(1)} KB, close to Gmail’s ${GMAIL_CLIP_BYTES / 1024} KB clipping threshold`,
      detail: 'A longer variant of this template will be clipped.',
      docs: DOCS,
    });
  if (input.raw.length > HEAVY_MESSAGE_BYTES)
    f.add({
      rule: 'heavy-message',
      severity: 'warning',
      title: `Message is ${(input.raw.length / 1024 / 1024).toFixed(1)} MB`,
      detail: 'Large messages are slow to open and may be refused by receiving servers.',
      location: { part: 'envelope' },
      docs: DOCS,
    });

  return f.result({
    htmlBytes,
    totalBytes: input.raw.length,
    clipThresholdBytes: GMAIL_CLIP_BYTES,
    clipped: htmlBytes > GMAIL_CLIP_BYTES,
    parseErrors,
    duplicateIds,
    dataUriBytes,
    missingCids: f.count('missing-cid-part'),
  });
}

/** The 1-based line holding the given byte offset of the HTML (where Gmail's clip falls). */
function lineAtByte(html: string, byte: number): number {
  const prefix = Buffer.from(html, 'utf8').subarray(0, byte).toString('utf8');
  let n = 1;
  for (let i = prefix.indexOf('\n'); i >= 0; i = prefix.indexOf('\n', i + 1)) n++;
  return n;
}

export const htmlCheck: CheckDef = {
  name: 'html',
  description:
    'HTML that breaks in mail: parse errors, missing charset, script/form/base, duplicate ids, Gmail clipping (~102 KB), heavy data: URIs, cid: with no part',
  version: '1',
  rules: HTML_RULES,
  run: async (input) => runHtml(input),
};
