// The label vocabulary of invoices and receipts in the languages the engine reads (en de fr es it nl pt sv pl
// ja zh ko). Patterns run on lower-cased, NFKC-normalised lines. `^\W*` anchors a label at the line start.

const L = '^[\\s\\W]*'; // start of line, past bullets and brackets

const GRAND =
  'total ttc|montant ttc|grand total|invoice total|total due|total amount|amount total|total factura|importe total|total a pagar|total à payer|totale documento|totale fattura|totale da pagare|totaal te betalen|totaalbedrag|rechnungsbetrag|gesamtbetrag|rechnungssumme|gesamtsumme|endbetrag|bruttobetrag|summa att betala|att betala|net à payer|ご請求金額|請求金額|お支払い金額|お支払金額|合計金額|合計|总计|合计|价税合计|총액|합계|결제금액|do zapłaty|razem do zapłaty|kwota brutto|order total|total paid|amount paid|total charged|amount charged|you paid|valor total|total geral|totalt|totale|totaal|gesamt|summe|total';

export const TOTAL = new RegExp(`${L}(?:${GRAND})(?![a-z])`);
/** Amounts owed, anywhere in a line; used only when no total label exists. */
export const DUE_AMOUNT =
  /amount due|balance due|amount outstanding|outstanding|due amount|montant dû|reste à payer|zu zahlen|zahlbetrag|importe a pagar|a pagar|da pagare|te betalen|att betala|do zapłaty|for (?=[$€£¥]|[a-z]{3} \d)|über (?=\d)|von (?=\d)|de (?=\d[\d.,\s]*\s?€)/;
export const NOT_TOTAL =
  /sub-?\s?total|sous-total|zwischensumme|before tax|excl|exkl|\bht\b|hors taxe|netto|net amount|previous|vorherig|précédent|anterior|balance forward|estimated|estimate|geschätzt|estimé|next|nächste|prochaine|próxim|saved|spar|économisé|ahorr|points?\b|ポイント|おすすめ|recommend|buy (?:it )?again|小計|小计|소계|in words|en lettres|in worten|payment received|paiement reçu|zahlungseingang|credit balance|guthaben|skonto|discount|rabatt|remise/;

export const SUBTOTAL = new RegExp(
  `${L}(?:item\\(?s\\)? subtotal|items? subtotal|subtotal|sub-total|sub total|sous-total|zwischensumme|nettobetrag|summe netto|netto|net amount|net total|total net|total ht|montant ht|base imponible|imponibile|totale imponibile|subtotaal|totaal excl\\.? btw|delsumma|nettobelopp|summa exkl\\.? moms|小計|小计|金额|不含税金额|소계|상품금액|wartość netto|wartość przedmiotów|suma netto|total before tax|total excl\\.? (?:tax|vat))(?![a-z])`,
);

export const TAX = new RegExp(
  `${L}(?:zzgl\\.?|inkl\\.?|incl\\.?|including|includes|varav|davon|hiervon|dont|de los cuales|w tym|うち|内)?\\s*(?:\\d+(?:[.,]\\d+)?\\s?%\\s?)?(?:estimated tax(?: to be collected)?|sales tax|total tax|tax(?:es)?|vat|gst|hst|pst|qst|ust\\.?|mwst\\.?|umsatzsteuer|mehrwertsteuer|tva|iva|igv|btw|moms|消費税|税額|税额|税金|부가세|부가가치세|podatek vat|kdv)(?![a-z])(?![\\w/]*\\s*(?:return|registration|reg\\.?\\b|number|no\\.|nr|id\\b|identification|exempt|non applicable|not applicable))`,
);

