// The `invoice` and `receipt` presets of the built-in engine. Structured sources first (schema.org JSON-LD,
// EN 16931 XML), then label-anchored text. A field the message does not state stays null: nothing is guessed.

import { ISO_CODE_WORD } from './currency.ts';
import { addDays, datesIn } from './dates.ts';
import { type Item, itemsOf } from './items.ts';
import { amountWhere, type Found, firstAmountWhere, firstDateWhere, firstIdWhere, firstNameWhere, labelHits, nameOnly } from './labels.ts';
import { codeOf, documentCurrency, moneyIn } from './money.ts';
import type { Provenance, Where } from './provenance.ts';
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

/** A value with where it was read (null: nowhere to point at). */
export interface Got<T> {
  value: T;
  where: Where | null;
}

const fromText = <T>(f: Found<T> | null): Got<T> | null => (f ? { value: f.value, where: { line: f.line } } : null);
const fromStructured = <K extends keyof NonNullable<Structured['paths']>>(s: Structured, k: K): Got<NonNullable<Structured[K]>> | null =>
  s[k] === undefined ? null : { value: s[k] as NonNullable<Structured[K]>, where: s.paths?.[k] ?? null };
const neg = (v: number | null, credit: boolean): number | null => (v === null ? null : credit ? -Math.abs(v) : v);
const negGot = (g: Got<number> | null, credit: boolean): Got<number> | null =>
  g ? { value: neg(g.value, credit)!, where: g.where } : null;

/** The exact sources of the message: JSON-LD, then the XML attachment (which wins field by field). */
function structuredOf(v: MessageView): Structured {
  const j = fromJsonLd(v.jsonld);
  const x = fromXml(v.xml);
  return { ...j, ...x, paths: { ...j.paths, ...x.paths } };
}

/** The plain values of `fields`, recording where each non-null one was read under "/<field>". */
function emit<T extends object>(fields: { [K in keyof T]: Got<T[K]> | null }, p?: Provenance): T {
  const out: Record<string, unknown> = {};
  for (const [k, g] of Object.entries(fields) as Array<[string, Got<unknown> | null]>) {
    out[k] = g ? g.value : null;
    if (g && g.value !== null) p?.record(`/${k}`, g.where, g.value);
  }
  return out as T;
}

function recordItems(p: Provenance | undefined, key: string, items: Item[] | null, values: Array<Record<string, unknown>> | null): void {
  if (!p || !items || !values) return;
  values.forEach((row, i) => {
    for (const [f, val] of Object.entries(row)) if (val !== null) p.record(`/${key}/${i}/${f}`, items[i]!.where, val);
  });
}

export function extractInvoice(v: MessageView, p?: Provenance): InvoiceData {
  const s = structuredOf(v);
  const lines = v.lines;
  const head = [v.subject, ...lines.slice(0, 12)].join('\n').toLowerCase();
  const credit = s.credit ?? V.CREDIT_NOTE.test(head);
  const number =
    fromStructured(s, 'number') ??
    fromText(firstIdWhere(lines, V.INVOICE_NO, {}, V.NOT_INVOICE_NO)) ??
    fromText(firstIdWhere([v.subject], V.INVOICE_NO)) ??
    fromText(firstIdWhere([v.subject], V.INVOICE_WORD)) ??
    fromText(firstIdWhere(lines, V.INVOICE_WORD, {}, V.NOT_INVOICE_NO));
  const issueDate =
    fromStructured(s, 'issueDate') ??
    fromText(firstDateWhere(lines, V.ISSUE_DATE, v.monthFirst, V.NOT_INVOICE_NO)) ??
    fromText(firstDateWhere(lines, V.GENERIC_DATE, v.monthFirst, V.OTHER_DATE)) ??
    fromText(dateAfterNumber(v, number?.value ?? null)) ??
    headerDayOf(v);
  const amounts = amountsOf(v);
  const items = s.items ?? itemsOf(lines, v, true, amounts.total?.value ?? null);
  const lineItems = items
    ? items.map((i) => ({
        description: i.description,
        quantity: i.quantity,
        unitPrice: neg(i.unitPrice, credit),
        amount: neg(i.amount, credit),
      }))
    : null;
  recordItems(p, 'lineItems', items, lineItems);
  return emit<InvoiceData>(
    {
      invoiceNumber: number,
      vendor: fromStructured(s, 'seller') ?? vendorWhere(v),
      issueDate,
      dueDate: credit ? null : (fromStructured(s, 'dueDate') ?? dueDateOf(v, issueDate?.value ?? null)),
      currency: fromStructured(s, 'currency') ?? amounts.currency,
      total: negGot(fromStructured(s, 'total') ?? amounts.total, credit),
      subtotal: negGot(fromStructured(s, 'subtotal') ?? amounts.subtotal, credit),
      tax: negGot(fromStructured(s, 'tax') ?? amounts.tax, credit),
      lineItems: lineItems ? { value: lineItems, where: null } : null,
      paymentUrl: fromStructured(s, 'paymentUrl') ?? payLink(v),
    },
    p,
  );
}

