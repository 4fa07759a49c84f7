// The built-in engine: deterministic, offline, no model. An extractive summary (each message's lead sentence, the
// questions asked, the dates and deadlines mentioned) and a draft reply that answers the questions it has facts for
// (the caller's notes or earlier mail of the thread) and names the ones it could not answer.
import type { WsMessage } from './source.ts';

// Made on first use: ICU's sentence rules are not loaded into a server that never summarises.
let segmenter: Intl.Segmenter | undefined;

/** A line that only greets ("Hi Bob,", "Good morning!", "Bonjour Marie,"): a sentence of its own, never a lead. */
const GREETING =
  /^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|hallo|guten (?:morgen|tag|abend)|liebe[rs]?|sehr geehrte[rs]?|bonjour|bonsoir|salut|hola|buenos d[ií]as|estimad[oa]s?|buongiorno|ciao|gentile|beste|hoi|ol[aá]|oi|bom dia|prezados?)\b[^.!?\n]{0,60}[,!:.]?\s*$/i;
/** A closing line ("Best regards,", "Thanks!", "Mit freundlichen Grüßen"): with the lines after it, the signature. */
const SIGN_OFF =
  /^\s*(?:(?:best|kind|warm|warmest|many|with) (?:regards|wishes|thanks)|regards|best|cheers|thanks(?: (?:again|a lot|so much|in advance))?|thank you(?: (?:again|so much|in advance))?|many thanks|sincerely(?: yours)?|yours(?: (?:truly|sincerely))?|all the best|talk soon|br|mfg|mit freundlichen gr(?:ü|ue)(?:ß|ss)en|(?:viele|liebe|beste|herzliche) gr(?:ü|ue)(?:ß|ss)e|gr(?:ü|ue)(?:ß|ss)e|cordialement|bien (?:à vous|cordialement)|salutations|saludos(?: cordiales)?|un saludo|atentamente|cordiali saluti|distinti saluti|met vriendelijke groet(?:en)?|groeten|atenciosamente|abra(?:ç|c)os)\s*[,.!]?\s*$/i;
/** A closing line counts as one when at most this many non-empty lines follow it (a name, a title, a company). */
const SIGNATURE_LINES = 5;

/**
 * The lines after a closing line are a signature (a name, a title, a company, a phone number) when there are few of
 * them and none reads as a sentence of the message: a question, or a line ending in . or ! that addresses someone.
 */
function isSignature(after: string[]): boolean {
  if (after.length > SIGNATURE_LINES) return false;
  return after.every(
    (l) =>
      l.length <= 80 &&
      !l.includes('?') &&
      !(/[.!]\s*$/.test(l) && /\b(?:i|we|you|please|is|are|was|will|can|could|would|send|let|have|has|do|does|need|want)\b/i.test(l)),
  );
}

/** The message's own words: quoted replies, "On … wrote:" tails, signatures and the closing before them are cut. */
export function ownText(text: string): string {
  const out: string[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*>/.test(line)) continue;
    if (/^\s*On .{1,200} wrote:\s*$/i.test(line) || /^-----\s*Original Message/i.test(line)) break;
    if (line === '-- ' || line === '--') break;
    if (SIGN_OFF.test(line) && out.some((l) => l.trim()) && isSignature(lines.slice(i + 1).filter((l) => l.trim()))) break;
    out.push(line);
  }
  return out.join('\n').trim();
}

/**
 * The sentences of the message's own words, in order. Paragraphs (blank lines) and a greeting line end a sentence;
 * lines of one paragraph are joined; nothing is added to a sentence's own punctuation.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  const push = (t: string) => {
    if (t.length >= 3 && /[\p{L}\p{N}]/u.test(t)) out.push(t.length > 400 ? `${t.slice(0, 397)}…` : t);
  };
  for (const para of ownText(text).split(/\n\s*\n/)) {
    const lines = para.split('\n').filter((l) => l.trim());
    if (lines.length > 0 && GREETING.test(lines[0]!)) push(lines.shift()!.trim());
    const flat = lines.join(' ').replace(/\s+/g, ' ').trim();
    segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
    for (const s of segmenter.segment(flat)) push(s.segment.trim());
  }
  return out;
}

/** A sentence that only greets or thanks ("Hi Bob,", "Thanks for your mail.", "I hope you are well."). */
export function isPleasantry(s: string): boolean {
  return (
    GREETING.test(s) ||
    SIGN_OFF.test(s) ||
    /^(?:thanks|thank you|many thanks)\b[^.!?]{0,70}[.!]?$/i.test(s) ||
    /^(?:i )?hope (?:you|this|all|everything)\b[^.!?]{0,60}[.!]?$/i.test(s)
  );
}

