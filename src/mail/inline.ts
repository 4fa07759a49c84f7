// Inline parts and the text of a message as every answer shows them. Pure, over stored columns.
//
// Inline: a part is inline when the HTML body refers to its Content-ID with a `cid:` URL (RFC 2392), whatever its
// Content-Disposition says: that is what makes a mail client draw it inside the body (a logo, a signature image)
// rather than list it as a file. A part with `Content-Disposition: inline` that the HTML does not show (an iPhone's
// PDF, an image under a plain-text body) is still a file the sender attached, and counts as an attachment.
//
// Text: the text/plain part when there is one; else the text derived from the HTML (html-text.ts: block elements
// on their own lines, a table row per line with tab-separated cells), derived when asked (it is cheap) rather than
// stored twice.

import { htmlToText } from './extract/html-text.ts';

/** Characters of HTML searched for `cid:` references. */
const MAX_SCAN = 2 * 1024 * 1024;
const MAX_REFS = 1000;

/** A Content-ID as the HTML's `cid:` URLs name it: no angle brackets, lower-cased. */
export function normCid(id: string): string {
  let s = id.trim();
  if (s.startsWith('<') && s.endsWith('>')) s = s.slice(1, -1);
  return s.toLowerCase();
}

/** The Content-IDs the HTML refers to with `cid:` URLs, normalised (%-escapes decoded, lower-cased). */
export function cidRefs(html: string | null): Set<string> {
  const out = new Set<string>();
  if (!html) return out;
  const h = html.length > MAX_SCAN ? html.slice(0, MAX_SCAN) : html;
  const lower = h.toLowerCase();
  for (let i = lower.indexOf('cid:'); i >= 0 && out.size < MAX_REFS; i = lower.indexOf('cid:', i + 4)) {
    let e = i + 4;
    while (e < h.length && e - i < 1004 && !/[\s"'<>()\\]/.test(h[e]!)) e++;
    let ref = h.slice(i + 4, e).replaceAll('&amp;', '&');
    try {
      ref = decodeURIComponent(ref);
    } catch {
      // a stray % stays as written
    }
    if (ref !== '') out.add(normCid(ref));
  }
  return out;
}

/** Whether a part with this Content-ID is drawn inside the HTML body (see the top of this file). */
export function isInlinePart(contentId: string | null, refs: ReadonlySet<string>): boolean {
  return contentId !== null && refs.size > 0 && refs.has(normCid(contentId));
}

/** The parts that count as attachments: every part but the inline ones. */
export function attachmentCountOf(parts: ReadonlyArray<{ contentId: string | null }>, html: string | null): number {
  const refs = cidRefs(html);
  return parts.filter((p) => !isInlinePart(p.contentId, refs)).length;
}

export type TextSource = 'part' | 'html' | null;

/** A message's text: its text/plain part, else the text derived from its HTML, and which of the two it is. */
export function messageText(text: string | null, html: string | null): { text: string | null; textSource: TextSource } {
  if (text !== null) return { text, textSource: 'part' };
  if (html === null) return { text: null, textSource: null };
  const derived = htmlToText(html);
  return derived === '' ? { text: null, textSource: null } : { text: derived, textSource: 'html' };
}
