// Numbers, currencies and dates of the built-in extraction engine (src/ai/builtin/digits.ts, currency.ts, money.ts,
// dates.ts, calendars.ts) on forms the world writes: digits of every script, every grouping convention, currency
// symbols several currencies share, era and non-Gregorian calendars. Expected Gregorian dates are computed with ICU
// calendars (Intl) here, not copied from the engine.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeOf, documentCurrency, moneyIn, parseNumber } from '../../src/ai/builtin/money.ts';
import { findIn } from '../../src/ai/builtin/provenance.ts';
import { normLine } from '../../src/mail/extract/doc.ts';

const amounts = (line: string): Array<[number, string]> => moneyIn(line).map((m) => [m.value, m.marker]);

test('digits of every script Unicode knows read as their values', async () => {
  const { asciiDigits, digitValue, digitZeros } = await import('../../src/ai/builtin/digits.ts');
  const zeros = digitZeros();
  // every decimal digit set (Nd) Unicode 15+ has: at least 60 of them, each a run of ten from its zero
  assert.ok(zeros.length >= 60, `only ${zeros.length} digit sets`);
  for (const z of zeros) for (let i = 0; i < 10; i++) assert.equal(digitValue(z + i), i, `U+${(z + i).toString(16)}`);
  assert.equal(
    asciiDigits('١٬١٥٠٫٠٠ ۱۴۰۵/۰۲/۰۸ ₹१,०५,०००.०० ৳২,২০০ ๑,๐๗๐.๐๐ １２０，０００ ٣٪'),
    '1,150.00 1405/02/08 ₹1,05,000.00 ৳2,200 1,070.00 120,000 3%',
  );
  // outside the BMP (two UTF-16 units): mathematical and Adlam digits
  assert.equal(asciiDigits('𝟏𝟐 𞥑𞥒'), '12 12');
  // keeping length: BMP digits only
  assert.equal(asciiDigits('٣𝟏', true), '3𝟏');
  assert.equal(digitValue('a'.codePointAt(0)!), null);
});

test('amounts in every grouping convention and script', () => {
  const cases: Array<[string, number, string]> = [
    ['Total ₹12,34,575.00', 1234575, '₹'],
    ['कुल राशि: ₹१,२३,९००.००', 123900, '₹'],
    ['الإجمالي: ١٬١٥٠٫٠٠ ر.س', 1150, 'ر.س'],
    ['مبلغ کل: ۲٬۴۵۰٬۰۰۰ ریال', 2450000, 'ریال'],
    ['মোট: ৳২,২৫০.০০', 2250, '৳'],
    ['ยอดรวม ๑,๐๗๐.๐๐ บาท', 1070, 'บาท'],
    ['R 4 200,00', 4200, 'R'],
    ['Total Pembayaran Rp1.220.000', 1220000, 'Rp'],
    ['Jumlah Besar RM 1,296.00', 1296, 'RM'],
    ['Tổng cộng: 10.800.000 ₫', 10800000, '₫'],
    ['Разом до сплати: 2 345,00 грн', 2345, 'грн'],
    ['Genel Toplam: 5.100,00 TL', 5100, 'TL'],
    ['Total CHF 1’234.50', 1234.5, 'CHF'],
    ["Betrag Fr. 1'234.–", 1234, 'Fr.'],
    ['Summe 12,- €', 12, '€'],
    ['Total 1\u202f234,56\u00a0€', 1234.56, '€'],
    ['Total 1\u2009234,56 €', 1234.56, '€'],
    ['總計 NT$1,280', 1280, 'NT$'],
    ['Totalt 189:-', 189, ':-'],
    ['Total KWD 12.500', 12.5, 'KWD'],
    // currencies written as words after the amount
    ['Total 12,50 euros', 12.5, 'euros'],
    ['कुल 1,200 रुपये', 1200, 'रुपये'],
    ['মোট ২,২০০ টাকা', 2200, 'টাকা'],
    ['Разом 1 700 гривень', 1700, 'гривень'],
    ['Razem 100 złotych', 100, 'złotych'],
    ['Celkem 9 680,00 Kč', 9680, 'Kč'],
  ];
  for (const [line, value, marker] of cases) assert.deepEqual(amounts(line)[0], [value, marker], line);
  // a negative amount with a symbol in front
  assert.deepEqual(amounts('折扣碼 SPRING -NT$200'), [[-200, 'NT$']]);
  // a year after a Ukrainian date ("р." is рік, the year) is no amount
  assert.deepEqual(amounts('Дата: 8 травня 2026 р.'), []);
  assert.equal(parseNumber('١٬١٥٠٫٠٠'), 1150);
  // a value is found back in the text in the grouping it was written in (sources, and a model's answer checked)
  assert.deepEqual(findIn('Total ₹12,34,575.00', 1234575), [7, 19]);
  assert.equal(parseNumber('12,34,567.89'), 1234567.89);
  assert.equal(parseNumber('1.234'), 1234);
  assert.equal(parseNumber('1.234', 3), 1.23);
  // a rial (two decimals) is not a dinar (three)
  assert.deepEqual(amounts('المجموع 1.500 ريال'), [[1500, 'ريال']]);
});

