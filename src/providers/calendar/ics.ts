// iCalendar (RFC 5545) with ical.js: one calendar object → the occurrences inside a range, recurring events expanded
// (RRULE, RDATE, EXDATE, RECURRENCE-ID overrides). Times are converted here, not by ical.js's global timezone
// registry: an IANA TZID through Intl (src/providers/calendar/tz.ts), else the VTIMEZONE in the data, else UTC with a
// warning. Floating times and all-day dates are read in the caller's time zone. Bad data is a warning, never a throw.
// Expansion is bounded by construction (src/providers/calendar/meter.ts): instances per event and per read, steps per
// rule; callers run it in the sandbox (src/providers/calendar/expand.ts) so even a bug here cannot block the server.
import ICAL from 'ical.js';
import { DEFAULT_LIMITS, type ExpandLimits, fastForwardSeconds, metered, RuleStop, StepMeter } from './meter.ts';
import type { Attendee, Listed, Occurrence, Range } from './types.ts';
import { isKnownZone, startOfDate, wallToUtc } from './tz.ts';

type Comp = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;
type Zone = InstanceType<typeof ICAL.Timezone>;

/** Occurrences examined per recurring event at most: a daily rule from decades ago stays bounded. */
const MAX_ITERATIONS = 20_000;

export interface ExpandOptions {
  timeZone: string;
  calendarId: string;
  eventId: string;
  /** VTIMEZONEs stored apart from the event (migration 019), parsed once per read by zonesOf. */
  zones?: Map<string, Zone> | null;
}

/** An event left out of an answer, and whether that holds for any range (`permanent`: remembered by the caller). */
export interface Failure {
  eventId: string;
  uid: string | null;
  reason: string;
  permanent: boolean;
}

export interface Expanded extends Listed {
  failed: Failure[];
  /** The read's shared allowance ran out (instances or steps): later calendar objects were not expanded. */
  exhausted: boolean;
}

export function parseCalendar(text: string): Comp {
  const c = new ICAL.Component(ICAL.parse(text));
  if (c.name !== 'vcalendar') throw new Error(`expected BEGIN:VCALENDAR, found ${c.name.toUpperCase()}`);
  return c;
}

function zonesIn(cal: Comp): Map<string, Zone> {
  const out = new Map<string, Zone>();
  for (const vtz of cal.getAllSubcomponents('vtimezone')) {
    const id = vtz.getFirstPropertyValue('tzid');
    if (typeof id === 'string') out.set(id, new ICAL.Timezone(vtz));
  }
  return out;
}

/** The time zones of a VCALENDAR that holds only VTIMEZONEs (stored apart, see migration 019). Throws on bad data. */
export const zonesOf = (text: string): Map<string, Zone> => zonesIn(parseCalendar(text));

const mail = (v: unknown) =>
  typeof v === 'string'
    ? v
        .replace(/^mailto:/i, '')
        .trim()
        .toLowerCase()
    : null;

class Converter {
  readonly zones: Map<string, Zone>;
  readonly warnings = new Set<string>();
  private readonly viewTz: string;
  private readonly where: string;
  constructor(cal: Comp, viewTz: string, where: string, apart: Map<string, Zone> | null) {
    this.viewTz = viewTz;
    this.where = where;
    this.zones = apart ? new Map(apart) : new Map();
    for (const [id, z] of zonesIn(cal)) this.zones.set(id, z);
  }

  /** A DATE-TIME (with the TZID its property carried) → UTC ms. */
  ms(t: Time, tzid: string | null): number {
    if (t.isDate) return startOfDate(t.toString().slice(0, 10), this.viewTz);
    if (t.zone?.tzid === 'UTC' || t.zone === ICAL.Timezone.utcTimezone) return t.toUnixTime() * 1000;
    const wall = { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second };
    if (!tzid) return wallToUtc(wall, this.viewTz);
    if (isKnownZone(tzid)) return wallToUtc(wall, tzid);
    const z = this.zones.get(tzid);
    if (z) {
      try {
        return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) - z.utcOffset(t) * 1000;
      } catch {
        // a VTIMEZONE ical.js cannot use: fall through to UTC
      }
    }
    this.warnings.add(`${this.where}: time zone "${tzid}" is unknown (not an IANA name, no usable VTIMEZONE); its times were read as UTC`);
    return wallToUtc(wall, 'UTC');
  }
}

const tzidOf = (c: Comp, prop: string): string | null => {
  const p = c.getFirstProperty(prop);
  const v = p?.getParameter('tzid');
  return typeof v === 'string' ? v : null;
};

function attendeesOf(c: Comp): Attendee[] {
  return c.getAllProperties('attendee').flatMap((p) => {
    const email = mail(p.getFirstValue());
    if (!email) return [];
    const cn = p.getParameter('cn');
    const ps = p.getParameter('partstat');
    return [{ email, name: typeof cn === 'string' ? cn : null, response: typeof ps === 'string' ? ps.toLowerCase() : null }];
  });
}

