// A caller's JSON Schema filled by the built-in engine: each property is matched by its name (and description)
// to a known extractor, or by its format (email, date, date-time, uri) and type (number, integer, enum) to what
// the message contains. Anything else is null — a value is never made up.

import type { ParsedMessage } from '../../mail/types.ts';
import { extractInvoice, extractReceipt, paymentMethodWhere, vendorWhere } from './commerce.ts';
import { datesIn } from './dates.ts';
import { labelHits } from './labels.ts';
import { parseNumber } from './money.ts';
import { findIn, lineSpan, Provenance, pointerToken, type Where } from './provenance.ts';
import { expiresIn, extractTwoFa } from './twofa.ts';
import type { MessageView } from './view.ts';
import * as V from './vocab.ts';

type Schema = Record<string, unknown>;

/** What the presets found, by field name, and the provenance that recorded where each was read ("/<name>"). */
interface Known {
  values: Record<string, unknown>;
  from: Record<string, Provenance>;
}

function known(msg: ParsedMessage, v: MessageView): Known {
  const pi = new Provenance(v);
  const pr = new Provenance(v);
  const side = new Provenance(v);
  const inv = extractInvoice(v, pi);
  const rec = extractReceipt(v, pr);
  const tfa = extractTwoFa(msg, v);
  const vendor = vendorWhere(v);
  const pay = paymentMethodWhere(v.lines);
  const rate = taxRateOf(v.lines);
  side.record('/vendor', vendor?.where, vendor?.value);
  side.record('/paymentMethod', pay ? { line: pay.line } : null, pay?.value);
  side.record('/taxRate', rate ? { line: rate.line } : null, rate?.value);
  const from: Record<string, Provenance> = {};
  for (const k of Object.keys(inv)) from[k] = pi;
  for (const k of Object.keys(rec)) from[k] = pr; // the receipt's values win below, so do its sources
  if (inv.vendor === null) from.vendor = side;
  from.paymentMethod = side;
  from.taxRate = side;
  return {
    values: {
      ...inv,
      ...rec,
      ...tfa,
      vendor: inv.vendor ?? vendor?.value ?? null,
      paymentMethod: pay?.value ?? null,
      expiresInMinutes: expiresIn(v.lines),
      taxRate: rate?.value ?? null,
    },
    from,
  };
}

/** A tax rate as the mail states it, in percent ("VAT 20 %: 40.00", "zzgl. 19 % MwSt."), on a tax line. */
function taxRateOf(lines: string[]): { value: number; line: string } | null {
  for (const h of labelHits(lines, V.TAX)) {
    const line = lines[h.line]!;
    const m = /(?<![\d.,])(\d{1,2}(?:[.,]\d{1,3})?)\s?%/.exec(line);
    const n = m ? parseNumber(m[1]!) : null;
    if (n !== null && n > 0 && n < 100) return { value: n, line };
  }
  return null;
}

type Getter = string[] | ((v: MessageView) => { value: unknown; where: Where });

// First match wins; an empty list means "none of the presets' fields": such a property is filled only by its format.
const BY_NAME: Array<[RegExp, Getter]> = [
  [/invoice.?(?:number|no|nr|id)|rechnungsnummer|facture/i, ['invoiceNumber']],
  [/(?:order|booking|reservation|confirmation|reference).?(?:number|no|nr|id|code|ref)?$|\bpnr\b/i, ['orderNumber', 'invoiceNumber']],
  // a tax rate is a percentage the mail states, never the tax amount
  [
    /(?:tax|vat|gst|mwst|ust|tva|iva).?(?:rate|percent|percentage|pct|%)|(?:rate|percent|percentage).?(?:tax|vat|gst)|steuersatz|taux/i,
    ['taxRate'],
  ],
  // other rates, and identifiers or amounts of something else than the document's totals
  [/rate|percent|pct|ratio|%/i, []],
  [/(?:tax|vat|gst).?(?:id|number|no|nr|reg)/i, []],
  [
    /(?:ship|deliver|postage|discount|fee|tip|deposit|unit|each|item|line|previous|refund).*(?:amount|price|total|sum|cost)|(?:amount|price|total|sum|cost).*(?:ship|deliver|discount|fee|tip|deposit|unit|each|item|line|previous)/i,
    [],
  ],
  [/sub.?total|net.?amount/i, ['subtotal']],
  [/tax|vat|gst/i, ['tax']],
  [/total|amount|price|sum|betrag|montant|importe/i, ['total']],
  [/currency|währung|devise|moneda/i, ['currency']],
  [/due/i, ['dueDate']],
  [/(?:issue|invoice|order|purchase|payment).?date|^date$/i, ['issueDate', 'date']],
  [/vendor|merchant|seller|company|supplier|business|store|shop|issuer/i, ['vendor', 'merchant']],
  [/service|brand|app/i, ['service']],
  [/otp|code|pin|passcode|token/i, ['code']],
  [/pay.?(?:url|link)|payment.?(?:url|link)/i, ['paymentUrl']],
  [/link|url|href/i, ['link', 'paymentUrl']],
  [/expir|valid|ttl/i, ['expiresInMinutes']],
  [/payment.?method|card|paid.?with/i, ['paymentMethod']],
  [/subject|title/i, (v) => ({ value: v.subject || null, where: { line: v.subject } })],
  [/sender|from/i, (v) => ({ value: v.fromAddress || null, where: { from: 'header', path: 'From' } })],
];

