// The message HTML preview. Mail is attacker-controlled: anyone can send it to an inbox an admin opens here.
// The HTML goes into an <iframe sandbox="" srcdoc=…>:
//   - sandbox with no allow-* flag: no script, no form, no popup, no top navigation, no plugins, and an opaque
//     origin, so the frame cannot read the console's sessionStorage (the key), cookies or DOM;
//   - the frame inherits the console page's CSP: no inline script, and `frame-src 'none'` (which does not govern the
//     srcdoc itself) stops any navigation of the frame, so a clicked link goes nowhere. It gets a stricter policy of
//     its own too, first in its <head> and as the iframe `csp` attribute: nothing loads but inline styles and data:
//     images, unless the user turns remote images on;
//   - it is a fixed box under a header the mail cannot reach, so it cannot draw over the console's own controls.

/** The policy inside the frame; `remote` lets images (only images) load from the network. */
export function previewCsp(remote: boolean): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `img-src data:${remote ? ' https: http:' : ''}`,
    'font-src data:',
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The srcdoc: our CSP, then the mail's HTML untouched. */
export function previewDocument(html: string, remote: boolean): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(previewCsp(remote))}">` +
    '<meta name="referrer" content="no-referrer">' +
    '<style>html{color-scheme:light}body{margin:8px;background:#fff;color:#111}</style>' +
    '</head><body>' +
    html +
    '</body></html>'
  );
}

export interface MailLink {
  href: string;
  text: string;
}

/**
 * Links of the mail, read with DOMParser (a document without a browsing context: nothing runs, nothing loads),
 * so the user can see and copy targets instead of clicking inside the preview. Only http(s) and mailto.
 */
export function linksOf(html: string, max = 200): MailLink[] {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const out: MailLink[] = [];
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href')?.trim() ?? '';
    if (!/^(https?:|mailto:)/i.test(href)) continue;
    out.push({ href, text: (a.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200) });
    if (out.length >= max) break;
  }
  return out;
}

/** Counts what the default preview blocks, to say so next to the toggle. */
export function remoteImageCount(html: string): number {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  let n = 0;
  for (const img of Array.from(doc.querySelectorAll('img[src], [background]'))) {
    const src = img.getAttribute('src') ?? img.getAttribute('background') ?? '';
    if (/^\s*(https?:)?\/\//i.test(src)) n++;
  }
  n += (html.match(/url\(\s*['"]?\s*(https?:)?\/\//gi) ?? []).length;
  return n;
}

// Inline images (`<img src="cid:…">`, RFC 2392). The frame cannot fetch the attachment route itself (the key is a
// header, and its policy allows only data: images), so the console fetches each referenced image part with the key
// and puts it into the HTML as a data: URL. Only raster image types; anything else stays a dead cid: reference.

const CID = /cid:([^"'\s)>]+)/gi;

/** A Content-ID as the HTML refers to it: without angle brackets, percent-decoded, case-insensitive. */
export function normalizeCid(id: string): string {
  let s = id.trim().replace(/^<|>$/g, '');
  try {
    s = decodeURIComponent(s);
  } catch {
    // Not percent-encoded after all: compare as written.
  }
  return s.toLowerCase();
}

/** Every Content-ID the HTML refers to with cid:. */
export function cidRefs(html: string | null): Set<string> {
  const out = new Set<string>();
  if (!html) return out;
  for (const m of html.matchAll(CID)) out.add(normalizeCid(m[1]!));
  return out;
}

/** The HTML with each known cid: reference replaced by its data: URL; unknown ones are left as they are. */
export function withInlineImages(html: string, images: Map<string, string>): string {
  if (!images.size) return html;
  return html.replace(CID, (all, id: string) => images.get(normalizeCid(id)) ?? all);
}

/** Image types shown inline (as data: URLs in the sandboxed frame). */
export const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/** Largest inline image fetched for the preview. */
export const INLINE_IMAGE_MAX = 5 * 1024 * 1024;

/**
 * Whether an attachment is an inline part of the HTML rather than an attachment to list: the server's `inline` flag
 * when it sends one, else (older servers) a Content-ID the HTML refers to.
 */
export function isInlinePart(a: { inline?: boolean; contentId?: string | null }, refs: Set<string>): boolean {
  if (typeof a.inline === 'boolean') return a.inline;
  return !!a.contentId && refs.has(normalizeCid(a.contentId));
}
