// HTML tables turned into text (src/mail/extract/html-text.ts): a row is a line, its cells are separated by a tab,
// so "1" and "240.00 EUR" in two cells never read as "1240.00 EUR" (issue 27). Layout tables (a table inside a
// cell, a cell of many lines) stay lines of their own, and the invoice preset reads the separated cells.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinPreset } from '../../src/ai/builtin/index.ts';
import { htmlToDoc, htmlToText } from '../../src/mail/extract/html-text.ts';
import { extractVerification } from '../../src/mail/extract/index.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const INVOICE_TABLE = `<table class="items" cellpadding="4" cellspacing="0" border="1">
<thead><tr><th>Qty</th><th>Description</th><th>Unit</th><th>Amount</th></tr></thead>
<tbody>
<tr><td>1</td><td>Consulting<br><span style="color:#888">March 2026</span></td><td>240.00 EUR</td><td>240.00 EUR</td></tr>
<tr><td>3</td><td><p style="margin:0">Support hours</p></td><td>50.00 EUR</td><td>150.00 EUR</td></tr>
<tr><td colspan="3" align="right">Subtotal</td><td>390.00 EUR</td></tr>
<tr><td colspan="3" align="right">VAT 0%</td><td>0.00 EUR</td></tr>
<tr><td colspan="3" align="right"><b>Total</b></td><td><b>390.00 EUR</b></td></tr>
</tbody></table>`;

/** An invoice mail as an email builder lays it out: a centring table, a header row, the item table nested in a cell. */
const INVOICE_HTML = `<!doctype html><html><head><style>td{padding:4px}</style></head><body>
<table width="100%" cellpadding="0" cellspacing="0" role="presentation"><tr><td align="center">
<table width="600" cellpadding="0" cellspacing="0">
<tr><td><img src="cid:logo@northwind.example" alt="" width="120"></td><td align="right">Invoice INV-2026-0412</td></tr>
<tr><td colspan="2"><p>Hello Dana,</p><p>Thank you for your business. Please find your invoice below.</p></td></tr>
<tr><td colspan="2">
${INVOICE_TABLE}
</td></tr>
<tr><td colspan="2"><p>Invoice date: 2026-04-01<br>Due date: 2026-04-15</p><p>Northwind Consulting GmbH</p></td></tr>
</table></td></tr></table></body></html>`;

test('html-text: an invoice table is a line per row, cells separated by a tab (header, <br> in a cell, colspan)', () => {
  assert.deepEqual(htmlToText(INVOICE_HTML).split('\n'), [
    'Invoice INV-2026-0412',
    'Hello Dana,',
    'Thank you for your business. Please find your invoice below.',
    'Qty\tDescription\tUnit\tAmount',
    '1\tConsulting March 2026\t240.00 EUR\t240.00 EUR',
    '3\tSupport hours\t50.00 EUR\t150.00 EUR',
    'Subtotal\t390.00 EUR',
    'VAT 0%\t0.00 EUR',
    'Total\t390.00 EUR',
    'Invoice date: 2026-04-01',
    'Due date: 2026-04-15',
    'Northwind Consulting GmbH',
  ]);
});

test('html-text: a receipt table keeps quantity, description and price apart', () => {
  const html = `<html><body><table width="100%" cellpadding="0" cellspacing="0"><tr><td>
