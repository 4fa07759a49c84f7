// Scheduling over events from any number of calendars, pure (no I/O): busy blocks, working hours in a time zone
// (built from wall-clock times per local date, so a day across a DST change is 23 or 25 hours and 09:00 stays
// 09:00), free slots, conflicts, ranked meeting suggestions and a day's agenda with its gaps.
import { atMinutes, dateInZone, isoInZone, minutesOf, nextDate, startOfDate, weekdayOf } from './tz.ts';

export interface Interval {
  startMs: number;
  endMs: number;
}

export interface WorkingHours {
  /** "HH:MM" local time. */
  start: string;
  end: string;
  /** 0 = Sunday … 6 = Saturday. */
  days: number[];
}

export const DEFAULT_WORKING_HOURS: WorkingHours = { start: '09:00', end: '17:00', days: [1, 2, 3, 4, 5] };

/** Sorted, overlapping or touching intervals joined. */
export function merge(xs: Interval[]): Interval[] {
  const sorted = xs.filter((x) => x.endMs > x.startMs).sort((a, b) => a.startMs - b.startMs);
  const out: Interval[] = [];
  for (const x of sorted) {
    const last = out[out.length - 1];
    if (last && x.startMs <= last.endMs) last.endMs = Math.max(last.endMs, x.endMs);
    else out.push({ ...x });
  }
  return out;
}

/** The working-hours windows of every local date the range touches, clipped to the range. */
export function workingWindows(range: Interval, tz: string, wh: WorkingHours): Interval[] {
  const out: Interval[] = [];
  const from = minutesOf(wh.start);
  const to = minutesOf(wh.end);
  let date = dateInZone(range.startMs, tz);
  const last = dateInZone(range.endMs, tz);
  for (let i = 0; i < 400 && date <= last; i++, date = nextDate(date)) {
    if (!wh.days.includes(weekdayOf(date))) continue;
    const s = Math.max(atMinutes(date, from, tz), range.startMs);
    const e = Math.min(atMinutes(date, to, tz), range.endMs);
    if (e > s) out.push({ startMs: s, endMs: e });
  }
  return out;
}

/** `windows` minus `busy` (both any order), keeping pieces of at least `minMs`. */
export function subtract(windows: Interval[], busy: Interval[], minMs = 1): Interval[] {
  const b = merge(busy);
  const out: Interval[] = [];
  for (const w of merge(windows)) {
    let cur = w.startMs;
    for (const x of b) {
      if (x.endMs <= cur || x.startMs >= w.endMs) continue;
      if (x.startMs > cur) out.push({ startMs: cur, endMs: x.startMs });
      cur = Math.max(cur, x.endMs);
    }
    if (w.endMs > cur) out.push({ startMs: cur, endMs: w.endMs });
  }
  return out.filter((x) => x.endMs - x.startMs >= minMs);
}

/** Strict overlap: an event ending exactly when the slot starts (back-to-back) is not a conflict. */
export const overlaps = (a: Interval, b: Interval) => a.startMs < b.endMs && b.startMs < a.endMs;

export interface Candidate extends Interval {
  score: number;
  reasons: string[];
}

export interface SuggestInput {
  range: Interval;
  durationMs: number;
  tz: string;
  wh: WorkingHours;
  busy: Array<Interval & { title: string; calendar: string }>;
  bufferBeforeMs: number;
  bufferAfterMs: number;
  count: number;
  calendars: number;
  /** Candidate starts are on this grid of local minutes (15 → :00, :15, :30, :45). */
  stepMinutes: number;
  now: number;
}

/**
 * Ranked free slots: every grid start inside working hours where the meeting plus its buffers touches no busy
 * block of any calendar. Earlier days rank higher; whole and half hours, and slots that leave room around other
 * meetings, get a small bonus. The chosen slots do not overlap each other.
 */
export function suggest(i: SuggestInput): Candidate[] {
  const padded = i.busy.map((b) => ({ startMs: b.startMs - i.bufferAfterMs, endMs: b.endMs + i.bufferBeforeMs }));
  const windows = workingWindows({ startMs: Math.max(i.range.startMs, i.now), endMs: i.range.endMs }, i.tz, i.wh);
  const free = subtract(windows, padded, i.durationMs);
  const firstDate = dateInZone(i.range.startMs, i.tz);
  const dayIndex = (ms: number) => Math.round((startOfDate(dateInZone(ms, i.tz), i.tz) - startOfDate(firstDate, i.tz)) / 86_400_000);
  const all: Candidate[] = [];
  const step = i.stepMinutes * 60_000;
  for (const f of free) {
    // First grid point in local time: offsets are whole quarter hours in every zone that matters here.
    const local = Date.parse(`${isoInZone(f.startMs, i.tz).slice(0, 19)}Z`);
    let t = f.startMs + ((step - (local % step)) % step);
    for (; t + i.durationMs <= f.endMs && all.length < 5000; t += step) {
      const slot = { startMs: t, endMs: t + i.durationMs };
      const reasons = [
        `free in all ${i.calendars} calendar${i.calendars === 1 ? '' : 's'} checked`,
        `inside working hours ${i.wh.start}–${i.wh.end} ${i.tz}`,
      ];
      let score = 100 - dayIndex(t) * 10;
      const minute = new Date(Date.parse(`${isoInZone(t, i.tz).slice(0, 19)}Z`)).getUTCMinutes();
      if (minute === 0 || minute === 30) {
        score += 2;
        reasons.push(minute === 0 ? 'starts on the hour' : 'starts on the half hour');
      }
      const before = i.busy.filter((b) => b.endMs <= t).sort((a, b) => b.endMs - a.endMs)[0];
      const after = i.busy.filter((b) => b.startMs >= slot.endMs).sort((a, b) => a.startMs - b.startMs)[0];
      if (before && t - before.endMs < 3600_000 && i.bufferBeforeMs > 0)
        reasons.push(`at least ${Math.round(i.bufferBeforeMs / 60_000)} min after "${before.title}"`);
      if (after && after.startMs - slot.endMs < 3600_000 && i.bufferAfterMs > 0)
        reasons.push(`at least ${Math.round(i.bufferAfterMs / 60_000)} min before "${after.title}"`);
      if ((!before || t - before.endMs >= 3600_000) && (!after || after.startMs - slot.endMs >= 3600_000)) {
        score += 3;
        reasons.push('at least an hour clear on both sides');
      }
      if (dayIndex(t) === 0) reasons.push('on the first day of the window');
      all.push({ ...slot, score, reasons });
    }
  }
  all.sort((a, b) => b.score - a.score || a.startMs - b.startMs);
  const chosen: Candidate[] = [];
  for (const c of all) {
    if (chosen.length >= i.count) break;
    if (chosen.some((x) => overlaps(x, c))) continue;
    chosen.push(c);
  }
  return chosen;
}
