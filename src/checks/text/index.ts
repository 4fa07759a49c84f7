// The `text` check: a text/plain part exists and says what the HTML says — the same links, and mostly the same
// words (token overlap). Readers with text-only clients, screen readers set to plain text, and spam filters all read
// the text part; a stale one ("view this mail in a browser", last year's links) is a bug. Pure; run in a sandbox worker.
import { attr, parseHtml, textOf } from '../dom.ts';
import { Findings } from '../findings.ts';
import type { CheckDef, CheckInput, CheckResult, RuleInfo } from '../types.ts';

const DOCS = 'README.md#message-checks';
/** Share of the HTML's words the text part must have (and the reverse) before the two count as saying the same. */
export const MIN_OVERLAP = 0.6;

export const TEXT_RULES: Record<string, RuleInfo> = {
  'missing-text-part': {
    title: 'No text/plain part',
    why: 'Text-only clients, some screen reader settings and watches show the text part; spam filters score HTML-only mail higher.',
    fix: 'Send multipart/alternative with a text/plain part rendered from the same template.',
    docs: DOCS,
  },
  'missing-link': {
    title: 'A link of the HTML is missing from the text part',
    why: 'A reader of the text part cannot reach that page (often the very action the mail is for).',
    fix: 'Render the text part from the same data as the HTML, with each link written out in full.',
    docs: DOCS,
  },
  'content-differs': {
    title: 'The text part says something else than the HTML',
    why: 'A stale or placeholder text part ("view this mail in a browser") leaves text-only readers without the content.',
    fix: 'Render the text part from the same template data as the HTML.',
    docs: DOCS,
  },
  'empty-text-part': {
    title: 'Empty text part',
    why: 'Clients that prefer the text part show an empty message.',
    fix: 'Fill the text part from the same template as the HTML.',
    docs: DOCS,
  },
};

/** Words of at least 2 letters or digits, lower-cased (Unicode letters; URLs removed first). */
export function tokens(s: string): Set<string> {
  const out = new Set<string>();
  for (const m of s
    .replace(/https?:\/\/\S+/gi, ' ')
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]{2,}/gu))
    out.add(m[0]);
  return out;
}

function share(of: Set<string>, within: Set<string>): number {
  if (of.size === 0) return 1;
  let n = 0;
  for (const t of of) if (within.has(t)) n++;
  return n / of.size;
}

/** A URL as compared between the parts: no trailing slash, fragment or surrounding punctuation; case of host ignored. */
export function normalUrl(u: string): string {
  const s = u.trim().replace(/[).,;:!?>\]]+$/, '');
  try {
    const x = new URL(s);
    x.hash = '';
    return x.href.replace(/\/$/, '');
  } catch {
    return s.replace(/\/$/, '');
  }
}

export function runText(input: CheckInput): CheckResult {
  const html = input.html;
  const text = input.text;
  if (html === null && text === null) return { status: 'skipped', reason: 'the message has no body', findings: [] };
  if (html === null) return { status: 'passed', findings: [], meta: { textPart: true, overlap: 1, missingLinks: 0 } };
  const f = new Findings('text');
  if (text === null) {
    f.add({
      rule: 'missing-text-part',
      severity: 'warning',
      title: 'No text/plain part',
      detail: 'The message is HTML only; add a text/plain alternative rendered from the same template.',
      location: { part: 'text' },
      docs: DOCS,
    });
    return f.result({ textPart: false, overlap: 0, missingLinks: 0 });
  }
  if (text.trim() === '') {
    f.add({
      rule: 'empty-text-part',
      severity: 'error',
      title: 'Empty text part',
      detail: 'The text/plain part is blank.',
      location: { part: 'text' },
      docs: DOCS,
    });
    return f.result({ textPart: true, overlap: 0, missingLinks: 0 });
  }
  const doc = parseHtml(html);
  const body = doc.elements.find((e) => e.tagName === 'body');
  const htmlWords = tokens(body ? textOf(body, 1_000_000) : '');
  const textWords = tokens(text);
  // Words of the HTML found in the text, and of the text found in the HTML: the smaller decides.
  const overlap = Math.min(share(htmlWords, textWords), share(textWords, htmlWords));
  const textUrls = new Set([...text.matchAll(/https?:\/\/[^\s<>"']+/gi)].map((m) => normalUrl(m[0])));
  const seen = new Set<string>();
  let missing = 0;
  for (const el of doc.elements) {
    if (el.tagName !== 'a') continue;
    const href = attr(el, 'href')?.trim();
    if (!href || !/^https?:\/\//i.test(href)) continue;
    const n = normalUrl(href);
    if (seen.has(n)) continue;
    seen.add(n);
    if (textUrls.has(n)) continue;
    missing++;
    const loc = el.sourceCodeLocation?.attrs?.href ?? el.sourceCodeLocation;
    f.add({
      rule: 'missing-link',
      severity: 'warning',
      title: 'Link missing from the text part',
      detail: `The HTML links to ${href.slice(0, 200)} ("${textOf(el, 80)}"), the text part does not.`,
      location: loc ? { part: 'html', line: loc.startLine, column: loc.startCol } : { part: 'html' },
      evidence: href.slice(0, 200),
      docs: DOCS,
    });
  }
  if (overlap < MIN_OVERLAP)
    f.add({
      rule: 'content-differs',
      severity: 'warning',
      title: `The text part shares ${Math.round(overlap * 100)}% of its words with the HTML`,
      detail: `Under ${MIN_OVERLAP * 100}%: the text part (${textWords.size} distinct words) does not say what the HTML (${htmlWords.size}) says.`,
      location: { part: 'text', line: 1, column: 1 },
      docs: DOCS,
    });
  return f.result({ textPart: true, overlap: Math.round(overlap * 1000) / 1000, missingLinks: missing, htmlLinks: seen.size });
}

export const textCheck: CheckDef = {
  name: 'text',
  description: 'A text/plain part exists and says what the HTML says (same links, similar words)',
  version: '1',
  rules: TEXT_RULES,
  run: async (input) => runText(input),
};