export const INVOICE_NO =
  /(?:invoice (?:number|no\.?|nr\.?|#|num\.?|id)|invoice#|rechnungsnummer|rechnungs-nr\.?|rechnung nr\.?|rechnung-nr\.?|belegnummer|numéro de facture|n° de facture|facture n°|facture no|facture n\.?o|factura n\.?o|factura nº|número de factura|nº de factura|núm\. factura|請求番号|請求書番号|請求書no|发票号码|發票號碼|인보이스 번호|fakturanummer|fakturanr\.?|numero fattura|fattura n\.?|factuurnummer|factuur nr\.?|número da fatura|numer faktury|faktura nr|faktura vat nr|credit note (?:number|no\.?)|gutschriftsnummer|gutschrift nr\.?|avoir n°|document (?:number|no\.?))/;
export const INVOICE_WORD =
  /(?:^|[^a-z])(?:invoice|rechnung|gutschrift|facture|avoir|factura|fatura|fattura|factuur|faktura|creditnota|credit note|請求書)(?![a-z])/;
export const NOT_INVOICE_NO =
  /previous|vorherig|précédent|anterior|前月|前回|last invoice|letzte rechnung|payment received|zahlungseingang|referring to|bezug auf|relative à|related to/;

export const ORDER_NO_A =
  /(?:order (?:number|no\.?|nr\.?|#|id|reference|ref\.?)|order#|order(?= #)|^\W*order(?=\s*:)|bestellnummer|bestell-nr\.?|auftragsnummer|numéro de commande|n° de commande|commande n°|número de pedido|nº de pedido|n\.o de pedido|número do pedido|numero ordine|numero d'ordine|bestelnummer|ordernummer|ordernr\.?|beställningsnummer|booking reference|booking ref\.?|booking (?:number|code|id)|reservation (?:number|code)|confirmation (?:number|code|#)|\bpnr\b|localizador|código de reserva|buchungsnummer|buchungscode|référence de réservation|référence de commande|受注番号|注文番号|ご注文番号|予約番号|订单号|訂單號碼|주문번호|예약번호|numer zamówienia)/;
export const ORDER_NO_B =
  /receipt (?:number|no\.?|#)|receipt(?= #)|quittungsnummer|beleg-nr\.?|reçu n°|numéro de reçu|recibo n\.?o|número de recibo|kvittonummer|kvitto nr|ticket (?:number|no\.?)|billet n°|ricevuta n/;
export const ORDER_NO_D =
  /transaction (?:id|number|code|no\.?)|transaktionscode|transaktions-id|transaktionsnummer|payment (?:id|reference)|trip id|n\.?o de operación|número de operación|id de transacción|référence de transaction|transactie-id|取引id|交易号/;
export const BOOKING_LABEL = /booking|reservation|confirmation|pnr|localizador|reserva|buchung|réservation|予約|예약/;

export const ISSUE_DATE =
  /(?:invoice date|date of issue|issue date|issued on|issued|date issued|billing date|rechnungsdatum|belegdatum|ausstellungsdatum|date de facturation|date de facture|date d'émission|date d'emission|fecha de emisión|fecha de factura|fecha factura|fecha de expedición|data fattura|data di emissione|data emissione|factuurdatum|data de emissão|data da fatura|fakturadatum|fakturadato|data wystawienia|請求日|発行日|開票日期|发票日期|발행일|credit note date|document date|dated)/;
export const GENERIC_DATE = new RegExp(`${L}(?:date|datum|fecha|data|日付|日時|日期|날짜)(?![a-z])`);
/** Dates that are not the document's or purchase's own date. */
export const OTHER_DATE =
  /due|fällig|échéance|vencim|scadenz|vervaldat|förfallo|travel|trip date|departure|arrival|check-?in|check-?out|deliver|arriv|dispatch|ship|event|renew|next|period|valid|expir|reise|abfahrt|ankunft|liefer|versand|verlänger|nächste|voyage|départ|arrivée|livraison|renouvel|prochaine|viaje|salida|llegada|entrega|renovación|próxim|viaggio|partenza|consegna|rinnovo|resa|avgång|leverans|förnyelse|nästa|配送|お届け|出発|到着|更新|次回|配送日|送达|下次|배송|출발|도착/;
export const PURCHASE_DATE =
  /(?:order date|date of order|order placed|ordered on|placed on|purchase date|date of purchase|purchased on|booked on|booking date|payment date|paid on|transaction date|date paid|receipt date|trip date|bestelldatum|bestellt am|kaufdatum|zahlungsdatum|transaktionsdatum|rechnungsdatum|date de commande|commandé le|date d'achat|date de paiement|date de la transaction|fecha de compra|fecha del pedido|fecha de pedido|fecha de pago|fecha de la transacción|data dell'ordine|data d'acquisto|data di pagamento|besteldatum|aankoopdatum|betaaldatum|data do pedido|data da compra|orderdatum|köpdatum|betalningsdatum|data zamówienia|data zakupu|注文日|ご注文日|購入日|決済日|订单日期|付款日期|주문일|결제일)/;
export const DUE_DATE =
  /(?:due date|payment due(?: date)?|date due|due by|due on|pay by|payable by|payable on|due(?=\s+(?:[a-z]{3,9}\.? \d|\d))|^\W*due(?=\s*:)|fälligkeitsdatum|fällig am|fällig bis|fällig|zahlbar bis(?: zum)?|zahlbar ohne abzug bis(?: zum)?|zahlungsziel|zu zahlen bis|date limite de paiement|date d'échéance|échéance|à payer avant le|payable avant le|fecha de vencimiento|vencimiento|fecha límite de pago|pagar antes del|scadenza|data di scadenza|vervaldatum|te betalen voor|vencimento|data de vencimento|förfallodatum|förfallodag|betala senast|forfaldsdato|forfallsdato|termin płatności|お支払期限|支払期限|お支払い期限|お振込期限|付款截止日期|到期日|납부기한|지불기한)/;
/** A line about payment terms, and the number of days it grants ("Net 30", "14 Tage", "30 jours", "14 dni"). */
export const TERMS_LINE =
  /due|payable|payment|terms|zahlbar|zahlungsziel|zahlung|fällig|échéance|paiement|règlement|pago|vencimiento|plazo|pagamento|scadenza|vencimento|betaling|betaaltermijn|betalning|betalningsvillkor|płatności|termin|支払|付款|지불|\bnet\b/;
export const NET_DAYS =
  /\bnet\s?(\d{1,3})\b|(\d{1,3})\s?(?:calendar\s)?(?:days?|tage[n]?|jours|días|dias|giorni|dagen|dagar|dage|dni|日以内|日)(?:\s?netto|\s?net)?\b/;
export const DUE_ON_RECEIPT =
  /due (?:up)?on receipt|payable on receipt|sofort fällig|zahlbar sofort|payable à réception|à réception de facture|pagadero a la recepción|al recibo/;

export const CREDIT_NOTE =
  /credit note|credit memo|gutschrift|rechnungskorrektur|avoir n|facture d'avoir|nota de crédito|factura rectificativa|nota di credito|creditnota|te crediteren|kreditnota|kreditfaktura|nota kredytowa|faktura korygująca/;
export const REFUND =
  /\brefund(?:ed)?\b|rückerstattung|erstattung|remboursement|remboursé|reembolso|rimborso|terugbetaling|återbetalning|reembolso|zwrot|返金|退款|환불/;

export const MERCHANT_LABEL = new RegExp(
  `${L}(?:merchant|seller|sold by|payee|paid to|vendor|händler|verkäufer|zahlungsempfänger|empfänger|vendeur|commerçant|bénéficiaire|comercio|vendedor|beneficiario|venditore|esercente|verkoper|handelaar|säljare|butik|sprzedawca|odbiorca|ショップ名|店舗名|販売者|出品者|商家|卖家|판매자|상점)(?![a-z])`,
);

/** Senders that bill for another business (rule 18): never the vendor themselves. */
export const PLATFORMS =
  /^(?:paypal|stripe|square|squareup|shopify|xero|quickbooks|intuit|fortnox|toast|sumup|zettle|izettle|mollie|paddle|gumroad|chargebee|recurly|zoho(?: invoice| books)?|freshbooks|wave|invoice ninja|sevdesk|lexoffice|lexware|billomat|debitoor|holded|facturae|klarna|adyen|braintree|wix|squarespace|etsy|ebay|amazon pay|google pay|apple pay)\b/i;

export const PAY_LINK =
  /\bpay\b|pay (?:now|online|invoice|this invoice|your (?:bill|invoice))|view (?:and|&) pay|review (?:and|&) pay|zahlen|bezahlen|jetzt zahlen|payer|régler|pagar|pague|paga ora|pagare|betalen|betaal|betala|zapłać|opłać|支払|お支払い|결제|付款|支付/;
export const NOT_PAY_LINK =
  /paid|payment method|payment history|update|unsubscribe|paypal\.com\/(?:myaccount|signin)|manage|verwalten|gérer|download|pdf|herunterladen|télécharger|browser|navigateur/;

export const PAYMENT_LABEL =
  /payment method|payment type|paid with|paid by|payment source|pay(?:ment)? via|zahlungsmethode|zahlungsart|zahlungsquelle|bezahlt mit|mode de paiement|moyen de paiement|payé avec|payé par|forma de pago|método de pago|pagado con|metodo di pagamento|pagato con|betaalmethode|betaald met|forma de pagamento|betalningsmetod|betalningssätt|betalat med|metoda płatności|支払方法|お支払い方法|決済方法|支付方式|결제수단|결제 수단|\bpayments?\b/;
