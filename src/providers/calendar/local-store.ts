// The local calendar's tables (migration 017), typed here so the calendar stays one self-contained module, and the
// merge of one invitation (METHOD REQUEST / PUBLISH / CANCEL) into the stored event by UID and SEQUENCE.
import ICAL from 'ical.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { parseCalendar } from './ics.ts';

export interface LocalEventRow {
  id: string;
  team_id: string;
  /** The inbox id, or '' for events created through the API (one UID per inbox: the same invitation may reach several). */
  inbox_key: string;
  inbox_id: string | null;
  /** Who may see it: the inbox's label (invitations) or the creating key's label prefix; null = the whole team. */
  scope_label: string | null;
  uid: string;
  sequence: number;
  status: 'confirmed' | 'cancelled';
  source: 'invitation' | 'created';
  message_id: string | null;
  /** The event's VEVENTs; VTIMEZONEs too in rows written before migration 019 (zones_id null). */
  ics: string;
  /** The invitation's VTIMEZONEs, stored once in calendar_local_zones (migration 019); null: none or in `ics`. */
  zones_id: string | null;
  /** Why expansion of this event failed for any range (remembered, so later reads skip it cheaply); null: fine. */
  skip_reason: string | null;
  summary: string;
  /** Bounds for the range query (expansion decides exactly): earliest start, latest end or null when unbounded. */
  first_start: number;
  last_end: number | null;
  created_at: number;
  updated_at: number;
}

/** What a merge needs of a stored event (plain data: it is handed to the sandbox). */
export type StoredEvent = Pick<LocalEventRow, 'ics' | 'sequence' | 'status' | 'summary' | 'first_start' | 'last_end'> & {
  /** The row's VTIMEZONEs (a VCALENDAR holding only them) when stored apart. */
  zones?: string | null;
};

export type CalendarTables = {
  calendar_local_events: LocalEventRow;
  calendar_local_zones: { team_id: string; id: string; ics: string; created_at: number };
  calendar_sync: { team_id: string; cursor_at: number; updated_at: number };
  calendar_seen: {
    team_id: string;
    message_id: string;
    idx: number;
    inbox_id: string | null;
    scope_label: string | null;
    outcome: string;
    reason: string | null;
    at: number;
  };
};

export type CalDb = Kysely<Database & CalendarTables>;
export const calDb = (db: Kysely<Database>): CalDb => db.withTables<CalendarTables>();

type Comp = InstanceType<typeof ICAL.Component>;

/** Slack around stored bounds: floating times are read in the viewer's zone, at most ±14 h from UTC. */
const SLACK = 14 * 3600_000;
/** An event (all its instances merged) or its time zones may not grow past this: a part is at most as large. */
export const MAX_STORED = 1024 * 1024;

/** What one calendar part does to the stored events. */
export interface Change {
  uid: string;
  /** New iCalendar text and state, or null: nothing to store (see outcome/reason). */
  next: {
    /** The VEVENTs only (a VCALENDAR without VTIMEZONEs). */
    ics: string;
    /** The VTIMEZONEs the event uses, apart (a VCALENDAR holding only them), or null. */
    zones: string | null;
    sequence: number;
    status: 'confirmed' | 'cancelled';
    summary: string;
    firstStart: number;
    lastEnd: number | null;
  } | null;
  outcome: 'added' | 'updated' | 'cancelled' | 'stale' | 'skipped';
  reason: string | null;
}

function bounds(comps: Comp[]): { firstStart: number; lastEnd: number | null } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let open = false;
  for (const c of comps) {
    const ev = new ICAL.Event(c);
    if (!ev.startDate) continue;
    // Wall time read as UTC, widened by SLACK below, brackets the instant whatever the zone.
    const s = Date.UTC(ev.startDate.year, ev.startDate.month - 1, ev.startDate.day, ev.startDate.hour, ev.startDate.minute);
    const e = ev.endDate
      ? Date.UTC(ev.endDate.year, ev.endDate.month - 1, ev.endDate.day, ev.endDate.hour, ev.endDate.minute)
      : s + 86_400_000;
    first = Math.min(first, s);
    last = Math.max(last, e);
    if (c.hasProperty('rrule') || c.hasProperty('rdate')) open = true;
  }
  if (first === Number.POSITIVE_INFINITY) throw new Error('no VEVENT with a DTSTART');
  return { firstStart: first - SLACK, lastEnd: open ? null : last + SLACK };
}

const seqOf = (comps: Comp[]) => Math.max(0, ...comps.map((c) => Number(c.getFirstPropertyValue('sequence') ?? 0) || 0));
const ridOf = (c: Comp) => c.getFirstPropertyValue('recurrence-id')?.toString() ?? null;

function vcalendar(children: Comp[]): string {
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.addPropertyWithValue('prodid', '-//inboxd//local calendar//EN');
  cal.addPropertyWithValue('version', '2.0');
  for (const c of children) cal.addSubcomponent(c);
  return cal.toString();
}

/** VTIMEZONEs as one VCALENDAR (one per TZID, the first wins), or null when there are none. */
function zonesText(zones: Comp[]): string | null {
  const seen = new Map<string, Comp>();
  for (const z of zones) {
    const id = String(z.getFirstPropertyValue('tzid') ?? '');
    if (!seen.has(id)) seen.set(id, z);
  }
  return seen.size ? vcalendar([...seen.values()]) : null;
}