/** The sentence that says what a message is about: the first that is not a greeting or thanks (else the first). */
export function leadSentence(ss: string[]): string | undefined {
  return ss.find((s) => !isPleasantry(s)) ?? ss[0];
}

/** A sentence ended with a full stop unless it already ends with punctuation. */
export const withStop = (s: string): string => (/[.!?…:;]["'»”)\]]*$/.test(s) ? s : `${s}.`);

export interface FoundDate {
  text: string;
  /** YYYY-MM-DD when it could be resolved against the message's date; null otherwise. */
  date: string | null;
  sentence: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTH_RE =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_RE = new RegExp(
  [
    '\\b(\\d{4})-(\\d{2})-(\\d{2})\\b',
    `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH_RE}\\.?(?:,?\\s+(\\d{4}))?\\b`,
    `\\b${MONTH_RE}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?\\b`,
    '\\b(?:(next|this|on|by|before|until)\\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\\b',
    // today / tomorrow also in German, French, Spanish, Italian, Dutch and Portuguese ("Guten Morgen" and "esta
    // mañana" are greetings and mornings, not tomorrow).
    "\\b(today|tonight|tomorrow|end of (?:the )?(?:day|week|month)|eod|eow|next week|heute|aujourd'hui|hoy|oggi|vandaag|hoje|demain|domani|amanh[ãa]|(?<!(?:la|esta|de) )ma[ñn]ana|(?<!guten |goede )morgen)(?![A-Za-z\\u00C0-\\u024F])",
  ].join('|'),
  'gi',
);

const TODAY_WORDS = new Set(['today', 'tonight', 'heute', "aujourd'hui", 'hoy', 'oggi', 'vandaag', 'hoje']);
const TOMORROW_WORDS = new Set(['tomorrow', 'demain', 'domani', 'amanhã', 'amanha', 'mañana', 'manana', 'morgen']);

const ymd = (d: Date) => d.toISOString().slice(0, 10);

function resolve(m: RegExpExecArray, base: Date): string | null {
  const day = (n: number) => new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate() + n));
  if (m[1]) return `${m[1]}-${m[2]}-${m[3]}`;
  const monthDay = (mon: string, d: string, y: string | undefined) => {
    const mi = MONTHS.indexOf(mon.slice(0, 3).toLowerCase());
    let year = y ? Number(y) : base.getUTCFullYear();
    // "March 3" written in November means next March.
    if (!y && Date.UTC(year, mi, Number(d)) < day(-31).getTime()) year += 1;
    const dt = new Date(Date.UTC(year, mi, Number(d)));
    return dt.getUTCMonth() === mi ? ymd(dt) : null;
  };
  if (m[5]) return monthDay(m[5], m[4]!, m[6]);
  if (m[7]) return monthDay(m[7], m[8]!, m[9]);
  if (m[11]) {
    const target = DAYS.indexOf(m[11].toLowerCase());
    let diff = (target - base.getUTCDay() + 7) % 7;
    if (diff === 0 || m[10]?.toLowerCase() === 'next') diff += diff === 0 ? 7 : 0;
    return ymd(day(diff));
  }
  const w = m[12]!.toLowerCase();
  if (TODAY_WORDS.has(w) || w === 'eod' || w === 'end of day' || w === 'end of the day') return ymd(day(0));
  if (TOMORROW_WORDS.has(w)) return ymd(day(1));
  if (w === 'next week') return ymd(day(7));
  if (w.includes('week') || w === 'eow') return ymd(day((5 - base.getUTCDay() + 7) % 7));
  if (w.includes('month')) return ymd(new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, 0)));
  return null;
}

export function datesIn(text: string, baseMs: number | null): FoundDate[] {
  return datesInSentences(sentences(text), baseMs);
}

/** datesIn on sentences already split (at most 50 dates). */
export function datesInSentences(ss: string[], baseMs: number | null): FoundDate[] {
  const base = new Date(baseMs ?? Date.now());
  const out: FoundDate[] = [];
  for (const s of ss) {
    DATE_RE.lastIndex = 0;
    for (let m = DATE_RE.exec(s); m; m = DATE_RE.exec(s)) {
      if (out.length >= 50) return out;
      out.push({ text: m[0], date: resolve(m, base), sentence: s });
    }
  }
  return out;
}

export const isQuestion = (s: string): boolean => /\?\s*$/.test(s) || /^(could|can|would|will) you\b/i.test(s);
const ACTION = /\b(please|could you|can you|need(?:s|ed)? to|deadline|due|asap|by (?:the )?end|let me know|confirm|send|review|approve)\b/i;

export interface Summary {
  summary: string;
  keyPoints: string[];
  questions: Array<{ text: string; from: string; messageIndex: number }>;
  dates: FoundDate[];
  participants: string[];
}

