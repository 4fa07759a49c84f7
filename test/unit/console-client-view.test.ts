// The console's render-as-clients helpers (src/console/ui/preview.ts): where Gmail's 102 KB clipping point falls in
// the HTML (counted in UTF-8 bytes, moved back to the end of the last whole tag so the mark never splits one), and the
// mail's own light/dark CSS switched to the chosen view. Pure string work, no browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIP_MARK, clipIndex, forceScheme, GMAIL_CLIP_BYTES, htmlBytes, previewCsp, withClipMark } from '../../src/console/ui/preview.ts';

test('HTML up to 102 KB fits; one byte more is clipped', () => {
  const exact = `<p>${'a'.repeat(GMAIL_CLIP_BYTES - 7)}</p>`;
  assert.equal(htmlBytes(exact), GMAIL_CLIP_BYTES);
  assert.equal(clipIndex(exact), null);
  assert.deepEqual(withClipMark(exact), { html: exact, at: null });
  const over = `${exact}<b>x</b>`;
  assert.equal(clipIndex(over), exact.length, 'cut after the last whole tag before the threshold');
});

test('bytes, not characters: multi-byte text reaches the threshold sooner, and a surrogate pair stays whole', () => {
  const html = `<p>${'€'.repeat(40_000)}</p>`; // 3 bytes each: 120,000 bytes in 40,000 characters
  assert.ok(html.length < GMAIL_CLIP_BYTES && htmlBytes(html) > GMAIL_CLIP_BYTES);
  const at = clipIndex(html)!;
  assert.equal(htmlBytes(html.slice(0, at)), GMAIL_CLIP_BYTES, 'everything before the cut is exactly 102 KB');
  const emoji = `<i>${'😀'.repeat(30_000)}</i>`; // 4 bytes per pair of UTF-16 units
  const cut = clipIndex(emoji)!;
  assert.equal((cut - 3) % 2, 0, 'never between the two halves of a pair');
  assert.ok(htmlBytes(emoji.slice(0, cut)) <= GMAIL_CLIP_BYTES && htmlBytes(emoji.slice(0, cut + 2)) > GMAIL_CLIP_BYTES);
});

test('the mark never splits a tag: a threshold inside one moves back to its start', () => {
  const pad = 'x'.repeat(GMAIL_CLIP_BYTES - 10);
  const html = `<div>${pad}<a href="https://example.test/long">link</a></div>`;
  const { html: marked, at } = withClipMark(html);
  assert.equal(at, html.indexOf('<a '));
  assert.equal(marked, html.slice(0, at!) + CLIP_MARK + html.slice(at!));
});

test('dark view: the mail’s dark-mode rules apply and its light-only rules do not; light view the other way round', () => {
  const css = '@media (prefers-color-scheme: dark){a{color:#fff}} @media screen and ( Prefers-Color-Scheme : light ){a{color:#000}}';
  assert.equal(forceScheme(css, true), '@media (min-width:0px){a{color:#fff}} @media screen and (max-width:-1px){a{color:#000}}');
  assert.equal(forceScheme(css, false), '@media (max-width:-1px){a{color:#fff}} @media screen and (min-width:0px){a{color:#000}}');
  assert.equal(forceScheme('<p>prefers-color-scheme is a media feature</p>', true), '<p>prefers-color-scheme is a media feature</p>');
});

test('images off allows no image source at all, not even data: or remote', () => {
  assert.match(previewCsp(false), /img-src data:;/);
  assert.match(previewCsp(true), /img-src data: https: http:;/);
  assert.match(previewCsp(true, false), /img-src 'none';/);
});
