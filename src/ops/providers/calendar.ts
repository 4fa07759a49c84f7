// The calendar tools (CONTRACT §15, spec tool group "calendar"): accounts (src/ops/providers/calendar-accounts.ts) and reading — events, availability, conflicts, meeting suggestions, a day's agenda — over the local invitation calendar
// and every connected CalDAV / Google Calendar account. Logic lives in src/providers/calendar/ (CalendarService); these
// validate, call it and shape the answer in the asked time zone.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Interval } from '../../providers/calendar/schedule.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';
import { calendarAccountOps } from './calendar-accounts.ts';
import {
  AccountIds,
  CalendarIds,
  EventView,
  eventView,
  Instant,
  IntervalView,
  intervalView,
  listOf,
  rangeOf,
  SourceView,
  TimeZone,
  Warnings,
  WorkingHoursInput,
  workingHoursOf,
} from './calendar-views.ts';

const RangeInput = {
  timeMin: Instant.describe('Start of the range, ISO 8601 with offset, e.g. 2026-11-23T00:00:00Z'),
  timeMax: Instant.describe('End of the range (exclusive), ISO 8601 with offset'),
  timeZone: TimeZone,
  accountIds: AccountIds,
  calendarIds: CalendarIds,
};

/** What a calendar tool call reads: its range, time zone, and the accounts and calendars it names. */
function scopeOf(
  i: { timeZone: string; accountIds?: string | string[] | undefined; calendarIds?: string | string[] | undefined },
  range: Interval,
) {
  return { range, timeZone: i.timeZone, accountIds: listOf(i.accountIds), calendarIds: listOf(i.calendarIds) };
}

export const calendarListEventsOp = op({
  name: 'calendar.list_events',
  summary: 'List events in a time range (recurring events expanded)',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/events' },
  tool: {
    name: 'svc_calendar_list_events',
    description: 'List events between timeMin and timeMax across calendars, recurring ones expanded, sorted by start.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    ...RangeInput,
    maxResults: z.coerce.number().int().min(1).max(2500).default(250).describe('At most this many events (default 250)'),
  }),
  output: z.object({
    timeZone: z.string(),
    events: z.array(EventView),
    truncated: z.boolean().describe('More events matched than maxResults'),
    sources: SourceView,
    warnings: Warnings,
  }),
  async handler(ctx, i) {
    const range = rangeOf(i.timeMin, i.timeMax, 366);
    const g = await ctx.services.calendar.events(principal(ctx), scopeOf(i, range));
    return {
      timeZone: i.timeZone,
      events: g.events.slice(0, i.maxResults).map((e) => eventView(e, i.timeZone)),
      truncated: g.events.length > i.maxResults,
      sources: g.sources,
      warnings: g.warnings,
    };
  },
});

export const calendarAvailabilityOp = op({
  name: 'calendar.availability',
  summary: 'Free/busy over calendars: busy blocks and free slots in working hours',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/availability' },
  tool: {
    name: 'svc_calendar_availability',
    description: 'Busy blocks and free slots of at least durationMinutes in working hours between timeMin and timeMax.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    ...RangeInput,
    durationMinutes: z.coerce.number().int().min(5).max(1440).default(30).describe('Shortest free slot to list, minutes (default 30)'),
    ...WorkingHoursInput,
  }),
  output: z.object({
    timeZone: z.string(),
    busy: z.array(IntervalView),
    free: z.array(IntervalView),
    workingHours: z.object({ start: z.string(), end: z.string(), days: z.array(z.number()) }),
    complete: z.boolean().describe('False when some account could not be read (see sources): free time may not be free'),
    sources: SourceView,
    warnings: Warnings,
  }),
  async handler(ctx, i) {
    const range = rangeOf(i.timeMin, i.timeMax, 62);
    const wh = workingHoursOf(i);
    const a = await ctx.services.calendar.availability(principal(ctx), scopeOf(i, range), wh, i.durationMinutes * 60_000);
    return {
      timeZone: i.timeZone,
      busy: a.busy.map((x) => intervalView(x, i.timeZone)),
      free: a.free.map((x) => intervalView(x, i.timeZone)),
      workingHours: wh,
      complete: a.complete,
      sources: a.sources,
      warnings: a.warnings,
    };
  },
});

export const calendarCheckConflictsOp = op({
  name: 'calendar.check_conflicts',
  summary: 'Events overlapping a proposed slot',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/conflicts' },
  tool: {
    name: 'svc_calendar_check_conflicts',
    description: 'Check a proposed slot (start, end) against every calendar: the overlapping events, if any.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    start: Instant.describe('Proposed start, ISO 8601 with offset'),
    end: Instant.describe('Proposed end, ISO 8601 with offset'),
    timeZone: TimeZone,
    accountIds: AccountIds,
    calendarIds: CalendarIds,
  }),
  output: z.object({
    conflict: z.boolean(),
    conflicts: z.array(EventView),
    complete: z.boolean().describe('False when some account could not be read'),
    sources: SourceView,
    warnings: Warnings,
  }),
  async handler(ctx, i) {
    const range = rangeOf(i.start, i.end, 31);
    const c = await ctx.services.calendar.conflicts(principal(ctx), scopeOf(i, range));
    return {
      conflict: c.conflicts.length > 0,
      conflicts: c.conflicts.map((e) => eventView(e, i.timeZone)),
      complete: c.complete,
      sources: c.sources,
      warnings: c.warnings,
    };
  },
});