export function extractReceipt(v: MessageView, p?: Provenance): ReceiptData {
  const s = structuredOf(v);
  const lines = v.lines;
  const head = [v.subject, ...lines.slice(0, 12)].join('\n').toLowerCase();
  const refund = s.credit ?? V.REFUND.test(head);
  const amounts = amountsOf(v);
  const all = [v.subject, ...lines];
  const orderNumber =
    fromStructured(s, 'orderNumber') ??
    firstBookingOrOrder(all) ??
    fromText(firstIdWhere(all, V.ORDER_NO_B)) ??
    fromText(firstIdWhere(all, V.INVOICE_NO, {}, V.NOT_INVOICE_NO)) ??
    fromText(firstIdWhere(all, V.ORDER_NO_D));
  const items: Item[] | null = s.items ?? itemsOf(lines, v, false, amounts.total?.value ?? null);
  const rows = items ? items.map((i) => ({ description: i.description, quantity: i.quantity, amount: neg(i.amount, refund) })) : null;
  recordItems(p, 'items', items, rows);
  return emit<ReceiptData>(
    {
      merchant: fromStructured(s, 'seller') ?? vendorWhere(v),
      date:
        fromStructured(s, 'issueDate') ??
        fromText(firstDateWhere(lines, V.PURCHASE_DATE, v.monthFirst, V.OTHER_DATE)) ??
        fromText(firstDateWhere(lines, V.GENERIC_DATE, v.monthFirst, V.OTHER_DATE)) ??
        headerDayOf(v),
      currency: fromStructured(s, 'currency') ?? amounts.currency,
      total: negGot(fromStructured(s, 'total') ?? amounts.total, refund),
      orderNumber,
      subtotal: negGot(fromStructured(s, 'subtotal') ?? amounts.subtotal, refund),
      tax: negGot(fromStructured(s, 'tax') ?? amounts.tax, refund),
      items: rows ? { value: rows, where: null } : null,
      paymentMethod: fromText(paymentMethodWhere(lines)),
    },
    p,
  );
}

/** The Date header's day (of the forwarded message when the mail forwards one). */
function headerDayOf(v: MessageView): Got<string> | null {
  return v.headerDay ? { value: v.headerDay, where: { from: 'header', path: v.forwarded ? 'Date (forwarded message)' : 'Date' } } : null;
}

function firstBookingOrOrder(lines: string[]): Got<string> | null {
  for (const h of labelHits(lines, V.ORDER_NO_A)) {
    const label = lines[h.line]!.toLowerCase();
    const pair = [lines[h.line]!, lines[h.line + 1] ?? ''];
    const id = firstIdWhere(pair, V.ORDER_NO_A, { lettersOk: V.BOOKING_LABEL.test(label) });
    if (id) return fromText(id);
  }
  return null;
}

interface Amounts {
  total: Got<number> | null;
  subtotal: Got<number> | null;
  tax: Got<number> | null;
  currency: Got<string> | null;
}

