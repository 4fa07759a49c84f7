// The label vocabulary of invoices and receipts: the patterns the extractors run, built from the per-field
// tables of src/ai/builtin/lexicon.ts (one row per language) plus the few patterns that are not plain phrases.
// Patterns run on lower-cased, NFKC-normalised lines. `L` anchors a label at the line start, past bullets,
// brackets and punctuation; `END` stops a label inside a longer word of a script written with spaces.

import * as X from './lexicon.ts';

const L = '^[\\s\\p{P}\\p{S}\\p{Cf}]*';
const END = '(?![\\p{sc=Latn}\\p{sc=Cyrl}\\p{sc=Grek}\\p{sc=Arab}\\p{sc=Hebr}\\p{sc=Deva}\\p{sc=Beng}\\p{M}])';
const alt = X.alternation;
const anchored = (body: string): RegExp => new RegExp(`${L}(?:${body})${END}`, 'u');
const anywhere = (body: string): RegExp => new RegExp(`(?<![\\p{L}\\p{M}])(?:${body})${END}`, 'u');

/** The grand totals that outrank every other total line. */
export const GRAND_TOTAL = anchored(alt(X.GRAND_TOTAL));
export const TOTAL = anchored(alt(X.GRAND_TOTAL, X.TOTAL));
/** Amounts owed, anywhere in a line; used only when no total label exists. */
export const DUE_AMOUNT =
  /amount due|balance due|amount outstanding|outstanding|due amount|amount payable|montant dû|montant à payer|reste à payer|zu zahlen|zahlbetrag|importe a pagar|a pagar|da pagare|importo dovuto|te betalen|att betala|at betale|å betale|do zapłaty|k úhradě|к оплате|до сплати|المبلغ المستحق|לתשלום|ยอดที่ต้องชำระ|số tiền phải trả|jumlah tagihan|jumlah yang harus dibayar|jumlah perlu dibayar|for (?=[$€£¥]|[a-z]{3} \d)|über (?=\d)|von (?=\d)|de (?=\d[\d.,\s]*\s?€)/;
const SUBTOTAL_WORDS: X.Table = Object.fromEntries(
  // "合计金额" heads the total of a Chinese receipt that has no 价税合计: a subtotal, but never kept from the totals
  Object.entries(X.SUBTOTAL).map(([k, v]) => [k, v.filter((p) => !['net', 'subtotal', 'netto', '合计金额', '金额合计'].includes(p))]),
);
export const NOT_TOTAL = new RegExp(
  `sub-?\\s?total|sous-total|zwischensumme|before tax|excl|exkl|\\bht\\b|hors taxe|netto|net amount|previous|vorherig|précédent|anterior|balance forward|estimated|estimate|geschätzt|estimé|next|nächste|prochaine|próxim|saved|spar|économisé|ahorr|points?\\b|ポイント|おすすめ|recommend|buy (?:it )?again|小計|小计|소계|in words|en lettres|in worten|payment received|paiement reçu|zahlungseingang|credit balance|guthaben|skonto|discount|rabatt|remise|(?<![\\p{L}\\p{M}])(?:${alt(SUBTOTAL_WORDS)})${END}`,
  'u',
);

export const SUBTOTAL = anchored(alt(X.SUBTOTAL));
/** Charges and deductions of the totals block (shipping, fees, discounts): never items. */
export const CHARGE = anchored(alt(X.CHARGES));

export const TAX = new RegExp(
  `${L}(?:(?:${alt(X.TAX_INCLUDED)})\\s*)?(?:\\d+(?:[.,]\\d+)?\\s?%\\s?)?(?:${alt(X.TAX)})${END}(?![\\w/]*\\s*(?:return|registration|reg\\.?\\b|number|no\\.|nr|id\\b|identification|exempt|non applicable|not applicable))`,
  'u',
);

/** A kind of document followed by a number word ("Factura rectificativa n.º", "Faktura VAT nr", "Bon Nr."). */
const kindThenNumber = (kind: X.Table): string =>
  `(?<![\\p{L}\\p{M}])(?:${alt(kind)})(?:\\s[\\p{L}-]{2,20})?\\s?(?:${alt(X.NUMBER_WORDS)})(?=[\\s:：#.]|$)`;