export function summarize(messages: WsMessage[]): Summary {
  const participants = [...new Set(messages.flatMap((m) => [m.from, ...m.to]).filter(Boolean))];
  const keyPoints: string[] = [];
  const questions: Summary['questions'] = [];
  const dates: FoundDate[] = [];
  messages.forEach((m, i) => {
    const ss = sentences(m.text);
    const lead = ss.find((s) => !isPleasantry(s));
    if (lead && keyPoints.length < 20) keyPoints.push(`${m.fromName || m.from || 'someone'}: ${lead}`);
    for (const s of ss) {
      if (isQuestion(s) && questions.length < 30) questions.push({ text: s, from: m.from, messageIndex: i });
      else if (s !== lead && ACTION.test(s) && keyPoints.length < 20) keyPoints.push(`${m.fromName || m.from || 'someone'}: ${s}`);
    }
    for (const d of datesIn(m.text, m.date)) if (dates.length < 30) dates.push(d);
  });
  const subject = messages.find((m) => m.subject)?.subject ?? '(no subject)';
  const last = messages.at(-1);
  const open = questions.filter((q) => !answeredLater(q, messages));
  const parts = [
    `${messages.length} message${messages.length === 1 ? '' : 's'} about "${subject}" between ${participants.slice(0, 5).join(', ') || 'unknown senders'}.`,
    last ? `Latest from ${last.fromName || last.from || 'someone'}: ${withStop(leadSentence(sentences(last.text)) ?? '(no text)')}` : '',
    open.length ? `${open.length} open question${open.length === 1 ? '' : 's'}.` : '',
    dates.length ? `Dates mentioned: ${[...new Set(dates.map((d) => d.date ?? d.text))].slice(0, 5).join(', ')}.` : '',
  ];
  return { summary: parts.filter(Boolean).join(' '), keyPoints, questions, dates, participants };
}

/** A question counts as answered when a later message comes from someone else. */
function answeredLater(q: { from: string; messageIndex: number }, messages: WsMessage[]): boolean {
  return messages.slice(q.messageIndex + 1).some((m) => m.from !== q.from);
}

const STOP = new Set(
  'a an and are as at be by can could do does for from have how i if in is it me my of on or our please the this to we what when where which who why will with would you your yes no'.split(
    ' ',
  ),
);
export const words = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP.has(w)));

function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

export interface Draft {
  to: string | null;
  subject: string;
  text: string;
  answered: Array<{ question: string; answer: string }>;
  unanswered: string[];
  confidence: number;
}

/**
 * Replies to the newest inbound message. A question is answered from the caller's notes, or else from a statement
 * of our earlier mail in the thread that shares its key words; every other question is named as still open.
 */
export function draftReply(messages: WsMessage[], notes: string[] = []): Draft {
  const inbound = messages.filter((m) => m.direction === 'inbound');
  const target = inbound.at(-1) ?? messages.at(-1);
  const subject = target ? (/^re:/i.test(target.subject) ? target.subject : `Re: ${target.subject || '(no subject)'}`) : 'Re:';
  const facts = [
    ...notes.flatMap((n) => sentences(n)),
    ...messages.filter((m) => m.direction === 'outbound').flatMap((m) => sentences(m.text).filter((s) => !isQuestion(s))),
  ];
  const questions = target ? sentences(target.text).filter(isQuestion) : [];
  const answered: Draft['answered'] = [];
  const unanswered: string[] = [];
  for (const q of questions.slice(0, 10)) {
    const qw = words(q);
    let best: string | null = null;
    let score = 1;
    for (const f of facts) {
      const n = overlap(qw, words(f));
      if (n > score) [best, score] = [f, n];
    }
    if (best) answered.push({ question: q, answer: best });
    else unanswered.push(q);
  }
  const name = target?.fromName?.split(/\s+/)[0] || '';
  const dates = target ? [...new Set(datesIn(target.text, target.date).map((d) => d.text))].slice(0, 3) : [];
  const lines = [`Hi${name ? ` ${name}` : ''},`, '', `Thank you for your message about "${target?.subject || 'your request'}".`];
  if (answered.length) lines.push('', ...answered.map((a) => `- ${a.question} ${a.answer}`));
  if (dates.length) lines.push('', `Noted: ${dates.join(', ')}.`);
  if (unanswered.length)
    lines.push('', 'I do not have an answer yet for:', ...unanswered.map((q) => `- ${q}`), 'I will come back to you on these.');
  if (!questions.length && !answered.length) lines.push('', 'I have received it and will follow up if anything else is needed.');
  lines.push('', 'Best regards');
  const confidence = questions.length ? Math.round((answered.length / Math.min(questions.length, 10)) * 100) / 100 : 0.9;
  return { to: target?.from || null, subject, text: lines.join('\n'), answered, unanswered, confidence };
}
