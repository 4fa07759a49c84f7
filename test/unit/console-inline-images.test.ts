// The console's inline-image rewriting (src/console/ui/preview.ts): which parts of a message the HTML shows by cid:
// (so they are not listed as attachments), and the HTML with those references turned into the data: URLs the
// sandboxed preview may load. Pure string work, no browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cidRefs, isInlinePart, normalizeCid, withInlineImages } from '../../src/console/ui/preview.ts';

test('Content-IDs compare without angle brackets, percent-encoding or case', () => {
  assert.equal(normalizeCid('<Logo.1@Acme.example>'), 'logo.1@acme.example');
  assert.equal(normalizeCid('logo%201@acme.example'), 'logo 1@acme.example');
  assert.equal(normalizeCid('50%@x'), '50%@x', 'a stray % is kept as written');
});

test('cid: references are found in src, background and CSS url()', () => {
  const html =
    '<img src="cid:a@x"><img src=cid:B@x alt=b><td background=\'cid:c@x\'></td><div style="background:url(cid:d@x)"></div>' +
    '<p>cid:e@x in prose counts too</p>';
  assert.deepEqual([...cidRefs(html)].sort(), ['a@x', 'b@x', 'c@x', 'd@x', 'e@x']);
  assert.equal(cidRefs(null).size, 0);
});

test('known references become data: URLs; unknown ones stay as they are', () => {
  const png = 'data:image/png;base64,iVBORw0KGgo=';
  const out = withInlineImages('<img src="cid:A@x"><img src="cid:missing@x"><i style="background:url(cid:a@x)">', new Map([['a@x', png]]));
  assert.equal(out, `<img src="${png}"><img src="cid:missing@x"><i style="background:url(${png})">`);
  assert.equal(withInlineImages('<img src="cid:a@x">', new Map()), '<img src="cid:a@x">');
});

test("a part is inline by the server's flag when it sends one, else when the HTML refers to its Content-ID", () => {
  const refs = cidRefs('<img src="cid:logo@x">');
  assert.equal(isInlinePart({ inline: true, contentId: null }, refs), true);
  assert.equal(isInlinePart({ inline: false, contentId: '<logo@x>' }, refs), false);
  assert.equal(isInlinePart({ contentId: '<LOGO@x>' }, refs), true);
  assert.equal(isInlinePart({ contentId: '<other@x>' }, refs), false);
  assert.equal(isInlinePart({ contentId: null }, refs), false);
});
