// Exact sources (rule 1): schema.org Invoice / Order JSON-LD in the HTML, and EN 16931 e-invoice XML
// attachments (UBL 2.1 Invoice / CreditNote, UN/CEFACT CII as in Factur-X, ZUGFeRD, XRechnung). Read with a
// small bounded walk over the first occurrence of each element; no XML parser, no entity expansion.

import type { Item } from './items.ts';
import type { Where } from './provenance.ts';

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
  /** Where each field was read: a JSONPath in the JSON-LD block or an element path in the XML. */
  paths?: Partial<Record<Exclude<keyof Structured, 'paths' | 'credit'>, Where>>;
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

/** The first of `keys` of `o` that `conv` accepts, with its JSONPath (`$.a.b`). */
function pick<T>(o: Obj, keys: string[], conv: (v: unknown) => T | undefined, at = '$'): [T, string] | undefined {
  for (const k of keys) {
    const path = k.split('.');
    let cur: unknown = o;
    for (const p of path) cur = isObj(cur) ? cur[p] : undefined;
    const v = conv(cur);
    if (v !== undefined) return [v, `${at}.${k}`];
  }
  return undefined;
}

type Picks = { [K in Exclude<keyof Structured, 'paths' | 'credit' | 'items'>]?: [Structured[K], string] | undefined };

function clean(s: Structured): Structured {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as Structured;
}

/** Values and paths of picks, as a Structured whose `paths` say where each was read. */
function fromPicks(kind: 'jsonld' | 'xml', picks: Picks, extra: Partial<Structured> = {}): Structured {
  const out: Record<string, unknown> = {};
  const paths: Record<string, Where> = {};
  for (const [k, v] of Object.entries(picks)) {
    if (!v) continue;
    out[k] = v[0];
    paths[k] = { from: kind, path: v[1] };
  }
  return clean({ ...(out as Structured), ...extra, paths: { ...paths, ...extra.paths } });
}

