// Line items: the priced lines above the totals block ("desc qty unit amount", "2 × desc amount",
// "desc × 2 amount", "desc Quantity: 1 $35.99"). Lines of the totals block (fees, discounts, tax) are not items.

import { labelHits } from './labels.ts';
import { moneyIn, parseNumber } from './money.ts';
import type { Where } from './provenance.ts';
import type { MessageView } from './view.ts';
import * as V from './vocab.ts';

export interface Item {
  description: string;
  quantity: number | null;
  unitPrice: number | null;
  amount: number | null;
  /** Where the item was read (the view line, or its JSON-LD offer), for `sources`. */
  where?: Where;
}

const NOT_ITEM =
  /^[\s\W]*(?:sub-?\s?total|total|summe|gesamt|netto|tax|sales tax|vat|gst|hst|mwst|ust\b|tva|iva|moms|varav|btw|消費税|小計|合計|金额|税额|价税合计|shipping|postage|p&p|porto|port|frete|delivery|versand|livraison|envío|frakt|送料|booking fee|service fee|fee|gebühr|frais|gastos|avgift|discount|rabatt|remise|descuento|coupon|promo|code promo|tip|trinkgeld|pourboire|propina|surcharge|airport surcharge|zuschlag|balance|saldo|guthaben|payment|zahlung|paiement|pago|betalning|paid|bezahlt|payé|previous|estimated|next|nächste|prochaine|saved|you saved|économisé|you might|recommended|おすすめ|buy again|order total|amount due|att betala|net à payer|this invoice)/i;
const PRICE_WORD = /^(?:価格|単価|price|preis|prix|precio|prezzo|pris|cena|unit price)$/i;

export function itemsOf(lines: string[], v: MessageView, invoice: boolean, total: number | null = null): Item[] | null {
  const ends = labelHits(lines, V.SUBTOTAL).map((h) => h.line);
  const totals = labelHits(lines, V.TOTAL, V.NOT_TOTAL).map((h) => h.line);
  const end = ends[0] ?? totals.find((t) => t > 2) ?? -1;
  if (end < 0) return null;
  let start = 0;
  for (let i = end - 1; i >= 0; i--) {
    if (
      /^(?:description|beschreibung|désignation|concepto|descripción|descrizione|omschrijving|benämning|beskrivning|product|produkt|produit|article|artikel|item|leistung|bezeichnung|trajet|trayecto|order summary|商品|品名|明細)/i.test(
        lines[i]!,
      )
    ) {
      start = i + 1;
      break;
    }
  }
  if (start === 0) start = Math.max(0, end - 12);
  const out: Item[] = [];
  let pendingDesc: string | null = null;
  for (let i = start; i < end; i++) {
    const line = lines[i]!;
    const money = moneyIn(line);
    if (money.length === 0) {
      // a table row of several cells without an amount (a header row) describes no other row
      pendingDesc = /\p{L}{3}/u.test(line) && line.length < 120 && !line.includes('\t') ? line : null;
      continue;
    }
    if (NOT_ITEM.test(line) || money.some((m) => m.value < 0)) {
      pendingDesc = null;
      continue;
    }
    if (line.includes('\t')) {
      // a table row (html-text.ts): its cells are the columns
      const item = rowItem(line, invoice, pendingDesc);
      pendingDesc = null;
      if (item) out.push(item);
      continue;
    }
    let { qty, desc } = quantityIn(line.slice(0, money[0]!.start).trim(), money.length >= 2);
    if (money.length >= 2) {
      const amt = money[money.length - 1]!.value;
      const fits = qty !== null && Math.abs(qty * money[0]!.value - amt) < 0.011;
      const q2 = fits ? null : quantityBy(line, money, amt);
      if (q2 !== null) qty = q2;
    }
    desc = desc
      .replace(/^[・•\-*\s]+/, '')
      .replace(/[\s:·—-]+$/, '')
      .trim();
    if ((!/\p{L}/u.test(desc) || PRICE_WORD.test(desc)) && pendingDesc) desc = pendingDesc;
    else if (pendingDesc && desc !== '' && /^[A-Z][a-z]{2} \d/.test(desc)) desc = `${pendingDesc} (${desc})`;
    pendingDesc = null;
    if (!/\p{L}/u.test(desc)) continue;
    const amount = money[money.length - 1]!.value;
    let unitPrice = invoice && money.length >= 2 ? money[0]!.value : null;
    const split = money.length >= 2 ? splitGlued(line.slice(money[0]!.start, money[0]!.end), amount) : null;
    if (split) [qty, unitPrice] = [split.qty, invoice ? split.unit : null];
    out.push({ description: desc, quantity: qty, unitPrice, amount, where: { line } });
  }
  void v;
  const items = out.length > 1 && total !== null ? out.filter((i) => i.amount !== total) : out;
  return items.length > 0 ? items : null;
}