function statusOf(c: Comp): Occurrence['status'] {
  const s = String(c.getFirstPropertyValue('status') ?? '').toUpperCase();
  return s === 'CANCELLED' ? 'cancelled' : s === 'TENTATIVE' ? 'tentative' : 'confirmed';
}

const str = (c: Comp, p: string): string | null => {
  const v = c.getFirstPropertyValue(p);
  return typeof v === 'string' && v !== '' ? v : null;
};

/** The occurrences of every VEVENT of one calendar object that overlap the range. */
export function expandCalendar(text: string, range: Range, o: ExpandOptions, meter = new StepMeter(DEFAULT_LIMITS)): Expanded {
  const failed: Failure[] = [];
  const fail = (uid: string | null, reason: string, permanent: boolean, warning: string): Expanded => {
    failed.push({ eventId: o.eventId, uid, reason, permanent });
    return { events: [], warnings: [warning], failed, exhausted: false };
  };
  let cal: Comp;
  try {
    cal = parseCalendar(text);
  } catch (e) {
    const why = `malformed iCalendar (${(e as Error).message.slice(0, 200)})`;
    return fail(null, why, true, `skipped ${o.eventId}: ${why}`);
  }
  const conv = new Converter(cal, o.timeZone, o.eventId, o.zones ?? null);
  const events: Occurrence[] = [];
  const byUid = new Map<string, Comp[]>();
  for (const v of cal.getAllSubcomponents('vevent')) {
    const uid = str(v, 'uid') ?? o.eventId;
    byUid.set(uid, [...(byUid.get(uid) ?? []), v]);
  }
  let exhausted = false;
  for (const [uid, comps] of byUid) {
    if (meter.instancesLeft <= 0) {
      exhausted = true;
      break;
    }
    meter.startEvent();
    try {
      metered(meter, () => expandOne(uid, comps, range, o, conv, events, meter));
    } catch (e) {
      const why = (e as Error).message.slice(0, 200);
      if (e instanceof RuleStop && e.kind === 'event') conv.warnings.add(`${o.eventId}: recurring event ${uid}: ${why}`);
      else if (e instanceof RuleStop && e.kind === 'read') {
        exhausted = true;
        break;
      } else {
        failed.push({ eventId: o.eventId, uid, reason: why, permanent: true });
        conv.warnings.add(`skipped event ${uid} in ${o.eventId}: ${why}`);
      }
    }
  }
  return { events, warnings: [...conv.warnings], failed, exhausted };
}

const wallMs = (t: Time) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/**
 * Moves DTSTART (and DTEND) of a master with one fixed-period RRULE forward by whole periods to just before the
 * range (see fastForwardSeconds), so the instances before the range are not generated one by one.
 */
function fastForward(master: Comp, range: Range, conv: Converter): void {
  const rules = master.getAllProperties('rrule');
  if (rules.length !== 1 || master.hasProperty('rdate')) return;
  const rule = rules[0]!.getFirstValue() as { freq: string; interval?: number; count?: number | null };
  const startProp = master.getFirstProperty('dtstart');
  const start = startProp?.getFirstValue() as Time | undefined;
  if (!startProp || !start || start.isDate) return;
  const tzid = tzidOf(master, 'dtstart');
  const endProp = master.getFirstProperty('dtend');
  const end = endProp?.getFirstValue() as Time | undefined;
  const startUtc = conv.ms(start, tzid);
  const endAt = new ICAL.Event(master).endDate;
  const duration = endAt ? Math.max(0, conv.ms(endAt, tzidOf(master, 'dtend') ?? tzid) - startUtc) : 0;
  // Wall time runs beside UTC at the offset DTSTART had; 3 h covers a DST change between DTSTART and the range.
  const target = range.startMs + (wallMs(start) - startUtc) - duration - 3 * 3600_000;
  const secs = fastForwardSeconds(rule, wallMs(start), target);
  if (secs <= 0) return;
  for (const [p, t] of [
    [startProp, start],
    [endProp, end],
  ] as const) {
    if (!p || !t || t.isDate) continue;
    const moved = t.clone();
    moved.adjust(Math.floor(secs / 86_400), 0, 0, secs % 86_400);
    p.setValue(moved);
  }
}

