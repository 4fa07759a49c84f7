// What a reader checks in an extraction before trusting it (issue 27), for any engine: the arithmetic of an invoice
// or receipt (line amounts, their sum, subtotal + tax = total), the dates' order, the currency against the amounts
// the mail writes, and — for a model's answer — that every number and date it gives is written in the mail.
// `validated` is true only when the schema matches and every reported check passed. A check whose inputs are
// missing (no line items, no subtotal …) is not run and not reported.
//
// Runs in the sandbox (tasks `ai.builtin` and `ai.verify`, src/workers/sandbox-tasks.ts): its input is a stranger's
// mail and, for models, an answer of up to --model-max-response-bytes.

import type { ParsedMessage } from '../mail/types.ts';
import { datesIn } from './builtin/dates.ts';
import { codeOf, moneyIn } from './builtin/money.ts';
import {
  findIn,
  lineSpan,
  numbersIn,
  Provenance,
  pointerToken,
  round2,
  type Source,
  type Sources,
  sourceTextFor,
} from './builtin/provenance.ts';
import { fromXml } from './builtin/structured.ts';
import { type MessageView, viewOf } from './builtin/view.ts';
import * as V from './builtin/vocab.ts';

export interface Check {
  name: string;
  ok: boolean;
  /** What was compared ("3 × 50.00 = 150.00 ≠ 3150.00"). */
  detail: string;
}