function amountsOf(v: MessageView): Amounts {
  const lines = v.lines;
  const all = [v.subject, ...lines];
  const text = all.join('\n');
  const money = (f: Found<{ value: number }> | null): Got<number> | null => (f ? { value: f.value.value, where: { line: f.line } } : null);
  const grand = money(firstAmountWhere(lines, V.GRAND_TOTAL, V.NOT_TOTAL));
  let total = grand ?? money(firstAmountWhere(lines, V.TOTAL, V.NOT_TOTAL));
  if (total === null) {
    for (const h of labelHits(all, V.DUE_AMOUNT, V.NOT_TOTAL)) {
      const m = moneyIn(h.rest);
      if (m.length > 0) {
        total = { value: m[0]!.value, where: { line: all[h.line]! } };
        break;
      }
    }
  }
  if (total === null) {
    // one distinct amount in the whole message is the amount of this document
    const distinct = new Map<number, string>();
    for (const l of all) for (const m of moneyIn(l)) if (!distinct.has(Math.abs(m.value))) distinct.set(Math.abs(m.value), l);
    if (distinct.size === 1) {
      const [value, line] = [...distinct][0]!;
      total = { value, where: { line } };
    }
  }
  const subtotal = money(firstAmountWhere(lines, V.SUBTOTAL, /previous|estimated|next|before discount/));
  const taxes: number[] = [];
  let taxLine: string | null = null;
  const seen = new Set<string>();
  for (const h of labelHits(lines, V.TAX, /total (?:before|excl|incl)|subtotal|sous-total|zwischensumme|registration|\bnr\b/)) {
    const m = amountWhere(lines, h);
    if (!m) continue;
    const key = `${lines[h.line]}`;
    if (seen.has(key) || taxes.includes(m.value.value)) continue;
    seen.add(key);
    taxes.push(m.value.value);
    taxLine ??= m.line;
  }
  // several tax lines (rates) are summed; the source points at the first
  const tax = taxes.length === 0 ? null : { value: Math.round(taxes.reduce((a, b) => a + b, 0) * 100) / 100, where: { line: taxLine! } };
  const sums = grand ? sumColumns(lines, grand.value) : null;
  const code = documentCurrency(all, v.lang);
  return {
    total,
    subtotal: subtotal ?? sums?.subtotal ?? null,
    tax: tax ?? sums?.tax ?? null,
    currency: code ? currencyWhere(all, code, text, v.lang) : explicitCode(all, text),
  };
}

/**
 * A sum line with an amount column and a tax column that add up to the grand total (a fapiao's "合计 ¥2000.00 ¥120.00"
 * above "价税合计 ¥2120.00"): the pre-tax sum and the tax.
 */
function sumColumns(lines: string[], grand: number): { subtotal: Got<number>; tax: Got<number> } | null {
  for (const h of labelHits(lines, V.TOTAL, V.NOT_TOTAL)) {
    const line = lines[h.line]!;
    if (V.GRAND_TOTAL.test(line.toLowerCase())) continue;
    const m = moneyIn(h.rest);
    if (m.length !== 2 || Math.abs(m[0]!.value + m[1]!.value - grand) > 0.005) continue;
    return { subtotal: { value: m[0]!.value, where: { line } }, tax: { value: m[1]!.value, where: { line } } };
  }
  return null;
}

/** The first line with an amount written in `code`. */
function currencyWhere(lines: string[], code: string, text: string, lang: string): Got<string> {
  const line = lines.find((l) => moneyIn(l).some((m) => codeOf(m.marker, text, lang) === code));
  return { value: code, where: line ? { line } : null };
}

function explicitCode(lines: string[], text: string): Got<string> | null {
  const re = ISO_CODE_WORD;
  const m = re.exec(text);
  if (!m) return null;
  const code = codeOf(m[1]!, text, 'en');
  if (!code) return null;
  const line = lines.find((l) => re.test(l));
  return { value: code, where: line ? { line } : null };
}

/** "Rechnung R0023847561 vom 01.04.2026": a date right after the document number. */
function dateAfterNumber(v: MessageView, number: string | null): Found<string> | null {
  if (!number) return null;
  for (const l of [v.subject, ...v.lines]) {
    const i = l.indexOf(number);
    if (i < 0) continue;
    const after = l.slice(i + number.length);
    if (!/^\s*(?:vom|du|del|of|dated|from|från|van|z dnia|datée? du|от|від|ze dne|z dne|fra|af|tarihli)\s/i.test(after)) continue;
    const d = datesIn(after, v.monthFirst)[0];
    if (d && d.index < 12) return { value: d.iso, line: l };
  }
  return null;
}

function dueDateOf(v: MessageView, issueDate: string | null): Got<string> | null {
  const lines = v.lines;
  const explicit = fromText(firstDateWhere(lines, V.DUE_DATE, v.monthFirst, /skonto|discount|early payment|rabatt|escompte/));
  if (explicit) return explicit;
  // a date later on a line that names a due date in a sentence ("is due on 30 Apr 2026")
  for (const h of labelHits(lines, V.DUE_DATE)) {
    const d = datesIn(h.rest, v.monthFirst)[0];
    if (d) return { value: d.iso, where: { line: lines[h.line]! } };
  }
  if (!issueDate) return null;
  const text = lines.join('\n').toLowerCase();
  if (V.DUE_ON_RECEIPT.test(text)) {
    const line = lines.find((l) => V.DUE_ON_RECEIPT.test(l.toLowerCase()));
    return { value: issueDate, where: line ? { line } : null };
  }
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
    // the issue date plus the stated terms: the source is the terms line
    if (n > 0 && n <= 365) return { value: addDays(issueDate, n), where: { line: l } };
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
    .replace(/\s+(?:via|über|through)\s+\S.*$/i, '');
  for (let i = 0; i < 2; i++) n = n.replace(DEPARTMENT, '');
  n = n.trim();
  if (n.length < 2 || /@/.test(n) || /^(?:no-?reply|info|mail|service|support|team)$/i.test(n)) return null;
  return n;
}

