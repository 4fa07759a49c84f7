// Multilingual keyword tables. All patterns run on lower-cased, NFKC-normalised text and are free of
// nested quantifiers (linear time).

/** Words that name a one-time code (English, German, French, Spanish, Portuguese, Italian, Dutch, Nordic,
 *  Polish, Czech, Turkish, Romanian, Russian, Greek, Japanese, Chinese, Korean, Arabic, Hebrew, Hindi, Thai,
 *  Vietnamese, Indonesian). No left word boundary for "code"/"kod" so compounds match (Bestätigungscode,
 *  verificatiecode, engångskod). */
export const CODE_KW = new RegExp(
  [
    'code',
    'codice',
    'c[oó]digo',
    '\\bcodi\\b',
    '\\bcod\\b',
    '\\bcodul',
    'kod(?:u|em|y|a|un|e|en|ları|unuz)?(?![a-zà-ž])',
    'k[oó]d(?:u|em|y|ot)?\\b',
    'koodi',
    'kode(?:n|t)?(?![a-zà-ž])',
    '\\bkoda\\b',
    'κωδικ',
    'код',
    'コード',
    '認証番号',
    '確認番号',
    '暗証番号',
    'ワンタイム',
    'パスコード',
    '验证码',
    '驗證碼',
    '校验码',
    '校驗碼',
    '动态码',
    '動態碼',
    '确认码',
    '確認碼',
    '安全码',
    '安全碼',
    '登录码',
    '登入碼',
    '代码',
    '代碼',
    '口令',
    '动态密码',
    '인증',
    '코드',
    'رمز',
    'كود',
    'קוד',
    'कोड',
    'รหัส',
    '(?<![a-z])mã(?![a-zà-ž])',
    '\\botp\\b',
    '\\bpasscode',
    '\\bpin\\b',
    '\\bpin-code',
    '\\btoken\\b',
    'one[- ]time password',
  ].join('|'),
  'g',
);

/** A code keyword is not one when qualified like this just before it … */
export const CODE_KW_NEG_BEFORE =
  /(?:promo(?:tional)?|discount|coupon|voucher|gift|gift card|referral|invite|invitation|zip|postal|post|area|country|dial(?:l)?ing|source|error|exit|status|response|http|qr|bar|tracking|booking|reservation|product|item|swift|sort|bank|branch|tax|dress|rabatt|gutschein|aktions|angebots|descuento|cup[oó]n|r[ée]duction|sconto|korting|kortings|offer|sale|approval|delivery|pickup|pick-up|colou?r|html|css|embed|sample|reference|ref|order|shipment|ticket|lock ?box|door|gate|wifi|wi-fi|network|program(?:me)?|activation key|license|licence|serial|product key|meeting|webinar|room|conference|welcome|bonus|reward|savings|member|rabat|alennus|slevov[ýy]|indirim|kupon|kortings?|クーポン|割引|プロモ|优惠|折扣|優惠|쿠폰|할인|промо|купон|скидочн|कूपन|प्रोमो|โปรโมชั่น)[\s-]*$/;
/** "order confirmation code", "delivery pickup code": a qualifier one word before the keyword. */
export const CODE_KW_NEG_BEFORE2 =
  /(?:order|booking|reservation|ticket|purchase|shipment|delivery|pickup|pick-up|redemption|gift|voucher|promo|discount|coupon|referral|invite|invitation)\s+[a-z]+\s+$/;
/** … or like this just after it. */
export const CODE_KW_NEG_AFTER =
  /^\s*(?:postal|postale|promo|promocional|promozionale|de descuento|de r[ée]duction|de réservation|de reserva|di prenotazione|sconto|of conduct|de conduite|de barras|qr|del cupón|de cupom|rabatt|rabatowy|de desconto|de reducere|\S{0,3}\s*έκπτωσ|(?:ال)?خصم|קופון|הנחה|ส่วนลด|คูปอง|giảm giá|khuyến mãi|ưu đãi|diskon|voucher|kupon|coupon|alennus|indirim|скидк|на скидку|割引|クーポン|优惠|折扣|할인|쿠폰)/;