<p>Blue Door Cafe</p><p>Receipt #4471 · Apr 3, 2026 9:41 AM</p>
<table width="100%">
<tr><td>Flat white</td><td align="right">x2</td><td align="right">$9.00</td></tr>
<tr><td>Blueberry muffin</td><td align="right">x1</td><td align="right">$3.75</td></tr>
<tr><td colspan="2">Subtotal</td><td align="right">$12.75</td></tr>
<tr><td colspan="2">Tax (8.875%)</td><td align="right">$1.13</td></tr>
<tr><td colspan="2"><b>Total</b></td><td align="right"><b>$13.88</b></td></tr>
<tr><td></td><td colspan="2">Visa ••••4242</td></tr>
</table>
<p>Thank you for visiting!</p></td></tr></table></body></html>`;
  const doc = htmlToDoc(html);
  assert.deepEqual(
    doc.lines.map((l) => l.text),
    [
      'Blue Door Cafe',
      'Receipt #4471 · Apr 3, 2026 9:41 AM',
      'Flat white\tx2\t$9.00',
      'Blueberry muffin\tx1\t$3.75',
      'Subtotal\t$12.75',
      'Tax (8.875%)\t$1.13',
      'Total\t$13.88',
      'Visa ••••4242',
      'Thank you for visiting!',
    ],
  );
  // emphasis is counted over the whole row: the bold total row is emphasised
  assert.equal(doc.lines[6]?.emph, true);
});

test('html-text: a marketing layout (nested content tables, columns of paragraphs) gives its lines, not joined columns', () => {
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<div style="display:none;max-height:0">Spring sale: 20% off trail gear</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td align="center" bgcolor="#f4f4f4">
  <table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0">
    <tr>
      <td width="300"><a href="https://shop.example/?utm=logo"><img src="https://shop.example/logo.png" alt="Trailhead Outfitters" width="160"></a></td>
      <td width="300" align="right"><a href="https://shop.example/view/123">View in browser</a></td>
    </tr>
    <tr><td colspan="2" style="padding:24px"><h1>Spring into the trails</h1><p>Hi Sam,</p>
      <p>Our spring sale starts today. Everything below is 20% off until Sunday.</p></td></tr>
    <tr>
      <td width="300" valign="top">
        <table role="presentation" width="100%"><tr><td><img src="https://shop.example/p1.jpg" alt="" width="280"></td></tr>
          <tr><td><p style="margin:0"><strong>Trail Runner X</strong></p><p style="margin:0">Was $89.99, now $71.99</p></td></tr>
          <tr><td><a class="btn" href="https://shop.example/p/trail-runner-x">Shop now</a></td></tr></table>
      </td>
      <td width="300" valign="top">
        <table role="presentation" width="100%"><tr><td><img src="https://shop.example/p2.jpg" alt="" width="280"></td></tr>
          <tr><td><p style="margin:0"><strong>Daypack 22L</strong></p><p style="margin:0">Was $24.99, now $19.99</p></td></tr>
          <tr><td><a class="btn" href="https://shop.example/p/daypack-22l">Shop now</a></td></tr></table>
      </td>
    </tr>
    <tr><td colspan="2" style="font-size:12px;color:#888">Trailhead Outfitters, 12 Pine Rd, Boulder, CO 80302<br>
      <a href="https://shop.example/unsubscribe?u=9">Unsubscribe</a> | <a href="https://shop.example/prefs">Preferences</a></td></tr>
  </table>
</td></tr></table></body></html>`;
  const doc = htmlToDoc(html);
  assert.deepEqual(
    doc.lines.map((l) => l.text),
    [
      'Spring sale: 20% off trail gear',
      'View in browser',
      'Spring into the trails',
      'Hi Sam,',
      'Our spring sale starts today. Everything below is 20% off until Sunday.',
      'Trail Runner X',
      'Was $89.99, now $71.99',
      'Shop now',
      'Daypack 22L',
      'Was $24.99, now $19.99',
      'Shop now',
      'Trailhead Outfitters, 12 Pine Rd, Boulder, CO 80302',
      'Unsubscribe | Preferences',
    ],
  );
  assert.equal(doc.lines[0]?.hidden, true);
  // each link points at the line that holds it
  const at = (href: string) => doc.lines[doc.links.find((l) => l.href === href)!.line]?.text;
  assert.equal(at('https://shop.example/view/123'), 'View in browser');
  assert.equal(at('https://shop.example/p/daypack-22l'), 'Shop now');
  assert.equal(doc.links.find((l) => l.href === 'https://shop.example/p/daypack-22l')?.line, 10);
  assert.equal(at('https://shop.example/prefs'), 'Unsubscribe | Preferences');
});

