// What the built-in engine reads of a message: the visible lines (HTML rendered, or text/plain), the links
// with their anchor text, schema.org JSON-LD blocks, EN 16931 XML attachments, the headers it needs and a
// language guess. Built once per message; every later step is a scan over these bounded lists.

import type { LinkRef } from '../../mail/extract/doc.ts';
import { textToLines } from '../../mail/extract/doc.ts';
import { htmlToDoc } from '../../mail/extract/html-text.ts';
import type { ParsedMessage } from '../../mail/types.ts';
import { datesIn } from './dates.ts';
import { asciiDigits } from './digits.ts';
import { MAX_XML_BYTES } from './input.ts';

export type Lang =
  | 'en'
  | 'de'
  | 'fr'
  | 'es'
  | 'it'
  | 'nl'
  | 'pt'
  | 'sv'
  | 'da'
  | 'no'
  | 'fi'
  | 'pl'
  | 'cs'
  | 'tr'
  | 'vi'
  | 'id'
  | 'ms'
  | 'el'
  | 'ru'
  | 'uk'
  | 'ar'
  | 'fa'
  | 'he'
  | 'hi'
  | 'mr'
  | 'bn'
  | 'th'
  | 'ja'
  | 'zh'
  | 'ko';

export interface MessageView {
  subject: string;
  fromName: string;
  fromAddress: string;
  /** The Date header's calendar day as written there (its own offset), YYYY-MM-DD. */
  headerDay: string | null;
  /** Visible body lines, normalised, non-empty, quoted (older) replies dropped. */
  lines: string[];
  links: LinkRef[];
  jsonld: unknown[];
  xml: string[];
  lang: Lang;
  /** en-US style month-first numeric dates. */
  monthFirst: boolean;
  /** The lines are a forwarded message's (sender, date and subject are the forwarded message's). */
  forwarded: boolean;
}

const MAX_JSONLD = 10;
const MAX_JSONLD_CHARS = 200_000;