/** A number word followed by a kind of document ("Nº factura", "N° de commande", "Nr. faktury"). */
const numberThenKind = (kind: X.Table): string => `(?<![\\p{L}\\p{M}])(?:${alt(X.NUMBER_FIRST)})\\s?(?:${alt(kind)})${END}`;

/** A full label, a document word followed by a number word, or a number word followed by a document word. */
export const INVOICE_NO = new RegExp(
  `(?<![\\p{L}\\p{M}])(?:${alt(X.INVOICE_NUMBER)})${END}|${kindThenNumber(X.INVOICE_WORDS)}|${numberThenKind(X.INVOICE_WORDS)}`,
  'u',
);
export const INVOICE_WORD = new RegExp(`(?<![\\p{L}\\p{M}])(?:${alt(X.INVOICE_WORDS)})${END}`, 'u');
export const NOT_INVOICE_NO = new RegExp(
  `previous|vorherig|précédent|anterior|前月|前回|last invoice|letzte rechnung|payment received|zahlungseingang|${alt(X.REFERS_TO)}`,
  'u',
);

/** "Order 7734-AX", "Pedido #MX-77120", "Bestellung 10-44871": an order word right before an identifier. */
const BARE_ORDER = `(?<![\\p{L}\\p{M}])(?:order|pedido|bestellung|commande|ordine|bestelling|ordre|zamówienie|objednávka|sipariş|заказ|замовлення|pesanan|đơn hàng)(?=\\s#?(?=[\\p{L}\\d/-]{4})[\\p{L}\\d][\\p{L}\\d/-]{0,30}\\d)`;
export const ORDER_NO_A = new RegExp(
  `(?<![\\p{L}\\p{M}])(?:${alt(X.ORDER_NUMBER)})${END}|${kindThenNumber(X.ORDER_WORDS)}|${numberThenKind(X.ORDER_WORDS)}|\\bpnr\\b|order(?= #)|^\\W*order(?=\\s*:)|${BARE_ORDER}`,
  'u',
);
export const ORDER_NO_B = new RegExp(
  `(?<![\\p{L}\\p{M}])(?:${alt(X.RECEIPT_NUMBER)})(?![\\p{L}\\p{M}])|${kindThenNumber(X.RECEIPT_WORDS)}|${numberThenKind(X.RECEIPT_WORDS)}|receipt(?= #)|^[\\s\\p{P}]*(?:receipt|check|ticket|beleg|bon|recibo|reçu|ricevuta|kvitto|kvittering)(?=\\s*[:#])`,
  'u',
);
export const ORDER_NO_D = new RegExp(`(?<![\\p{L}\\p{M}])(?:${alt(X.TRANSACTION_ID)})(?![\\p{L}\\p{M}])`, 'u');
export const BOOKING_LABEL = /booking|reservation|confirmation|pnr|localizador|reserva|buchung|réservation|trip|予約|예약/;

export const ISSUE_DATE = anywhere(alt(X.ISSUE_DATE));
export const GENERIC_DATE = anchored(alt(X.GENERIC_DATE, { xx: ['data', '日付', '日時', '日期', '날짜'] }));
/** Dates that are not the document's or purchase's own date. */
export const OTHER_DATE =
  /due|fällig|échéance|vencim|scadenz|vervaldat|förfallo|travel|trip date|departure|arrival|check-?in|check-?out|deliver|arriv|dispatch|ship|event|renew|next|period|valid|expir|reise|abfahrt|ankunft|liefer|versand|verlänger|nächste|voyage|départ|arrivée|livraison|renouvel|prochaine|viaje|salida|llegada|entrega|renovación|próxim|viaggio|partenza|consegna|rinnovo|resa|avgång|leverans|förnyelse|nästa|配送|お届け|出発|到着|更新|次回|配送日|送达|下次|배송|출발|도착|splatnost|duzp|ödeme|vade|срок|оплатить|استحقاق|देय|jatuh tempo|hạn|akhir bayaran|λήξης|出貨|发货|發貨|発送|出荷|配達|予定|estimasi|previsão|consegna|leverans|levering|доставк|dostaw|wysyłk|doručení|dodání|teslimat|kargo|παράδοση|التوصيل|الشحن|משלוח|אספקה|डिलीवरी|จัดส่ง|giao hàng|dự kiến|pengiriman|tiba|penghantaran|toimitus|지급일/;
