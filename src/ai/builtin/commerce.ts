// The `invoice` and `receipt` presets of the built-in engine. Structured sources first (schema.org JSON-LD,
// EN 16931 XML), then label-anchored text. A field the message does not state stays null: nothing is guessed.

import { addDays, datesIn } from './dates.ts';
import { type Item, itemsOf } from './items.ts';
import { amountAt, firstAmount, firstDate, firstId, firstName, labelHits } from './labels.ts';
import { codeOf, documentCurrency, moneyIn } from './money.ts';
import { fromJsonLd, fromXml, type Structured } from './structured.ts';
import type { MessageView } from './view.ts';
import * as V from './vocab.ts';

export interface InvoiceData {
  invoiceNumber: string | null;
  vendor: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  total: number | null;
  subtotal: number | null;
  tax: number | null;
  lineItems: Array<{ description: string; quantity: number | null; unitPrice: number | null; amount: number | null }> | null;
  paymentUrl: string | null;
}

export interface ReceiptData {
  merchant: string | null;
  date: string | null;
  currency: string | null;
  total: number | null;
  orderNumber: string | null;
  subtotal: number | null;
  tax: number | null;
  items: Array<{ description: string; quantity: number | null; amount: number | null }> | null;
  paymentMethod: string | null;
}

const neg = (v: number | null, credit: boolean): number | null => (v === null ? null : credit ? -Math.abs(v) : v);

export function extractInvoice(v: MessageView): InvoiceData {
  const s: Structured = { ...fromJsonLd(v.jsonld), ...fromXml(v.xml) };
  const lines = v.lines;
  const head = [v.subject, ...lines.slice(0, 12)].join('\n').toLowerCase();
  const credit = s.credit ?? V.CREDIT_NOTE.test(head);
  const number =
    s.number ??
    firstId(lines, V.INVOICE_NO, {}, V.NOT_INVOICE_NO) ??
    firstId([v.subject], V.INVOICE_NO) ??
    firstId([v.subject], V.INVOICE_WORD) ??
    firstId(lines, V.INVOICE_WORD, {}, V.NOT_INVOICE_NO);
  const issueDate =
    s.issueDate ??
    firstDate(lines, V.ISSUE_DATE, v.monthFirst) ??
    firstDate(lines, V.GENERIC_DATE, v.monthFirst, V.OTHER_DATE) ??
    dateAfterNumber(v, number) ??
    v.headerDay;
  const amounts = amountsOf(v, 'invoice');
  const items = s.items ?? itemsOf(lines, v, true, amounts.total);
  return {
    invoiceNumber: number,
    vendor: s.seller ?? vendorOf(v),
    issueDate,
    dueDate: credit ? null : (s.dueDate ?? dueDateOf(v, issueDate)),
    currency: s.currency ?? amounts.currency,
    total: neg(s.total ?? amounts.total, credit),
    subtotal: neg(s.subtotal ?? amounts.subtotal, credit),
    tax: neg(s.tax ?? amounts.tax, credit),
    lineItems: items
      ? items.map((i) => ({
          description: i.description,
          quantity: i.quantity,
          unitPrice: neg(i.unitPrice, credit),
          amount: neg(i.amount, credit),
        }))
      : null,
    paymentUrl: s.paymentUrl ?? payLink(v),
  };
}

export function extractReceipt(v: MessageView): ReceiptData {
  const s: Structured = { ...fromJsonLd(v.jsonld), ...fromXml(v.xml) };
  const lines = v.lines;
  const head = [v.subject, ...lines.slice(0, 12)].join('\n').toLowerCase();
  const refund = s.credit ?? V.REFUND.test(head);
  const amounts = amountsOf(v, 'receipt');
  const all = [v.subject, ...lines];
  const orderNumber =
    s.orderNumber ??
    firstBookingOrOrder(all) ??
    firstId(all, V.ORDER_NO_B) ??
    firstId(all, V.INVOICE_NO, {}, V.NOT_INVOICE_NO) ??
    firstId(all, V.ORDER_NO_D);
  const items: Item[] | null = s.items ?? itemsOf(lines, v, false, amounts.total);
  return {
    merchant: s.seller ?? vendorOf(v),
    date:
      s.issueDate ??
      firstDate(lines, V.PURCHASE_DATE, v.monthFirst, V.OTHER_DATE) ??
      firstDate(lines, V.GENERIC_DATE, v.monthFirst, V.OTHER_DATE) ??
      v.headerDay,
    currency: s.currency ?? amounts.currency,
    total: neg(s.total ?? amounts.total, refund),
    orderNumber,
    subtotal: neg(s.subtotal ?? amounts.subtotal, refund),
    tax: neg(s.tax ?? amounts.tax, refund),
    items: items ? items.map((i) => ({ description: i.description, quantity: i.quantity, amount: neg(i.amount, refund) })) : null,
    paymentMethod: paymentMethodOf(lines),
  };
}