export function viewOf(msg: ParsedMessage): MessageView {
  let lines: string[] = [];
  let links: LinkRef[] = [];
  if (msg.html) {
    const doc = htmlToDoc(msg.html);
    lines = doc.lines.filter((l) => !l.hidden && l.quoteHint !== 2).map((l) => l.text);
    links = doc.links.filter((l) => !l.pixel);
  }
  if (lines.filter((l) => l !== '').length < 2 && msg.text) {
    lines = textToLines(msg.text).map((l) => l.text);
  }
  if (msg.text) {
    // text/plain links are "Label <https://…>" or a bare URL on the line after its label
    const textLines = msg.text.slice(0, 200_000).split(/\r?\n/).slice(0, 8000);
    for (let i = 0; i < textLines.length; i++) {
      const l = textLines[i]!;
      if (l.startsWith('>')) continue;
      for (const m of l.matchAll(/<?(https?:\/\/[^\s<>"]+)>?/g)) {
        const before = l.slice(0, m.index).replace(/[\s:–—-]+$/, '');
        const text = before.trim() !== '' ? before.trim() : (textLines[i - 1] ?? '').trim();
        links.push({ href: m[1]!, text, imageOnly: false, pixel: false, line: i, before, after: '', source: 'text', hidden: false });
      }
    }
  }
  // digits of every script read as ASCII (src/ai/builtin/digits.ts): amounts, dates and quantities parse alike
  lines = dropQuoted(unquoteForward(lines.filter((l) => l !== '').map((l) => asciiDigits(l))));
  const fwd = forwarded(lines, FWD_SUBJECT.test(msg.subject ?? ''));
  if (fwd) lines = fwd.lines;
  const text = `${msg.subject}\n${lines.join('\n')}`;
  const lang = guessLang(text, msg);
  const monthFirst = lang === 'en' && isUs(text, msg);
  return {
    subject: asciiDigits((fwd?.subject ?? msg.subject).normalize('NFKC'))
      .replace(/\s+/g, ' ')
      .trim(),
    fromName: fwd ? fwd.fromName : (msg.from?.name ?? '').trim(),
    fromAddress: fwd ? fwd.fromAddress : (msg.from?.address ?? '').toLowerCase(),
    headerDay: fwd ? (datesIn(fwd.date, monthFirst)[0]?.iso ?? null) : headerDay(msg),
    lines,
    links,
    jsonld: msg.html ? jsonLd(msg.html) : [],
    xml: msg.attachments
      .filter((a) => /xml/i.test(a.contentType) || /\.xml$/i.test(a.filename ?? ''))
      .filter((a) => a.content.length <= MAX_XML_BYTES)
      .map((a) => a.content.toString('utf8')),
    lang,
    monthFirst,
    forwarded: fwd !== null,
  };
}

const FWD_MARK =
  /^-*\s*(?:forwarded message|begin forwarded message|original message|weitergeleitete nachricht|ursprüngliche nachricht|message transféré|début du message (?:réexpédié|transféré)|message d'origine|mensaje reenviado|mensaje original|inicio del mensaje reenviado|messaggio inoltrato|inizio messaggio inoltrato|doorgestuurd bericht|begin doorgestuurd bericht|vidarebefordrat meddelande|videresendt (?:melding|meddelelse)|wiadomość przekazana|přeposlaná zpráva|mensagem encaminhada|[iİ]letilen ileti|пересланное сообщение|переслане повідомлення|転送されたメッセージ|转发的邮件|전달된 메시지)\s*:?\s*-*$/i;

/**
 * A forward whose message is quoted with ">" ("---- Forwarded message ----" then "> From: …", "> Total …"): the
 * quoted lines are the forwarded message, so they lose one level of quoting (rule 4). Other quoted text stays.
 */
function unquoteForward(lines: string[]): string[] {
  const i = lines.findIndex((l) => FWD_MARK.test(l.trim()));
  if (i < 0 || !(lines[i + 1] ?? '').startsWith('>')) return lines;
  const out = lines.slice(0, i + 1);
  let j = i + 1;
  for (; j < lines.length && lines[j]!.startsWith('>'); j++) {
    const l = lines[j]!.replace(/^> ?/, '').trim();
    if (l !== '') out.push(l);
  }
  return [...out, ...lines.slice(j)];
}
const FWD_FROM =
  /^(?:from|von|de|da|van|från|fra|od|lähettäjä|kimden|от|від|από|מאת|من|dari|từ|보낸 사람|보낸사람|差出人|发件人|寄件者)\s*[:：]\s*(.+)$/i;
const FWD_DATE =
  /^(?:date|sent|datum|gesendet|envoyé|fecha|enviado|data|inviato|verzonden|skickat|sendt|dato|wysłano|odesláno|lähetetty|päivämäärä|tarih|gönderildi|дата|отправлено|надіслано|ημερομηνία|εστάλη|תאריך|נשלח|التاريخ|تاريخ|tanggal|dikirim|ngày|날짜|보낸 날짜|送信日時|日期|发送时间|寄件日期)\s*[:：]\s*(.+)$/i;
const FWD_SUBJ =
  /^(?:subject|betreff|objet|asunto|oggetto|onderwerp|ämne|emne|temat|předmět|aihe|konu|тема|θέμα|נושא|الموضوع|subjek|perihal|chủ đề|제목|件名|主题|主旨)\s*[:：]\s*(.+)$/i;
const FWD_TO = /^(?:to|an|à|para|a|aan|till|til|do|komu|vastaanottaja|kime|кому|προς|אל|إلى|kepada|đến|cc|받는 사람|宛先|收件人)\s*[:：]/i;
/** A forward prefix of the Subject ("Fwd:", "WG:", "TR:", "RV:", "Doorst:", "VB:", "PD:", "İlt:"). */
const FWD_SUBJECT = /^\s*(?:fwd?|wg|tr|rv|enc|i|vs|vb|vl|doorst|pd|ilt|İlt|πρθ|转发|轉寄|전달)\s*[:：]/i;

/** Rule 4: a forwarded invoice is read from the forwarded message — its sender, its date, its body. */
function forwarded(
  lines: string[],
  fwdSubject = false,
): { lines: string[]; fromName: string; fromAddress: string; date: string; subject: string | null } | null {
  // a forward header, or (Outlook) a rule of underscores before "From:" in a mail whose Subject says it forwards
  const i = lines.findIndex((l, k) => FWD_MARK.test(l) || (fwdSubject && /^_{8,}$/.test(l.trim()) && FWD_FROM.test(lines[k + 1] ?? '')));
  if (i < 0) return null;
  let from: string | null = null;
  let date = '';
  let subject: string | null = null;
  let end = i + 1;
  for (let j = i + 1; j < Math.min(lines.length, i + 9); j++) {
    const l = lines[j]!;
    const f = FWD_FROM.exec(l);
    const d = FWD_DATE.exec(l);
    const s = FWD_SUBJ.exec(l);
    if (f) from = f[1]!;
    else if (d) date = d[1]!;
    else if (s) subject = s[1]!;
    else if (!FWD_TO.test(l)) break;
    end = j + 1;
  }
  if (!from) return null;
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>/.exec(from) ?? /^()([^\s@]+@[^\s]+)/.exec(from);
  return {
    lines: lines.slice(end),
    fromName: m ? m[1]!.trim() : from.replace(/\S+@\S+/, '').trim(),
    fromAddress: (m ? m[2]! : (/\S+@\S+/.exec(from)?.[0] ?? '')).toLowerCase().replace(/[<>]/g, ''),
    date,
    subject,
  };
}

/** Text after an "On … wrote:" or "-----Original Message-----" line is an older message. */
function dropQuoted(lines: string[]): string[] {
  const i = lines.findIndex(
    (l) =>
      /^(?:on .{4,80} wrote:|am .{4,80} schrieb .*:|le .{4,80} a écrit ?:|el .{4,80} escribió:|(?:den|op|il giorno|il|em|w dniu) .{4,80} (?:skrev|schreef|ha scritto|escreveu|napisał|napisała)(?: .{1,80})?:|-{2,} ?original message ?-{2,})$/i.test(
        l,
      ) ||
      /^.{4,120}\s(?:yazdı|пишет|написал[аи]?|написав(?:ла)?|έγραψε|כתב\(?ה?\)?|كتب|menulis|đã viết|님이 작성|寫道|写道)\s?[:：]$/iu.test(
        l,
      ) ||
      l.startsWith('>'),
  );
  return i > 2 ? lines.slice(0, i) : lines;
}

function headerDay(msg: ParsedMessage): string | null {
  const raw = msg.headers.find((h) => h[0] === 'date')?.[1] ?? '';
  const m = /(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+(\d{4})/i.exec(raw);
  if (m) {
    const mon = 'janfebmaraprmayjunjulaugsepoctnovdec'.indexOf(m[2]!.toLowerCase()) / 3 + 1;
    return `${m[3]}-${String(mon).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  }
  return msg.date && !Number.isNaN(msg.date.getTime()) ? msg.date.toISOString().slice(0, 10) : null;
}

function jsonLd(htmlIn: string): unknown[] {
  const out: unknown[] = [];
  const html = htmlIn.slice(0, 2 * 1024 * 1024);
  const open = /<script\b[^>]{0,200}type\s*=\s*["']?application\/ld\+json["']?[^>]{0,200}>/gi;
  // linear: each block ends at the next </script>; an unclosed one ends the scan
  for (let m = open.exec(html); m !== null && out.length < MAX_JSONLD; m = open.exec(html)) {
    const start = m.index + m[0].length;
    const end = html.indexOf('</script', start);
    if (end < 0) break;
    open.lastIndex = end;
    const body = html.slice(start, end);
    if (body.length > MAX_JSONLD_CHARS) continue;
    try {
      const v: unknown = JSON.parse(body.replace(/^\s*<!--|-->\s*$/g, ''));
      if (Array.isArray(v)) out.push(...v.slice(0, MAX_JSONLD));
      else if (v && typeof v === 'object' && Array.isArray((v as { '@graph'?: unknown })['@graph']))
        out.push(...(v as { '@graph': unknown[] })['@graph'].slice(0, MAX_JSONLD));
      else out.push(v);
    } catch {
      // a broken block is not a source
    }
  }
  return out;
}

const LANG_WORDS: Array<[Lang, RegExp]> = [
  ['de', /\b(?:und|ihre?|sie|der|die|das|rechnung|bestellung|vielen dank|mit freundlichen|zahlung|betrag|für)\b/g],
  ['fr', /\b(?:votre|vous|facture|commande|merci|le|la|les|des|pour|avec|montant|bonjour)\b/g],
  ['es', /\b(?:su|usted|factura|pedido|gracias|el|los|las|para|con|importe|compra|fecha)\b/g],
  ['it', /\b(?:il|della|fattura|ordine|grazie|per|con|importo|gentile)\b/g],
  ['nl', /\b(?:uw|het|een|factuur|bestelling|bedankt|voor|met|bedrag)\b/g],
  ['pt', /\b(?:seu|sua|você|fatura|pedido|obrigado|para|com|valor|não)\b/g],
  ['sv', /\b(?:och|för|att|din|ditt|faktura|kvitto|tack|med|belopp|betala)\b/g],
  ['pl', /\b(?:faktura|fakturę|zamówienie|dziękujemy|dla|kwota|się|oraz|dzień|dobry|twój|jest|przez|nie|płatności)\b|[łąęśźż]/g],
  ['da', /\b(?:tak|for|din|dit|og|ordre|bestilling|hos|betalt|med|moms|i alt|kvittering|faktura)\b/g],
  ['no', /\b(?:takk|for|din|ditt|og|bestilling|betalt|med|mva|faktura|vedlagt|følger|å betale|hei)\b/g],
  ['fi', /\b(?:kiitos|tilauksesi|lasku|yhteensä|eräpäivä|ja|sinun|maksu)\b/g],
  ['cs', /\b(?:dobrý|den|fakturu|děkujeme|celkem|splatnosti|objednávka|úhradě|vystavení)\b|[řůě]/g],
  ['tr', /\b(?:sayın|fatura|faturanız|siparişiniz|teşekkür|toplam|tarihi|ödeme|ve|için|kodunuz)\b|[ğış]/g],
  ['vi', /\b(?:của|bạn|hóa|đơn|cảm|ơn|thanh|toán|và|là|tiền)\b/g],
  ['id', /\b(?:terima|kasih|pesanan|kamu|anda|pembayaran|dan|untuk|yang|tanggal|sudah)\b/g],
  ['ms', /\b(?:terima|kasih|invois|tuan|puan|jumlah|bayaran|tarikh|anda|dan|untuk)\b/g],
  ['en', /\b(?:the|your|and|you|invoice|order|thank|for|with|amount|total)\b/g],
];

function guessLang(text: string, msg: ParsedMessage): Lang {
  const cl = (msg.headers.find((h) => h[0] === 'content-language')?.[1] ?? '').toLowerCase();
  const htmlLang = /<html[^>]*\blang\s*=\s*["']?([a-z]{2})/i.exec(msg.html?.slice(0, 4096) ?? '')?.[1]?.toLowerCase();
  const hinted = (cl.slice(0, 2) || htmlLang) as Lang | undefined;
  if (/[\u3040-\u30ff]/.test(text)) return 'ja';
  if (/[\uac00-\ud7af]/.test(text)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(text)) return 'zh';
  const script = byScript(text.slice(0, 20_000));
  if (script) return script;
  const lower = text.slice(0, 20_000).toLowerCase();
  let best: Lang = 'en';
  let bestN = 0;
  for (const [lang, re] of LANG_WORDS) {
    const n = lower.match(re)?.length ?? 0;
    if (n > bestN * 1.2 || (lang === hinted && n >= bestN * 0.8)) {
      best = lang;
      bestN = n;
    }
  }
  return best;
}

/** Languages told by their script: the script used by most letters when it is not Latin. */
function byScript(text: string): Lang | null {
  const count = (re: RegExp): number => text.match(re)?.length ?? 0;
  const latin = count(/[A-Za-z\u00c0-\u024f]/g);
  const scripts: Array<[number, () => Lang]> = [
    [count(/[\u0370-\u03ff]/g), () => 'el'],
    [count(/[\u0400-\u04ff]/g), () => (/[іїєґІЇЄҐ]/.test(text) ? 'uk' : 'ru')],
    [count(/[\u0590-\u05ff]/g), () => 'he'],
    [count(/[\u0600-\u06ff]/g), () => (/[پچژگکی]/.test(text) ? 'fa' : 'ar')],
    [count(/[\u0900-\u097f]/g), () => (/ळ|आहे|आणि|च्या|आपले/.test(text) ? 'mr' : 'hi')],
    [count(/[\u0980-\u09ff]/g), () => 'bn'],
    [count(/[\u0e00-\u0e7f]/g), () => 'th'],
  ];
  let best: [number, () => Lang] | null = null;
  for (const s of scripts) if (s[0] > 0 && (!best || s[0] > best[0])) best = s;
  if (best && best[0] * 2 > latin / 3) return best[1]();
  // Vietnamese: Latin with its own tone-marked vowels and đ
  if (count(/[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđĐ]/g) >= 3) return 'vi';
  return null;
}

/** Month-first numeric dates: an English message from the US (dollars without another dollar, a US address). */
function isUs(text: string, msg: ParsedMessage): boolean {
  const html = msg.html?.slice(0, 4096) ?? '';
  if (/\blang\s*=\s*["']?en-(?:gb|ie|au|nz|in|ca|za)/i.test(html)) return false;
  if (/\blang\s*=\s*["']?en-us/i.test(html)) return true;
  if (/£|\bGBP\b|\bA\$|\bAUD\b|\bNZD\b|\bINR\b|₹/.test(text)) return false;
  return /\$|\bUSD\b|\b[A-Z]{2} \d{5}(?:-\d{4})?\b/.test(text);
}
