// The built-in engine's labels (src/ai/builtin/lexicon.ts → vocab.ts): document, order, due-date and total labels
// across languages and scripts, the seller a label names, forwards quoted with ">", fapiao totals, corrected and
// cancelling invoices, JSON-LD billing periods, order references, and the 2fa labels. Mails are written here, in
// ASCII digits (other digit systems are the number rules' part), and differ from the world corpus' mails.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanSender } from '../../src/ai/builtin/commerce.ts';
import { builtinPreset } from '../../src/ai/builtin/index.ts';
import { nameOnly } from '../../src/ai/builtin/labels.ts';
import { expiresIn, labelledCode } from '../../src/ai/builtin/twofa.ts';
import { viewOf } from '../../src/ai/builtin/view.ts';
import { parseMessage } from '../../src/mail/parse.ts';

interface MailOpts {
  from?: string;
  subject: string;
  date?: string;
  html?: boolean;
}

function raw(body: string, o: MailOpts): Buffer {
  const head = [
    `From: ${o.from ?? '"Sender" <billing@sender.example>'}`,
    'To: someone@inboxd.test',
    `Subject: =?UTF-8?B?${Buffer.from(o.subject).toString('base64')}?=`,
    `Date: ${o.date ?? 'Tue, 02 Jun 2026 09:00:00 +0000'}`,
    'MIME-Version: 1.0',
    `Content-Type: ${o.html ? 'text/html' : 'text/plain'}; charset=utf-8`,
    'Content-Transfer-Encoding: 8bit',
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body.replace(/\n/g, '\r\n')}`);
}

async function extract(preset: 'invoice' | 'receipt' | '2fa', body: string, o: MailOpts): Promise<Record<string, unknown>> {
  return builtinPreset(await parseMessage(raw(body, o)), preset);
}

function expect(got: Record<string, unknown>, want: Record<string, unknown>, what: string): void {
  for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k], v, `${what}: ${k}`);
}

test('invoice labels: Korean with and without spaces, Turkish, Greek, Vietnamese, Russian, Malay', async () => {
  const ko = (sp: string) =>
    `안녕하세요.\n청구서${sp}번호: KR-7781\n발행일: 2026년 5월 2일\n납부${sp}기한: 2026년 5월 20일\n웹 호스팅 ₩50,000\n공급가액 ₩50,000\n부가세 ₩5,000\n합계${sp}금액 ₩55,000\n`;
  for (const sp of [' ', '']) {
    expect(
      await extract('invoice', ko(sp), { from: '"별빛호스팅" <bill@byeol.example>', subject: '5월 청구서' }),
      { invoiceNumber: 'KR-7781', dueDate: '2026-05-20', total: 55000, subtotal: 50000, tax: 5000, currency: 'KRW' },
      `ko "${sp}"`,
    );
  }
  expect(
    await extract(
      'invoice',
      'Sayın müşterimiz,\nFatura No: TRK-2026-55\nFatura Tarihi: 03.05.2026\nSon Ödeme Tarihi: 17.05.2026\nDanışmanlık hizmeti 1.000,00 €\nAra Toplam: 1.000,00 €\nKDV (%20): 200,00 €\nGenel Toplam: 1.200,00 €\n',
      { from: '"Deniz Danışmanlık" <fatura@deniz.example>', subject: 'Mayıs faturanız' },
    ),
    { invoiceNumber: 'TRK-2026-55', issueDate: '2026-05-03', dueDate: '2026-05-17', total: 1200, subtotal: 1000, tax: 200 },
    'tr',
  );
  expect(
    await extract(
      'invoice',
      'Αγαπητέ πελάτη,\nΑριθμός τιμολογίου: ΑΒΓ-0099\nΗμερομηνία έκδοσης: 04/05/2026\nΗμερομηνία λήξης: 18/05/2026\nΥπηρεσίες 100,00 €\nΚαθαρή αξία: 100,00 €\nΦΠΑ 24%: 24,00 €\nΣύνολο: 124,00 €\n',
      { from: '"Παπαδόπουλος" <info@papa.example>', subject: 'Τιμολόγιο' },
    ),
    { invoiceNumber: 'ΑΒΓ-0099', dueDate: '2026-05-18', total: 124, subtotal: 100, tax: 24 },
    'el',
  );
  expect(
    await extract(
      'invoice',
      'Kính gửi Quý khách,\nSố hóa đơn: 00004567\nHạn thanh toán: 25/05/2026\nDịch vụ 2.000.000 VND\nCộng tiền hàng: 2.000.000 VND\nThuế GTGT (10%): 200.000 VND\nTổng cộng tiền thanh toán: 2.200.000 VND\n',
      { from: '"Công ty Ánh Dương" <hd@anhduong.example>', subject: 'Hóa đơn điện tử' },
    ),
    { invoiceNumber: '00004567', dueDate: '2026-05-25', total: 2200000, subtotal: 2000000, tax: 200000 },
    'vi',
  );
  expect(
    await extract(
      'invoice',
      'Здравствуйте!\nСчёт на оплату № 77-12 от 05.05.2026\nОплатить до: 15.05.2026\nУслуги 1 шт. 9 000,00 9 000,00\nВсего к оплате: 9 000,00 ₽\n',
      { from: '"ООО Ромашка" <buh@romashka.example>', subject: 'Счёт' },
    ),
    { invoiceNumber: '77-12', issueDate: '2026-05-05', dueDate: '2026-05-15', total: 9000 },
    'ru',
  );
  expect(
    await extract(
      'invoice',
      'Tuan/Puan,\nNo. Invois: MY-301\nTarikh: 06/05/2026\nTarikh Akhir Bayaran: 20/05/2026\nKerja pendawaian RM 500.00\nJumlah Kecil RM 500.00\nSST 8% RM 40.00\nJumlah Besar RM 540.00\n',
      { from: '"Bengkel Maju" <akaun@maju.example>', subject: 'Invois MY-301' },
    ),
    { invoiceNumber: 'MY-301', dueDate: '2026-05-20', total: 540, subtotal: 500, tax: 40 },
    'ms',
  );
});

test('a series before the number, a subtotal called "Total ilíquido", "à réception"', async () => {
  expect(
    await extract(
      'invoice',
      'Bom dia,\nFatura n.º FR 2026/88\nData: 02/05/2026\nServiço 100,00 €\nTotal ilíquido: 100,00 €\nIVA (23%): 23,00 €\nTotal: 123,00 €\n',
      { from: '"Rui Costa" <rui@costa.example>', subject: 'Fatura' },
    ),
    { invoiceNumber: 'FR 2026/88', total: 123, subtotal: 100 },
    'pt',
  );
  expect(
    await extract('invoice', 'Facture n° FX-12\nDate : 02/05/2026\nÉchéance : à réception\nTotal TTC 120,00 €\n', {
      from: '"Atelier Lune" <a@lune.example>',
      subject: 'Facture FX-12',
    }),
    { dueDate: '2026-05-02', total: 120 },
    'fr',
  );
});

test('the seller a label names, without its address; a platform display name; the label name helper', async () => {
  assert.equal(nameOnly('Birchwood Joinery Ltd, 4 Mill Road, York YO1 7AB'), 'Birchwood Joinery Ltd');
  assert.equal(nameOnly('ООО «Ромашка», ИНН 7700000001'), 'ООО «Ромашка»');
  assert.equal(nameOnly('广州星河贸易有限公司 纳税人识别号: 91440101MA00000001'), '广州星河贸易有限公司');
  assert.equal(nameOnly('Acme Widgets'), 'Acme Widgets');
  assert.equal(cleanSender('Lumen Labs via Paddle'), 'Lumen Labs');
  assert.equal(cleanSender('Orchard Tea via Zoho Books'), 'Orchard Tea');
  expect(
    await extract(
      'invoice',
      'Invoice no.: BW-10\nInvoice date: 02/05/2026\nSeller: Birchwood Joinery Ltd, 4 Mill Road, York YO1 7AB\nTotal £240.00\n',
      { from: '"Invoice Relay" <noreply@relay.example>', subject: 'New invoice BW-10' },
    ),
    { vendor: 'Birchwood Joinery Ltd' },
    'seller label',
  );
});

test('a receipt forwarded with ">" quoting is read from the forwarded message (rule 4)', async () => {
  const body = [
    'Please file this one.',
    '',
    '---------- Forwarded message ---------',
    '> From: Copper Kettle Diner <hello@copperkettle.example>',
    '> Date: Mon, 11 May 2026 at 12:40',
    '> Subject: Your receipt',
    '>',
    '> Receipt #CK-5521',
    '> 2 x Pancake stack $18.00',
    '> Subtotal $18.00',
    '> Tax $1.44',
    '> Total $19.44',
    '',
    'Lee',
  ].join('\n');
  expect(
    await extract('receipt', body, { from: '"Lee Park" <lee@home.example>', subject: 'Fwd: Your receipt' }),
    { merchant: 'Copper Kettle Diner', date: '2026-05-11', total: 19.44, orderNumber: 'CK-5521', currency: 'USD' },
    'fwd',
  );
});

test('fapiao: 价税合计 is the total, the 合计 line gives the pre-tax sum and the tax', async () => {
  const body =
    '电子发票(普通发票)\n发票号码: 26110000000011112222\n开票日期: 2026年05月06日\n项目名称 金额 税率 税额\n*咨询服务*技术咨询 1000.00 6% 60.00\n合计 ¥1000.00 ¥60.00\n价税合计(大写)壹仟零陆拾圆整 (小写)¥1060.00\n销售方名称: 北京远山科技有限公司\n';
  expect(
    await extract('invoice', body, { from: '"北京远山科技有限公司" <fp@yuanshan.example>', subject: '您收到一张电子发票' }),
    { total: 1060, subtotal: 1000, tax: 60, currency: 'CNY', vendor: '北京远山科技有限公司' },
    'fapiao',
  );
});

test('a corrected invoice keeps positive amounts and its own number; a Stornorechnung has its own number', async () => {
  expect(
    await extract(
      'invoice',
      'Estimado cliente:\nEsta factura sustituye a la factura n.º 2026-050 de 02/05/2026.\nFactura rectificativa n.º: R-2026-009\nFecha de expedición: 09/05/2026\nVencimiento: 09/06/2026\nBase imponible 200,00 €\nIVA 21% 42,00 €\nTotal factura 242,00 €\n',
      { from: '"Taller Ruiz" <f@ruiz.example>', subject: 'Factura rectificativa R-2026-009' },
    ),
    { invoiceNumber: 'R-2026-009', total: 242, dueDate: '2026-06-09' },
    'rectificativa',
  );
  expect(
    await extract(
      'invoice',
      'hiermit stornieren wir die Rechnung Nr. 2026-0301 vollständig.\nStornorechnung Nr. ST-0009\nDatum: 10.05.2026\nBezug: Rechnung Nr. 2026-0301\nGesamtbetrag -119,00 €\n',
      { from: '"Büro Klee" <r@klee.example>', subject: 'Stornorechnung ST-0009' },
    ),
    { invoiceNumber: 'ST-0009', total: -119, dueDate: null },
    'storno',
  );
  expect(
    await extract(
      'invoice',
      'CREDIT NOTE\nCredit note no.: CN-77\nDate: 12 May 2026\nRelates to invoice: INV-70 (dated 30 April 2026)\nTotal credit £60.00\n',
      { from: '"Fern Supplies" <a@fern.example>', subject: 'Credit note CN-77' },
    ),
    { invoiceNumber: 'CN-77', issueDate: '2026-05-12', total: -60 },
    'credit note',
  );
});

test('JSON-LD: a billing period is not the issue date', async () => {
  const ld = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Invoice',
    identifier: 'WX-100',
    provider: { '@type': 'Organization', name: 'Wavelet Cloud' },
    billingPeriod: '2026-04-01/2026-04-30',
    paymentDueDate: '2026-05-20',
    totalPaymentDue: { '@type': 'PriceSpecification', price: '30.00', priceCurrency: 'USD' },
  });
  const html = `<html><head><script type="application/ld+json">${ld}</script></head><body><p>Wavelet Cloud</p><p>Invoice WX-100</p><p>Invoice date: May 6, 2026</p><p>Billing period: April 1 - April 30, 2026</p><p>Total due $30.00</p></body></html>`;
  expect(
    await extract('invoice', html, { from: '"Wavelet Cloud" <b@wavelet.example>', subject: 'Invoice WX-100', html: true }),
    { issueDate: '2026-05-06', dueDate: '2026-05-20', invoiceNumber: 'WX-100' },
    'jsonld',
  );
});

test('order references: "Check #", a bare "Order <id>", a trip code, Bestellnr.', async () => {
  const r = (body: string, subject: string) => extract('receipt', body, { from: '"Shop" <s@shop.example>', subject });
  assert.equal((await r('Harbor Grill\nCheck #8812 Table 4\n1 Soup $9.00\nTotal $9.00\n', 'Your receipt')).orderNumber, '8812');
  assert.equal((await r('Thanks for your order!\nTotal £20.00\n', 'Order 5521-KB shipped')).orderNumber, '5521-KB');
  assert.equal((await r('Trip code: ZP4-77QX\nTotal A$20.00\n', 'Your ride')).orderNumber, 'ZP4-77QX');
  assert.equal((await r('Bestellnr.: 44-1200\nGesamtsumme 10,00 €\n', 'Ihre Bestellung')).orderNumber, '44-1200');
});

test('items: a service about tax is an item; per-language totals lines are not', async () => {
  const got = await extract(
    'invoice',
    'Invoice no. 88\nInvoice date 2026-05-01\nBookkeeping (May) 1 $300.00 $300.00\nVAT return, Q1 2026 1 $120.00 $120.00\nSubtotal $420.00\nVAT 20% $84.00\nTotal $504.00\n',
    { from: '"Ledger Co" <a@ledger.example>', subject: 'Invoice 88' },
  );
  assert.deepEqual(
    (got.lineItems as Array<{ description: string }>).map((i) => i.description),
    ['Bookkeeping (May)', 'VAT return, Q1 2026'],
  );
});

test('the language of the mail: Danish, Norwegian, Ukrainian (view.lang decides what differs by language, such as kr)', async () => {
  const da = 'Tak for din ordre hos Cykelhuset.\nOrdrenummer: 9001\nI alt 500,00 kr.\nHeraf moms 100,00 kr.\n';
  expect(
    await extract('receipt', da, { from: '"Cykelhuset" <o@cykel.example>', subject: 'Tak for din ordre' }),
    { total: 500, orderNumber: '9001', tax: 100 },
    'da',
  );
  assert.equal(viewOf(await parseMessage(raw(da, { subject: 'Tak for din ordre' }))).lang, 'da');
  const no = 'Hei,\nVedlagt følger faktura.\nFakturanummer: 311\nÅ betale 2 500,00 kr\n';
  expect(await extract('invoice', no, { from: '"Fjellbygg AS" <f@fjell.example>', subject: 'Faktura 311' }), { total: 2500 }, 'no');
  assert.equal(viewOf(await parseMessage(raw(no, { subject: 'Faktura 311' }))).lang, 'no');
  const v = viewOf(
    await parseMessage(raw('Здравствуйте! Ваш рахунок оплачено. Дякуємо за покупку, їжа вже їде.', { subject: 'Замовлення' })),
  );
  assert.equal(v.lang, 'uk');
});

test('2fa: labelled codes, a sign-in link named by its text, validities in many languages', async () => {
  assert.equal(labelledCode(['آخر طلب: 55120', 'رمز التحقق الخاص بك هو: 918273']), '918273');
  assert.equal(labelledCode(['लॉगिन के लिए आपका ओटीपी 402 118 है।']), '402118');
  assert.equal(labelledCode(['Doğrulama kodunuz:', '731-904']), '731904');
  assert.equal(expiresIn(['Kod 5 dakika geçerlidir.']), 5);
  assert.equal(expiresIn(['هذا الرمز صالح لمدة 10 دقائق.']), 10);
  assert.equal(expiresIn(['यह ओटीपी 15 मिनट तक मान्य है।']), 15);
  assert.equal(expiresIn(['Mã có hiệu lực trong 5 phút.']), 5);
  assert.equal(expiresIn(['Tautan ini berlaku selama 2 jam.']), 120);
  assert.equal(expiresIn(['인증번호는 3분간 유효합니다.']), 3);
  const got = await extract(
    '2fa',
    '<html><body><p>Halo!</p><p>Klik tombol di bawah untuk masuk ke akun TehSenja kamu.</p><p><a href="https://akun.tehsenja.example/masuk?t=Zx81">Masuk sekarang</a></p><p>Tautan ini berlaku selama 15 menit.</p><p><a href="https://tehsenja.example/bantuan">Bantuan</a></p></body></html>',
    { from: '"TehSenja" <no-reply@tehsenja.example>', subject: 'Tautan masuk ke akun TehSenja', html: true },
  );
  expect(got, { code: null, link: 'https://akun.tehsenja.example/masuk?t=Zx81', service: 'TehSenja', expiresInMinutes: 15 }, 'id link');
  const ar = await extract('2fa', 'مرحباً،\nرمز التحقق الخاص بك هو: 604 731\nرقم الطلب: 88123 (ليس رمزاً)\n', {
    from: '"Dukkan" <otp@dukkan.example>',
    subject: 'رمز التحقق',
  });
  assert.equal(ar.code, '604731');
});

test('items with a per-unit price or a count word, charges in other languages; payment methods as labelled', async () => {
  const inv = await extract(
    'invoice',
    'Factuurnummer: 2026-77\nFactuurdatum: 3 mei 2026\nOmschrijving\tBedrag\nSchilderwerk 6 uur à € 50,00\t€ 300,00\nVerf\t€ 45,00\nSubtotaal € 345,00\nbtw 21% € 72,45\nTotaal € 417,45\n',
    { from: '"Schilder Bos" <f@bos.example>', subject: 'Factuur 2026-77' },
  );
  assert.deepEqual(inv.lineItems, [
    { description: 'Schilderwerk', quantity: 6, unitPrice: 50, amount: 300 },
    { description: 'Verf', quantity: null, unitPrice: null, amount: 45 },
  ]);
  const rec = await extract(
    'receipt',
    'Tack för din beställning!\nOrdernummer: 7781\nLinneduk 3 st 450,00 kr\n2 Servetter 120,00 kr\nFrakt 39,00 kr\nTotalt 609,00 kr\nBetalsätt: Swish\n',
    { from: '"Linnebod" <o@linnebod.example>', subject: 'Orderbekräftelse' },
  );
  assert.deepEqual(rec.items, [
    { description: 'Linneduk', quantity: 3, amount: 450 },
    { description: 'Servetter', quantity: 2, amount: 120 },
  ]);
  assert.equal(rec.paymentMethod, 'Swish');
  const he = await extract('receipt', 'מספר הזמנה: 5512\nעציץ קטן ₪ 80.00\nמשלוח ₪ 30.00\nסה״כ לתשלום ₪ 110.00\n', {
    from: '"משתלת הכרמל" <o@carmel.example>',
    subject: 'אישור הזמנה',
  });
  assert.deepEqual(he.items, [{ description: 'עציץ קטן', quantity: null, amount: 80 }]);
  const pay = async (line: string) =>
    (await extract('receipt', `Order number: A-1001\nTotal $10.00\n${line}\n`, { from: '"Shop" <s@shop.example>', subject: 'Receipt' }))
      .paymentMethod;
  assert.equal(await pay('Payment method: Cash on delivery'), 'Cash on delivery');
  assert.equal(await pay('결제수단: 국민카드(5678)'), 'Card ending 5678');
  assert.equal(await pay('お支払い方法: 銀行振込'), '銀行振込');
  assert.equal(await pay('Payment received - thank you'), null);
  assert.equal(expiresIn(['有効期限は30分です。']), 30);
});

test('number words before or after the document kind; payment terms in other languages', async () => {
  const inv = (body: string) => extract('invoice', body, { from: '"Firma" <f@firma.example>', subject: 'Dokument' });
  assert.equal((await inv('Nº factura: A-2026-31\nFecha: 02/05/2026\nTotal 10,00 €\n')).invoiceNumber, 'A-2026-31');
  assert.equal((await inv('Nr. faktury: 12/05/2026/K\nRazem 10,00 zł\n')).invoiceNumber, '12/05/2026/K');
  const rec = (body: string) => extract('receipt', body, { from: '"Laden" <l@laden.example>', subject: 'Beleg' });
  assert.equal((await rec('Bon Nr. 4417\nSumme 3,20 €\n')).orderNumber, '4417');
  assert.equal((await rec('Pedido n.º 88120\nTotal 3,20 €\n')).orderNumber, '88120');
  const due = await inv('Fakturanummer: 77\nFakturadato: 02.05.2026\nBetalingsbetingelser: 14 dager netto\nÅ betale 100,00 kr\n');
  assert.equal(due.dueDate, '2026-05-16');
});

test('forwards in other languages and Outlook style; a reply quoted under "Den … skrev:" is out of date', async () => {
  const outlook = [
    'Bitte buchen.',
    '________________________________',
    'Von: Papierhaus Lenz <rechnung@lenz.example>',
    'Gesendet: Montag, 4. Mai 2026 10:12',
    'An: Buchhaltung <bh@firma.example>',
    'Betreff: Rechnung 2026-311',
    'Rechnungsnummer: 2026-311',
    'Gesamtbetrag 59,50 €',
  ].join('\n');
  expect(
    await extract('invoice', outlook, { from: '"Eva Roth" <eva@firma.example>', subject: 'WG: Rechnung 2026-311' }),
    { vendor: 'Papierhaus Lenz', issueDate: '2026-05-04', invoiceNumber: '2026-311', total: 59.5 },
    'outlook forward',
  );
  const tr = [
    'Bilginize.',
    '---------- İletilen ileti ----------',
    '> Kimden: Kahve Durağı <fis@kahve.example>',
    '> Tarih: 7 May 2026',
    '> Konu: Siparişiniz',
    '> Sipariş No: KD-4410',
    '> Toplam 120,00 €',
  ].join('\n');
  expect(
    await extract('receipt', tr, { from: '"Ali" <ali@home.example>', subject: 'Fwd: Siparişiniz' }),
    { merchant: 'Kahve Durağı', orderNumber: 'KD-4410', total: 120 },
    'turkish forward',
  );
  const reply = [
    'Hej!',
    'Här kommer svaret.',
    'Din nya kod är 481 220.',
    'Hälsningar',
    'Den 3 maj 2026 kl. 10:00 skrev Bank <no-reply@bank.example>:',
    'Din kod är 119 904.',
  ].join('\n');
  const v = viewOf(await parseMessage(raw(reply, { subject: 'Sv: Kod' })));
  assert.ok(!v.lines.some((l) => l.includes('119 904')), 'the quoted older message is dropped');
});

test('a person who sends for a business: the company of the signature, not the person; a brand keeps its name', async () => {
  const inv = (from: string, footer: string) =>
    extract('invoice', `Dear Sam,\nInvoice no. 5512\nInvoice date: 4 May 2026\nTotal: £300.00\nKind regards,\n${footer}\n`, {
      from,
      subject: 'Invoice 5512',
    });
  assert.equal(
    (await inv('"Mara Whitlock" <mara@whitlock.example>', 'Mara\nWhitlock Surveying Ltd, 2 Quay St, Bristol BS1 4DJ')).vendor,
    'Whitlock Surveying Ltd',
  );
  assert.equal((await inv('"Mara Whitlock" <mara@whitlock.example>', 'Mara Whitlock, 2 Quay St, Bristol')).vendor, 'Mara Whitlock');
  assert.equal(
    (await inv('"Kestrel Forge" <a@kestrel.example>', 'Kestrel Forge Ltd, 1 Steel Way, Sheffield S1 2AB')).vendor,
    'Kestrel Forge',
  );
});

test('JSON-LD: an identifier given as a PropertyValue; an Order whose total is its totalPaymentDue', async () => {
  const page = (ld: unknown) =>
    `<html><head><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><p>Thanks.</p><p>See you soon.</p></body></html>`;
  const inv = await extract(
    'invoice',
    page({
      '@context': 'https://schema.org',
      '@type': 'Invoice',
      identifier: { '@type': 'PropertyValue', value: 'PV-88' },
      provider: { name: 'Kiln Co' },
    }),
    { from: '"Kiln Co" <a@kiln.example>', subject: 'Your invoice', html: true },
  );
  assert.equal(inv.invoiceNumber, 'PV-88');
  const rec = await extract(
    'receipt',
    page({
      '@context': 'https://schema.org',
      '@type': 'Order',
      orderNumber: 'ORD-5',
      seller: { '@type': 'Organization', name: 'Kiln Co' },
      totalPaymentDue: { '@type': 'PriceSpecification', price: '42.50', priceCurrency: 'EUR' },
    }),
    { from: '"Kiln Co" <a@kiln.example>', subject: 'Your order', html: true },
  );
  expect(rec, { orderNumber: 'ORD-5', total: 42.5, currency: 'EUR' }, 'order jsonld');
});

test('Romanian and Hungarian invoice labels', async () => {
  expect(
    await extract(
      'invoice',
      'Bună ziua,\nFactura nr. RO-2026-15\nData emiterii: 05.05.2026\nData scadenței: 19.05.2026\nServicii 1.000,00 €\nTotal fără TVA 1.000,00 €\nTVA 19% 190,00 €\nTotal de plată 1.190,00 €\n',
      { from: '"Atelier Nord SRL" <f@nord.example>', subject: 'Factura' },
    ),
    { invoiceNumber: 'RO-2026-15', issueDate: '2026-05-05', dueDate: '2026-05-19', total: 1190, subtotal: 1000, tax: 190 },
    'ro',
  );
  expect(
    await extract(
      'invoice',
      'Tisztelt Partnerünk!\nSzámlaszám: HU-2026/44\nKiállítás dátuma: 2026.05.06.\nFizetési határidő: 2026.05.20.\nNettó összeg 100,00 €\nÁFA 27% 27,00 €\nFizetendő összeg 127,00 €\n',
      { from: '"Kovács Kft" <f@kovacs.example>', subject: 'Számla' },
    ),
    { invoiceNumber: 'HU-2026/44', issueDate: '2026-05-06', dueDate: '2026-05-20', total: 127, subtotal: 100, tax: 27 },
    'hu',
  );
});