export const PURCHASE_DATE = anywhere(alt(X.PURCHASE_DATE));
export const DUE_DATE = new RegExp(
  `(?<![\\p{L}\\p{M}])(?:${alt(X.DUE_DATE)})${END}|due(?=\\s+(?:[a-z]{3,9}\\.? \\d|\\d))|^\\W*due(?=\\s*:)`,
  'u',
);
/** A line about payment terms, and the number of days it grants ("Net 30", "14 Tage", "30 jours", "14 dni"). */
export const TERMS_LINE =
  /due|payable|payment|terms|betalingsbetingelser|betalingsfrist|maksuehdot|maksuaika|płatne|lhůta|splatné|vade|срок|условия оплаты|termin|jangka|ระยะเวลา|เครดิต|مدة الدفع|شروط الدفع|תנאי תשלום|שוטף|भुगतान|付款条件|支付条件|결제 조건|지급|zahlbar|zahlungsziel|zahlung|fällig|échéance|paiement|règlement|pago|vencimiento|plazo|pagamento|scadenza|vencimento|betaling|betaaltermijn|betalning|betalningsvillkor|płatności|termin|splatnost|vade|ödeme|срок|оплат|jatuh tempo|hạn thanh toán|支払|付款|지불|\bnet\b/;
export const NET_DAYS =
  /\bnet\s?(\d{1,3})\b|(\d{1,3})\s?(?:calendar\s)?(?:days?|tage[n]?|jours|días|dias|giorni|dagen|dagar|dage|dager|päivää|dni|dní|dnů|gün|дней|дня|днів|днi|ημέρες|ημερών|يوما|يومًا|أيام|ימים|दिन|วัน|hari|ngày|日以内|日|天|일)(?:\s?netto|\s?net)?(?![a-z])/;
export const DUE_ON_RECEIPT =
  /due (?:up)?on receipt|payable on receipt|sofort fällig|zahlbar sofort|payable à réception|à réception|dès réception|pagadero a la recepción|al recibo|a la recepción/;

/** Credit notes: negative amounts (rule 11). A corrected invoice that replaces another (factura rectificativa,
 * Rechnungskorrektur, faktura korygująca) is not one: it keeps the signs it prints. */
export const CREDIT_NOTE = new RegExp(`(?<![\\p{L}\\p{M}])(?:${alt(X.CREDIT_NOTE)})`, 'u');
export const REFUND =
  /\brefund(?:ed)?\b|rückerstattung|erstattung|remboursement|remboursé|reembolso|rimborso|terugbetaling|återbetalning|reembolso|zwrot|返金|退款|환불/;

export const MERCHANT_LABEL = anchored(alt(X.SELLER));

/** Senders that bill for another business (rule 18): never the vendor themselves. */
export const PLATFORMS =
  /^(?:paypal|stripe|lemon squeezy|fastspring|bill\.com|invoiced|moneybird|e-conomic|visma|tripletex|fiken|procountor|iyzico|razorpay|cashfree|instamojo|xendit|midtrans|payu|przelewy24|ifirma|wfirma|infakt|fakturoid|idoklad|paraşüt|parasut|mercado pago|square|squareup|shopify|xero|quickbooks|intuit|fortnox|toast|sumup|zettle|izettle|mollie|paddle|gumroad|chargebee|recurly|zoho(?: invoice| books)?|freshbooks|wave|invoice ninja|sevdesk|lexoffice|lexware|billomat|debitoor|holded|facturae|klarna|adyen|braintree|wix|squarespace|etsy|ebay|amazon pay|google pay|apple pay)\b/i;

export const PAY_LINK =
  /\bpay\b|pay (?:now|online|invoice|this invoice|your (?:bill|invoice))|view (?:and|&) pay|review (?:and|&) pay|zahlen|bezahlen|jetzt zahlen|payer|régler|pagar|pague|paga ora|pagare|betalen|betaal|betala|zapłać|opłać|支払|お支払い|결제|付款|支付/;
export const NOT_PAY_LINK =
  /paid|payment method|payment history|update|unsubscribe|paypal\.com\/(?:myaccount|signin)|manage|verwalten|gérer|download|pdf|herunterladen|télécharger|browser|navigateur/;

export const PAYMENT_LABEL = new RegExp(`(?<![\\p{L}\\p{M}])(?:${alt(X.PAYMENT)})${END}`, 'u');
