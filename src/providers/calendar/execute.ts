// svc_workspace_execute_calendar_event: an event created under the workspace policy (CONTRACT §13), in the named
// account, the team's only account, or the local calendar. draft_only creates nothing and logs the proposal as a
// `draft` action; auto_send_safe creates only when every check passes (no conflict in the target calendar, the start
// is in the future, and every attendee passes the recipient rules replies use) and logs `blocked` with the reasons
// otherwise; full_auto creates unless a hard recipient rule fails. A created event is logged as a `sent` action.
import type { Principal } from '../../auth/principal.ts';
import type { ServedDomains } from '../../domains/served.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { type Check, RULES, type RuleContext } from '../../workspace/rules.ts';
import type { WorkspaceService } from '../../workspace/service.ts';
import type { PolicyMode } from '../../workspace/tables.ts';
import { overlaps } from './schedule.ts';
import type { CalendarProvider, Occurrence } from './types.ts';
import { isoInZone } from './tz.ts';

export interface EventRequest {
  accountId?: string | undefined;
  calendarId?: string | undefined;
  title: string;
  start: string;
  end: string;
  timeZone?: string | undefined;
  attendees?: string[] | undefined;
  description?: string | undefined;
  location?: string | undefined;
}

export interface EventResult {
  outcome: 'created' | 'drafted' | 'blocked';
  mode: PolicyMode;
  reasons: string[];
  checks: Check[];
  accountId: string;
  provider: string;
  calendarId: string | null;
  eventId: string | null;
  url: string | null;
  event: { title: string; start: string; end: string; startLocal: string; endLocal: string; timeZone: string; attendees: string[] };
  conflicts: Array<{ title: string; start: string; end: string; calendarId: string }>;
  actionId: string;
}

/** Recipient rules of replies that also apply to the people an event invites. */
const RECIPIENT_RULES = ['not_role_or_noreply', 'recipient_domain_allowed'];

/** What creating an event under the policy needs: the workspace's policy and log, the served domains, the target. */
export interface EventDeps {
  workspace: Pick<WorkspaceService, 'policy' | 'logAction'>;
  served: Pick<ServedDomains, 'isServed'>;
  now: () => number;
  /** The provider an event is created in (CalendarService.targetFor). */
  target: (p: Principal, accountId: string | undefined) => Promise<CalendarProvider>;
}

export async function executeCalendarEvent(s: EventDeps, p: Principal, req: EventRequest): Promise<EventResult> {
  const policy = await s.workspace.policy(p);
  const target = await s.target(p, req.accountId);
  const tz = req.timeZone ?? 'UTC';
  const startMs = Date.parse(req.start);
  const endMs = Date.parse(req.end);
  const attendees = [...new Set((req.attendees ?? []).map((a) => a.trim().toLowerCase()))];
  const now = s.now();

  const checks: Check[] = [];
  const hard = new Set<string>();
  // A calendar that cannot be read is a failed check, not an error: draft_only still records the proposal, and
  // auto_send_safe blocks rather than book blind.
  let conflicts: Occurrence[] = [];
  let unreadable: string | null = null;
  try {
    const listed = await target.listEvents(
      { startMs, endMs },
      { timeZone: tz, calendarIds: req.calendarId ? [req.calendarId] : undefined },
    );
    conflicts = listed.events.filter((e) => e.busy && overlaps(e, { startMs, endMs }));
  } catch (e) {
    unreadable = (e as Error).message.slice(0, 300);
  }
  checks.push(
    unreadable !== null
      ? { rule: 'no_conflict', passed: false, detail: `the target calendar could not be read to check: ${unreadable}` }
      : conflicts.length
        ? {
            rule: 'no_conflict',
            passed: false,
            detail: `overlaps ${conflicts.length} event(s) in the target calendar: ${conflicts
              .slice(0, 3)
              .map((c) => `"${c.title}" ${isoInZone(c.startMs, tz)}`)
              .join(', ')}`,
          }
        : { rule: 'no_conflict', passed: true, detail: 'nothing else is booked then in the target calendar' },
  );
  checks.push(
    startMs > now
      ? { rule: 'starts_in_future', passed: true, detail: 'the event starts in the future' }
      : { rule: 'starts_in_future', passed: false, detail: 'the event starts in the past' },
  );
  const settings = policy.settings;
  for (const name of RECIPIENT_RULES) {
    const rule = RULES.find((r) => r.name === name);
    if (!rule) continue;
    if (rule.hard) hard.add(name);
    const failed = attendees
      .map((to) =>
        rule.check({
          reply: { to, text: '', attachmentCount: 0 },
          isServedDomain: (d: string) => s.served.isServed(d),
          settings,
        } as unknown as RuleContext),
      )
      .filter((r) => !r.passed);
    checks.push(
      failed.length
        ? { rule: name, passed: false, detail: failed.map((f) => f.detail).join('; ') }
        : { rule: name, passed: true, detail: attendees.length ? `all ${attendees.length} attendee(s) pass` : 'no attendees' },
    );
  }

  const event = {
    title: req.title,
    start: new Date(startMs).toISOString(),
    end: new Date(endMs).toISOString(),
    startLocal: isoInZone(startMs, tz),
    endLocal: isoInZone(endMs, tz),
    timeZone: tz,
    attendees,
  };
  const base = {
    mode: policy.mode,
    checks,
    accountId: target.accountId,
    provider: target.provider,
    event,
    conflicts: conflicts.map((c) => ({
      title: c.title,
      start: new Date(c.startMs).toISOString(),
      end: new Date(c.endMs).toISOString(),
      calendarId: c.calendarId,
    })),
  };
  const note = (what: string) => `calendar_event ${what}: ${JSON.stringify({ account: target.accountId, ...event }).slice(0, 1800)}`;

  let outcome: EventResult['outcome'];
  let reasons: string[];
  if (policy.mode === 'draft_only') {
    outcome = 'drafted';
    reasons = ['policy mode is draft_only: the event is proposed (logged as a draft action), not created'];
  } else {
    const failing = checks.filter((c) => !c.passed && (policy.mode === 'auto_send_safe' || hard.has(c.rule)));
    outcome = failing.length ? 'blocked' : 'created';
    reasons = failing.length
      ? failing.map((c) => `${c.rule}: ${c.detail}`)
      : [`policy mode ${policy.mode}: ${policy.mode === 'full_auto' ? 'every hard rule' : 'every check'} passed`];
  }
  if (outcome !== 'created') {
    const a = await s.workspace.logAction(p, { type: outcome === 'drafted' ? 'draft' : 'blocked', note: note('proposed'), reasons });
    return { ...base, outcome, reasons, calendarId: req.calendarId ?? null, eventId: null, url: null, actionId: a.id };
  }
  const created = await target.createEvent({
    uid: `${randomBase62(24)}@inboxd`,
    title: req.title,
    startMs,
    endMs,
    timeZone: req.timeZone ?? null,
    description: req.description ?? null,
    location: req.location ?? null,
    attendees,
    organizer: null,
    calendarId: req.calendarId,
  });
  const a = await s.workspace.logAction(p, { type: 'sent', note: note(`created ${created.eventId}`), reasons });
  return { ...base, outcome, reasons, calendarId: created.calendarId, eventId: created.eventId, url: created.url, actionId: a.id };
}