/** The business that was paid: a labelled merchant, the sender unless it is a billing platform, the Subject. */
export function vendorOf(v: MessageView): string | null {
  return vendorWhere(v)?.value ?? null;
}

const LEGAL_FORM =
  /(?:^|\s)(?:ltd\.?|limited|llc|inc\.?|plc|corp\.?|gmbh|ag|kg|e\.\s?k\.|ohg|ug|sarl|s\.à r\.l\.|s\.a\.r\.l\.|s\.r\.l\.|srl|s\.p\.a\.|s\.l\.|s\.a\.|b\.v\.|bv|n\.v\.|ab|as|asa|aps|a\/s|oy|oyj|sp\. z o\.o\.|s\.r\.o\.|a\.s\.|a\.ş\.|ltda\.?|sdn\.? bhd\.?|pty\.? ltd\.?|pvt\.? ltd\.?|s\.a\. de c\.v\.)$|^(?:ооо|оао|ао|тов|пат)\s|(?:有限公司|株式会社|\(주\)|주식회사)$/iu;
const PERSON = /^\p{Lu}[\p{Ll}'’-]+(?:\s\p{Lu}\.)?(?:\s\p{Lu}[\p{Ll}'’-]+){1,2}$/u;

/**
 * A person who sends for a business: "Ruth Greyfield" signing "Greyfield Consulting Ltd". The business is the line
 * that ends in a legal form and holds the sender's surname but not the given name (a brand's own name, "Lichtwerk
 * Energie" over "Lichtwerk Energie GmbH", stays the sender's).
 */
function employerOf(v: MessageView, from: string): Got<string> | null {
  if (!PERSON.test(from) || LEGAL_FORM.test(from)) return null;
  const words = from.toLowerCase().split(/\s+/);
  const [given, surname] = [words[0]!, words[words.length - 1]!];
  for (const l of [...v.lines.slice(0, 5), ...v.lines.slice(-15)]) {
    const name = nameOnly(l);
    if (name.length > 60 || !LEGAL_FORM.test(name.toLowerCase())) continue;
    const own = name.toLowerCase().split(/[\s,.&]+/);
    if (own.includes(surname) && !own.includes(given)) return { value: name, where: { line: l } };
  }
  return null;
}