const typesOf = (s: Schema): string[] => ([] as unknown[]).concat(s.type ?? []).map(String);

function coerce(value: unknown, s: Schema): unknown {
  if (value === null || value === undefined) return null;
  const t = typesOf(s);
  if (Array.isArray(s.enum)) {
    const hit = s.enum.find((e) => String(e).toLowerCase() === String(value).toLowerCase());
    return hit ?? null;
  }
  if (t.includes('integer')) return typeof value === 'number' && Number.isInteger(value) ? value : null;
  if (t.includes('number')) return typeof value === 'number' ? value : null;
  if (t.includes('string') || t.length === 0) {
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    const str = String(value);
    if (s.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(str)) return null;
    if (s.format === 'uri' && !/^https?:\/\//.test(str)) return null;
    if (s.format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(str)) return null;
    return str;
  }
  if (t.includes('boolean')) return typeof value === 'boolean' ? value : null;
  if (t.includes('array')) return Array.isArray(value) ? value : null;
  return null;
}

function byFormat(s: Schema, v: MessageView): unknown {
  const text = [v.subject, ...v.lines].join('\n');
  if (s.format === 'email') return /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text)?.[0] ?? null;
  if (s.format === 'uri') return v.links.find((l) => /^https?:/.test(l.href))?.href ?? null;
  if (s.format === 'date') return v.lines.flatMap((l) => datesIn(l, v.monthFirst))[0]?.iso ?? null;
  if (s.format === 'date-time') return /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:\d{2})\b/.exec(text)?.[0] ?? null;
  if (Array.isArray(s.enum)) {
    const lower = text.toLowerCase();
    return s.enum.find((e) => typeof e === 'string' && e.length > 1 && lower.includes(e.toLowerCase())) ?? null;
  }
  return null;
}

/** A percentage as the schema wants it: a fraction (0.2) when it says so (maximum ≤ 1, "fraction", "0.x"), else percent (20). */
function rateFor(value: unknown, s: Schema): unknown {
  if (typeof value !== 'number') return value;
  const d = typeof s.description === 'string' ? s.description : '';
  const fraction =
    (typeof s.maximum === 'number' && s.maximum <= 1) ||
    (typeof s.exclusiveMaximum === 'number' && s.exclusiveMaximum <= 1) ||
    /fraction|decimal|ratio|between 0 and 1|0\.\d/i.test(d);
  return fraction ? Math.round(value * 10000) / 1000000 : value;
}

function fill(s: Schema, name: string, pointer: string, k: Known, v: MessageView, p: Provenance, depth: number): unknown {
  const t = typesOf(s);
  if ((t.includes('object') || (s.properties && t.length === 0)) && depth < 6) {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const out: Record<string, unknown> = {};
    for (const [prop, ps] of Object.entries(props)) out[prop] = fill(ps, prop, `${pointer}/${pointerToken(prop)}`, k, v, p, depth + 1);
    return out;
  }
  for (const [re, get] of BY_NAME) {
    if (!re.test(name)) continue;
    if (typeof get === 'function') {
      const { value, where } = get(v);
      const got = coerce(value, s);
      if (got !== null) {
        p.record(pointer, where, got);
        return got;
      }
      break;
    }
    for (const key of get) {
      const raw = k.values[key];
      if (raw === null || raw === undefined) continue;
      const got = coerce(key === 'taxRate' ? rateFor(raw, s) : raw, s);
      if (got === null) continue;
      // the preset's sources for this field (and, for a list, its items' fields) move to this property's pointer
      const before = Object.keys(p.sources).length;
      const from = k.from[key];
      if (from) p.copy(from, `/${key}`, pointer);
      if (Object.keys(p.sources).length === before) locate(p, pointer, got);
      return got;
    }
    break;
  }
  const got = coerce(byFormat(s, v), s);
  if (got !== null) locate(p, pointer, got);
  return got;
}

/** The value's first rendering in the source text (2fa fields and formats have no extractor span of their own). */
function locate(p: Provenance, pointer: string, value: unknown): void {
  if (typeof value === 'object') return;
  const at = findIn(p.text, value);
  if (!at) return;
  const span = lineSpan(p.text, at);
  p.sources[pointer] = { from: 'text', span, text: p.text.slice(span[0], span[1]) };
}

export function fillCustom(msg: ParsedMessage, v: MessageView, schema: Schema, p: Provenance = new Provenance(v)): unknown {
  return fill(schema, '', '', known(msg, v), v, p, 0);
}