test('a full-width grouped number keeps its thousands separator when a line is normalised', () => {
  assert.equal(normLine('ご請求金額合計 ￥１３２，０００'), 'ご請求金額合計 ¥132,000');
  // a full-width comma between words still separates them
  assert.equal(normLine('認証コード：１２３４５６，有効期限５分'), '認証コード: 123456, 有効期限5分');
});

test('shared currency symbols are decided by the mail', () => {
  const cur = (lines: string[], lang = 'en') => documentCurrency(lines, lang);
  assert.equal(cur(['Total $120.00']), 'USD');
  assert.equal(cur(['Total $120.00', 'All prices are in Australian dollars.']), 'AUD');
  assert.equal(cur(['Total 120,00 $ CA']), 'CAD');
  assert.equal(cur(['Total $1.250,00', 'Precios en pesos mexicanos']), 'MXN');
  assert.equal(cur(['Tak for din bestilling hos os.', 'I alt 1.249,00 kr.', 'Heraf moms 249,80 kr.']), 'DKK');
  assert.equal(cur(['Vedlagt følger faktura.', 'Sum eks. mva 4 000,00 kr', 'Å betale 5 000,00 kr']), 'NOK');
  assert.equal(cur(['Tack för ditt köp!', 'Att betala 189,00 kr']), 'SEK');
  assert.equal(cur(['Kære kunde', 'Din ordre er afsendt. Beløb: 499 kr.']), 'DKK');
  assert.equal(cur(['Hei! Takk for bestillingen.', 'Totalt kr 499,00']), 'NOK');
  // a code the mail states decides over the language
  assert.equal(cur(['Tack för ditt köp!', 'Att betala 189,00 kr', 'Alla belopp i NOK']), 'NOK');
  assert.equal(cur(['お支払い合計 ¥3,300'], 'ja'), 'JPY');
  assert.equal(cur(['合计 ¥2000.00'], 'zh'), 'CNY');
  assert.equal(cur(['Total R 4 830,00']), 'ZAR');
  assert.equal(cur(['المجموع ١٬١٥٠٫٠٠ ريال']), 'SAR');
  assert.equal(cur(['مبلغ کل ۲٬۴۵۰٬۰۰۰ ﷼']), 'IRR');
  assert.equal(cur(['Total Rs. 1,250.00', 'Karachi, Pakistan']), 'PKR');
  assert.equal(cur(['Total Rs. 1,250.00', 'Mumbai 400001']), 'INR');
  assert.equal(cur(['कुल: रु. 1,200']), 'INR');
  assert.equal(cur(['जम्मा: रु. 1,200', 'काठमाडौं, नेपाल']), 'NPR');
  // an approximate conversion never decides
  assert.equal(cur(['Total €296.31', '≈ US$320.00']), 'EUR');
  assert.equal(cur(['Summe 296,31 €', 'entspricht etwa 320,00 USD', 'equivalent to USD 320.00']), 'EUR');
  assert.equal(codeOf('R', 'Total R 4 830,00', 'en'), 'ZAR');
});

/** The Gregorian day that ICU formats as `want` (y, m, d) in `cal`: an independent check of the conversions. */
function icuDay(cal: string, want: [number, number, number], near: string): string {
  const f = new Intl.DateTimeFormat(`en-u-ca-${cal}-nu-latn`, { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: 'UTC' });
  const start = Date.parse(`${near}T00:00:00Z`);
  for (let i = -400; i <= 400; i++) {
    const d = new Date(start + i * 86_400_000);
    const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
    if (Number.parseInt(p.year!, 10) === want[0] && +p.month! === want[1] && +p.day! === want[2]) return d.toISOString().slice(0, 10);
  }
  throw new Error('not found');
}

