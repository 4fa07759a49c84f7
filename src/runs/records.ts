// What a run reads from and records into the store: the timeline's inbox and mail events (from each message's
// stored extraction, so nothing depends on who was listening when mail arrived), the timeline as shown (masked
// again) and its page cursors, a service's newest code mail, and narrowed access tokens. Each takes the run repository it works on.
import { TOKEN_TTL_SECONDS } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { hashSecret, newTokenSecret } from '../auth/secrets.ts';
import { decodeCursor } from '../lib/cursor.ts';
import { newId } from '../lib/ids.ts';
import { MASK, maskSecrets, maskSubject, type Run, type RunServiceEntry } from './model.ts';
import type { NewEvent, RunEventRow, RunMail, RunRepo } from './repo.ts';

/** Mail events recorded per read, newest first (older mail was recorded by earlier reads). */
const TIMELINE_MAIL_LIMIT = 2000;

/** Records inbox and mail events of the run's inboxes that the timeline does not have yet. */
export async function syncTimeline(repo: RunRepo, run: Run): Promise<void> {
  const inboxes = await repo.inboxes(run.teamId, run.label);
  const mail = await repo.mail(
    inboxes.map((i) => i.id),
    TIMELINE_MAIL_LIMIT,
  );
  const known = await repo.knownRefs(run.id);
  const serviceOf = (inboxId: string) => run.services.find((x) => x.inboxId === inboxId)?.name ?? null;
  const events: NewEvent[] = [];
  for (const i of inboxes) if (!known.has(`inbox:${i.id}`)) events.push(inboxEvent(run, i));
  for (const m of mail.toReversed()) {
    const base = { messageId: m.id, inboxId: m.inbox_id, service: serviceOf(m.inbox_id) };
    if (!known.has(`msg:${m.id}`))
      events.push({
        at: m.received_at,
        type: 'message.received',
        ref: `msg:${m.id}`,
        // A code in the subject ("123456 is your code") is masked like the code.extracted event's.
        data: { ...base, from: m.from_address, subject: maskSubject(m.subject, m.otp) },
      });
    if ((m.otp || m.primary_link) && !known.has(`code:${m.id}`))
      events.push({
        at: m.received_at,
        type: 'code.extracted',
        ref: `code:${m.id}`,
        // The timeline is for review and is shared with sub-agents; the code itself stays on the message.
        data: { ...base, otp: m.otp ? MASK : null, linkHost: m.primary_link ? hostOf(m.primary_link) : null },
      });
  }
  await repo.record(run.id, events);
}

export function inboxEvent(run: Run, i: { id: string; address: string; created_at: number }): NewEvent {
  const service = run.services.find((x) => x.inboxId === i.id)?.name ?? null;
  return { at: i.created_at, type: 'inbox.created', ref: `inbox:${i.id}`, data: { inboxId: i.id, address: i.address, service } };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** The newest mail of a service's inbox that has a code or link, past any the service rejected. */
export async function codeMailOf(
  repo: RunRepo,
  svc: RunServiceEntry,
): Promise<{ newest: RunMail | null; withCode: RunMail | null; count: number }> {
  if (!svc.inboxId) return { newest: null, withCode: null, count: 0 };
  const rows = await repo.inboxMail(svc.inboxId, svc.afterSeq, 200);
  return { newest: rows[0] ?? null, withCode: rows.find((m) => m.otp || m.primary_link) ?? null, count: rows.length };
}

/** An access token narrowed to a label prefix (a run's label): its holder sees that run and its inboxes only. */
export async function issueNarrowToken(
  repo: RunRepo,
  p: Principal,
  labelPrefix: string,
  now: number,
): Promise<{ token: string; expiresIn: number }> {
  const token = newTokenSecret();
  await repo.insertToken({
    id: newId('tok'),
    key_id: p.keyId,
    token_hash: hashSecret(token),
    created_at: now,
    expires_at: now + TOKEN_TTL_SECONDS * 1000,
    label_prefix: labelPrefix,
  });
  return { token, expiresIn: TOKEN_TTL_SECONDS };
}

export async function recordAccessIssued(repo: RunRepo, p: Principal, run: Run, expiresIn: number, now: number): Promise<void> {
  await repo.record(run.id, [{ at: now, type: 'access.issued', data: { labelPrefix: run.label, expiresIn, readOnly: p.scope.readOnly } }]);
}

/** An event of the timeline as shown. */
export interface TimelineItem {
  seq: number;
  at: number;
  type: string;
  stepId: string | null;
  data: Record<string, unknown>;
}

/** A timeline page's cursor: the last event's time and id (`a`, `i`), opaque to clients (src/lib/cursor.ts). */
type TimelineCursor = { a: number; i: number };
const isTimelineCursor = (v: unknown): v is TimelineCursor =>
  typeof v === 'object' && v !== null && typeof (v as TimelineCursor).a === 'number' && typeof (v as TimelineCursor).i === 'number';

/** The cursor that continues a timeline page after `e` (encoded by pageOf). */
export const timelineCursorOf = (e: TimelineItem): TimelineCursor => ({ a: e.at, i: e.seq });

/** Reads a timeline cursor; 400 validation_failed when this server did not issue it. */
export const decodeTimelineCursor = (cursor: string | undefined): TimelineCursor | undefined => decodeCursor(cursor, isTimelineCursor);

/**
 * A page of the run's timeline, oldest first, after `after` (its last event's time and id). Masked when shown
 * too, so events recorded before the masking rule grew show no more than new ones.
 */
export async function timelinePage(
  repo: RunRepo,
  run: Run,
  limit: number,
  after: { at: number; id: number } | undefined,
): Promise<TimelineItem[]> {
  const rows = await repo.events(run.id, limit, after);
  const codes = await repo.codesOf(rows.flatMap((e) => (e.type === 'message.received' ? codeMailOfEvent(e.data_json) : [])));
  return rows.map((e: RunEventRow) => ({
    seq: e.id,
    at: e.at,
    type: e.type,
    stepId: e.step_id,
    data: timelineData(e.type, JSON.parse(e.data_json) as Record<string, unknown>, codes),
  }));
}

/** The message of a mail event whose subject could carry a code (it has a digit). */
function codeMailOfEvent(json: string): string[] {
  const d = JSON.parse(json) as { messageId?: unknown; subject?: unknown };
  return typeof d.messageId === 'string' && typeof d.subject === 'string' && /\d/.test(d.subject) ? [d.messageId] : [];
}

function timelineData(type: string, data: Record<string, unknown>, codes: Map<string, string | null>): Record<string, unknown> {
  const out = { ...data };
  if (data.metadata !== undefined) out.metadata = maskSecrets(data.metadata);
  if (type === 'message.received' && typeof data.subject === 'string')
    out.subject = maskSubject(data.subject, codes.get(String(data.messageId)) ?? null);
  return out;
}
