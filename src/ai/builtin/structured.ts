// Exact sources (rule 1): schema.org Invoice / Order JSON-LD in the HTML, and EN 16931 e-invoice XML
// attachments (UBL 2.1 Invoice / CreditNote, UN/CEFACT CII as in Factur-X, ZUGFeRD, XRechnung). Read with a
// small bounded walk over the first occurrence of each element; no XML parser, no entity expansion.

import type { Item } from './items.ts';

export interface Structured {
  number?: string;
  orderNumber?: string;
  seller?: string;
  issueDate?: string;
  dueDate?: string;
  currency?: string;
  total?: number;
  subtotal?: number;
  tax?: number;
  items?: Item[];
  paymentUrl?: string;
  credit?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? Math.round(n * 100) / 100 : undefined;
};
const day = (v: unknown): string | undefined => {
  const s = str(v);
  return s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : undefined;
};
const nameOf = (v: unknown): string | undefined => (isObj(v) ? str(v.name) : str(v));
const types = (o: Obj): string[] => ([] as unknown[]).concat(o['@type'] ?? []).map((t) => String(t).replace(/^.*[/#]/, ''));

function clean(s: Structured): Structured {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as Structured;
}

export function fromJsonLd(blocks: unknown[]): Structured {
  for (const b of blocks) {
    if (!isObj(b)) continue;
    const t = types(b);
    if (t.includes('Invoice')) {
      const due = isObj(b.totalPaymentDue) ? b.totalPaymentDue : isObj(b.minimumPaymentDue) ? b.minimumPaymentDue : {};
      return clean({
        number: str(b.confirmationNumber) ?? str(b.identifier) ?? str(b.invoiceNumber),
        seller: nameOf(b.provider) ?? nameOf(b.seller) ?? nameOf(b.broker),
        issueDate: day(b.billingPeriod) ?? day(b.dateCreated) ?? day(b.issueDate),
        dueDate: day(b.paymentDueDate) ?? day(b.paymentDue),
        currency: str((due as Obj).priceCurrency)?.toUpperCase() ?? str(b.priceCurrency)?.toUpperCase(),
        total: num((due as Obj).price) ?? num((due as Obj).value) ?? num(b.totalPrice),
        paymentUrl: str(b.url) && /^https?:/.test(String(b.url)) ? String(b.url) : undefined,
      });
    }
    if (t.includes('Order')) {
      const offers = ([] as unknown[]).concat(b.acceptedOffer ?? []).filter(isObj);
      const items: Item[] = offers.map((o) => {
        const q = num(isObj(o.eligibleQuantity) ? o.eligibleQuantity.value : o.eligibleQuantity) ?? null;
        const p = num(o.price) ?? null;
        return {
          description: nameOf(o.itemOffered) ?? 'item',
          quantity: q,
          unitPrice: p,
          amount: p !== null && q !== null ? Math.round(p * q * 100) / 100 : p,
        };
      });
      return clean({
        orderNumber: str(b.orderNumber),
        seller: nameOf(b.seller) ?? nameOf(b.merchant),
        issueDate: day(b.orderDate),
        currency: str(b.priceCurrency)?.toUpperCase(),
        total: num(b.price) ?? num(b.totalPrice),
        items: items.length > 0 ? items : undefined,
      });
    }
  }
  return {};
}

/** Text of the first element with this local name (any prefix), searched from `from`. */
function el(xml: string, local: string, from = 0): string | undefined {
  const re = new RegExp(`<(?:[\\w.-]+:)?${local}(?:\\s[^>]*)?>([^<]*)</(?:[\\w.-]+:)?${local}>`, 'g');
  re.lastIndex = from;
  const m = re.exec(xml);
  return m ? decode(m[1]!.trim()) : undefined;
}

function section(xml: string, local: string): string {
  const start = new RegExp(`<(?:[\\w.-]+:)?${local}[\\s>]`).exec(xml);
  if (!start) return '';
  const end = new RegExp(`</(?:[\\w.-]+:)?${local}>`).exec(xml.slice(start.index));
  return end ? xml.slice(start.index, start.index + end.index) : '';
}

const decode = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
const cii = (s: string | undefined): string | undefined =>
  s && /^\d{8}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}` : day(s);

export function fromXml(docs: string[]): Structured {
  for (const raw of docs) {
    const xml = raw.slice(0, 2 * 1024 * 1024);
    const head = xml.slice(0, 4096);
    if (/<(?:[\w.-]+:)?(?:Invoice|CreditNote)[\s>]/.test(head) && head.includes('urn:oasis:names:specification:ubl')) {
      const credit = /<(?:[\w.-]+:)?CreditNote[\s>]/.test(xml);
      const totals = section(xml, 'LegalMonetaryTotal');
      const supplier = section(xml, 'AccountingSupplierParty');
      return clean({
        number: el(xml, 'ID'),
        issueDate: day(el(xml, 'IssueDate')),
        dueDate: day(el(xml, 'DueDate')) ?? day(el(section(xml, 'PaymentMeans'), 'PaymentDueDate')),
        currency: el(xml, 'DocumentCurrencyCode')?.toUpperCase(),
        total: num(el(totals, 'TaxInclusiveAmount')),
        subtotal: num(el(totals, 'TaxExclusiveAmount')) ?? num(el(totals, 'LineExtensionAmount')),
        tax: num(el(section(xml, 'TaxTotal'), 'TaxAmount')),
        seller: el(supplier, 'RegistrationName') ?? el(section(supplier, 'PartyName'), 'Name'),
        credit: credit || undefined,
      });
    }
    if (head.includes('CrossIndustryInvoice')) {
      const doc = section(xml, 'ExchangedDocument');
      const sum = section(xml, 'SpecifiedTradeSettlementHeaderMonetarySummation');
      const seller = section(xml, 'SellerTradeParty');
      const type = el(doc, 'TypeCode');
      return clean({
        number: el(doc, 'ID'),
        issueDate: cii(el(section(doc, 'IssueDateTime'), 'DateTimeString')),
        dueDate: cii(el(section(xml, 'DueDateDateTime'), 'DateTimeString')),
        currency: el(xml, 'InvoiceCurrencyCode')?.toUpperCase(),
        total: num(el(sum, 'GrandTotalAmount')),
        subtotal: num(el(sum, 'TaxBasisTotalAmount')),
        tax: num(el(sum, 'TaxTotalAmount')),
        seller: el(seller, 'Name'),
        credit: type === '381' || undefined,
      });
    }
  }
  return {};
}