/** A quantity written in the description ("2 × Croque-monsieur", "Blanket × 1", "Quantity: 1", "arbete 40 tim"). */
function quantityIn(descIn: string, trailing: boolean): { qty: number | null; desc: string } {
  let desc = descIn;
  let qty: number | null = null;
  const lead = /^(\d+(?:[.,]\d+)?)\s*[x×]\s+/i.exec(desc);
  const trailX = /\s*[x×]\s*(\d+(?:[.,]\d+)?)\s*$/i.exec(desc);
  const quantityWord = /\s*(?:quantity|qty|menge|anzahl|qté|cantidad|antal|数量):?\s*(\d+(?:[.,]\d+)?)\s*$/i.exec(desc);
  const trailNum = /\s+(\d{1,3}(?:[ \u00a0]\d{3})*(?:[.,]\d+)?)\s*(?:[a-zA-Zäöüé.]{1,5}\.?|式|点|個|件)?\s*$/.exec(desc);
  if (lead) {
    qty = parseNumber(lead[1]!);
    desc = desc.slice(lead[0].length);
  } else if (quantityWord) {
    qty = parseNumber(quantityWord[1]!);
    desc = desc.slice(0, quantityWord.index);
  } else if (trailX) {
    qty = parseNumber(trailX[1]!);
    desc = desc.slice(0, trailX.index);
  } else if (trailing && trailNum) {
    qty = parseNumber(trailNum[1]!.replace(/[ \u00a0]/g, ''));
    desc = desc.slice(0, trailNum.index);
  }
  return { qty, desc };
}

const BARE_AMOUNT = /^[-−]?(?:\d{1,3}(?:[,.\u00a0\u202f'’ ]\d{3})+|\d+)[.,]\d{2}$/;
const QTY_CELL = /^(?:[x×]\s?)?(\d{1,6}(?:[.,]\d{1,3})?)\s*(?:[x×]|pcs?\.?|stk\.?|st\.?|std\.?|h|hrs?|units?|ea\.?|個|件|点|式)?$/i;

/**
 * One row of an HTML table ("Consulting\t1\t240.00 EUR\t240.00 EUR"): the amount is the last money cell, the unit
 * price a money cell before it, the quantity the cell holding only a number that times the unit price makes the
 * amount (or the only such cell), the description the other cells (not a rate "19 %"). Cells are never joined, so
 * the quantity "1" and the price "240.00" cannot read as 1240.
 */
function rowItem(line: string, invoice: boolean, pendingDesc: string | null): Item | null {
  const amounts: number[] = [];
  const desc: string[] = [];
  const counts: number[] = [];
  for (const raw of line.split('\t')) {
    const cell = raw.trim();
    const money = moneyIn(cell);
    if (money.length > 0) {
      for (const m of money) amounts.push(m.value);
      continue;
    }
    if (BARE_AMOUNT.test(cell)) {
      const v = parseNumber(cell);
      if (v !== null) amounts.push(v);
      continue;
    }
    const q = QTY_CELL.exec(cell);
    const n = q ? parseNumber(q[1]!) : null;
    if (n !== null) counts.push(n);
    else if (/[\p{L}\p{N}]/u.test(cell) && !/%$/.test(cell) && !PRICE_WORD.test(cell)) desc.push(cell);
  }
  if (amounts.length === 0) return null;
  const amount = amounts[amounts.length - 1]!;
  const units = amounts.slice(0, -1);
  // the number cell that times a unit price makes the amount (a position number "1" is not the quantity "2")
  let qty: number | null = null;
  let unitPrice: number | null = null;
  for (const c of counts) {
    const u = units.find((x) => Math.abs(c * x - amount) < 0.011);
    if (u !== undefined) {
      [qty, unitPrice] = [c, u];
      break;
    }
  }
  if (qty === null && counts.length === 1) qty = counts[0]!;
  if (unitPrice === null && units.length > 0) unitPrice = units[0]!;
  let description = desc.length > 0 ? desc.join(' ') : pendingDesc;
  if (qty === null && description) {
    const q = quantityIn(description, units.length > 0);
    qty = q.qty;
    description = q.desc;
    if (qty !== null) unitPrice = units.find((u) => Math.abs(qty! * u - amount) < 0.011) ?? unitPrice;
  }
  description = (description ?? '')
    .replace(/^[・•\-*\s]+/, '')
    .replace(/[\s:·—-]+$/, '')
    .trim();
  if (!/\p{L}/u.test(description) || NOT_ITEM.test(description)) return null;
  return { description, quantity: qty, unitPrice: invoice ? unitPrice : null, amount };
}

/** A number outside the amounts whose product with the unit price is the line amount ("3点 × 15,000円", "14,5 Std."). */
function quantityBy(line: string, money: Array<{ start: number; end: number; value: number }>, amount: number): number | null {
  const unit = money[0]!.value;
  if (unit === 0) return null;
  let rest = line;
  for (const m of [...money].reverse()) rest = rest.slice(0, m.start) + ' '.repeat(m.end - m.start) + rest.slice(m.end);
  for (const m of rest.matchAll(/(?<![\w.,])(\d{1,6}(?:[.,]\d{1,3})?)(?![\w.,]*\d)/g)) {
    const q = parseNumber(m[1]!);
    if (q !== null && q > 0 && Math.abs(q * unit - amount) < 0.011) return q;
  }
  return null;
}

/** "1 180,00 €" before "180,00 €": a quantity glued to the unit price by a space that reads as a thousands separator. */
function splitGlued(token: string, amount: number): { qty: number; unit: number } | null {
  const m = /^(\d{1,3})[ \u00a0\u202f](\d{3}(?:[ \u00a0\u202f]\d{3})*(?:[.,]\d{1,2})?)/.exec(token.replace(/^[^\d]*/, ''));
  if (!m) return null;
  const q = Number(m[1]);
  const u = parseNumber(m[2]!);
  if (u === null || q <= 0) return null;
  const whole = parseNumber(`${m[1]}${m[2]}`.replace(/\s/g, ''));
  if (whole !== null && Math.abs(whole - amount) < 0.011) return null;
  return Math.abs(q * u - amount) < 0.011 ? { qty: q, unit: u } : null;
}
