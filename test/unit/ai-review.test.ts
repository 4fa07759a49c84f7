// The reader's checks of an extraction (src/ai/review.ts) on parsed mail: the checks the API tests do not reach —
// stated shipping and discounts, tax included, a due date before the issue date, a currency the amounts contradict,
// shared symbols, a fractional yen amount, a negative total on an ordinary invoice — and model answers looked up in
// every written form of a number or date.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewOf } from '../../src/ai/builtin/view.ts';
import { commerceChecks, runVerifyJob } from '../../src/ai/review.ts';
import { parseMessage } from '../../src/mail/parse.ts';

type Json = Record<string, any>;

const mail = (subject: string, lines: string[]) =>
  parseMessage(
    Buffer.from(
      `From: Shop <shop@example.test>\r\nTo: a@example.test\r\nSubject: ${subject}\r\nDate: Wed, 01 Apr 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${lines.join('\r\n')}\r\n`,
    ),
  );

const byName = (checks: Array<{ name: string; ok: boolean; detail: string }>) => Object.fromEntries(checks.map((c) => [c.name, c]));

test('stated shipping and discounts explain the difference; a tax included in the subtotal is recognised', async () => {
  const m = await mail('Order 1042', [
    'Blanket × 1 $98.00',
    'Napkins × 2 $60.00',
    'Subtotal $158.00',
    'Discount (SPRING) -$20.00',
    'Shipping $6.95',
    'Taxes $10.00',
    'Total $154.95 USD',
  ]);
  const data = {
    currency: 'USD',
    total: 154.95,
    subtotal: 158,
    tax: 10,
    items: [
      { description: 'Blanket', quantity: 1, amount: 98 },
      { description: 'Napkins', quantity: 2, amount: 60 },
    ],
  };
  const c = byName(commerceChecks('receipt', data, viewOf(m)));
  assert.equal(c.linesTotal!.ok, true, c.linesTotal!.detail);
  assert.equal(c.subtotalTaxTotal!.ok, true, c.subtotalTaxTotal!.detail);
  assert.match(c.subtotalTaxTotal!.detail, /− 20\.00 \("Discount \(SPRING\) -\$20\.00"\) \+ 6\.95 \("Shipping \$6\.95"\) = total 154\.95/);
  // without the shipping line the same numbers do not add up
  const bare = await mail('Order 1042', [
    'Blanket × 1 $98.00',
    'Napkins × 2 $60.00',
    'Subtotal $158.00',
    'Taxes $10.00',
    'Total $154.95 USD',
  ]);
  assert.equal(byName(commerceChecks('receipt', data, viewOf(bare))).subtotalTaxTotal!.ok, false);

  const jp = await mail('ご注文', ['小計 5,880円', '送料 650円', '合計 6,530円', '（うち消費税 594円）']);
  const t = byName(commerceChecks('receipt', { currency: 'JPY', total: 6530, subtotal: 5880, tax: 594, items: null }, viewOf(jp)));
  assert.equal(t.subtotalTaxTotal!.ok, true, t.subtotalTaxTotal!.detail);
  assert.match(t.subtotalTaxTotal!.detail, /tax 594 included/);
});

test('dates, currency and sign: what a reader would refuse', async () => {
  const m = await mail('Invoice 77', ['Invoice 77', 'Date: 15.04.2026', 'Due: 01.04.2026', 'Total: $250.00']);
  const v = viewOf(m);
  const c = byName(
    commerceChecks('invoice', { issueDate: '2026-04-15', dueDate: '2026-04-01', currency: 'EUR', total: -250, lineItems: null }, v),
  );
  assert.equal(c.dueDate!.ok, false);
  assert.equal(c.dueDate!.detail, 'due 2026-04-01 is before issue 2026-04-15');
  assert.equal(c.currency!.ok, false);
  assert.match(c.currency!.detail, /currency EUR, but the total is written as \$/);
  assert.equal(c.totalSign!.ok, false);
  assert.equal(c.linesTotal, undefined, 'no lines: the check is not run, not failed');
  assert.equal(c.totalPresent, undefined);
  // "$" fits any dollar; "kr" any krona
  assert.equal(byName(commerceChecks('invoice', { currency: 'CAD', total: 250 }, v)).currency!.ok, true);
  const kr = viewOf(await mail('Faktura', ['Att betala: 349 kr']));
  assert.equal(byName(commerceChecks('invoice', { currency: 'NOK', total: 349 }, kr)).currency!.ok, true);
  const yen = viewOf(await mail('領収書', ['合計 1,234円']));
  const y = byName(commerceChecks('receipt', { currency: 'JPY', total: 1234.5 }, yen));
  assert.equal(y.currency!.ok, false);
  assert.match(y.currency!.detail, /JPY has no minor unit/);
  const credit = viewOf(await mail('Credit note CN-4', ['Credit note CN-4', 'Total: -250.00 EUR']));
  assert.equal(byName(commerceChecks('invoice', { currency: 'EUR', total: -250 }, credit)).totalSign!.ok, true);
});

test("a model's numbers and dates are found in any written form, or flagged and nulled", async () => {
  const msg = await mail('Rechnung R-88', [
    'Rechnung R-88 vom 5. April 2026',
    'Summe netto: 1.234,50 €',
    'MwSt. 19 %: 234,56 €',
    'Gesamt: 1.469,06 €',
  ]);
  const data: Json = { number: 'R-88', issued: '2026-04-05', net: 1234.5, vatRate: 0.19, gross: 1469.06, due: '2026-05-05', fee: 12 };
  const r = runVerifyJob({ msg, data, preset: null });
  assert.deepEqual(r.unsupported, ['/due', '/fee']);
  assert.equal((r.data as Json).net, 1234.5);
  assert.equal((r.data as Json).due, null);
  assert.equal((r.data as Json).fee, null);
  assert.equal(r.sources['/issued']!.text, 'Rechnung R-88 vom 5. April 2026');
  assert.equal(r.sources['/vatRate']!.text, 'MwSt. 19 %: 234,56 €');
  assert.equal(r.sources['/due'], undefined);
  for (const src of Object.values(r.sources)) if (src.span) assert.equal(r.sourceText.slice(src.span[0], src.span[1]), src.text);
  const sup = r.checks.find((c) => c.name === 'supported')!;
  assert.equal(sup.ok, false);
  assert.match(sup.detail, /\/due \("2026-05-05"\), \/fee \(12\)/);
});