function expandOne(uid: string, comps: Comp[], range: Range, o: ExpandOptions, conv: Converter, out: Occurrence[], meter: StepMeter): void {
  const master = comps.find((c) => !c.hasProperty('recurrence-id'));
  const overrides = comps.filter((c) => c !== master);
  let mine = 0;
  const maxMine = meter.limits.maxEventInstances;
  const occurrence = (item: Comp, start: Time, end: Time, recurrenceId: Time | null, recurring: boolean): boolean => {
    if (statusOf(item) === 'cancelled') return true;
    const startMs = conv.ms(start, tzidOf(item, 'dtstart'));
    let endMs = conv.ms(end, tzidOf(item, item.hasProperty('dtend') ? 'dtend' : 'dtstart'));
    if (endMs < startMs) endMs = startMs;
    const inRange = endMs > startMs ? startMs < range.endMs && endMs > range.startMs : startMs >= range.startMs && startMs < range.endMs;
    if (!inRange) return true;
    if (mine >= maxMine || meter.instancesLeft <= 0) {
      conv.warnings.add(
        mine >= maxMine
          ? `${o.eventId}: recurring event ${uid} has more than ${maxMine} instances in the range; only the first ${maxMine} are listed (ask for a shorter range)`
          : `this read reached its limit of ${meter.limits.maxInstances} instances; later instances are missing (ask for a shorter range)`,
      );
      return false;
    }
    mine++;
    meter.instancesLeft--;
    const transp = String(item.getFirstPropertyValue('transp') ?? '').toUpperCase();
    out.push({
      uid,
      eventId: o.eventId,
      calendarId: o.calendarId,
      title: str(item, 'summary') ?? '(no title)',
      description: str(item, 'description'),
      location: str(item, 'location'),
      startMs,
      endMs,
      allDay: start.isDate,
      startDate: start.isDate ? start.toString().slice(0, 10) : null,
      endDate: start.isDate ? end.toString().slice(0, 10) : null,
      eventTimeZone: tzidOf(item, 'dtstart'),
      organizer: mail(item.getFirstPropertyValue('organizer')),
      attendees: attendeesOf(item),
      status: statusOf(item),
      busy: transp !== 'TRANSPARENT',
      recurring,
      recurrenceId: recurrenceId ? new Date(conv.ms(recurrenceId, tzidOf(master ?? item, 'dtstart'))).toISOString() : null,
    });
    return true;
  };
  if (!master) {
    for (const c of overrides) {
      const ev = new ICAL.Event(c);
      if (!occurrence(c, ev.startDate, ev.endDate, ev.recurrenceId ?? null, true)) return;
    }
    return;
  }
  if (statusOf(master) === 'cancelled') return;
  if (!master.getFirstPropertyValue('dtstart')) throw new Error('VEVENT without DTSTART');
  fastForward(master, range, conv);
  const ev = new ICAL.Event(master);
  for (const c of overrides) ev.relateException(new ICAL.Event(c));
  if (!ev.isRecurring()) {
    occurrence(master, ev.startDate, ev.endDate, null, false);
    return;
  }
  const tzid = tzidOf(master, 'dtstart');
  const it = ev.iterator();
  // Overrides may move an instance by up to a week and still land in the range.
  const stopAt = range.endMs + 7 * 86_400_000;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const next = it.next();
    meter.hit();
    if (!next) return;
    if (conv.ms(next, tzid) > stopAt) return;
    const d = ev.getOccurrenceDetails(next);
    if (!occurrence(d.item.component, d.startDate, d.endDate, d.recurrenceId, true)) return;
  }
  conv.warnings.add(`${o.eventId}: recurring event ${uid} was expanded only to its first ${MAX_ITERATIONS} occurrences`);
}

export type { ExpandLimits };

const utcStamp = (ms: number) => ICAL.Time.fromJSDate(new Date(ms), true);

/** A VCALENDAR with one VEVENT, times in UTC (read the same by every server). */
export function buildEvent(e: {
  uid: string;
  title: string;
  startMs: number;
  endMs: number;
  description: string | null;
  location: string | null;
  attendees: string[];
  organizer: string | null;
  now: number;
  method?: string;
}): string {
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.addPropertyWithValue('prodid', '-//inboxd//calendar//EN');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  if (e.method) cal.addPropertyWithValue('method', e.method);
  const v = new ICAL.Component('vevent');
  v.addPropertyWithValue('uid', e.uid);
  v.addPropertyWithValue('dtstamp', utcStamp(e.now));
  v.addPropertyWithValue('dtstart', utcStamp(e.startMs));
  v.addPropertyWithValue('dtend', utcStamp(e.endMs));
  v.addPropertyWithValue('summary', e.title);
  v.addPropertyWithValue('sequence', 0);
  if (e.description) v.addPropertyWithValue('description', e.description);
  if (e.location) v.addPropertyWithValue('location', e.location);
  if (e.organizer) v.addPropertyWithValue('organizer', `mailto:${e.organizer}`);
  for (const a of e.attendees) {
    const p = new ICAL.Property('attendee');
    p.setParameter('partstat', 'NEEDS-ACTION');
    p.setParameter('rsvp', 'TRUE');
    p.setValue(`mailto:${a}`);
    v.addProperty(p);
  }
  cal.addSubcomponent(v);
  return cal.toString();
}