/** The event's VEVENTs, and its VTIMEZONEs apart: stored once per invitation, not once per event. */
function calendarOf(zones: Comp[] | string | null, comps: Comp[]): { ics: string; zones: string | null } {
  const ics = vcalendar(comps);
  const zoneText = Array.isArray(zones) ? zonesText(zones) : zones;
  if (ics.length > MAX_STORED || (zoneText?.length ?? 0) > MAX_STORED)
    throw new Error(`the event would grow past ${MAX_STORED} bytes (its instances and time zones together)`);
  return { ics, zones: zoneText };
}

/**
 * The changes one calendar part (a text/calendar body or .ics file) makes, given the stored rows of its UIDs.
 * Never throws: malformed data is one `skipped` change with the reason.
 */
export function changesOf(text: string, stored: (uid: string) => StoredEvent | undefined): Change[] {
  let cal: Comp;
  try {
    cal = parseCalendar(text);
  } catch (e) {
    return [{ uid: '', next: null, outcome: 'skipped', reason: `malformed iCalendar: ${(e as Error).message.slice(0, 200)}` }];
  }
  const method = String(cal.getFirstPropertyValue('method') ?? 'PUBLISH').toUpperCase();
  if (!['REQUEST', 'PUBLISH', 'CANCEL', 'ADD'].includes(method))
    return [{ uid: '', next: null, outcome: 'skipped', reason: `METHOD:${method} is not an invitation or cancellation` }];
  const zones = cal.getAllSubcomponents('vtimezone');
  const byUid = new Map<string, Comp[]>();
  for (const v of cal.getAllSubcomponents('vevent')) {
    const uid = v.getFirstPropertyValue('uid');
    if (typeof uid !== 'string' || uid === '') continue;
    byUid.set(uid, [...(byUid.get(uid) ?? []), v]);
  }
  if (byUid.size === 0) return [{ uid: '', next: null, outcome: 'skipped', reason: 'no VEVENT with a UID' }];
  const out: Change[] = [];
  const partZones = { comps: zones, text: zonesText(zones) };
  for (const [uid, comps] of byUid) {
    try {
      out.push(changeOf(method, uid, partZones, comps, stored(uid)));
    } catch (e) {
      out.push({ uid, next: null, outcome: 'skipped', reason: `malformed event: ${(e as Error).message.slice(0, 200)}` });
    }
  }
  return out;
}

function changeOf(
  method: string,
  uid: string,
  part: { comps: Comp[]; text: string | null },
  comps: Comp[],
  old: StoredEvent | undefined,
): Change {
  const zones = part.comps;
  const seq = seqOf(comps);
  if (old && seq < old.sequence)
    return { uid, next: null, outcome: 'stale', reason: `SEQUENCE ${seq} is older than the stored ${old.sequence}` };
  const hasMaster = comps.some((c) => ridOf(c) === null);
  const oldCal = old ? parseCalendar(old.ics) : null;
  const oldComps = oldCal?.getAllSubcomponents('vevent') ?? [];
  const oldZones = [
    ...(oldCal?.getAllSubcomponents('vtimezone') ?? []),
    ...(old?.zones ? parseCalendar(old.zones).getAllSubcomponents('vtimezone') : []),
  ];
  const summaryOf = (cs: Comp[]) =>
    String((cs.find((c) => ridOf(c) === null) ?? cs[0])?.getFirstPropertyValue('summary') ?? '(no title)').slice(0, 500);
  if (method === 'CANCEL') {
    if (!old) return { uid, next: null, outcome: 'skipped', reason: `cancellation of an event this calendar does not have (UID ${uid})` };
    if (hasMaster) return { uid, next: { ...keep(old), sequence: seq, status: 'cancelled' }, outcome: 'cancelled', reason: null };
    // One instance cancelled: stored as an override with STATUS:CANCELLED, which expansion leaves out.
    for (const c of comps) c.updatePropertyWithValue('status', 'CANCELLED');
    const merged = [...oldComps.filter((o) => !comps.some((c) => ridOf(c) === ridOf(o))), ...comps];
    return {
      uid,
      next: { ...keep(old), ...calendarOf([...oldZones, ...zones], merged), sequence: Math.max(seq, old.sequence) },
      outcome: 'cancelled',
      reason: null,
    };
  }
  // REQUEST with the master replaces the event; one with only instances updates those instances.
  const merged = hasMaster ? comps : [...oldComps.filter((o) => !comps.some((c) => ridOf(c) === ridOf(o))), ...comps];
  const b = bounds(merged);
  const cancelled = String(merged.find((c) => ridOf(c) === null)?.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
  return {
    uid,
    next: {
      ...calendarOf(hasMaster ? part.text : [...oldZones, ...zones], merged),
      sequence: Math.max(seq, old?.sequence ?? 0),
      status: cancelled ? 'cancelled' : 'confirmed',
      summary: summaryOf(merged),
      firstStart: b.firstStart,
      lastEnd: b.lastEnd,
    },
    outcome: old ? 'updated' : 'added',
    reason: null,
  };
}

function keep(old: StoredEvent) {
  return {
    ics: old.ics,
    zones: old.zones ?? null,
    sequence: old.sequence,
    status: old.status,
    summary: old.summary,
    firstStart: old.first_start,
    lastEnd: old.last_end,
  };
}