test('dates in the scripts, month names and calendars of the world, as ISO Gregorian', async () => {
  const { datesIn } = await import('../../src/ai/builtin/dates.ts');
  const first = (line: string, monthFirst = false) => datesIn(line, monthFirst)[0]?.iso ?? null;
  const cases: Array<[string, string]> = [
    // Japanese eras (元年 is year 1), ROC years, Thai Buddhist years
    ['請求日: 令和8年4月30日', '2026-04-30'],
    ['平成元年1月8日', '1989-01-08'],
    ['R8.4.30', '2026-04-30'],
    ['訂購日期: 民國115年5月1日', '2026-05-01'],
    ['中華民國115/05/01', '2026-05-01'],
    ['วันที่: ๒๙ เมษายน ๒๕๖๙ เวลา ๐๙:๒๔ น.', '2026-04-29'],
    ['29 เม.ย. 2569', '2026-04-29'],
    ['29/04/2569', '2026-04-29'],
    ['29 เมษายน พ.ศ. 2569', '2026-04-29'],
    ['訂購日期: 115/05/01', '2026-05-01'],
    ['«08» мая 2026 г.', '2026-05-08'],
    // Solar Hijri and Hijri, numeric and with month names, in Persian and Arabic digits
    ['تاریخ سفارش: ۱۴۰۵/۰۲/۰۸', icuDay('persian', [1405, 2, 8], '2026-04-28')],
    ['۸ اردیبهشت ۱۴۰۵', icuDay('persian', [1405, 2, 8], '2026-04-28')],
    ['١٤٤٧/١١/١٢ هـ', icuDay('islamic-umalqura', [1447, 11, 12], '2026-04-28')],
    ['12 رمضان 1447', icuDay('islamic-umalqura', [1447, 9, 12], '2026-03-01')],
    ['١٢ ذو القعدة ١٤٤٧هـ', icuDay('islamic-umalqura', [1447, 11, 12], '2026-04-28')],
    // month names of many languages (ICU's), genitive and abbreviated forms, spaced numeric forms
    ['Ngày 05 tháng 05 năm 2026', '2026-05-05'],
    ['Datum vystavení: 7. 5. 2026', '2026-05-07'],
    ['2026. 5. 7.', '2026-05-07'],
    ['2 мая 2026 г.', '2026-05-02'],
    ['8 травня 2026 р.', '2026-05-08'],
    ['6 Μαΐου 2026', '2026-05-06'],
    ['12 Nisan 2026', '2026-04-12'],
    ['Tanggal: 4 Mei 2026', '2026-05-04'],
    ['5 במאי 2026', '2026-05-05'],
    ['2026. május 7.', '2026-05-07'],
    ['29 أبريل 2026', '2026-04-29'],
    ['15 كانون الثاني 2026', '2026-01-15'],
    ['12 toukokuuta 2026', '2026-05-12'],
    ['दिनांक: २९ अप्रैल २०२६', '2026-04-29'],
    ['৩০ এপ্রিল ২০২৬', '2026-04-30'],
    ['7 května 2026', '2026-05-07'],
    ['31 de marzo de 2026', '2026-03-31'],
    ['Invoice date: 01-May-2026', '2026-05-01'],
    ['Dated 01-May-26', '2026-05-01'],
    ['Date: 1 May, 2026', '2026-05-01'],
  ];
  for (const [line, want] of cases) assert.equal(first(line), want, line);
  // a numeric date that the locale's order cannot read is read the other way (a 30th month does not exist)
  assert.equal(first('Date: 04/30/2026'), '2026-04-30');
  assert.equal(first('Date: 30/04/2026', true), '2026-04-30');
  assert.equal(first('Date: 11/03/2026', true), '2026-11-03');
  assert.equal(first('Date: 11/03/2026'), '2026-03-11');
  // a Gregorian-looking year that no calendar reads is no date
  assert.equal(first('Ref 1999/13/45'), null);
  assert.equal(first('Code 1234/05/06'), null);
});

test('calendar conversions agree with ICU over whole years', async () => {
  const { toGregorian } = await import('../../src/ai/builtin/calendars.ts');
  for (const [cal, y] of [
    ['persian', 1404],
    ['islamic-umalqura', 1447],
  ] as const) {
    const f = new Intl.DateTimeFormat(`en-u-ca-${cal}-nu-latn`, { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: 'UTC' });
    let checked = 0;
    for (let i = 0; i < 800; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000);
      const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
      if (Number.parseInt(p.year!, 10) !== y) continue;
      assert.equal(toGregorian(cal, y, +p.month!, +p.day!), d.toISOString().slice(0, 10), `${cal} ${y}-${p.month}-${p.day}`);
      checked++;
    }
    assert.ok(checked >= 354, `${cal}: ${checked} days`);
  }
  // no 30 Esfand in a common year
  assert.equal(toGregorian('persian', 1404, 12, 30), null);
});

test('a document whose amounts carry no marker takes the ISO code the mail states', async () => {
  const { parseMessage } = await import('../../src/mail/parse.ts');
  const { builtinPreset } = await import('../../src/ai/builtin/index.ts');
  const eml = [
    'From: Cahaya Teknik <billing@cahaya.example>',
    'To: a@inboxd.test',
    'Subject: Invois MY-INV-2026-301',
    'Date: Fri, 08 May 2026 10:00:00 +0800',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Invoice no: MY-INV-2026-301',
    'Invoice date: 08/05/2026',
    'Total: 1,296.00 (MYR)',
    '',
  ].join('\r\n');
  const data = builtinPreset(await parseMessage(Buffer.from(eml)), 'invoice');
  assert.equal(data.currency, 'MYR');
  assert.equal(data.total, 1296);
});

test('the month and currency names the engine reads are the ones ICU gives (regenerate: scripts/gen-world-names.ts)', async () => {
  const { harvestMonthNames } = await import('../../src/ai/builtin/calendars.ts');
  const { harvestCurrencyNames } = await import('../../src/ai/builtin/currency.ts');
  const { CURRENCY_NAMES, MONTH_NAMES } = await import('../../src/ai/builtin/world-names.ts');
  assert.deepEqual(MONTH_NAMES, harvestMonthNames());
  assert.deepEqual(CURRENCY_NAMES, harvestCurrencyNames());
  assert.ok(MONTH_NAMES.length > 1000 && CURRENCY_NAMES.length > 500);
});