export function fromJsonLd(blocks: unknown[]): Structured {
  for (const b of blocks) {
    if (!isObj(b)) continue;
    const t = types(b);
    if (t.includes('Invoice')) {
      const dueKey = isObj(b.totalPaymentDue) ? 'totalPaymentDue' : isObj(b.minimumPaymentDue) ? 'minimumPaymentDue' : null;
      const due = dueKey ? [`${dueKey}.price`, `${dueKey}.value`] : [];
      return fromPicks('jsonld', {
        number: pick(b, ['confirmationNumber', 'identifier', 'identifier.value', 'invoiceNumber'], str),
        seller: pick(b, ['provider', 'seller', 'broker'], nameOf),
        // a billingPeriod ("2026-03-01/2026-03-31") is the period billed, not the day the invoice was issued
        issueDate: pick(b, ['dateIssued', 'issueDate', 'dateCreated'], day),
        dueDate: pick(b, ['paymentDueDate', 'paymentDue'], day),
        currency: pick(b, [...(dueKey ? [`${dueKey}.priceCurrency`] : []), 'priceCurrency'], (v) => str(v)?.toUpperCase()),
        total: pick(b, [...due, 'totalPrice'], num),
        paymentUrl: pick(b, ['url'], (v) => (str(v) && /^https?:/.test(String(v)) ? String(v) : undefined)),
      });
    }
    if (t.includes('Order')) {
      const offers = ([] as unknown[]).concat(b.acceptedOffer ?? []).filter(isObj);
      const items: Item[] = offers.map((o, i) => {
        const q = num(isObj(o.eligibleQuantity) ? o.eligibleQuantity.value : o.eligibleQuantity) ?? null;
        const p = num(o.price) ?? null;
        return {
          description: nameOf(o.itemOffered) ?? 'item',
          quantity: q,
          unitPrice: p,
          amount: p !== null && q !== null ? Math.round(p * q * 100) / 100 : p,
          where: { from: 'jsonld', path: Array.isArray(b.acceptedOffer) ? `$.acceptedOffer[${i}]` : '$.acceptedOffer' },
        };
      });
      return fromPicks(
        'jsonld',
        {
          orderNumber: pick(b, ['orderNumber'], str),
          seller: pick(b, ['seller', 'merchant'], nameOf),
          issueDate: pick(b, ['orderDate'], day),
          currency: pick(b, ['priceCurrency', 'totalPaymentDue.priceCurrency'], (v) => str(v)?.toUpperCase()),
          total: pick(b, ['totalPaymentDue.price', 'totalPaymentDue.value', 'price', 'totalPrice'], num),
        },
        items.length > 0 ? { items, paths: { items: { from: 'jsonld', path: '$.acceptedOffer' } } } : {},
      );
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
      const at = <T>(v: T | undefined, path: string): [T, string] | undefined => (v === undefined ? undefined : [v, path]);
      return fromPicks(
        'xml',
        {
          number: at(el(xml, 'ID'), 'ID'),
          issueDate: at(day(el(xml, 'IssueDate')), 'IssueDate'),
          dueDate:
            at(day(el(xml, 'DueDate')), 'DueDate') ??
            at(day(el(section(xml, 'PaymentMeans'), 'PaymentDueDate')), 'PaymentMeans/PaymentDueDate'),
          currency: at(el(xml, 'DocumentCurrencyCode')?.toUpperCase(), 'DocumentCurrencyCode'),
          total: at(num(el(totals, 'TaxInclusiveAmount')), 'LegalMonetaryTotal/TaxInclusiveAmount'),
          subtotal:
            at(num(el(totals, 'TaxExclusiveAmount')), 'LegalMonetaryTotal/TaxExclusiveAmount') ??
            at(num(el(totals, 'LineExtensionAmount')), 'LegalMonetaryTotal/LineExtensionAmount'),
          tax: at(num(el(section(xml, 'TaxTotal'), 'TaxAmount')), 'TaxTotal/TaxAmount'),
          seller:
            at(el(supplier, 'RegistrationName'), 'AccountingSupplierParty//RegistrationName') ??
            at(el(section(supplier, 'PartyName'), 'Name'), 'AccountingSupplierParty//PartyName/Name'),
        },
        { credit: credit || undefined },
      );
    }
    if (head.includes('CrossIndustryInvoice')) {
      const doc = section(xml, 'ExchangedDocument');
      const sum = section(xml, 'SpecifiedTradeSettlementHeaderMonetarySummation');
      const seller = section(xml, 'SellerTradeParty');
      const type = el(doc, 'TypeCode');
      const at = <T>(v: T | undefined, path: string): [T, string] | undefined => (v === undefined ? undefined : [v, path]);
      const M = 'SpecifiedTradeSettlementHeaderMonetarySummation';
      return fromPicks(
        'xml',
        {
          number: at(el(doc, 'ID'), 'ExchangedDocument/ID'),
          issueDate: at(cii(el(section(doc, 'IssueDateTime'), 'DateTimeString')), 'ExchangedDocument/IssueDateTime/DateTimeString'),
          dueDate: at(cii(el(section(xml, 'DueDateDateTime'), 'DateTimeString')), 'DueDateDateTime/DateTimeString'),
          currency: at(el(xml, 'InvoiceCurrencyCode')?.toUpperCase(), 'InvoiceCurrencyCode'),
          total: at(num(el(sum, 'GrandTotalAmount')), `${M}/GrandTotalAmount`),
          subtotal: at(num(el(sum, 'TaxBasisTotalAmount')), `${M}/TaxBasisTotalAmount`),
          tax: at(num(el(sum, 'TaxTotalAmount')), `${M}/TaxTotalAmount`),
          seller: at(el(seller, 'Name'), 'SellerTradeParty/Name'),
        },
        { credit: type === '381' || undefined },
      );
    }
  }
  return {};
}
