// Reminder suggestions (never stored): threads waiting on the other side (we wrote last and nobody answered
// after a while), questions to us left open, and deadlines mentioned in the text.
import { datesIn, isQuestion, sentences } from './builtin.ts';
import type { WsMessage } from './source.ts';

export interface Suggestion {
  kind: 'follow_up' | 'needs_reply' | 'deadline';
  dueAt: number;
  note: string;
  messageId: string | null;
  threadId: string | null;
  why: string;
}

export const FOLLOW_UP_HOURS = 48;
export const NEEDS_REPLY_HOURS = 24;

/** One conversation's suggestions; `messages` oldest first. */
export function suggestFor(messages: WsMessage[], now: number): Suggestion[] {
  const last = messages.at(-1);
  if (!last) return [];
  const out: Suggestion[] = [];
  const subject = last.subject || '(no subject)';
  const at = last.date ?? now;
  const ref = { messageId: last.id, threadId: last.threadId };
  if (last.direction === 'outbound') {
    out.push({
      kind: 'follow_up',
      dueAt: Math.max(now + 60_000, at + FOLLOW_UP_HOURS * 3600_000),
      note: `Follow up on "${subject}": no answer from ${last.to.join(', ') || 'the recipient'} yet`,
      why: `we wrote last (${new Date(at).toISOString()}) and nobody has answered since`,
      ...ref,
    });
  } else {
    const open = sentences(last.text).filter(isQuestion);
    if (open.length)
      out.push({
        kind: 'needs_reply',
        dueAt: Math.max(now + 60_000, at + NEEDS_REPLY_HOURS * 3600_000),
        note: `Answer ${last.fromName || last.from}: ${open[0]}${open.length > 1 ? ` (+${open.length - 1} more)` : ''}`,
        why: `${open.length} question${open.length === 1 ? '' : 's'} to us with no reply after it`,
        ...ref,
      });
  }
  const seen = new Set<string>();
  for (const m of messages)
    for (const d of datesIn(m.text, m.date)) {
      if (!d.date || seen.has(d.date)) continue;
      const day = Date.parse(`${d.date}T09:00:00Z`);
      if (day <= now) continue;
      seen.add(d.date);
      out.push({
        kind: 'deadline',
        // a day ahead of the date, so there is time to act; never in the past
        dueAt: Math.max(now + 60_000, day - 24 * 3600_000),
        note: `Due ${d.date} (${d.text}): ${d.sentence.slice(0, 200)}`,
        why: `"${d.text}" is mentioned in mail from ${m.from || 'someone'}`,
        messageId: m.id,
        threadId: m.threadId,
      });
      if (out.length >= 20) return out;
    }
  return out;
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
