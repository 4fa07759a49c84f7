// The message HTML preview. Mail is attacker-controlled: anyone can send it to an inbox an admin opens here.
// The HTML goes into an <iframe sandbox="" srcdoc=…>:
//   - sandbox with no allow-* flag: no script, no form, no popup, no top navigation, no plugins, and an opaque
//     origin, so the frame cannot read the console's sessionStorage (the key), cookies or DOM;
//   - the frame inherits the console page's CSP: no inline script, and `frame-src 'none'` (which does not govern the
//     srcdoc itself) stops any navigation of the frame, so a clicked link goes nowhere. It gets a stricter policy of
//     its own too, first in its <head> and as the iframe `csp` attribute: nothing loads but inline styles and data:
//     images, unless the user turns remote images on;
//   - it is a fixed box under a header the mail cannot reach, so it cannot draw over the console's own controls.

/** The policy inside the frame; `remote` lets images (only images) load from the network; `images: false` none at all. */
export function previewCsp(remote: boolean, images = true): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    images ? `img-src data:${remote ? ' https: http:' : ''}` : "img-src 'none'",
    'font-src data:',
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** How the preview shows the mail, as a client would (issue 32: widths, images, light or dark). */
export interface ClientView {
  /** false: every image blocked (a client with images off shows alt text). */
  images: boolean;
  dark: boolean;
}

/** Preview widths in CSS pixels (null: the pane's width). */
export const WIDTHS = { phone: 375, tablet: 768, desktop: null } as const;

/**
 * The mail's own dark-mode CSS switched on or off: `@media (prefers-color-scheme: dark)` rules apply in the dark view
 * and `light` ones in the light view, whatever the system says (a sandboxed srcdoc frame follows the console's
 * preference, not a per-frame choice).
 */
export function forceScheme(html: string, dark: boolean): string {
  return html.replace(/\(\s*prefers-color-scheme\s*:\s*(dark|light)\s*\)/gi, (_all, want: string) =>
    (want.toLowerCase() === 'dark') === dark ? '(min-width:0px)' : '(max-width:-1px)',
  );
}

/** The srcdoc: our CSP, then the mail's HTML (untouched but for the colour-scheme queries of the chosen view). */
export function previewDocument(html: string, remote: boolean, view: ClientView = { images: true, dark: false }): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(previewCsp(remote, view.images))}">` +
    '<meta name="referrer" content="no-referrer">' +
    (view.dark
      ? '<style>html{color-scheme:dark}body{margin:8px;background:#121212;color:#e8e8e8}</style>'
      : '<style>html{color-scheme:light}body{margin:8px;background:#fff;color:#111}</style>') +
    '</head><body>' +
    forceScheme(html, view.dark) +
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

/** Gmail clips a message whose HTML is over 102 KB ("[Message clipped] View entire message"); checks/html says the same. */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/** The HTML's size in UTF-8 bytes. */
export function htmlBytes(html: string): number {
  return new TextEncoder().encode(html).length;
}

/**
 * Where Gmail would cut the HTML: the character where its byte 102 KB ends (moved back to the start of a tag the
 * threshold falls inside, so the mark never splits one, nor a surrogate pair), or null when it fits. The console
 * marks that point in the preview.
 */
export function clipIndex(html: string, limit = GMAIL_CLIP_BYTES): number | null {
  let bytes = 0;
  let i = 0;
  for (; i < html.length; i++) {
    const c = html.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
    if (bytes > limit) break;
  }
  if (i >= html.length) return null;
  const open = html.lastIndexOf('<', i);
  return open > html.lastIndexOf('>', i - 1) ? open : i;
}

/** The mark drawn where Gmail clips (our own markup, inside the sandboxed frame). */
export const CLIP_MARK =
  '<div id="inboxd-gmail-clip" style="all:initial;display:block;margin:12px 0;padding:6px 8px;border-top:3px dashed #d93025;' +
  'font:13px sans-serif;color:#d93025;background:#fff4f2">[Message clipped] Gmail cuts the message here (102 KB of HTML)</div>';

/** The HTML with the clipping mark inserted at Gmail's cut, and where it went (null: the HTML fits). */
export function withClipMark(html: string): { html: string; at: number | null } {
  const at = clipIndex(html);
  return at === null ? { html, at } : { html: html.slice(0, at) + CLIP_MARK + html.slice(at), at };
}
