// The calendar's sandbox tasks (src/workers/sandbox-tasks.ts runs them in a worker thread under a time budget): everything
// whose cost the sender of an invitation or the owner of a remote calendar controls — parsing their iCalendar text
// and expanding their recurrence rules. Pure functions of structured-clonable data; imported only by the worker.
import { expandCalendar, type Failure, parseCalendar, zonesOf } from './ics.ts';
import { type Change, changesOf, type StoredEvent } from './local-store.ts';
import { type ExpandLimits, StepMeter } from './meter.ts';
import type { Occurrence, Range } from './types.ts';

export interface ExpandItem {
  eventId: string;
  ics: string;
  /** Key into ExpandInput.zones (VTIMEZONEs stored once per invitation), or null. */
  zonesId: string | null;
  /** The event's UID when the caller knows it (named in a warning when the object is skipped). */
  uid?: string;
}

export interface ExpandInput {
  items: ExpandItem[];
  zones: Record<string, string>;
  range: Range;
  timeZone: string;
  calendarId: string;
  limits: ExpandLimits;
}

export interface ExpandOutput {
  events: Occurrence[];
  warnings: string[];
  failed: Failure[];
  /** Items left unexpanded because the read's shared allowance (instances, steps) ran out. */
  notExpanded: string[];
}

/** Expands calendar objects one after another under one meter: the per-read caps hold across them. */
export function expandMany(input: ExpandInput): ExpandOutput {
  const meter = new StepMeter(input.limits);
  const out: ExpandOutput = { events: [], warnings: [], failed: [], notExpanded: [] };
  // Each time-zone set is parsed once per read, however many events use it.
  const zones = new Map<string, ReturnType<typeof zonesOf> | null>();
  const zonesFor = (id: string | null) => {
    if (!id) return null;
    if (!zones.has(id)) {
      let z: ReturnType<typeof zonesOf> | null = null;
      try {
        const text = input.zones[id];
        if (text) z = zonesOf(text);
      } catch {
        out.warnings.push(`the stored time zones ${id.slice(0, 12)} are unreadable; times that use them are read as UTC`);
      }
      zones.set(id, z);
    }
    return zones.get(id) ?? null;
  };
  for (const [i, item] of input.items.entries()) {
    const x = expandCalendar(
      item.ics,
      input.range,
      {
        timeZone: input.timeZone,
        calendarId: input.calendarId,
        eventId: item.eventId,
        zones: zonesFor(item.zonesId),
      },
      meter,
    );
    out.events.push(...x.events);
    out.warnings.push(...x.warnings);
    out.failed.push(...x.failed);
    if (x.exhausted || meter.instancesLeft <= 0) {
      out.notExpanded.push(...input.items.slice(x.exhausted ? i : i + 1).map((it) => it.eventId));
      break;
    }
  }
  return out;
}

/** The UIDs of one calendar part, to fetch their stored rows; a part that does not parse has none. */
export function calendarUids(input: { text: string }): string[] {
  try {
    const uids = parseCalendar(input.text)
      .getAllSubcomponents('vevent')
      .map((v) => v.getFirstPropertyValue('uid'));
    return [...new Set(uids.filter((u): u is string => typeof u === 'string' && u !== ''))];
  } catch {
    return [];
  }
}

export interface ChangesOutput {
  /** Each distinct VTIMEZONE set once (a 275 KB block is not copied per event); changes point into it. */
  zoneSets: string[];
  changes: Array<Omit<Change, 'next'> & { next: (Omit<NonNullable<Change['next']>, 'zones'> & { zones: number | null }) | null }>;
}

/** changesOf (src/providers/calendar/local-store.ts) for one part, with its time-zone sets interned. */
export function calendarChanges(input: { text: string; stored: Record<string, StoredEvent> }): ChangesOutput {
  const changes = changesOf(input.text, (uid) => (Object.hasOwn(input.stored, uid) ? input.stored[uid] : undefined));
  const index = new Map<string, number>();
  const zoneSets: string[] = [];
  return {
    zoneSets,
    changes: changes.map((c) => {
      if (!c.next) return { ...c, next: null };
      const z = c.next.zones;
      let n: number | null = null;
      if (z !== null) {
        n = index.get(z) ?? zoneSets.length;
        if (n === zoneSets.length) {
          zoneSets.push(z);
          index.set(z, n);
        }
      }
      return { ...c, next: { ...c.next, zones: n } };
    }),
  };
}