/** Words that make a message about verification / sign-in (any language). */
export const VERIFY_KW =
  /verif|confirm|activat|authenticat|sign[- ]?in|sign[- ]?up|log[- ]?in|2fa|two[- ]factor|two[- ]step|2-step|one[- ]time|passcode|security code|magic link|reset|password|recover|bestätig|verifiz|anmeld|aktivier|passwort|kennwort|vérif|connexion|connecter|activer|mot de passe|inscription|verific|confirmar|iniciar sesi|acceso|activar|contraseña|ativar|entrar|senha|verifica|conferma|accedi|acceder|attiva|accesso|bevestig|inlog|aanmeld|wachtwoord|bekräfta|logga in|bekræft|log ind|vahvist|kirjaudu|weryfik|potwierd|logowan|hasło|ověř|potvrď|přihlás|doğrula|giriş|подтвер|вход|войти|пароль|認証|確認|ログイン|パスワード|验证|驗證|登录|登入|确认|密码|密碼|인증|확인|로그인|비밀번호|تحقق|تأكيد|אימות|सत्यापन/;

/** Distractor labels: a number right after one of these is not a one-time code. */
export const NEG_LABEL =
  /(?:^|[^a-z])(?:order|orders|order number|order no|confirmation|ticket|case|request|requests|receipt|invoice|transaction|txn|reservation|booking|itinerary|confirmation number|reference|ref|tracking|shipment|parcel|package|account number|account no|account id|account|acct|customer|member|membership|user id|user|client|id|no|nr|nº|number|num|meeting|webinar|conference|room|phone|tel|telephone|mobile|cell|fax|call|whatsapp|zip|zip code|postal|postal code|postcode|plz|cep|cnpj|cpf|box|suite|ste|apt|apartment|unit|floor|building|bldg|version|ver|build|release|commit|sha|revision|rev|sku|model|serial|item|product|license|licence|plate|vin|policy|claim|patient|mrn|employee|student|badge|flight|seat|gate|route|amount|total|price|subtotal|tax|vat|qty|quantity|balance|ending in|ending|last 4|last four|card|visa|mastercard|amex|discover|iban|bic|routing|extension|ext|project|issue|pr|job|application|document|doc|file|page|chapter|step|question|answer|article|kb|error|exit|status|port|pid|year|since|est|established|bestellung|bestellnummer|rechnung|auftrag|kundennummer|commande|facture|pedido|factura|ordine|fattura|bestelling|factuur|заказ|注文番号|注文|订单|주문|password|pwd|mot de passe|kennwort|passwort|contraseña|senha)\W*$/;

/** Labels that name the number after them even when a code keyword is near ("account ID", "Suite", "Order"). */
export const NEG_LABEL_STRONG =
  /(?:^|[^a-z])(?:order|orders|ticket|case|receipt|invoice|transaction|txn|reservation|booking|itinerary|reference|ref|tracking|shipment|parcel|id|ids|nr|nº|suite|ste|apt|apartment|unit|floor|box|zip|postal|postcode|plz|cep|cnpj|cpf|version|ver|build|release|commit|sha|revision|rev|sku|model|serial|plate|vin|flight|seat|gate|room|meeting|webinar|phone|tel|telephone|fax|mobile|extension|ext|iban|routing|invoice|claim|policy|patient|mrn|employee|student|badge|issue|pr|job|bestellung|bestellnummer|rechnung|auftrag|kundennummer|commande|facture|pedido|factura|ordine|fattura|bestelling|factuur|заказ|注文番号|注文|订单|주문)\W{0,4}$/;