export const calendarSuggestOp = op({
  name: 'calendar.suggest_meeting',
  summary: 'Ranked meeting times free in every calendar',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/suggest' },
  tool: {
    name: 'svc_calendar_suggest_meeting',
    description: 'Suggest ranked free meeting slots of durationMinutes in working hours between timeMin and timeMax.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    ...RangeInput,
    durationMinutes: z.coerce.number().int().min(5).max(720).describe('Meeting length in minutes'),
    bufferBeforeMinutes: z.coerce.number().int().min(0).max(240).default(0).describe('Free minutes required before the meeting'),
    bufferAfterMinutes: z.coerce.number().int().min(0).max(240).default(0).describe('Free minutes required after the meeting'),
    count: z.coerce.number().int().min(1).max(50).default(5).describe('How many slots to return (default 5)'),
    stepMinutes: z.coerce.number().int().min(5).max(120).default(30).describe('Slots start on this grid of local minutes (default 30)'),
    ...WorkingHoursInput,
  }),
  output: z.object({
    timeZone: z.string(),
    slots: z.array(IntervalView.extend({ score: z.number(), reasons: z.array(z.string()) })),
    calendars: z.number().describe('How many calendars were checked'),
    complete: z.boolean(),
    sources: SourceView,
    warnings: Warnings,
  }),
  async handler(ctx, i) {
    const range = rangeOf(i.timeMin, i.timeMax, 62);
    const wh = workingHoursOf(i);
    const r = await ctx.services.calendar.suggestMeeting(principal(ctx), scopeOf(i, range), {
      wh,
      durationMs: i.durationMinutes * 60_000,
      bufferBeforeMs: i.bufferBeforeMinutes * 60_000,
      bufferAfterMs: i.bufferAfterMinutes * 60_000,
      count: i.count,
      stepMinutes: i.stepMinutes,
    });
    return {
      timeZone: i.timeZone,
      slots: r.slots.map((s) => ({ ...intervalView(s, i.timeZone), score: s.score, reasons: s.reasons })),
      calendars: r.calendars,
      complete: r.complete,
      sources: r.sources,
      warnings: r.warnings,
    };
  },
});

export const calendarAgendaOp = op({
  name: 'calendar.agenda',
  summary: "A day's events in order, with the gaps between them",
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/agenda' },
  tool: {
    name: 'svc_calendar_agenda',
    description: "A day's agenda: every event of that local day across calendars, and the free gaps in working hours.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    date: z.iso.date().optional().describe('The day, YYYY-MM-DD (default today in timeZone)'),
    timeZone: TimeZone,
    accountIds: AccountIds,
    calendarIds: CalendarIds,
    workdayStart: WorkingHoursInput.workdayStart,
    workdayEnd: WorkingHoursInput.workdayEnd,
  }),
  output: z.object({
    date: z.string(),
    timeZone: z.string(),
    dayStart: z.string().describe('Local midnight, UTC ISO'),
    dayEnd: z.string().describe('The next local midnight, UTC ISO'),
    hours: z.number().describe('Length of the day: 24, or 23/25 on a DST change'),
    events: z.array(EventView),
    gaps: z.array(IntervalView).describe('Free time between events inside working hours'),
    sources: SourceView,
    warnings: Warnings,
  }),
  async handler(ctx, i) {
    if (i.workdayEnd <= i.workdayStart)
      throw new AppError('validation_failed', 'workdayEnd must be after workdayStart', {
        errors: [{ path: 'workdayEnd', message: 'not after workdayStart' }],
      });
    const a = await ctx.services.calendar.agenda(principal(ctx), {
      ...i,
      accountIds: listOf(i.accountIds),
      calendarIds: listOf(i.calendarIds),
    });
    return {
      date: a.date,
      timeZone: i.timeZone,
      dayStart: new Date(a.range.startMs).toISOString(),
      dayEnd: new Date(a.range.endMs).toISOString(),
      hours: (a.range.endMs - a.range.startMs) / 3600_000,
      events: a.events.map((e) => eventView(e, i.timeZone)),
      gaps: a.gaps.map((x) => intervalView(x, i.timeZone)),
      sources: a.sources,
      warnings: a.warnings,
    };
  },
});

export const calendarOps = [
  ...calendarAccountOps,
  calendarListEventsOp,
  calendarAvailabilityOp,
  calendarCheckConflictsOp,
  calendarSuggestOp,
  calendarAgendaOp,
];
