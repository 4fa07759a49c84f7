// Reminder suggestions (never stored), read from the whole conversation: threads waiting on the other side (we wrote
// last and nobody answered), questions to us left open anywhere in the thread, promises made by either side ("I will
// … tomorrow", "we'll send it by Monday") and deadlines in the text — a date that has passed is suggested as overdue
// rather than dropped. Every date is resolved against the date of the message that names it, never against now.
import { datesIn, datesInSentences, isQuestion, sentences, words } from './builtin.ts';
import type { WsMessage } from './source.ts';

export interface Suggestion {
  kind: 'follow_up' | 'needs_reply' | 'deadline';
  /** When to be reminded: never in the past (an overdue item is due now), so it can be saved as it is. */
  dueAt: number;
  note: string;
  messageId: string | null;
  threadId: string | null;
  why: string;
  /** The date (or the answer time) has passed without the thread showing it was met. */
  overdue: boolean;
  /** YYYY-MM-DD the text named (a deadline or a promise's date), resolved against its message's date. */
  date: string | null;
  /** A promise: made by us (`ours`: we owe it) or by them (`theirs`: check it came). */
  promise: 'ours' | 'theirs' | null;
}

export const FOLLOW_UP_HOURS = 48;
export const NEEDS_REPLY_HOURS = 24;
/** A promise without a date is due this long after the message that made it. */
export const PROMISE_HOURS = 48;
const HOUR = 3600_000;
const MAX_ITEMS = 20;

const letters = '\\p{L}\\p{N}';
const phrases = (list: string[]) => new RegExp(`(?<![${letters}'’])(?:${list.join('|')})(?![${letters}])`, 'iu');

/** A commitment to do something later, in the languages whose today/tomorrow the date reader knows. */
const PROMISE = phrases([
  // English: I will / I'll / we shall / I am going to …, and "you will have it by …"
  "(?:i|we)(?:\\s+(?:will|shall|am going to|are going to)|['’]ll)\\s+(?!not\\b|never\\b)\\p{L}+",
  "you(?:['’]ll|\\s+will)\\s+(?:have|receive|get)\\s+(?:it|them|the)",
  // German
  '(?:ich|wir)\\s+(?:werde|werden|schicke|schicken|sende|senden|melde|melden|kümmere|kümmern|zahle|zahlen)',
  '(?:melde|melden)\\s+(?:mich|uns)',
  // French
  '(?:je|nous)\\s+(?:vais|allons|reviens|revenons|reviendrai|reviendrons|ferai|ferons|enverrai|enverrons|paierai|paierons)',
  'je\\s+(?:vous|te)\\s+(?:envoie|enverrai|confirme|confirmerai|recontacte|rappelle)',
  "(?:j['’]envoie|j['’]enverrai|je\\s+m['’]en\\s+occupe)",
  // Spanish
  '(?:voy|vamos)\\s+a',
  '(?:te|le|les|os)\\s+(?:lo\\s+|la\\s+)?(?:envío|envio|enviaré|confirmo|confirmaré|escribo|escribiré|pago|pagaré)',
  '(?:enviaré|enviaremos|confirmaré|confirmaremos|pagaré|pagaremos)',
  // Italian
  '(?:ti|le|vi)\\s+(?:lo\\s+|la\\s+)?(?:mando|manderò|invio|invierò|confermo|confermerò|scrivo|scriverò|farò sapere)',
  '(?:manderò|manderemo|invierò|invieremo|pagherò|pagheremo)',
  // Dutch
  '(?:ik|we|wij)\\s+(?:zal|zullen|ga|gaan|stuur|sturen|betaal|betalen|kom\\s+erop\\s+terug)',
  // Portuguese
  '(?:vou|vamos)\\s+(?:enviar|mandar|verificar|confirmar|responder|pagar)',
  '(?:enviarei|enviaremos|confirmarei|pagarei|retorno)',
]);
/** Putting an answer off: "I will check and get back to you", "let me look into it". Not an answer to a question. */
const DEFERRAL = phrases([
  'get back to (?:you|u)',
  'come back to you',
  'let you know',
  "(?:i|we)(?:\\s+will|['’]ll)\\s+(?:check|look|see|find out|confirm later|revert)",
  'let me (?:check|look|see|find out)',
  'look(?:ing)? into',
  'melde(?:n)?\\s+(?:mich|uns)',
  'reviens vers vous',
  'te (?:aviso|confirmo)',
  'farò sapere',
  'kom\\s+erop\\s+terug',
]);
/** A reply that answers outright. */
const DIRECT =
  /^(?:yes|yeah|yep|no|nope|sure|of course|certainly|absolutely|done|confirmed|correct|agreed|ok|okay|fine|sorry|ja|nein|oui|non|sí|si|não|nee)\b/i;
