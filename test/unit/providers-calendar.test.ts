// Pure calendar logic: Intl time-zone arithmetic across DST, iCalendar expansion (RRULE, EXDATE, overrides, unknown
// TZID, malformed data), invitation merging by UID + SEQUENCE, and scheduling (working hours over a DST change).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandCalendar } from '../../src/providers/calendar/ics.ts';
import { changesOf } from '../../src/providers/calendar/local-store.ts';
import { subtract, suggest, workingWindows } from '../../src/providers/calendar/schedule.ts';
import { atMinutes, isoInZone, startOfDate, wallToUtc } from '../../src/providers/calendar/tz.ts';

const ics = (body: string, method = '') =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${method ? `METHOD:${method}\r\n` : ''}${body.trim().split('\n').join('\r\n')}\r\nEND:VCALENDAR\r\n`;
const range = (a: string, b: string) => ({ startMs: Date.parse(a), endMs: Date.parse(b) });
const iso = (ms: number) => new Date(ms).toISOString();

describe('time zones (Intl)', () => {
  it('wall time → UTC on both sides of the Berlin and New York DST ends, gap and overlap per RFC 5545', () => {
    const w = (d: string, h: number, m = 0) => {
      const [y, mo, da] = d.split('-').map(Number) as [number, number, number];
      return { year: y, month: mo, day: da, hour: h, minute: m, second: 0 };
    };
    assert.equal(iso(wallToUtc(w('2026-10-24', 10), 'Europe/Berlin')), '2026-10-24T08:00:00.000Z');
    assert.equal(iso(wallToUtc(w('2026-10-25', 10), 'Europe/Berlin')), '2026-10-25T09:00:00.000Z');
    assert.equal(iso(wallToUtc(w('2026-10-25', 2, 30), 'Europe/Berlin')), '2026-10-25T00:30:00.000Z'); // twice: the earlier
    assert.equal(iso(wallToUtc(w('2026-03-29', 2, 30), 'Europe/Berlin')), '2026-03-29T01:30:00.000Z'); // gap: 03:30 CEST
    assert.equal(iso(wallToUtc(w('2026-10-31', 9), 'America/New_York')), '2026-10-31T13:00:00.000Z');
    assert.equal(iso(wallToUtc(w('2026-11-02', 9), 'America/New_York')), '2026-11-02T14:00:00.000Z');
    assert.equal(isoInZone(Date.parse('2026-10-25T09:00:00Z'), 'Europe/Berlin'), '2026-10-25T10:00:00+01:00');
    assert.equal((startOfDate('2026-10-26', 'Europe/Berlin') - startOfDate('2026-10-25', 'Europe/Berlin')) / 3600_000, 25);
  });
});

const WEEKLY = ics(`
BEGIN:VEVENT
UID:weekly-1
DTSTAMP:20261001T000000Z
DTSTART;TZID=Europe/Berlin:20261015T100000
DTEND;TZID=Europe/Berlin:20261015T110000
RRULE:FREQ=WEEKLY;COUNT=5
EXDATE;TZID=Europe/Berlin:20261022T100000
SUMMARY:Weekly sync
ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.com
ORGANIZER:mailto:alice@example.com
END:VEVENT
BEGIN:VEVENT
UID:weekly-1
RECURRENCE-ID;TZID=Europe/Berlin:20261029T100000
DTSTAMP:20261001T000000Z
DTSTART;TZID=Europe/Berlin:20261029T140000
DTEND;TZID=Europe/Berlin:20261029T150000
SUMMARY:Weekly sync (moved)
END:VEVENT`);

describe('iCalendar expansion', () => {
  it('a weekly event with an EXDATE and a moved instance, across the DST change, in UTC', () => {
    const x = expandCalendar(WEEKLY, range('2026-10-01T00:00:00Z', '2026-12-01T00:00:00Z'), {
      timeZone: 'UTC',
      calendarId: 'c',
      eventId: 'e',
    });
    assert.deepEqual(x.warnings, []);
    assert.deepEqual(
      x.events.map((e) => [iso(e.startMs), e.title]),
      [
        ['2026-10-15T08:00:00.000Z', 'Weekly sync'], // CEST
        ['2026-10-29T13:00:00.000Z', 'Weekly sync (moved)'], // CET, moved to 14:00
        ['2026-11-05T09:00:00.000Z', 'Weekly sync'],
        ['2026-11-12T09:00:00.000Z', 'Weekly sync'],
      ],
    );
    assert.equal(x.events[0]!.organizer, 'alice@example.com');
    assert.deepEqual(x.events[0]!.attendees, [{ email: 'bob@example.com', name: 'Bob', response: 'accepted' }]);
    assert.equal(x.events[1]!.recurrenceId, '2026-10-29T09:00:00.000Z');
  });

  it('an unknown TZID is read as UTC with a warning; a VTIMEZONE-only zone is used', () => {
    const x = expandCalendar(
      ics(`