/** Meeting invitations: passcodes and IDs in them are not verification codes. */
export const MEETING_CTX =
  /meeting id|webinar id|conference id|join (?:zoom |teams |the |our )?meeting|join webinar|meeting link|one tap mobile|dial by your location|besprechungs-id|id de reunión|id de réunion|id riunione|会议号|ミーティングid|회의 id/;

/** Bookings and reservations: their "confirmation code" is a booking reference. */
export const BOOKING_CTX =
  /\b(?:reservations?|booking|booked|itinerary|check-in|check in:|your trip|your stay|flight|boarding pass|hotel|reserva|reservación|buchung|réservation|prenotazione|reservering)\b|бронирован|予約|预订|예약/g;

/** Receipts and payments: "authorization/approval code" there is a card-payment code. */
export const RECEIPT_CTX =
  /\b(?:receipt|invoice|subtotal|amount paid|total paid|order total|payment method|billed to|tax|vat|quittung|rechnung|reçu|facture|recibo|factura|ricevuta|fattura)\b/g;

/** Weaker cues near a code: verification words and "enter the following" phrases. */
export const VERIFY_NEAR =
  /verif|confirm|authenticat|sign[- ]?in|log[- ]?in|login|signin|one[- ]time|2fa|two[- ]factor|two[- ]step|security|identity|bestätig|anmeld|anzumeld|einzulogg|einlogg|vérif|connexion|connecter|verific|confirmar|iniciar sesi|entrar|acessar|verifica|accedi|acceder|bevestig|inlog|logga in|weryfik|potwierd|doğrula|подтвер|вход|認証|確認|ログイン|验证|驗證|登录|登入|인증|확인|로그인/;
export const ENTER_CUE =
  /\b(?:enter|type|use|input|copy|paste|provide|submit|key in)\b[^.!?]{0,50}\b(?:below|following|this|it|here)\b|\b(?:below|following)\s*:?\s*$|:\s*$|introduce|ingresa|escribe|saisissez|entrez|saisir|geben sie|eingeben|inserisci|digita|digite|insira|informe|voer\b|vul\b|wpisz|zadejte|girin|入力|输入|輸入|입력|введите|укажите/;

/** Promotions. */
export const PROMO_CTX =
  /% off|\boff your\b|discount|promo|coupon|voucher|at checkout|\bsale\b|save \d|rabatt|gutschein|descuento|cupón|réduction|sconto|soldes|korting|скидк|割引|优惠|할인|free shipping|gift card|redeem|(?:on|for|off|towards?) (?:your )?(?:first|next) (?:order|purchase)|(?:für|auf) (?:ihre|deine|die) (?:erste|nächste)n? (?:bestellung|einkauf)|(?:sur|pour) (?:votre|ta) (?:première|prochaine) commande|en (?:tu|su) (?:primera|próxima) compra|(?:na|em) (?:sua )?(?:primeira|próxima) compra|(?:no|em) (?:seu )?primeiro pedido|(?:sul|per il) (?:tuo )?(?:primo|prossimo) (?:ordine|acquisto)|(?:op|voor) (?:je|uw) eerste bestelling|kupon|cupom|coupon|kortingscode|rabatkode|alennus|kod rabatowy|slevov|indirim|reducere|промокод|купон|κουπόνι|έκπτωσ|クーポン|%\s*オフ|セール|ポイント還元|优惠券|折扣|優惠券|쿠폰|كوبون|خصم|קופון|הנחה|कूपन|छूट|คูปอง|ส่วนลด|giảm giá|khuyến mãi|diskon|voucher/;

/** Time units right after a number (durations). */
export const DURATION_AFTER =
  /^\s*(?:minutes?|mins?|hours?|hrs?|h\b|days?|seconds?|secs?|weeks?|months?|years?|yrs?|minuten|stunden|std|tage?n?|sekunden|wochen|minutos?|horas?|d[ií]as?|segundos?|semanas?|heures?|jours?|secondes?|semaines?|minuti|ore|giorni|secondi|minuten|uur|dagen|分|時間|日|秒|分钟|小时|天|분|시간|일|초|мин|час|дн|сек)/;

