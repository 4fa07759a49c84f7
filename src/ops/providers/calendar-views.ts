// Shapes shared by the calendar operations: inputs (time range, zone, working hours, accounts) and views of events,
// intervals and sources. Every field is described for a model; GET inputs accept query strings (numbers coerced,
// lists as repeated keys or comma-separated).
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { SourcedEvent } from '../../providers/calendar/gather.ts';
import type { Interval, WorkingHours } from '../../providers/calendar/schedule.ts';
import { isKnownZone, isoInZone } from '../../providers/calendar/tz.ts';

export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isKnownZone, 'unknown time zone: use an IANA name such as Europe/Berlin, America/New_York or UTC')
  .default('UTC')
  .describe('IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC');

export const Instant = z.iso.datetime({ offset: true });

const List = (item: z.ZodString, what: string) =>
  z
    .union([item, z.array(item).max(50)])
    .optional()
    .describe(what);

export const AccountIds = List(
  z.string().min(1).max(64),
  'Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all',
);
export const CalendarIds = List(
  z.string().min(1).max(1000),
  'Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar',
);

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'HH:MM, 24-hour');
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

export const WorkingHoursInput = {
  workdayStart: HHMM.default('09:00').describe('Working hours start, local HH:MM in timeZone (default 09:00)'),
  workdayEnd: HHMM.default('17:00').describe('Working hours end, local HH:MM in timeZone (default 17:00)'),
  workDays: List(z.string().max(40), 'Working days: mon,tue,wed,thu,fri,sat,sun as a list or comma-separated (default mon-fri)'),
};

export function listOf(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const out = (Array.isArray(v) ? v : [v])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
  return out.length ? out : undefined;
}

export function workingHoursOf(i: { workdayStart: string; workdayEnd: string; workDays?: string | string[] | undefined }): WorkingHours {
  if (i.workdayEnd <= i.workdayStart)
    throw new AppError('validation_failed', `workdayEnd ${i.workdayEnd} must be after workdayStart ${i.workdayStart}`, {
      errors: [{ path: 'workdayEnd', message: 'not after workdayStart' }],
    });
  const names = listOf(i.workDays) ?? ['mon', 'tue', 'wed', 'thu', 'fri'];
  const days = names.map((n) => {
    const d = DAYS.indexOf(n.toLowerCase().slice(0, 3) as (typeof DAYS)[number]);
    if (d < 0)
      throw new AppError('validation_failed', `workDays: "${n}" is not a weekday (mon … sun)`, {
        errors: [{ path: 'workDays', message: 'unknown weekday' }],
      });
    return d;
  });
  return { start: i.workdayStart, end: i.workdayEnd, days: [...new Set(days)] };
}

/** timeMin/timeMax → a range, checked (end after start, at most `maxDays`). */
export function rangeOf(timeMin: string, timeMax: string, maxDays: number): Interval {
  const startMs = Date.parse(timeMin);
  const endMs = Date.parse(timeMax);
  if (endMs <= startMs)
    throw new AppError('validation_failed', 'timeMax must be after timeMin', {
      errors: [{ path: 'timeMax', message: 'not after timeMin' }],
    });
  if (endMs - startMs > maxDays * 86_400_000)
    throw new AppError('validation_failed', `the range may span at most ${maxDays} days; ask for it in parts`, {
      errors: [{ path: 'timeMax', message: `more than ${maxDays} days after timeMin` }],
    });
  return { startMs, endMs };
}

const Attendee = z.object({
  email: z.string(),
  name: z.string().nullable(),
  response: z.string().nullable().describe('accepted, declined, tentative, needs-action, or null'),
});

export const EventView = z.object({
  accountId: z.string().describe('"local" or the connected account (pac_…) the event comes from'),
  provider: z.enum(['local', 'caldav', 'google']),
  calendarId: z.string(),
  eventId: z.string().describe('Provider event id (local cev_…, CalDAV object URL, Google event id)'),
  uid: z.string().describe('iCalendar UID (the same meeting has the same UID in every calendar)'),
  title: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  start: z.string().describe('Start instant, UTC ISO 8601'),
  end: z.string().describe('End instant, UTC ISO 8601'),
  startLocal: z.string().describe('Start in the requested timeZone, ISO 8601 with offset'),
  endLocal: z.string().describe('End in the requested timeZone, ISO 8601 with offset'),
  timeZone: z.string().describe('The requested time zone'),
  allDay: z.boolean(),
  startDate: z.string().nullable().describe('All-day events: first date (YYYY-MM-DD)'),
  endDate: z.string().nullable().describe('All-day events: the date after the last day (exclusive)'),
  eventTimeZone: z.string().nullable().describe('The zone the event was written in (TZID), if any'),
  organizer: z.string().nullable(),
  attendees: z.array(Attendee),
  status: z.enum(['confirmed', 'tentative', 'cancelled']),
  busy: z.boolean().describe('False for events marked free (transparent)'),
  recurring: z.boolean(),
  recurrenceId: z.string().nullable().describe('Recurring events: the original start of this instance (UTC)'),
  inboxId: z.string().nullable().optional().describe('Local calendar: the inbox the invitation arrived in'),
  messageId: z.string().nullable().optional().describe('Local calendar: the message that carried the invitation'),
});

export function eventView(e: SourcedEvent, tz: string): z.infer<typeof EventView> {
  return {
    accountId: e.accountId,
    provider: e.provider as 'local' | 'caldav' | 'google',
    calendarId: e.calendarId,
    eventId: e.eventId,
    uid: e.uid,
    title: e.title,
    description: e.description,
    location: e.location,
    start: new Date(e.startMs).toISOString(),
    end: new Date(e.endMs).toISOString(),
    startLocal: isoInZone(e.startMs, tz),
    endLocal: isoInZone(e.endMs, tz),
    timeZone: tz,
    allDay: e.allDay,
    startDate: e.startDate,
    endDate: e.endDate,
    eventTimeZone: e.eventTimeZone,
    organizer: e.organizer,
    attendees: e.attendees,
    status: e.status,
    busy: e.busy,
    recurring: e.recurring,
    recurrenceId: e.recurrenceId,
    ...(e.inboxId !== undefined ? { inboxId: e.inboxId } : {}),
    ...(e.messageId !== undefined ? { messageId: e.messageId } : {}),
  };
}

export const IntervalView = z.object({
  start: z.string().describe('UTC ISO 8601'),
  end: z.string().describe('UTC ISO 8601'),
  startLocal: z.string().describe('In the requested timeZone'),
  endLocal: z.string().describe('In the requested timeZone'),
  minutes: z.number(),
});

export function intervalView(x: Interval, tz: string): z.infer<typeof IntervalView> {
  return {
    start: new Date(x.startMs).toISOString(),
    end: new Date(x.endMs).toISOString(),
    startLocal: isoInZone(x.startMs, tz),
    endLocal: isoInZone(x.endMs, tz),
    minutes: Math.round((x.endMs - x.startMs) / 60_000),
  };
}

export const SourceView = z
  .array(
    z.object({
      accountId: z.string(),
      provider: z.string(),
      ok: z.boolean(),
      error: z.string().nullable().describe('Why this calendar is missing from the answer'),
    }),
  )
  .describe('Every calendar account read, and whether it answered');

export const Warnings = z
  .array(z.string())
  .describe('Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts');