test('html-text: a two-column header of label<br>value cells; an address column stays lines', () => {
  const html = `<table><tr>
<td>APPLE ACCOUNT<br>sam@inbox.example</td><td>DATE<br>Apr 6, 2026</td><td>ORDER ID<br><a href="https://apple.example/o/MN4QK29TZX">MN4QK29TZX</a></td>
</tr><tr>
<td>BILLED TO<br>Sam Kim<br>1 Main St<br>Seattle, WA 98101</td><td>DOCUMENT NO.<br>184729305516</td>
</tr></table>`;
  const doc = htmlToDoc(html);
  assert.deepEqual(
    doc.lines.map((l) => l.text),
    [
      'APPLE ACCOUNT sam@inbox.example\tDATE Apr 6, 2026\tORDER ID MN4QK29TZX',
      'BILLED TO',
      'Sam Kim',
      '1 Main St',
      'Seattle, WA 98101',
      'DOCUMENT NO.',
      '184729305516',
    ],
  );
  assert.equal(doc.links[0]?.line, 0);
});

test('html-text: sloppy rows (no </td>, no </tr>, cells outside <tr>) and empty cells', () => {
  assert.equal(htmlToText('<table><tr><td>a<td>b<tr><td>c<td></td><td>d</table>after'), 'a\tb\nc\td\nafter');
  assert.equal(htmlToText('<table><td>x</td><td>y</td></table>'), 'x\ty');
  assert.equal(htmlToText('<td>x</td><td>y</td>'), 'x\ty');
  assert.equal(htmlToText('<table><tr><td></td><td>only</td></tr></table>'), 'only');
});

test('html-text: a code laid out one digit per cell is still found by the verification extractor', async () => {
  const cells = [...'615027'].map((d) => `<td style="font-weight:700">${d}</td><td style="width:8px"></td>`).join('');
  const html = `<p>Your login code:</p><table><tr>${cells}</tr></table><p>It expires in 10 minutes.</p>`;
  assert.equal(htmlToText(html).split('\n')[1], '6\t1\t5\t0\t2\t7');
  const raw = `From: Discord <noreply@discord.example>\r\nTo: a@inbox.example\r\nSubject: Your login code\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`;
  assert.equal(extractVerification(await parseMessage(Buffer.from(raw))).otp, '615027');
});

test('invoice preset: an HTML-only invoice table gives its line items, never glued numbers', async () => {
  const rows = `<table>
<tr><th>Description</th><th>Qty</th><th>Amount</th></tr>
<tr><td>Consulting</td><td>1</td><td>240.00 EUR</td></tr>
<tr><td>Support hours</td><td>3</td><td>150.00 EUR</td></tr>
<tr><td colspan="2">Total</td><td>390.00 EUR</td></tr></table>`;
  const mail = (html: string) =>
    Buffer.from(
      'From: Northwind Consulting <billing@northwind.example>\r\nTo: dana@inbox.example\r\nSubject: Invoice INV-2026-0412\r\n' +
        'Date: Wed, 01 Apr 2026 09:00:00 +0000\r\nContent-Type: text/html; charset=utf-8\r\n\r\n' +
        html +
        '\r\n',
    );
  // Qty | Description | Unit | Amount, in an email builder's layout
  const a = builtinPreset(await parseMessage(mail(INVOICE_HTML)), 'invoice');
  assert.equal(a.total, 390);
  assert.deepEqual(a.lineItems, [
    { description: 'Consulting March 2026', quantity: 1, unitPrice: 240, amount: 240 },
    { description: 'Support hours', quantity: 3, unitPrice: 50, amount: 150 },
  ]);
  // Description | Qty | Amount: the quantity cell sits next to the amount ("1 240.00 EUR" used to read as 1240)
  const b = builtinPreset(await parseMessage(mail(`<p>Invoice INV-2026-0412</p>${rows}<p>Invoice date: 2026-04-01</p>`)), 'invoice');
  assert.equal(b.total, 390);
  assert.deepEqual(b.lineItems, [
    { description: 'Consulting', quantity: 1, unitPrice: null, amount: 240 },
    { description: 'Support hours', quantity: 3, unitPrice: null, amount: 150 },
  ]);
});