/** Currencies and measurement units right after a number. */
export const UNIT_AFTER =
  /^\s*(?:usd|eur|gbp|jpy|cad|aud|chf|inr|brl|mxn|sek|nok|dkk|pln|czk|huf|rub|cny|rmb|krw|kr\b|zł|₽|€|£|\$|円|元|원|руб|gb|mb|kb|tb|km|mi\b|miles|kg|lbs?|px|pt\b|%|mph|km\/h|ms\b|hz|mhz|ghz|mah|kw|kwh|ft\b|feet|m²|sq|points|pts|steps|views|likes|followers|comments|people|users|items|reviews|stars|calories|kcal)/;
export const CURRENCY_BEFORE = /(?:(?:^|[^a-z])(?:usd|eur|gbp|cad|aud|chf|inr|brl|mxn|rs\.?|r\$|us\$|ca\$|a\$)|\$|€|£|¥|₹|₩|₽|¢|₺|zł)\s*$/;

/** Masked card numbers: "Visa •••• 7731", "ending in 4242", "x-1881". */
export const CARD_BEFORE =
  /(?:(?:^|[^a-z])(?:visa|mastercard|master card|amex|american express|discover|maestro|jcb|diners|unionpay|card|karte|carte|tarjeta|cartão|carta|ending in|ending|endet auf|terminant par|terminada en|last (?:4|four)(?: digits)?|x{2,})|\*{2,}|•{2,}|·{3,}|\.{3,}|…)[\s\W]*$/;

/** Phone-number signals on a line. */
export const PHONE_CTX =
  /\b(?:call|phone|tel|telephone|mobile|cell|fax|toll[- ]free|hotline|whatsapp|sms|text us|dial|anrufen|telefon|téléphone|teléfono|telefone|telefono|llámanos|ligue|appelez)\b|電話|お問い合わせ|电话|전화|телефон|\+\d|\(\d{3}\)\s?\d/;

/** Street types right after a house number ("1725 3rd Street", "2300 Harrison St"). */
export const STREET_AFTER =
  /^\s+(?:[NSEW]\.?\s+|North\s|South\s|East\s|West\s)?(?:\d+(?:st|nd|rd|th)|[A-Z][\w'.-]*)(?:\s+[A-Z][\w'.-]*){0,3}\s+(?:[Ss]treet|St|[Aa]venue|Ave|[Rr]oad|Rd|[Bb]oulevard|Blvd|[Ww]ay|[Dd]rive|Dr|[Ll]ane|Ln|[Pp]laza|[Pp]lace|Pl|[Cc]ourt|Ct|[Cc]enter|[Cc]entre|Ctr|[Ss]quare|Sq|[Pp]arkway|Pkwy|[Hh]ighway|Hwy|[Tt]errace|[Cc]ircle|Cir|[Tt]rail|[Qq]uay|[Cc]rescent|[Mm]all|[Aa]lley|[Ll]oop|Broadway)\b/;
export const STREET_AFTER2 =
  /^\s+(?:Rue|Avenue|Av\.|Boulevard|Bd|Chemin|Via|Viale|Piazza|Corso|Calle|Avenida|Rua|Travessa|Paseo|Straße|Strasse|Str\.|Weg|Gasse|Platz|Allee|Laan|Straat|Gracht|Plein|Ulica|ul\.)\s/;
/** Postal markers right before a number. */
export const POSTAL_BEFORE =
  /(?:(?:^|[^a-z])(?:p\.?\s?o\.?\s+box|postfach|box|zip|zip code|postal code|postcode|post code|plz|cep|cp|〒|apartado|bp|cedex|code postal|código postal|codice postale|postnummer|postinumero|почтовый индекс|邮编|郵便番号|우편번호))\s*:?\s*$/i;