BEGIN:VTIMEZONE
TZID:Custom Plus Two
BEGIN:STANDARD
DTSTART:19700101T000000
TZOFFSETFROM:+0200
TZOFFSETTO:+0200
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
UID:a
DTSTAMP:20261001T000000Z
DTSTART;TZID=Mars/Olympus_Mons:20261110T100000
DTEND;TZID=Mars/Olympus_Mons:20261110T110000
SUMMARY:On Mars
END:VEVENT
BEGIN:VEVENT
UID:b
DTSTAMP:20261001T000000Z
DTSTART;TZID=Custom Plus Two:20261110T100000
DURATION:PT30M
SUMMARY:Custom zone
END:VEVENT`),
      range('2026-11-10T00:00:00Z', '2026-11-11T00:00:00Z'),
      { timeZone: 'UTC', calendarId: 'c', eventId: 'e' },
    );
    assert.deepEqual(
      x.events.map((e) => [e.uid, iso(e.startMs), iso(e.endMs)]),
      [
        ['a', '2026-11-10T10:00:00.000Z', '2026-11-10T11:00:00.000Z'],
        ['b', '2026-11-10T08:00:00.000Z', '2026-11-10T08:30:00.000Z'],
      ],
    );
    assert.equal(x.warnings.length, 1);
    assert.match(x.warnings[0]!, /Mars\/Olympus_Mons.*unknown.*UTC/);
  });

  it('malformed data is a warning, never a throw', () => {
    for (const bad of ['BEGIN:VCALENDAR\r\nFOO\r\n', 'not ical at all', ics('BEGIN:VEVENT\nUID:x\nSUMMARY:no start\nEND:VEVENT')]) {
      const x = expandCalendar(bad, range('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'), {
        timeZone: 'UTC',
        calendarId: 'c',
        eventId: 'bad',
      });
      assert.equal(x.events.length, 0);
      assert.ok(x.warnings.length >= 1, bad);
    }
  });

  it("all-day events and floating times are read in the viewer's zone", () => {
    const x = expandCalendar(
      ics(`
