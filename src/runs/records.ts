// What a run reads from and records into the store: the timeline's inbox and mail events (from each message's
// stored extraction, so nothing depends on who was listening when mail arrived), a service's newest code mail,
// and narrowed access tokens.
import { TOKEN_TTL_SECONDS } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { hashSecret, newTokenSecret } from '../auth/secrets.ts';
import { newId } from '../lib/ids.ts';
import type { Services } from '../services.ts';
import { MASK, maskSubject, type Run, type RunService } from './model.ts';
import { RunRepo, type NewEvent, type RunMail } from './repo.ts';

const repos = new WeakMap<object, RunRepo>();
export function runRepo(s: Services): RunRepo {
  let r = repos.get(s.store);
  if (!r) repos.set(s.store, (r = new RunRepo(s.store.db)));
  return r;
}

/** Mail events recorded per read, newest first (older mail was recorded by earlier reads). */
const TIMELINE_MAIL_LIMIT = 2000;

/** Records inbox and mail events of the run's inboxes that the timeline does not have yet. */
export async function syncTimeline(s: Services, run: Run): Promise<void> {
  const repo = runRepo(s);
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
  s: Services,
  svc: RunService,
): Promise<{ newest: RunMail | null; withCode: RunMail | null; count: number }> {
  if (!svc.inboxId) return { newest: null, withCode: null, count: 0 };
  const rows = await runRepo(s).inboxMail(svc.inboxId, svc.afterSeq, 200);
  return { newest: rows[0] ?? null, withCode: rows.find((m) => m.otp || m.primary_link) ?? null, count: rows.length };
}

/** An access token narrowed to a label prefix (a run's label): its holder sees that run and its inboxes only. */
export async function issueNarrowToken(s: Services, p: Principal, labelPrefix: string): Promise<{ token: string; expiresIn: number }> {
  const now = s.clock.now();
  const token = newTokenSecret();
  await runRepo(s).insertToken({
    id: newId('tok'),
    key_id: p.keyId,
    token_hash: hashSecret(token),
    created_at: now,
    expires_at: now + TOKEN_TTL_SECONDS * 1000,
    label_prefix: labelPrefix,
  });
  return { token, expiresIn: TOKEN_TTL_SECONDS };
}

export async function recordAccessIssued(s: Services, p: Principal, run: Run, expiresIn: number): Promise<void> {
  await runRepo(s).record(run.id, [
    { at: s.clock.now(), type: 'access.issued', data: { labelPrefix: run.label, expiresIn, readOnly: p.scope.readOnly } },
  ]);
}