/** A later message saying the thing was done. */
const DONE = phrases([
  'paid',
  'sent',
  'done',
  'signed',
  'transferred',
  'completed',
  'submitted',
  'attached',
  'delivered',
  'erledigt',
  'bezahlt',
  'überwiesen',
  'geschickt',
  'payé',
  'envoyé',
  'pagado',
  'enviado',
  'pagato',
  'inviato',
  'betaald',
  'verstuurd',
  'pago',
]);
/** A date in such a sentence is a deadline (by, before, until, due …), not just a date mentioned. */
const DEADLINE = phrases([
  'by',
  'before',
  'until',
  'due',
  'deadline',
  'no later than',
  'latest',
  'bis',
  'spätestens',
  'avant',
  "jusqu['’]à",
  'antes de',
  'hasta',
  'entro',
  'uiterlijk',
  'até',
]);

// A crude stem, so "book" meets "booked" and "invoice" meets "invoices".
const stem = (w: string) => w.slice(0, 4);
const stemsOf = (s: string) => new Set([...words(s)].map(stem));

/**
 * What is read of one message, once per suggestion: its first 20,000 characters and 200 sentences. Reminders come
 * from what a person wrote; the bound keeps an inbox's 200 conversations of strangers' mail cheap on the main thread.
 */
const MAX_CHARS = 20_000;
const MAX_SENTENCES = 200;
const MAX_PER_MESSAGE = 10;
const MAX_QUESTIONS = 20;

/** What the rest of the thread needs to know about one message, computed once: linear in the thread. */
interface Reading {
  sentences: string[];
  /** A statement (not a question or deferral) answers outright: yes, no, sure, done … */
  direct: boolean;
  /** The key-word stems of its statements that are neither questions nor deferrals. */
  stems: Set<string>;
  /** It does something: a statement that is neither a question, a deferral nor a new promise. */
  delivers: boolean;
  /** It says something was done (paid, sent, signed …). */
  done: boolean;
}

function read(m: WsMessage): Reading {
  const ss = sentences(m.text.slice(0, MAX_CHARS)).slice(0, MAX_SENTENCES);
  const r: Reading = { sentences: ss, direct: false, stems: new Set(), delivers: false, done: false };
  for (const x of ss) {
    if (isQuestion(x)) continue;
    const promise = PROMISE.test(x);
    if (DONE.test(x) && !promise) r.done = true;
    if (DEFERRAL.test(x)) continue;
    if (!promise) r.delivers = true;
    if (DIRECT.test(x)) r.direct = true;
    for (const w of stemsOf(x)) r.stems.add(w);
  }
  return r;
}

/** A later message answers a question (its stems): a statement, not a deferral, replies outright or on its topic. */
function answers(reply: Reading, question: Set<string>): boolean {
  if (reply.direct) return true;
  for (const w of question) if (reply.stems.has(w)) return true;
  return false;
}