BEGIN:VEVENT
UID:d
DTSTAMP:20261001T000000Z
DTSTART;VALUE=DATE:20261110
DTEND;VALUE=DATE:20261111
SUMMARY:Holiday
TRANSP:TRANSPARENT
END:VEVENT`),
      range('2026-11-09T00:00:00Z', '2026-11-12T00:00:00Z'),
      { timeZone: 'America/New_York', calendarId: 'c', eventId: 'e' },
    );
    assert.equal(x.events[0]!.allDay, true);
    assert.equal(x.events[0]!.busy, false);
    assert.equal(iso(x.events[0]!.startMs), '2026-11-10T05:00:00.000Z');
    assert.equal(x.events[0]!.startDate, '2026-11-10');
  });
});

describe('invitations by UID and SEQUENCE', () => {
  const req = (seq: number, hour: string) =>
    ics(
      `BEGIN:VEVENT\nUID:inv-1\nSEQUENCE:${seq}\nDTSTAMP:20261001T000000Z\nDTSTART:20261110T${hour}0000Z\nDTEND:20261110T${hour}3000Z\nSUMMARY:Call\nEND:VEVENT`,
      'REQUEST',
    );
  it('REQUEST adds and updates, an older SEQUENCE is stale, CANCEL cancels, REPLY and garbage are skipped with a reason', () => {
    const [add] = changesOf(req(0, '10'), () => undefined);
    assert.equal(add!.outcome, 'added');
    const row = {
      id: 'cev_1',
      team_id: 't',
      inbox_key: 'i',
      inbox_id: 'i',
      scope_label: null,
      uid: 'inv-1',
      sequence: 1,
      status: 'confirmed' as const,
      source: 'invitation' as const,
      message_id: 'm',
      ics: add!.next!.ics,
      summary: 'Call',
      first_start: 0,
      last_end: null,
      created_at: 0,
      updated_at: 0,
    };
    assert.equal(changesOf(req(0, '11'), () => row)[0]!.outcome, 'stale');
    assert.equal(changesOf(req(2, '11'), () => row)[0]!.outcome, 'updated');
    const cancel = changesOf(req(2, '10').replace('METHOD:REQUEST', 'METHOD:CANCEL'), () => row)[0]!;
    assert.equal(cancel.outcome, 'cancelled');
    assert.equal(cancel.next!.status, 'cancelled');
    assert.match(changesOf(req(0, '10').replace('METHOD:REQUEST', 'METHOD:REPLY'), () => undefined)[0]!.reason!, /REPLY/);
    assert.match(changesOf('BEGIN:VCALENDAR\r\nbroken', () => undefined)[0]!.reason!, /malformed/);
  });
});

describe('scheduling', () => {
  it('working hours stay 09:00-17:00 local across the DST change (Berlin and New York)', () => {
    const wh = { start: '09:00', end: '17:00', days: [0, 1, 2, 3, 4, 5, 6] };
    const b = workingWindows(range('2026-10-24T00:00:00Z', '2026-10-26T23:00:00Z'), 'Europe/Berlin', wh);
    assert.deepEqual(
      b.map((x) => isoInZone(x.startMs, 'Europe/Berlin')),
      ['2026-10-24T09:00:00+02:00', '2026-10-25T09:00:00+01:00', '2026-10-26T09:00:00+01:00'],
    );
    const ny = workingWindows(range('2026-10-31T12:00:00Z', '2026-11-03T00:00:00Z'), 'America/New_York', { ...wh, days: [1] });
    assert.deepEqual(
      ny.map((x) => [iso(x.startMs), iso(x.endMs)]),
      [['2026-11-02T14:00:00.000Z', '2026-11-02T22:00:00.000Z']],
    );
  });

  it('free time subtracts busy blocks; back-to-back leaves no gap; suggestions respect buffers', () => {
    const day = { startMs: atMinutes('2026-11-10', 540, 'UTC'), endMs: atMinutes('2026-11-10', 1020, 'UTC') };
    const busy = [
      { startMs: Date.parse('2026-11-10T10:00:00Z'), endMs: Date.parse('2026-11-10T11:00:00Z'), title: 'A', calendar: 'x' },
      { startMs: Date.parse('2026-11-10T11:00:00Z'), endMs: Date.parse('2026-11-10T12:00:00Z'), title: 'B', calendar: 'y' },
    ];
    assert.deepEqual(
      subtract([day], busy).map((x) => [iso(x.startMs), iso(x.endMs)]),
      [
        ['2026-11-10T09:00:00.000Z', '2026-11-10T10:00:00.000Z'],
        ['2026-11-10T12:00:00.000Z', '2026-11-10T17:00:00.000Z'],
      ],
    );
    const s = suggest({
      range: range('2026-11-10T00:00:00Z', '2026-11-11T00:00:00Z'),
      durationMs: 3600_000,
      tz: 'UTC',
      wh: { start: '09:00', end: '17:00', days: [2] },
      busy,
      bufferBeforeMs: 15 * 60_000,
      bufferAfterMs: 15 * 60_000,
      count: 3,
      calendars: 2,
      stepMinutes: 15,
      now: 0,
    });
    assert.equal(s.length, 3);
    for (const x of s) for (const b of busy) assert.ok(x.endMs + 15 * 60_000 <= b.startMs || x.startMs >= b.endMs + 15 * 60_000);
    assert.ok(s[0]!.reasons.some((r) => /free in all 2 calendars/.test(r)));
  });
});