function firstBookingOrOrder(lines: string[]): string | null {
  for (const h of labelHits(lines, V.ORDER_NO_A)) {
    const label = lines[h.line]!.toLowerCase();
    const id = firstId([lines[h.line]!, lines[h.line + 1] ?? ''], V.ORDER_NO_A, { lettersOk: V.BOOKING_LABEL.test(label) });
    if (id) return id;
  }
  return null;
}

interface Amounts {
  total: number | null;
  subtotal: number | null;
  tax: number | null;
  currency: string | null;
}

function amountsOf(v: MessageView, kind: 'invoice' | 'receipt'): Amounts {
  const lines = v.lines;
  const text = [v.subject, ...lines].join('\n');
  const currency = documentCurrency([v.subject, ...lines], v.lang);
  let total = firstAmount(lines, V.TOTAL, V.NOT_TOTAL)?.value ?? null;
  if (total === null) {
    for (const h of labelHits([v.subject, ...lines], V.DUE_AMOUNT, V.NOT_TOTAL)) {
      const m = moneyIn(h.rest);
      if (m.length > 0) {
        total = m[0]!.value;
        break;
      }
    }
  }
  if (total === null) {
    // one distinct amount in the whole message is the amount of this document
    const distinct = new Set<number>();
    for (const l of [v.subject, ...lines]) for (const m of moneyIn(l)) distinct.add(Math.abs(m.value));
    if (distinct.size === 1) total = [...distinct][0]!;
  }
  const subtotal = firstAmount(lines, V.SUBTOTAL, /previous|estimated|next|before discount/)?.value ?? null;
  const taxes: number[] = [];
  const seen = new Set<string>();
  for (const h of labelHits(lines, V.TAX, /total (?:before|excl|incl)|subtotal|sous-total|zwischensumme|registration|\bnr\b/)) {
    const m = amountAt(lines, h);
    if (!m) continue;
    const key = `${lines[h.line]}`;
    if (seen.has(key) || taxes.includes(m.value)) continue;
    seen.add(key);
    taxes.push(m.value);
  }
  const tax = taxes.length === 0 ? null : Math.round(taxes.reduce((a, b) => a + b, 0) * 100) / 100;
  void kind;
  void text;
  return { total, subtotal, tax, currency: currency ?? explicitCode(text) };
}

function explicitCode(text: string): string | null {
  const m = /\b(USD|EUR|GBP|JPY|CHF|SEK|NOK|DKK|PLN|CAD|AUD|CNY|KRW|BRL|INR)\b/.exec(text);
  return m ? codeOf(m[1]!, text, 'en') : null;
}

/** "Rechnung R0023847561 vom 01.04.2026": a date right after the document number. */
function dateAfterNumber(v: MessageView, number: string | null): string | null {
  if (!number) return null;
  for (const l of [v.subject, ...v.lines]) {
    const i = l.indexOf(number);
    if (i < 0) continue;
    const after = l.slice(i + number.length);
    if (!/^\s*(?:vom|du|del|of|dated|from|från|van|z dnia|datée? du)\s/i.test(after)) continue;
    const d = datesIn(after, v.monthFirst)[0];
    if (d && d.index < 12) return d.iso;
  }
  return null;
}

function dueDateOf(v: MessageView, issueDate: string | null): string | null {
  const lines = v.lines;
  const explicit = firstDate(lines, V.DUE_DATE, v.monthFirst, /skonto|discount|early payment|rabatt|escompte/);
  if (explicit) return explicit;
  // a date later on a line that names a due date in a sentence ("is due on 30 Apr 2026")
  for (const h of labelHits(lines, V.DUE_DATE)) {
    const d = datesIn(h.rest, v.monthFirst)[0];
    if (d) return d.iso;
  }
  if (!issueDate) return null;
  const text = lines.join('\n').toLowerCase();
  if (V.DUE_ON_RECEIPT.test(text)) return issueDate;
  for (const l of lines) {
    const lower = l.toLowerCase();
    if (
      !V.TERMS_LINE.test(lower) ||
      /lastschrift|direct debit|prélèvement|domiciliación|abgebucht|eingezogen|autogiro|widerruf|withdraw|rétractation|desistimiento|next|nächste|prochain|próxim|renew|verläng|trial|probe/.test(
        lower,
      )
    )
      continue;
    const m = V.NET_DAYS.exec(lower);
    const n = m ? Number(m[1] ?? m[2]) : 0;
    if (n > 0 && n <= 365) return addDays(issueDate, n);
  }
  return null;
}

const DEPARTMENT =
  /\s*(?:[-–—|·:,]\s*)?(?:receipts?|billing|invoices?|invoicing|accounts? receivable|accounting|accounts|payments?|notifications?|no-?reply|do-?not-?reply|customer service|kundenservice|buchhaltung|rechnungsstelle|facturation|service facturation|facturación|fatturazione|facturatie|fakturering|経理部|経理|請求担当|お知らせ)\s*$/i;