/** Region abbreviations that precede a postal code ("CA 94107", "NSW 2000", "ON K2P"). */
export const REGION_BEFORE =
  /(?:^|[\s,])(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|NSW|VIC|QLD|TAS|ACT|SP|RJ|MG)\.?\s*$/;
export const COUNTRY_AFTER =
  /^\s*,?\s*(?:usa|u\.s\.a\.|united states|canada|australia|united kingdom|uk|germany|deutschland|france|españa|spain|italia|italy|nederland|netherlands|brasil|brazil|japan|ireland|sweden|sverige|suecia|india|singapore|mexico|méxico|portugal|belgium|belgique|schweiz|suisse|switzerland|austria|österreich)\b/i;

export const MONTH_CTX =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|©|\(c\)|copyright|年|月/i;

/** Reset-password intent of a whole message. */
export const RESET_INTENT =
  /reset (?:your |the )?password|password reset|forgot (?:your )?password|request to reset|recover (?:your )?account|account recovery|recovery code|choose a new password|set a new password|r[ée]initialis\w* (?:de |du |votre )?(?:votre |le )?mot de passe|mot de passe oublié|restablec\w* (?:tu |su |la )?contraseña|recupera\w* (?:tu |su |la )?contraseña|redefini\w* (?:a |sua )?senha|passwort (?:zurücksetzen|vergessen)|zurücksetzen (?:ihres|deines) passworts|reimpost\w* (?:la )?password|wachtwoord (?:opnieuw instellen|vergeten|herstellen)|パスワード(?:の)?(?:再設定|リセット)|重置密码|密码重置|重設密碼|비밀번호 재설정|сброс пароля|восстановлени\w* пароля/;

