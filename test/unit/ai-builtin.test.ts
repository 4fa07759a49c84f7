// The built-in engine on mails outside the corpus (test/fixtures/structured-extra): other languages (it, nl, pl),
// a forwarded invoice (rule 4), US month-first dates, a refund, a UBL credit note attachment, JSON-LD.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { datesIn } from '../../src/ai/builtin/dates.ts';
import { builtinPreset } from '../../src/ai/builtin/index.ts';
import { moneyIn, parseNumber } from '../../src/ai/builtin/money.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/structured-extra');
const run = async (f: string, preset: 'invoice' | 'receipt' | '2fa') =>
  builtinPreset(await parseMessage(readFileSync(path.join(dir, f))), preset);

const CASES: Array<[string, 'invoice' | 'receipt' | '2fa', Record<string, unknown>]> = [
  ['terms-de.eml', 'invoice', { invoiceNumber: '2026-311', issueDate: '2026-03-02', dueDate: '2026-03-16', total: 1190, tax: 190 }],
  [
    'zh.eml',
    'invoice',
    { invoiceNumber: '24440000000012345678', issueDate: '2026-04-06', currency: 'CNY', total: 1060, subtotal: 1000, tax: 60 },
  ],
  [
    'pt.eml',
    'invoice',
    {
      invoiceNumber: '2026/77',
      issueDate: '2026-03-10',
      dueDate: '2026-03-25',
      currency: 'BRL',
      total: 1500,
      paymentUrl: 'https://pix.example/pay/777',
    },
  ],
  [
    'uk.eml',
    'receipt',
    {
      merchant: 'Hollow Oak Books',
      orderNumber: 'HOB-20931',
      date: '2026-04-03',
      currency: 'GBP',
      total: 12.94,
      paymentMethod: 'Apple Pay',
    },
  ],
  ['stripe.eml', 'receipt', { merchant: 'Acme Analytics, Inc.', orderNumber: '2231-4410', date: '2026-04-03', currency: 'USD', total: 49 }],
  ['ko.eml', 'receipt', { orderNumber: '2026040712345', date: '2026-04-07', currency: 'KRW', total: 39000 }],
  ['nl2fa.eml', '2fa', { code: '481093', link: null, expiresInMinutes: 10 }],
  [
    'it.eml',
    'invoice',
    { invoiceNumber: '2026/045', issueDate: '2026-03-15', dueDate: '2026-04-14', currency: 'EUR', total: 1220, subtotal: 1000, tax: 220 },
  ],
  [
    'nl.eml',
    'invoice',
    {
      invoiceNumber: '2026-117',
      vendor: 'Bakkerij de Vries',
      issueDate: '2026-03-03',
      dueDate: '2026-03-17',
      total: 109,
      tax: 9,
      paymentUrl: 'https://pay.example/i/abc?x=1&y=2',
    },
  ],
  [
    'fwd.eml',
    'invoice',
    { invoiceNumber: 'INV-8812', vendor: 'Acme Tools Ltd', issueDate: '2026-04-06', dueDate: '2026-05-06', currency: 'GBP', total: 540 },
  ],
  ['us.eml', 'invoice', { invoiceNumber: '20931', issueDate: '2026-03-04', dueDate: '2026-04-03', currency: 'USD', total: 180 }],
  [
    'pl.eml',
    'invoice',
    { invoiceNumber: 'FV/2026/11/042', issueDate: '2026-11-05', dueDate: '2026-11-19', currency: 'PLN', total: 1230, tax: 230 },
  ],
  [
    'ubl.eml',
    'invoice',
    { invoiceNumber: 'CN-2026-007', vendor: 'Lumen GmbH', issueDate: '2026-04-08', dueDate: null, currency: 'EUR', total: -119, tax: -19 },
  ],
  [
    'refund.eml',
    'receipt',
    { merchant: 'Nordic Gear', orderNumber: 'NG-55120', currency: 'USD', total: -25, paymentMethod: 'Visa ending 1234' },
  ],
  [
    'bare.eml',
    'invoice',
    {
      invoiceNumber: 'NP-1001',
      vendor: 'Northpeak Software Ltd',
      issueDate: '2026-05-02',
      currency: 'EUR',
      total: 100,
      subtotal: 100,
      tax: 0,
    },
  ],
  ['jsonld.eml', 'receipt', { merchant: 'Fjord Books', orderNumber: 'FB-9001', date: '2026-02-14', currency: 'NOK', total: 349 }],
];

for (const [file, preset, want] of CASES) {
  test(`${file} as ${preset}`, async () => {
    const got = await run(file, preset);
    for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k], v, `${file} ${k}`);
  });
}

test('amounts: locale-aware numbers and markers', () => {
  assert.equal(parseNumber('1.234,56'), 1234.56);
  assert.equal(parseNumber('1 234,56'), 1234.56);
  assert.equal(parseNumber('1,234.56'), 1234.56);
  assert.equal(parseNumber('132,000'), 132000);
  assert.deepEqual(
    moneyIn('Taarten 4 € 25,00 € 100,00').map((m) => m.value),
    [25, 100],
  );
  assert.deepEqual(
    moneyIn('Renovering 40 tim 650,00 kr 26 000,00 kr').map((m) => m.value),
    [650, 26000],
  );
  assert.deepEqual(
    moneyIn('Landing page design 12 $95.00 $1,140.00').map((m) => m.value),
    [95, 1140],
  );
  assert.deepEqual(
    moneyIn('Discount (SPRING15) -$26.40').map((m) => m.value),
    [-26.4],
  );
});

test('dates: written months in several languages, numeric by locale', () => {
  const d = (s: string, mf = false) => datesIn(s, mf)[0]?.iso ?? null;
  assert.equal(d('1er avril 2026'), '2026-04-01');
  assert.equal(d('31 de marzo de 2026'), '2026-03-31');
  assert.equal(d('5. April 2026'), '2026-04-05');
  assert.equal(d('4 avr. 2026'), '2026-04-04');
  assert.equal(d('2026年3月31日'), '2026-03-31');
  assert.equal(d('11/03/2026'), '2026-03-11');
  assert.equal(d('11/03/2026', true), '2026-11-03');
  assert.equal(d('bis zum 17.03.2026. Bei'), '2026-03-17');
  assert.equal(d('31/02/2026'), null);
});