export function cleanSender(name: string): string | null {
  let n = name
    .normalize('NFKC')
    .replace(/^["'\s]+|["'\s]+$/g, '')
    .replace(/\s*[([](?:via|über|par|por|through|per|via:)\s[^)\]]*[)\]]/gi, '')
    .replace(/\s+(?:via|über)\s+\S+$/i, '');
  for (let i = 0; i < 2; i++) n = n.replace(DEPARTMENT, '');
  n = n.trim();
  if (n.length < 2 || /@/.test(n) || /^(?:no-?reply|info|mail|service|support|team)$/i.test(n)) return null;
  return n;
}

/** The business that was paid: a labelled merchant, the sender unless it is a billing platform, the Subject. */
export function vendorOf(v: MessageView): string | null {
  const labelled = firstName(v.lines, V.MERCHANT_LABEL);
  if (labelled) return labelled;
  const from = cleanSender(v.fromName);
  if (from && !V.PLATFORMS.test(from)) return from;
  const subj = /\b(?:from|von|de|från|van|da|od)\s+(.{2,60}?)(?:\s+(?:for|für|pour|para|per|voor|för)\b|\s+[#(]|[.!]?$)/i.exec(v.subject);
  if (subj) {
    const s = cleanSender(subj[1]!);
    if (s && !V.PLATFORMS.test(s) && !/^\d/.test(s)) return s;
  }
  // the footer's "© 2026 Acme Inc." names the business when nothing else does
  for (const l of v.lines.slice(-15)) {
    const c =
      /(?:©|\(c\)|copyright)\s*(?:\d{4}(?:\s*[-–]\s*\d{4})?)?\s*([^.,|·•]{2,60}?)(?:[.,|·•]|\s+all rights|\s+alle rechte|\s+tous droits|$)/i.exec(
        l,
      );
    const name = c ? cleanSender(c[1]!) : null;
    if (name && !V.PLATFORMS.test(name)) return name;
  }
  return null;
}

function payLink(v: MessageView): string | null {
  for (const l of v.links) {
    const t = l.text.toLowerCase();
    if (!/^https?:/i.test(l.href)) continue;
    if (V.PAY_LINK.test(t) && !V.NOT_PAY_LINK.test(t)) return l.href;
  }
  return null;
}

const BRANDS: Array<[RegExp, string]> = [
  [/american express|amex/i, 'American Express'],
  [/master\s?card/i, 'Mastercard'],
  [/\bvisa\b/i, 'Visa'],
  [/discover/i, 'Discover'],
  [/\bjcb\b/i, 'JCB'],
  [/maestro/i, 'Maestro'],
  [/diners/i, 'Diners Club'],
  [/union\s?pay|银联/i, 'UnionPay'],
  [/carte bancaire|\bcb\b/i, 'CB'],
];
const WALLETS: Array<[RegExp, string]> = [
  [/apple pay/i, 'Apple Pay'],
  [/google pay/i, 'Google Pay'],
  [/paypal/i, 'PayPal'],
  [/\bideal\b/i, 'iDEAL'],
  [/\bblik\b/i, 'BLIK'],
  [/klarna/i, 'Klarna'],
  [/bancontact/i, 'Bancontact'],
  [/sofort/i, 'Sofort'],
  [/\bpix\b/i, 'Pix'],
  [/支付宝|alipay/i, '支付宝'],
  [/微信支付|wechat pay/i, '微信支付'],
  [/sepa|lastschrift|direct debit|prélèvement|domiciliación/i, 'SEPA Direct Debit'],
  [/bank transfer|überweisung|virement|transferencia/i, 'Bank transfer'],
];

export function paymentMethodOf(lines: string[]): string | null {
  const hits = labelHits(lines, V.PAYMENT_LABEL);
  const scan = [...hits.flatMap((h) => [lines[h.line]!, lines[h.line + 1] ?? '']), ...lines];
  for (const l of scan) {
    for (const [re, brand] of BRANDS) {
      const m = re.exec(l);
      if (!m) continue;
      const tail = l.slice(m.index + m[0].length, m.index + m[0].length + 40);
      const d = /^[^\d]{0,24}?(\d{4})\b/.exec(tail);
      if (d) return `${brand} ending ${d[1]}`;
    }
    const card = /(?:card|karte|carte|tarjeta|kort|カード)\D{0,20}?(?:ending|endet|se terminant|terminada|slutar)\D{0,10}(\d{4})\b/i.exec(
      l,
    );
    if (card) return `Card ending ${card[1]}`;
  }
  for (const h of hits) {
    const l = `${lines[h.line]!} ${lines[h.line + 1] ?? ''}`;
    for (const [re, name] of WALLETS) if (re.test(l)) return name;
  }
  return null;
}
