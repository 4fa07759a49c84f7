// Time-zone arithmetic with Intl only (Node 24 has no Temporal): wall-clock time in an IANA zone ↔ UTC instants,
// correct across DST changes. A wall time that does not exist (spring gap) moves forward by the gap and a wall time
// that exists twice (autumn) is the earlier instant, as RFC 5545 §3.3.5 says for DATE-TIME with TZID.

export interface Wall {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True when Intl knows the zone (an IANA name such as Europe/Berlin, or UTC). */
export function isKnownZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** The wall-clock time (and weekday, 0 = Sunday) of an instant in a zone. */
export function wallOf(ms: number, tz: string): Wall & { weekday: number } {
  if (tz === 'UTC') {
    // The common zone needs no Intl (formatToParts is ~20 µs a call, and a read of 2,500 events makes 5,000).
    const d = new Date(ms);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      weekday: d.getUTCDay(),
    };
  }
  const parts: Record<string, string> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS[parts.weekday ?? 'Sun'] ?? 0,
  };
}

const wallMs = (w: Wall) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The zone's offset from UTC at an instant, in ms (east positive). */
export function offsetAt(ms: number, tz: string): number {
  const s = Math.floor(ms / 1000) * 1000;
  return wallMs(wallOf(s, tz)) - s;
}

/** The instant a wall-clock time in `tz` names (gap → shifted forward; overlap → the earlier instant). */
export function wallToUtc(w: Wall, tz: string): number {
  const guess = wallMs(w);
  const before = offsetAt(guess - 36 * 3600_000, tz);
  const after = offsetAt(guess + 36 * 3600_000, tz);
  const candidates = [guess - before, guess - after].filter((c) => wallMs(wallOf(c, tz)) === guess);
  if (candidates.length) return Math.min(...candidates);
  return guess - before; // in the gap: the offset in force before it, i.e. the time moves forward by the gap
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 with the zone's offset, e.g. 2026-10-25T10:00:00+01:00. */
export function isoInZone(ms: number, tz: string): string {
  const w = wallOf(ms, tz);
  const off = (wallMs(w) - Math.floor(ms / 1000) * 1000) / 60_000;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** YYYY-MM-DD of an instant in a zone. */
export function dateInZone(ms: number, tz: string): string {
  const w = wallOf(ms, tz);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** Local midnight of a calendar date (YYYY-MM-DD) in a zone. */
export function startOfDate(date: string, tz: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return wallToUtc({ year: y, month: m, day: d, hour: 0, minute: 0, second: 0 }, tz);
}

/** The next calendar date (YYYY-MM-DD) in the proleptic Gregorian calendar. */
export function nextDate(date: string, days = 1): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Weekday (0 = Sunday) of a calendar date. */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** "HH:MM" → minutes after midnight. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/** A wall time on a date, `minutes` after its midnight (24:00 is the next midnight), as an instant in `tz`. */
export function atMinutes(date: string, minutes: number, tz: string): number {
  const day = minutes >= 1440 ? nextDate(date) : date;
  const min = minutes % 1440;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return wallToUtc({ year: y, month: m, day: d, hour: Math.floor(min / 60), minute: min % 60, second: 0 }, tz);
}