export function vendorWhere(v: MessageView): Got<string> | null {
  const labelled = fromText(firstNameWhere(v.lines, V.MERCHANT_LABEL));
  if (labelled) return labelled;
  const from = cleanSender(v.fromName);
  if (from && !V.PLATFORMS.test(from)) {
    const company = employerOf(v, from);
    if (company) return company;
    return { value: from, where: { from: 'header', path: v.forwarded ? 'From (forwarded message)' : 'From' } };
  }
  const subj = /\b(?:from|von|de|från|van|da|od)\s+(.{2,60}?)(?:\s+(?:for|für|pour|para|per|voor|för)\b|\s+[#(]|[.!]?$)/i.exec(v.subject);
  if (subj) {
    const s = cleanSender(subj[1]!);
    if (s && !V.PLATFORMS.test(s) && !/^\d/.test(s)) return { value: s, where: { line: v.subject } };
  }
  // the footer's "© 2026 Acme Inc." names the business when nothing else does
  for (const l of v.lines.slice(-15)) {
    const c =
      /(?:©|\(c\)|copyright)\s*(?:\d{4}(?:\s*[-–]\s*\d{4})?)?\s*([^.,|·•]{2,60}?)(?:[.,|·•]|\s+all rights|\s+alle rechte|\s+tous droits|$)/i.exec(
        l,
      );
    const name = c ? cleanSender(c[1]!) : null;
    if (name && !V.PLATFORMS.test(name)) return { value: name, where: { line: l } };
  }
  return null;
}

function payLink(v: MessageView): Got<string> | null {
  for (const l of v.links) {
    const t = l.text.toLowerCase();
    if (!/^https?:/i.test(l.href)) continue;
    if (!V.PAY_LINK.test(t) || V.NOT_PAY_LINK.test(t)) continue;
    // a text/plain link is written in the text; an HTML link's URL is not part of the rendered text
    const line = l.source === 'text' ? v.lines.find((x) => x.includes(l.href)) : undefined;
    return { value: l.href, where: line ? { line } : { from: 'link', path: l.href, text: l.text.slice(0, 200) } };
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
  [/satispay/i, 'Satispay'],
  [/mobilepay/i, 'MobilePay'],
  [/\bvipps\b/i, 'Vipps'],
  [/\bswish\b/i, 'Swish'],
  [/\btwint\b/i, 'TWINT'],
  [/mercado\s?pago/i, 'Mercado Pago'],
  [/\binterac\b/i, 'Interac'],
  [/\bgopay\b/i, 'GoPay'],
  [/shopeepay/i, 'ShopeePay'],
  [/line\s?pay/i, 'LINE Pay'],
  [/kakao\s?pay|카카오페이/i, '카카오페이'],
  [/naver\s?pay|네이버페이/i, '네이버페이'],
  [/\bpaytm\b/i, 'Paytm'],
  [/\bupi\b/i, 'UPI'],
  [/sepa|lastschrift|direct debit|prélèvement|domiciliación/i, 'SEPA Direct Debit'],
  [/bank transfer|überweisung|virement|transferencia/i, 'Bank transfer'],
];

export function paymentMethodOf(lines: string[]): string | null {
  return paymentMethodWhere(lines)?.value ?? null;
}

export function paymentMethodWhere(lines: string[]): Found<string> | null {
  const hits = labelHits(lines, V.PAYMENT_LABEL);
  const scan = [...hits.flatMap((h) => [lines[h.line]!, lines[h.line + 1] ?? '']), ...lines];
  for (const l of scan) {
    for (const [re, brand] of BRANDS) {
      const m = re.exec(l);
      if (!m) continue;
      const tail = l.slice(m.index + m[0].length, m.index + m[0].length + 40);
      const d = /^[^\d]{0,24}?(\d{4})\b/.exec(tail);
      if (d) return { value: `${brand} ending ${d[1]}`, line: l };
    }
    const card = /(?:card|karte|carte|tarjeta|kort|カード)\D{0,20}?(?:ending|endet|se terminant|terminada|slutar)\D{0,10}(\d{4})\b/i.exec(
      l,
    );
    if (card) return { value: `Card ending ${card[1]}`, line: l };
    // "신한카드(1234)", "Karte **** 1234", "信用卡 尾号1234": a card word and its last four digits
    const masked =
      /(?:card|karte|carte|tarjeta|cartão|carta|kaart|karta|kart|kort|カード|카드|卡)[^\d\n]{0,12}?(?:[(（]|[*•·x]{2,}\s?|尾号|末尾|끝자리)\s?(\d{4})(?!\d)/iu.exec(
        l,
      );
    if (masked) return { value: `Card ending ${masked[1]}`, line: l };
  }
  for (const h of hits) {
    const [a, b] = [lines[h.line]!, lines[h.line + 1] ?? ''];
    for (const [re, name] of WALLETS) if (re.test(`${a} ${b}`)) return { value: name, line: re.test(a) || !re.test(b) ? a : b };
  }
  // anything else is the method's name as the label gives it ("お支払い方法: コンビニ払い", "পেমেন্ট: বিকাশ")
  for (const h of hits) {
    const name = h.rest
      .replace(/^[\s:：\-–]+/, '')
      .replace(/[.。!]+\s*$/, '')
      .trim();
    if (name.length < 2 || name.length > 30 || /\d|@|https?:/.test(name) || !/\p{L}/u.test(name) || NOT_METHOD.test(name)) continue;
    return { value: name, line: lines[h.line]! };
  }
  // a till receipt paid in cash: "CASH 40.00" (with its change)
  const cash = lines.find((l) =>
    /^\s*(?:cash|bar|espèces|efectivo|contanti|contant|kontant|gotówka|nakit|наличные|tunai)\b[^\p{L}]*\d/iu.test(l),
  );
  if (cash) return { value: 'Cash', line: cash };
  return null;
}

const NOT_METHOD =
  /received|due|thank|pending|failed|declined|details|summary|information|reference|status|date|history|terms|conditions|erhalten|reçu|recibido|ricevuto|ontvangen|mottagen|fällig|échéance|plazo/i;
