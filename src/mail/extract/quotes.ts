// Marks quoted / older content of replies, forwards and helpdesk threads, so that the newest (unquoted,
// topmost) code wins. Works on the line model of one source (text/plain or rendered HTML).
//
//   quoted  — '>' lines, <blockquote type=cite>, everything below "On … wrote:", "-----Original Message-----"
//             or an Outlook "From: … Sent: …" header (in a reply). Codes there are out of date.
//   segment — incremented at thread separators ("-------", "Forwarded message" headers). In a thread the
//             first segment that holds a code wins.

import type { Line } from './doc.ts';

const WROTE =
  /(?:wrote|writes|schrieb|a écrit|escribió|ha scritto|scrisse|escreveu|schreef|skrev|kirjoitti|napisał\(a\)|napisał|написал\(а\)|написал|написала|napsal|yazdı|írta|έγραψε|のメッセージ|写道|寫道|작성):?\s*$/i;
const WROTE_START = /^(?:on|am|le|el|il|em|op|den|d\.|w dniu|в|dne|på|el día|le \d|\d{1,4}[./年-])/i;
const ORIGINAL =
  /^[-_=\s]*(?:original message|ursprüngliche nachricht|originalnachricht|message d'origine|mensaje original|messaggio originale|mensagem original|oorspronkelijk bericht|oprindelig meddelelse|opprinnelig melding|originalmeddelande|alkuperäinen viesti|wiadomość oryginalna|исходное сообщение|原始邮件|元のメッセージ|원본 메시지)[-_=\s]*$/i;
const FORWARD =
  /^[-_=\s]*(?:forwarded message|begin forwarded message|weitergeleitete nachricht|message transféré|mensaje reenviado|messaggio inoltrato|mensagem encaminhada|doorgestuurd bericht|videresendt meddelelse|vidarebefordrat meddelande|пересылаемое сообщение|转发的邮件|転送されたメッセージ)[-_=\s:]*$/i;
const HDR_FROM = /^(?:\*?\s*)(?:from|von|de|da|van|från|fra|od|от|发件人|寄件者|差出人|보낸 사람)\s*\*?\s*:/i;
const HDR_SENT =
  /^(?:\*?\s*)(?:sent|date|gesendet|datum|envoyé|date d'envoi|enviado|fecha|inviato|data|verzonden|skickat|sendt|wysłano|отправлено|дата|发送时间|日付|送信日時|보낸 날짜)\s*\*?\s*:/i;
const HDR_ANY =
  /^(?:\*?\s*)(?:from|to|cc|bcc|sent|date|subject|reply-to|von|an|gesendet|betreff|datum|de|à|objet|envoyé|para|asunto|enviado|fecha|da|a|oggetto|inviato|van|aan|onderwerp|verzonden)\s*\*?\s*:/i;
const SEPARATOR = /^[-_=*~─━═—–·.]{8,}$/;
const HELPDESK = /(?:reply above this line|antworten sie oberhalb|répondez au-dessus|responda por encima|escreva acima)/i;

export interface QuoteInfo {
  /** The message looks like a reply, forward or helpdesk thread. */
  thread: boolean;
}

export interface ThreadHints {
  /** Subject starts with Re:/AW:/SV:… or the message has In-Reply-To. */
  reply: boolean;
  /** Subject starts with Fwd:/FW:/WG:/TR:… */
  forward: boolean;
}

export function threadHints(subject: string, inReplyTo: string | null): ThreadHints {
  const s = subject.trim().replace(/^\[[^\]]{0,60}\]\s*/, '');
  const reply = /^(?:re|aw|sv|vs|antw|odp|ynt|回复|答复|返信|회신|ответ)\s*(?:\[\d+\])?\s*:/i.test(s) || inReplyTo !== null;
  const forward = /^(?:(?:re|aw)\s*:\s*)?(?:fwd?|wg|tr|rv|enc|doorst|vs|i|pd|转发|転送|전달)\s*:/i.test(s);
  return { reply, forward };
}

export function markQuotes(lines: Line[], hints: ThreadHints): QuoteInfo {
  let quotedFrom = false;
  let segment = 0;
  let thread = hints.reply || hints.forward;
  let forwardSeen = false;
  let separators = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const t = l.text;
    if (quotedFrom) {
      l.quoted = true;
      l.segment = segment;
      continue;
    }
    if (l.quoteHint === 2 || (l.quoteHint === 1 && (hints.reply || hints.forward))) l.quoted = true;
    if (t.startsWith('>') || t.startsWith('|>')) l.quoted = true;

    if (t.length < 400) {
      if (HELPDESK.test(t)) thread = true;
      if (FORWARD.test(t)) {
        // the forwarded message is content, not a quote; its header lines are metadata
        segment++;
        thread = true;
        forwardSeen = true;
        for (let k = i + 1; k < lines.length && k <= i + 8; k++) {
          const h = lines[k]!;
          if (h.text === '' || HDR_ANY.test(h.text)) {
            h.segment = segment;
            h.quoted = true; // header block (dates, addresses): never a code
            i = k;
          } else break;
        }
        continue;
      }
      if (ORIGINAL.test(t) || (WROTE.test(t) && (WROTE_START.test(t) || /@|<|\d/.test(t)) && !l.quoted)) {
        quotedFrom = true;
        thread = true;
        l.quoted = true;
        l.segment = segment;
        continue;
      }
      if (HDR_FROM.test(t)) {
        let sent = false;
        for (let k = i + 1; k < lines.length && k <= i + 4; k++) if (HDR_SENT.test(lines[k]!.text)) sent = true;
        if (sent) {
          thread = true;
          if (hints.forward && !forwardSeen) {
            forwardSeen = true;
            segment++;
            for (let k = i; k < lines.length && k <= i + 8; k++) {
              const h = lines[k]!;
              if (h.text === '' || HDR_ANY.test(h.text)) {
                h.segment = segment;
                h.quoted = true;
                i = k;
              } else break;
            }
            continue;
          }
          quotedFrom = true;
          l.quoted = true;
          l.segment = segment;
          continue;
        }
      }
      if (SEPARATOR.test(t)) {
        segment++;
        separators++;
      }
    }
    l.segment = segment;
  }
  if (separators >= 2 && hints.reply) thread = true;
  return { thread };
}
