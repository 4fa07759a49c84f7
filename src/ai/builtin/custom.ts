// A caller's JSON Schema filled by the built-in engine: each property is matched by its name (and description)
// to a known extractor, or by its format (email, date, date-time, uri) and type (number, integer, enum) to what
// the message contains. Anything else is null — a value is never made up.

import type { ParsedMessage } from '../../mail/types.ts';
import { extractInvoice, extractReceipt, paymentMethodOf, vendorOf } from './commerce.ts';
import { datesIn } from './dates.ts';
import { expiresIn, extractTwoFa } from './twofa.ts';
import type { MessageView } from './view.ts';

type Schema = Record<string, unknown>;

interface Known {
  [k: string]: unknown;
}

function known(msg: ParsedMessage, v: MessageView): Known {
  const inv = extractInvoice(v);
  const rec = extractReceipt(v);
  const tfa = extractTwoFa(msg, v);
  return {
    ...inv,
    ...rec,
    ...tfa,
    vendor: inv.vendor ?? vendorOf(v),
    paymentMethod: paymentMethodOf(v.lines),
    expiresInMinutes: expiresIn(v.lines),
  };
}

const BY_NAME: Array<[RegExp, (k: Known, v: MessageView) => unknown]> = [
  [/invoice.?(?:number|no|nr|id)|rechnungsnummer|facture/i, (k) => k.invoiceNumber],
  [
    /(?:order|booking|reservation|confirmation|reference).?(?:number|no|nr|id|code|ref)?$|\bpnr\b/i,
    (k) => k.orderNumber ?? k.invoiceNumber,
  ],
  [/sub.?total|net.?amount/i, (k) => k.subtotal],
  [/tax|vat|gst/i, (k) => k.tax],
  [/total|amount|price|sum|betrag|montant|importe/i, (k) => k.total],
  [/currency|währung|devise|moneda/i, (k) => k.currency],
  [/due/i, (k) => k.dueDate],
  [/(?:issue|invoice|order|purchase|payment).?date|^date$/i, (k) => k.issueDate ?? k.date],
  [/vendor|merchant|seller|company|supplier|business|store|shop|issuer/i, (k) => k.vendor ?? k.merchant],
  [/service|brand|app/i, (k) => k.service],
  [/otp|code|pin|passcode|token/i, (k) => k.code],
  [/pay.?(?:url|link)|payment.?(?:url|link)/i, (k) => k.paymentUrl],
  [/link|url|href/i, (k) => k.link ?? k.paymentUrl],
  [/expir|valid|ttl/i, (k) => k.expiresInMinutes],
  [/payment.?method|card|paid.?with/i, (k) => k.paymentMethod],
  [/subject|title/i, (_k, v) => v.subject || null],
  [/sender|from/i, (_k, v) => v.fromAddress || null],
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

function fill(s: Schema, name: string, k: Known, v: MessageView, depth: number): unknown {
  const t = typesOf(s);
  if ((t.includes('object') || (s.properties && t.length === 0)) && depth < 6) {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const out: Record<string, unknown> = {};
    for (const [p, ps] of Object.entries(props)) out[p] = fill(ps, p, k, v, depth + 1);
    return out;
  }
  const key = `${name} ${typeof s.description === 'string' ? s.description.slice(0, 200) : ''}`.trim();
  for (const [re, get] of BY_NAME) {
    if (re.test(name) || re.test(key.split(' ')[0] ?? '')) {
      const got = coerce(get(k, v), s);
      if (got !== null) return got;
      break;
    }
  }
  return coerce(byFormat(s, v), s);
}

export function fillCustom(msg: ParsedMessage, v: MessageView, schema: Schema): unknown {
  return fill(schema, '', known(msg, v), v, 0);
}