/** Security-notice wording around a link that makes it an escape hatch, not the verification link. */
export const NOT_YOU_CTX =
  /(?:if (?:this|it) (?:was ?n[o']?t|wasn't|was not) you|if you did ?n[o']?t|if you didn't|if you did not|if you don'?t recogni[sz]e|don'?t recogni[sz]e|not you\?|wasn'?t you|was this not you|didn'?t (?:request|ask|make|sign|try)|did not (?:request|ask|make|sign|try)|unauthori[sz]ed|suspicious|someone else|not expecting|n'êtes pas à l'origine|si no has|si no fuiste|wenn sie das nicht|wenn du das nicht|nicht von ihnen|não foi você|se não foi|non sei stato|als u dit niet|心当たりのない|不是您|본인이 아닌|если это были не вы)/;

/** Asking for a new password in a message body ("pick a new password", "neues Passwort festlegen"), in every
 *  language of CODE_KW. Together with RESET_INTENT it lets a reset button count as the action. */
export const NEW_PASSWORD =
  /(?:pick|choose|create|set|enter|make|select) (?:up )?(?:a |your )?new password|neues? (?:passwort|kennwort)|passwort (?:neu (?:festlegen|vergeben|setzen)|zurück)|nouveau mot de passe|nueva contraseña|nova senha|nuova password|nieuw wachtwoord|nytt lösenord|ny adgangskode|nyt kodeord|nytt passord|uusi salasana|nowe hasło|nové heslo|yeni (?:şifre|parola)|parol[ăa] nou[ăa]|новый пароль|νέο κωδικό|νέος κωδικός|新しいパスワード|パスワードを(?:再設定|リセット|変更)|新密码|新密碼|새 비밀번호|비밀번호를 재설정|كلمة (?:مرور|سر) جديدة|إعادة تعيين كلمة|סיסמה חדשה|नया पासवर्ड|รหัสผ่านใหม่|mật khẩu mới|đặt lại mật khẩu|kata sandi baru|atur ulang kata sandi/;

/** Someone invited the recipient to join a team, workspace or organisation (not to an event). */
export const INVITE_INTENT =
  /invited you|(?:has|have) invited|invites you|(?:you'?ve|you have) been invited|you(?:'re| are) invited to (?:join|collaborate)|invitation to (?:join|collaborate)|wants you to join|asked you to join|eingeladen|einladung|vous (?:a )?invit|t'(?:a )?invit|invitation à rejoindre|te (?:ha )?invit|le (?:ha )?invitado|invitación|convidou|te convid|convite|ti (?:ha )?invitat|invito a|uitgenodigd|uitnodiging|bjudit in|inbjudan|inviteret|invitert|invitasjon|kutsui|kutsu|zaprosi|zaproszeni|pozval|pozvánk|davet|te-a invitat|invitați|invitație|приглаш|προσκάλεσ|πρόσκληση|招待|邀请|邀請|초대|دعاك|دعوة|הזמין|הזמנה|आमंत्रित|निमंत्रण|เชิญ|đã mời|lời mời|mengundang|undangan/;
/** Calendar and event invitations: their Yes/Accept/Join buttons answer an event, they verify nothing. */
export const INVITE_EVENT =
  /\b(?:meeting|webinar|event|calendar|rsvp|conference call|livestream)\b|\.ics\b|termin|veranstaltung|besprechung|réunion|événement|reunión|evento|riunione|vergadering|möte|møde|spotkani|schůzk|toplantı|ședinț|встреч|мероприяти|εκδήλωσ|σύσκεψ|会議|イベント|会议|活动|會議|活動|회의|이벤트|اجتماع|פגישה|אירוע|बैठक|การประชุม|cuộc họp|sự kiện|rapat|acara/;
/** The accept button of an invitation ("Accept invitation", "Join the team", "View invitation"). */
export const ACCEPT_ANCHOR =
  /\baccept\b|(?:view|see|open|review|respond to) (?:the |your |this |my )?invit|get started|sign up|create (?:an |your )?account|set up (?:your )?account|konto erstellen|registrieren|créer (?:un |votre )?compte|crear (?:una |tu )?cuenta|registrarse|criar conta|crea (?:un )?account|account aanmaken|アカウント(?:を)?作成|创建帐户|创建账户|계정 만들기|создать аккаунт|\bjoin\b(?! (?:the |our |a |this )?(?:meeting|webinar|call|video|event|waitlist|newsletter|live|stream|conversation|discussion|community|us\b))|annehmen|akzeptieren|beitreten|accepter|rejoindre|aceptar|unirme|unirte|únete|unirse|aceitar|participar|accetta|unisciti|partecipa|accepteren|accepteer|deelnemen|word lid|lid worden|acceptera|gå med|deltag|bliv medlem|aksepter|bli med|hyväksy|liity|akceptuj|dołącz|přijmout|připojit|kabul et|katıl|accept[ăa]|alătur|принять|присоедин|αποδοχή|αποδεχτ|συμμετοχ|承認|承諾|参加|受け入れ|接受|加入|수락|참여|참가|قبول|انضم|קבל|הצטרף|स्वीकार|शामिल|ยอมรับ|เข้าร่วม|chấp nhận|tham gia|terima|gabung/;
/** The decline link of an invitation. */
export const DECLINE_ANCHOR =
  /decline|reject|ablehnen|refuser|décliner|rechaz|declinar|recusar|rifiut|weiger|afwijz|avböj|afvis|avslå|hylkää|odrzu|odmítn|reddet|refuz|отклон|απόρριψ|拒否|辞退|拒绝|拒絕|거절|거부|رفض|דחה|अस्वीकार|ปฏิเสธ|từ chối|tolak/;

/** Verbs that hand a code to the reader right before it ("Use 7F3K-92QX to log in", "geben Sie k9Rt4Z ein"). */
export const USE_VERB_BEFORE =
  /(?:\b(?:use|enter|type|paste|input|copy|provide|key in|utilisez|saisissez|entrez|tapez|copiez|introduce|introduzca|ingresa|ingrese|usa|utiliza|escribe|verwenden sie|nutzen sie|geben sie|gib|tippen sie|digite|insira|use o|inserisci|digita|utilizza|voer|gebruik|vul|ange|använd|indtast|brug|skriv inn|bruk|syötä|käytä|wpisz|użyj|zadejte|použijte|girin|kullanın|introduceți|folosiți)|введите|используйте|εισάγετε|χρησιμοποιήστε|أدخل|استخدم|הזן|השתמש|दर्ज करें|ใส่|กรอก|nhập|sử dụng|masukkan|gunakan)\s+(?:(?:the|this|le|el|den|code|código|código:|:)\s+)?$/;

/** A password word (every language of CODE_KW): a mail about a password whose link says "reset" is a reset mail. */
export const PASSWORD_WORD =
  /password|passwort|kennwort|mot de passe|contraseña|senha|wachtwoord|lösenord|adgangskode|kodeord|passord|salasana|hasło|heslo|şifre|parola|пароль|κωδικό πρόσβασης|κωδικός πρόσβασης|パスワード|密码|密碼|비밀번호|كلمة المرور|كلمة السر|סיסמ|पासवर्ड|รหัสผ่าน|mật khẩu|kata sandi/;
/** A Subject asking for help with a password ("Password help", "Passwort vergessen?"), with PASSWORD_WORD. */
export const PASSWORD_HELP =
  /forg[eo]t|reset|help|trouble|assist|recover|change|new\b|\bneu|nouveau|nueva|nova|nuova|nieuw|vergessen|oublié|olvid|esquec|dimentic|vergeten|glömt|glemt|unohtu|zapomni|zapomn|unuttu|uitat|забыли|ξεχάσ|忘れ|忘记|忘記|잊|نسيت|שכחת|भूल|ลืม|quên|lupa|再設定|リセット|重置|重設|재설정|сброс|восстанов|zurücksetz|réinitialis|restablec|redefini|reimpost|herstel|återställ|nulstil|tilbakestill|palauta|resetowa|obnov|sıfırla|reseta/;
/** Security notices: the password already changed, a new sign-in or device. Their password links are escape hatches. */
export const SECURITY_NOTICE =
  /(?:was|has been|were) (?:successfully )?(?:changed|updated|reset)|new (?:sign[- ]?in|login|device)|wurde (?:erfolgreich )?(?:geändert|zurückgesetzt)|neue anmeldung|a été (?:modifié|changé|réinitialisé)|nouvelle connexion|ha sido (?:cambiad|modificad|restablecid)|nuevo inicio de sesión|foi (?:alterad|redefinid)|novo acesso|è stata (?:modificat|cambiat)|nuovo accesso|is gewijzigd|nieuwe aanmelding|har ändrats|er blevet ændret|er endret|on vaihdettu|został[oa] zmienion|bylo změněno|değiştirildi|a fost schimbat|изменен|изменён|новый вход|άλλαξε|変更されました|新しいログイン|已更改|已变更|已變更|新登录|변경되었습니다|새 로그인|تم تغيير|שונתה|बदल दिया गया|ถูกเปลี่ยน|đã được thay đổi|đăng nhập mới|telah diubah|login baru/;
/** The same verb after the code, in verb-final languages ("7F3K92 を入力", "7F3K92 를 입력", "7F3K92 kodunu girin"). */
export const USE_VERB_AFTER =
  /^\s*(?:を|は|、)?\s*(?:ご?入力|使用|コピー)|^\s*(?:을|를)?\s*(?:입력|사용)|^\s*\S{0,8}\s*(?:girin|kullanın)|^\s*दर्ज करें/;
/** Hex colour words near a six-digit hex value ("3FA2C1 as the primary colour"). */
export const COLOUR_CTX = /colou?r|\bhex\b|\bcss\b|stylesheet|\brgb|palette|farbe|couleur|colore|kleur|цвет|色/;
