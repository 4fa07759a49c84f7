// Bounded work: huge and pathological inputs still give the right answer (timings are checked by the
// bench, not here).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEntities } from '../../src/mail/extract/entities.ts';
import { htmlToDoc, htmlToText } from '../../src/mail/extract/html-text.ts';
import { x } from './extract-helpers.ts';

test('20 MB text body: the code near the top is found', () => {
  const text = 'Your verification code is 482913.\n' + 'lorem ipsum dolor sit amet 12345 consectetur '.repeat(460_000);
  assert.ok(text.length > 20_000_000);
  assert.equal(x({ subject: 'Your code', text }).otp, '482913');
});

test('10,000-deep nesting', () => {
  const html = '<div>'.repeat(10_000) + 'Your code is <b>482913</b>' + '</div>'.repeat(10_000);
  assert.equal(x({ subject: 'Code', html }).otp, '482913');
  const unclosed = '<span><b><i>'.repeat(10_000) + 'Your code is 482913';
  assert.equal(x({ subject: 'Code', html: unclosed }).otp, '482913');
});

test('100,000 links: the verify link is still found', () => {
  const html =
    '<p><a href="https://example.com/verify?token=abcdef1234567890XYZ">Verify email</a></p>' +
    Array.from({ length: 100_000 }, (_, i) => `<a href="https://example.com/p/${i}?x=${i}">item ${i}</a>`).join('\n');
  assert.equal(x({ subject: 'Verify your email', html }).primaryLink, 'https://example.com/verify?token=abcdef1234567890XYZ');
  const text =
    'Verify your email: https://example.com/verify?token=abcdef1234567890XYZ\n' +
    Array.from({ length: 100_000 }, (_, i) => `https://example.com/p/${i}`).join(' ');
  assert.equal(x({ subject: 'Verify your email', text }).primaryLink, 'https://example.com/verify?token=abcdef1234567890XYZ');
});

test('pathological HTML does not throw', () => {
  for (const html of [
    '<'.repeat(2_000_000),
    '<a href="' + 'x'.repeat(3_000_000),
    '<!--' + 'x'.repeat(1_000_000),
    '<style>' + 'x'.repeat(1_000_000),
    '&amp;'.repeat(1_000_000),
    '<p ' + 'a=b '.repeat(200_000) + '>code 482913</p>',
    '<table>' + '<tr><td>1</td></tr>'.repeat(100_000),
  ]) {
    const r = x({ subject: 'x', html });
    assert.equal(typeof r.candidates.length, 'number');
  }
});

test('pathological text does not throw', () => {
  for (const text of [
    '1 '.repeat(1_000_000),
    '@'.repeat(200_000),
    ('http://' + 'a.'.repeat(3000) + ' ').repeat(300),
    'code '.repeat(400_000),
    'a'.repeat(5_000_000),
  ]) {
    const r = x({ subject: 'code', text });
    assert.equal(typeof r.candidates.length, 'number');
  }
});

test('html-text: blocks, cells, hidden preheader, entities', () => {
  const doc = htmlToDoc(
    '<head><title>T</title><style>p{}</style></head><body><div style="display:none">Preheader 1</div><p>A&nbsp;&amp;&#x42;&#67;&copy;</p><table><tr><td>6</td><td>1</td></tr></table><br>x<script>y</script><a href="https://e.example/?a=1&amp;b=2">Go <img alt="logo"></a></body>',
  );
  assert.deepEqual(
    doc.lines.map((l) => l.text),
    ['Preheader 1', 'A &BC©', '6\t1', 'xGo'],
  );
  assert.equal(doc.lines[0]?.hidden, true);
  assert.equal(doc.links[0]?.href, 'https://e.example/?a=1&b=2');
  assert.equal(doc.links[0]?.text, 'Go');
  assert.equal(htmlToText('<p>a</p><p>b</p>'), 'a\nb');
});

test('entities: numeric, named, legacy without ;, not inside a query', () => {
  assert.equal(decodeEntities('&lt;&#60;&#x3C;&eacute;&hellip;&euro;&unknown;'), '<<<é…€&unknown;');
  assert.equal(decodeEntities('a=1&copy=2&amp b'), 'a=1&copy=2& b');
  assert.equal(decodeEntities('&#150;'), '–');
});