const dayStart = (ymd: string) => Date.parse(`${ymd}T09:00:00Z`);
const dayEnd = (ymd: string) => Date.parse(`${ymd}T23:59:59Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One conversation's suggestions; `messages` oldest first. */
export function suggestFor(messages: WsMessage[], now: number): Suggestion[] {
  const last = messages.at(-1);
  if (!last) return [];
  const out: Suggestion[] = [];
  const soon = now + 60_000;
  // Who "we" are: the messages the inbox (or `me`) wrote. Without any, each side is whoever did not write the message.
  const known = messages.some((m) => m.direction === 'outbound');
  const ours = (m: WsMessage) => m.direction === 'outbound';
  const otherSide = (a: WsMessage, b: WsMessage) => (known ? ours(a) !== ours(b) : a.from !== b.from);
  const sameSide = (a: WsMessage, b: WsMessage) => (known ? ours(a) === ours(b) : a.from === b.from);
  const who = (m: WsMessage) => m.fromName || m.from || 'someone';
  const when = (m: WsMessage) => m.date ?? now;
  const readings = messages.map(read);
  const add = (s: Omit<Suggestion, 'dueAt'> & { due: number }) => {
    const { due, ...rest } = s;
    out.push({ ...rest, dueAt: Math.max(soon, due) });
  };

  if (ours(last)) {
    const due = when(last) + FOLLOW_UP_HOURS * HOUR;
    add({
      kind: 'follow_up',
      due,
      note: `Follow up on "${last.subject || '(no subject)'}": no answer from ${last.to.join(', ') || 'the recipient'} yet`,
      why: `we wrote last (${iso(when(last))}) and nobody has answered since`,
      messageId: last.id,
      threadId: last.threadId,
      overdue: due <= now,
      date: null,
      promise: null,
    });
  }

  // Questions to us, anywhere in the thread, that no later message of ours answered (a deferral is no answer).
  messages.forEach((m, i) => {
    if (ours(m)) return;
    const later = readings.slice(i + 1).filter((_, k) => otherSide(messages[i + 1 + k]!, m));
    const asked = readings[i]!.sentences.filter(isQuestion).slice(0, MAX_QUESTIONS);
    const open = asked.filter((q) => {
      const stems = stemsOf(q);
      return !later.some((x) => answers(x, stems));
    });
    if (!open.length) return;
    const due = when(m) + NEEDS_REPLY_HOURS * HOUR;
    add({
      kind: 'needs_reply',
      due,
      note: `Answer ${who(m)}: ${clip(open[0]!)}${open.length > 1 ? ` (+${open.length - 1} more)` : ''}`,
      why: `${open.length} question${open.length === 1 ? '' : 's'} to us (${iso(when(m))}) with no answer in a later message of ours${later.length ? ' (a reply that only puts it off does not count)' : ''}`,
      messageId: m.id,
      threadId: m.threadId,
      overdue: due <= now,
      date: null,
      promise: null,
    });
  });

  // Promises by either side, and deadlines; a date in a promise belongs to the promise.
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    const later = messages.slice(i + 1).map((x, k) => ({ m: x, r: readings[i + 1 + k]! }));
    const promised = readings[i]!.sentences.filter((s) => !isQuestion(s) && PROMISE.test(s)).slice(0, MAX_PER_MESSAGE);
    for (const s of promised) {
      const date = datesIn(s, m.date).find((d) => d.date)?.date ?? null;
      seen.add(`${m.id ?? i}:${s}`);
      if (later.some((x) => sameSide(x.m, m) && x.r.delivers)) continue;
      const dueDay = date ? dayEnd(date) : when(m) + PROMISE_HOURS * HOUR;
      const overdue = dueDay < now;
      const mine = known && ours(m);
      const by = date ? ` by ${date}` : '';
      add({
        kind: mine ? 'deadline' : 'follow_up',
        // ours: on the day, to do it; theirs: the day after, to check it came
        due: overdue ? now : date ? (mine ? dayStart(date) : dayStart(date) + 24 * HOUR) : dueDay,
        note: mine
          ? `${overdue ? 'Overdue: you' : 'You'} promised${by}: "${clip(s)}"`
          : `${overdue ? 'Overdue: ' : ''}${who(m)} promised${by}: "${clip(s)}" — check it came`,
        why: `a promise in mail from ${who(m)} (${iso(when(m))})${date ? `, "${date}" resolved against that date` : `, due ${PROMISE_HOURS} h after it`}${overdue ? `; it has passed and no later message ${mine ? 'of ours' : 'of theirs'} delivered it` : ''}`,
        messageId: m.id,
        threadId: m.threadId,
        overdue,
        date,
        promise: mine ? 'ours' : 'theirs',
      });
    }
    for (const d of datesInSentences(readings[i]!.sentences, m.date)) {
      if (!d.date || seen.has(d.date) || seen.has(`${m.id ?? i}:${d.sentence}`)) continue;
      const end = dayEnd(d.date);
      if (end >= now) {
        seen.add(d.date);
        add({
          kind: 'deadline',
          // a day ahead of the date, so there is time to act
          due: dayStart(d.date) - 24 * HOUR,
          note: `Due ${d.date} (${d.text}): ${clip(d.sentence)}`,
          why: `"${d.text}" is mentioned in mail from ${m.from || 'someone'}`,
          messageId: m.id,
          threadId: m.threadId,
          overdue: false,
          date: d.date,
          promise: null,
        });
        continue;
      }
      // A past date is overdue when it was a deadline ("by Friday") set for after its message, and no later message
      // of the other side says it was done (paid, sent, signed …).
      const isDeadline = DEADLINE.test(d.text) || DEADLINE.test(d.sentence);
      const fromMessage = m.date === null || end >= m.date;
      const met = later.some((x) => otherSide(x.m, m) && x.r.done);
      if (!isDeadline || !fromMessage || met) continue;
      seen.add(d.date);
      add({
        kind: 'deadline',
        due: now,
        note: `Overdue since ${d.date} (${d.text}): ${clip(d.sentence)}`,
        why: `"${d.text}" in mail from ${who(m)} (${iso(when(m))}) is ${d.date}, which has passed, and no later message says it was done`,
        messageId: m.id,
        threadId: m.threadId,
        overdue: true,
        date: d.date,
        promise: null,
      });
    }
  });
  // Overdue first, then soonest.
  return out.sort((a, b) => Number(b.overdue) - Number(a.overdue) || a.dueAt - b.dueAt).slice(0, MAX_ITEMS);
}

/** Stored mail without threads: conversations by thread id, else by base subject. */
export function conversations(messages: WsMessage[]): WsMessage[][] {
  const groups = new Map<string, WsMessage[]>();
  for (const m of messages) {
    const k =
      m.threadId ??
      `subj:${m.subject
        .replace(/^((re|fwd?|aw|sv|wg)\s*:\s*)+/i, '')
        .trim()
        .toLowerCase()}`;
    const g = groups.get(k);
    if (g) g.push(m);
    else groups.set(k, [m]);
  }
  return [...groups.values()];
}