export interface Reviewed {
  data: unknown;
  checks: Check[];
  sources: Sources;
  /** The text the `sources` spans index into (src/ai/builtin/provenance.ts). */
  sourceText: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// ISO 4217 minor units other than 2
const ZERO_DECIMALS = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMALS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
const MAX_DETAIL = 600;

function decimalsOf(currency: string | null): number {
  if (currency && ZERO_DECIMALS.has(currency)) return 0;
  return 2;
}

/** Rounding tolerance of one amount: a cent, or the currency's minor unit when it is larger (1 for JPY). */
const toleranceOf = (currency: string | null): number => Math.max(0.01, 10 ** -decimalsOf(currency)) + 1e-9;

function fmt(n: number, currency: string | null): string {
  if (currency && THREE_DECIMALS.has(currency)) return n.toFixed(3);
  return n.toFixed(decimalsOf(currency) === 0 && Number.isInteger(n) ? 0 : 2);
}

const cap = (s: string): string => (s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL - 1)}…` : s);

// Lines of the totals block that move a total away from the sum of the lines: shipping, fees, tips, discounts.
const CHARGE =
  /shipping|postage|p&p|porto|frete|delivery|versand|livraison|envío|envio|spedizione|verzending|frakt|送料|配送料|运费|배송비|\bfees?\b|gebühr|frais|gastos|avgift|commissione|surcharge|zuschlag|\btip\b|trinkgeld|pourboire|propina|discount|rabatt|remise|descuento|sconto|korting|coupon|promo|gutschein|voucher|rounding|rundung|arrondi|deposit|pfand|handling|割引|クーポン|优惠|할인/i;
const NOT_CHARGE = /you saved|saved|économisé|gespart|free (?:shipping|delivery) (?:on|over|for)|ship free|next time|over \$|ab \d/i;
const MAX_CHARGES = 8;

interface Charge {
  value: number;
  line: string;
}

/** Shipping, fees and discounts stated in the mail, signed as they count towards the total (discounts negative). */
function chargesOf(v: MessageView): Charge[] {
  const out: Charge[] = [];
  const seen = new Set<string>();
  for (const l of v.lines) {
    if (out.length >= MAX_CHARGES) break;
    if (!CHARGE.test(l) || NOT_CHARGE.test(l) || seen.has(l)) continue;
    const m = moneyIn(l)[0];
    if (!m || m.value === 0) continue;
    seen.add(l);
    const discount = /discount|rabatt|remise|descuento|sconto|korting|coupon|promo|gutschein|voucher|割引|クーポン|优惠|할인/i.test(l);
    out.push({ value: discount ? -Math.abs(m.value) : m.value, line: l.length > 60 ? `${l.slice(0, 59)}…` : l });
  }
  return out;
}

/** The stated charges that add up to `d` (within `tol` each), or null; [] when d is nothing. */
function explain(d: number, charges: Charge[], tol: number): Charge[] | null {
  if (Math.abs(d) <= tol) return [];
  const n = charges.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const pick = charges.filter((_, i) => mask & (1 << i));
    const sum = pick.reduce((a, c) => a + c.value, 0);
    if (Math.abs(sum - d) <= tol * (pick.length + 1)) return pick;
  }
  return null;
}

const plus = (cs: Charge[], f: (n: number) => string): string =>
  cs.map((c) => ` ${c.value < 0 ? '−' : '+'} ${f(Math.abs(c.value))} ("${c.line}")`).join('');

/** The checks of an invoice or receipt answer (`kind`), whatever engine gave it. */
export function commerceChecks(kind: 'invoice' | 'receipt', data: unknown, v: MessageView): Check[] {
  if (!isObj(data)) return [];
  const checks: Check[] = [];
  const currency = typeof data.currency === 'string' ? data.currency : null;
  const tol = toleranceOf(currency);
  const f = (n: number) => fmt(n, currency);
  const total = num(data.total);
  const subtotal = num(data.subtotal);
  const tax = num(data.tax);
  const key = kind === 'invoice' ? 'lineItems' : 'items';
  const lines = Array.isArray(data[key]) ? (data[key] as unknown[]).filter(isObj) : [];
  const charges = chargesOf(v);

  // each line: quantity × unit price = amount
  const priced = lines
    .map((l, i) => ({ i, q: num(l.quantity), u: num(l.unitPrice), a: num(l.amount) }))
    .filter((l) => l.q !== null && l.u !== null && l.a !== null);
  if (priced.length > 0) {
    const bad = priced.filter((l) => Math.abs(l.q! * l.u! - l.a!) > tol);
    const show = (bad.length > 0 ? bad : priced).map(
      (l) => `/${key}/${l.i}: ${l.q} × ${f(l.u!)} = ${f(round2(l.q! * l.u!))}${bad.includes(l) ? ` ≠ ${f(l.a!)}` : ''}`,
    );
    checks.push({ name: 'lineAmounts', ok: bad.length === 0, detail: cap(show.join('; ')) });
  }

  // the sum of the lines against the subtotal, or the total (lines net of tax: + tax)
  const amounts = lines.map((l) => num(l.amount));
  if (amounts.length > 0 && amounts.every((a) => a !== null) && (subtotal !== null || total !== null)) {
    const sum = round2((amounts as number[]).reduce((a, b) => a + b, 0));
    const n = amounts.length;
    const lt = tol * n;
    const what = `sum of ${n} line${n > 1 ? 's' : ''} ${f(sum)}`;
    let ok = true;
    let detail = '';
    const viaSub = subtotal !== null ? explain(subtotal - sum, charges, lt) : null;
    const viaTotal = total !== null ? explain(total - sum, charges, lt) : null;
    const viaTax = total !== null && tax !== null ? explain(total - sum - tax, charges, lt) : null;
    if (viaSub) detail = `${what}${plus(viaSub, f)} = subtotal ${f(subtotal!)}`;
    else if (viaTax && subtotal === null) detail = `${what} + tax ${f(tax!)}${plus(viaTax, f)} = total ${f(total!)}`;
    else if (viaTotal) detail = `${what}${plus(viaTotal, f)} = total ${f(total!)}`;
    else {
      ok = false;
      detail =
        subtotal !== null
          ? `${what} ≠ subtotal ${f(subtotal)}${total !== null ? ` (and ≠ total ${f(total)})` : ''}`
          : `${what}${tax !== null ? ` (+ tax ${f(tax)} = ${f(round2(sum + tax))})` : ''} ≠ total ${f(total!)}`;
    }
    checks.push({ name: 'linesTotal', ok, detail: cap(detail) });
  }

  // subtotal + tax = total (or tax included in the subtotal), give or take the stated shipping, fees and discounts
  if (subtotal !== null && tax !== null && total !== null) {
    const added = explain(total - subtotal - tax, charges, tol * 2);
    const included = added ? null : explain(total - subtotal, charges, tol * 2);
    const sum = `subtotal ${f(subtotal)} + tax ${f(tax)}`;
    if (added) checks.push({ name: 'subtotalTaxTotal', ok: true, detail: `${sum}${plus(added, f)} = total ${f(total)}` });
    else if (included)
      checks.push({
        name: 'subtotalTaxTotal',
        ok: true,
        detail: `subtotal ${f(subtotal)}${plus(included, f)} = total ${f(total)}, tax ${f(tax)} included`,
      });
    else checks.push({ name: 'subtotalTaxTotal', ok: false, detail: `${sum} = ${f(round2(subtotal + tax))} ≠ total ${f(total)}` });
  }

  // a due date not before the issue date
  if (kind === 'invoice' && typeof data.issueDate === 'string' && typeof data.dueDate === 'string') {
    const ok = data.dueDate >= data.issueDate;
    checks.push({ name: 'dueDate', ok, detail: `due ${data.dueDate} ${ok ? 'is not before' : 'is before'} issue ${data.issueDate}` });
  }

  // the currency against the amounts the mail writes
  if (currency !== null) checks.push(currencyCheck(currency, data, lines, v));

  // lines without a total
  if (lines.length > 0)
    checks.push({
      name: 'totalPresent',
      ok: total !== null,
      detail: total !== null ? `${lines.length} line(s) and total ${f(total)}` : `${lines.length} line(s) but no total`,
    });

  // a negative total only on a credit note or refund
  if (total !== null && total < 0) {
    const text = [v.subject, ...v.lines].join('\n').toLowerCase();
    const word = V.CREDIT_NOTE.exec(text)?.[0] ?? V.REFUND.exec(text)?.[0] ?? (fromXml(v.xml).credit ? 'credit note (XML)' : null);
    checks.push({
      name: 'totalSign',
      ok: word !== null,
      detail:
        word !== null
          ? `negative total ${f(total)} on a credit or refund ("${word}")`
          : `negative total ${f(total)} but the mail is no credit note or refund`,
    });
  }
  return checks;
}

function currencyCheck(currency: string, data: Obj, lines: Obj[], v: MessageView): Check {
  const name = 'currency';
  if (!/^[A-Z]{3}$/.test(currency)) return { name, ok: false, detail: `"${currency}" is no ISO 4217 code` };
  if (ZERO_DECIMALS.has(currency)) {
    const values = [data.total, data.subtotal, data.tax, ...lines.flatMap((l) => [l.amount, l.unitPrice])].map(num);
    const frac = values.find((x) => x !== null && Math.abs(x - Math.round(x)) > 1e-9);
    if (frac !== undefined && frac !== null) return { name, ok: false, detail: `${currency} has no minor unit, but an amount is ${frac}` };
  }
  const text = [v.subject, ...v.lines].join('\n');
  // markers as written, with the currencies each may stand for ("kr" is SEK, NOK, DKK or ISK)
  const written = new Map<string, string[]>();
  let totalMarker: string | null = null;
  const total = num(data.total);
  for (const l of [v.subject, ...v.lines]) {
    if (/≈|approx|converted|umgerechnet|convertido|conversion/i.test(l)) continue;
    for (const m of moneyIn(l)) {
      const codes = codesOf(m.marker, text, v.lang);
      if (codes.length === 0) continue;
      if (!written.has(m.marker)) written.set(m.marker, codes);
      if (total !== null && Math.abs(Math.abs(m.value) - Math.abs(total)) < 0.005 && (totalMarker === null || codes.includes(currency)))
        totalMarker = m.marker;
    }
  }
  if (written.size === 0) return { name, ok: true, detail: `${currency}; the mail writes no currency marker next to its amounts` };
  if (totalMarker !== null && !written.get(totalMarker)!.includes(currency))
    return {
      name,
      ok: false,
      detail: `currency ${currency}, but the total is written as ${totalMarker} (${written.get(totalMarker)!.join('/')})`,
    };
  const fits = [...written].filter(([, codes]) => codes.includes(currency));
  if (fits.length === 0)
    return { name, ok: false, detail: `currency ${currency}, but the mail writes its amounts in ${[...written.keys()].join(', ')}` };
  return { name, ok: true, detail: `${currency}, as the mail writes its amounts (${fits.map(([m]) => m).join(', ')})` };
}

// Symbols several currencies share; the others name one currency (codeOf).
const SHARED: Array<[RegExp, string[]]> = [
  [
    /^\$$/,
    [
      'USD',
      'CAD',
      'AUD',
      'NZD',
      'SGD',
      'HKD',
      'MXN',
      'ARS',
      'CLP',
      'COP',
      'TWD',
      'BRL',
      'UYU',
      'DOP',
      'JMD',
      'TTD',
      'BSD',
      'BBD',
      'BZD',
      'FJD',
      'LRD',
      'NAD',
      'SBD',
      'SRD',
      'XCD',
      'CUP',
    ],
  ],
  [/^kr\.?$/, ['SEK', 'NOK', 'DKK', 'ISK']],
  [/^[¥￥]$/, ['JPY', 'CNY']],
  [/^Fr\.$/, ['CHF']],
];

function codesOf(marker: string, text: string, lang: string): string[] {
  for (const [re, codes] of SHARED) if (re.test(marker)) return codes;
  const c = codeOf(marker, text, lang);
  return c ? [c] : [];
}

// ---- a model's answer: sources, and support by the text ----

interface Leaf {
  pointer: string;
  value: unknown;
}

const MAX_LEAVES = 2000;

function leavesOf(v: unknown, pointer = '', out: Leaf[] = [], depth = 0): Leaf[] {
  if (out.length >= MAX_LEAVES || depth > 12) return out;
  if (Array.isArray(v)) for (const [i, x] of v.entries()) leavesOf(x, `${pointer}/${i}`, out, depth + 1);
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) leavesOf(x, `${pointer}/${pointerToken(k)}`, out, depth + 1);
  else if (v !== null && v !== undefined) out.push({ pointer, value: v });
  return out;
}

const ISO_DAY = /^(\d{4}-\d{2}-\d{2})(?:$|T)/;

export interface VerifyJob {
  msg: ParsedMessage;
  data: unknown;
  preset: 'invoice' | 'receipt' | '2fa' | null;
  instructions?: string;
}

/**
 * A model's answer against the mail: where each value is written (`sources`; a string found nowhere is
 * `from: "model"`), the numbers and dates it does not write (check `supported`; those values become null in `data`
 * and have no source: no answer is better than a confident wrong one), and for invoices and receipts the commerce
 * checks, run on the answer as the model gave it.
 */
export function runVerifyJob(job: VerifyJob): Reviewed & { unsupported: string[] } {
  const v = viewOf(job.msg);
  const p = new Provenance(v);
  const text = p.text;
  const byValue = new Map<number, [number, number]>();
  for (const t of numbersIn(text)) for (const x of t.values) if (!byValue.has(round2(x))) byValue.set(round2(x), [t.start, t.end]);
  const dates = new Map<string, [number, number]>();
  for (const mf of [v.monthFirst, !v.monthFirst])
    for (const d of datesIn(text, mf)) if (!dates.has(d.iso)) dates.set(d.iso, [d.index, d.end]);
  const headerDays = new Set([
    v.headerDay,
    job.msg.date && !Number.isNaN(job.msg.date.getTime()) ? job.msg.date.toISOString().slice(0, 10) : null,
  ]);
  const cents = /\bcents?\b|minor unit|pence|öre|centimes|rappen|groschen/i.test(job.instructions ?? '');
  const sources: Sources = {};
  const unsupported: Leaf[] = [];
  const at = (span: [number, number]): Source => {
    const s = lineSpan(text, span);
    return { from: 'text', span: s, text: text.slice(s[0], s[1]) };
  };
  for (const leaf of leavesOf(job.data)) {
    const { pointer, value } = leaf;
    if (typeof value === 'number') {
      const n = Math.abs(value);
      const readings = [n];
      if (n > 0 && n < 1) readings.push(n * 100); // a rate as a fraction: 0.2 for "20 %"
      if (cents && Number.isInteger(n)) readings.push(n / 100);
      if (/minute/i.test(pointer)) readings.push(n / 60, n / 1440);
      if (/hour/i.test(pointer)) readings.push(n / 24);
      const span = readings.map((r) => byValue.get(round2(r))).find((s) => s !== undefined);
      if (span) sources[pointer] = at(span);
      else unsupported.push(leaf);
      continue;
    }
    if (typeof value !== 'string') continue;
    const day = ISO_DAY.exec(value)?.[1];
    if (day) {
      const span = dates.get(day) ?? findIn(text, value);
      if (span) sources[pointer] = at(span);
      else if (headerDays.has(day)) sources[pointer] = { from: 'header', path: 'Date' };
      else unsupported.push(leaf);
      continue;
    }
    const span = value.length <= 500 ? findIn(text, value) : null;
    if (span) sources[pointer] = at(span);
    else if (value === v.fromName || value.toLowerCase() === v.fromAddress) sources[pointer] = { from: 'header', path: 'From' };
    else if (v.links.some((l) => l.href === value)) sources[pointer] = { from: 'link', path: value };
    else sources[pointer] = { from: 'model' };
  }
  const checks = job.preset === 'invoice' || job.preset === 'receipt' ? commerceChecks(job.preset, job.data, v) : [];
  checks.push({
    name: 'supported',
    ok: unsupported.length === 0,
    detail:
      unsupported.length === 0
        ? 'every number and date of the answer is written in the mail'
        : cap(`not written in the mail, set to null: ${unsupported.map((l) => `${l.pointer} (${JSON.stringify(l.value)})`).join(', ')}`),
  });
  return {
    data: nulled(job.data, new Set(unsupported.map((l) => l.pointer))),
    checks,
    sources,
    sourceText: sourceTextFor(text, sources),
    unsupported: unsupported.map((l) => l.pointer),
  };
}

/** A copy of `v` with the values at `pointers` replaced by null. */
function nulled(v: unknown, pointers: Set<string>, pointer = ''): unknown {
  if (pointers.size === 0) return v;
  if (pointers.has(pointer)) return null;
  if (Array.isArray(v)) return v.map((x, i) => nulled(x, pointers, `${pointer}/${i}`));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nulled(x, pointers, `${pointer}/${pointerToken(k)}`)]));
  return v;
}

/** Sources for the filled values the engine did not record (the 2fa preset, formats): their first rendering in the text. */
export function locateRest(data: unknown, p: Provenance): void {
  for (const { pointer, value } of leavesOf(data)) {
    if (p.sources[pointer] || typeof value === 'boolean') continue;
    const span = findIn(p.text, value);
    if (span) {
      const s = lineSpan(p.text, span);
      p.sources[pointer] = { from: 'text', span: s, text: p.text.slice(s[0], s[1]) };
    }
  }
}
