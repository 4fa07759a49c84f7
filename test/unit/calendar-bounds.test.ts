// Recurrence expansion bounded by construction (src/providers/calendar/meter.ts): impossible rules end by their step
// cap, caps per event and per read hold, and moving DTSTART forward for fixed-period rules gives exactly the instances
// expanding from the real DTSTART would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandCalendar } from '../../src/providers/calendar/ics.ts';
import { fastForwardSeconds, StepMeter } from '../../src/providers/calendar/meter.ts';
import { expandMany } from '../../src/providers/calendar/tasks.ts';

const cal = (...events: string[]) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${events.join('')}END:VCALENDAR\r\n`;
const ev = (uid: string, start: string, rule: string, end = 'DURATION:PT30M') =>
  `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART${start}\r\n${end}\r\n${rule}\r\nEND:VEVENT\r\n`;
const range = (a: string, b: string) => ({ startMs: Date.parse(a), endMs: Date.parse(b) });
const opts = { timeZone: 'UTC', calendarId: 'c', eventId: 'e' };
const limits = { maxInstances: 10_000, maxEventInstances: 2_000, maxRuleSteps: 20_000 };

describe('calendar bounds', () => {
  it('a rule for a date that never exists ends by its step cap, UNTIL or not, and is reported as permanent', () => {
    for (const rule of ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', 'RRULE:FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31;UNTIL=20301231T000000Z']) {
      const x = expandCalendar(
        cal(ev('never', ':20261015T100000Z', rule), ev('fine', ':20261016T100000Z', 'COMMENT:single')),
        range('2026-10-01T00:00:00Z', '2027-10-01T00:00:00Z'),
        opts,
        new StepMeter({ ...limits, maxRuleSteps: 1000 }),
      );
      assert.deepEqual(
        x.events.map((e) => e.uid),
        ['fine'],
      );
      assert.equal(x.failed.length, 1);
      assert.equal(x.failed[0]!.uid, 'never');
      assert.equal(x.failed[0]!.permanent, true);
      assert.match(x.failed[0]!.reason, /no instance in 1000 steps/);
    }
  });

  it('a rare but real rule (29 February) is not mistaken for an impossible one', () => {
    const x = expandCalendar(
      cal(ev('leap', ':20250301T100000Z', 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29')),
      range('2028-01-01T00:00:00Z', '2028-12-31T00:00:00Z'),
      opts,
      new StepMeter(limits),
    );
    assert.deepEqual(
      x.events.map((e) => new Date(e.startMs).toISOString()),
      ['2028-02-29T10:00:00.000Z'],
    );
  });

  it('caps instances per event and per read, with warnings', () => {
    const text = cal(
      ev('a', ':20261001T000000Z', 'RRULE:FREQ=MINUTELY'),
      ev('b', ':20261001T000000Z', 'RRULE:FREQ=MINUTELY'),
      ev('c', ':20261001T000000Z', 'RRULE:FREQ=MINUTELY'),
    );
    const out = expandMany({
      items: [{ eventId: 'e1', ics: text, zonesId: null }],
      zones: {},
      range: range('2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z'),
      timeZone: 'UTC',
      calendarId: 'c',
      limits: { maxInstances: 250, maxEventInstances: 100, maxRuleSteps: 1000 },
    });
    assert.equal(out.events.length, 250);
    assert.ok(out.warnings.some((w) => /only the first 100 are listed/.test(w)));
    assert.ok(out.warnings.some((w) => /limit of 250 instances/.test(w)));
  });

  it('fast-forward moves only by whole intervals, never with COUNT or a period that is not fixed', () => {
    assert.equal(fastForwardSeconds({ freq: 'SECONDLY', interval: 7 }, 0, 100_000), 98);
    assert.equal(fastForwardSeconds({ freq: 'HOURLY', interval: 5 }, 0, 50 * 3600_000 + 1), 36_000 * 5);
    assert.equal(fastForwardSeconds({ freq: 'SECONDLY', count: 10 }, 0, 1e9), 0);
    assert.equal(fastForwardSeconds({ freq: 'MONTHLY' }, 0, 1e12), 0);
    assert.equal(fastForwardSeconds({ freq: 'DAILY' }, 1e9, 0), 0);
  });

  it('a rule moved forward gives the instances of its real start: grid, BY* filters and the zone wall time', () => {
    // Every 7 minutes since 2020: in a 1-hour window of 2026 the instances sit on the 2020 grid.
    const r = range('2026-11-02T10:00:00Z', '2026-11-02T11:00:00Z');
    const x = expandCalendar(cal(ev('m', ':20200101T000000Z', 'RRULE:FREQ=MINUTELY;INTERVAL=7', 'DURATION:PT1M')), r, opts);
    const first = Date.parse('2020-01-01T00:00:00Z');
    const want: string[] = [];
    for (let t = first + Math.ceil((r.startMs - 60_000 - first) / 420_000) * 420_000; t < r.endMs; t += 420_000)
      if (t + 60_000 > r.startMs) want.push(new Date(t).toISOString());
    assert.deepEqual(
      x.events.map((e) => new Date(e.startMs).toISOString()),
      want,
    );
    // Every 3 days at 10:00 Berlin time, Mondays only, since 2020: DST is honoured (CET in November = 09:00Z).
    const d = expandCalendar(
      cal(ev('d', ';TZID=Europe/Berlin:20200106T100000', 'RRULE:FREQ=DAILY;INTERVAL=3;BYDAY=MO')),
      range('2026-10-01T00:00:00Z', '2026-12-31T00:00:00Z'),
      opts,
    );
    const days = d.events.map((e) => new Date(e.startMs).toISOString());
    const base = Date.parse('2020-01-06T00:00:00Z');
    for (const iso of days) {
      assert.equal(new Date(iso).getUTCDay(), 1, iso);
      assert.equal((Date.parse(iso.slice(0, 10)) - base) % (3 * 86_400_000), 0, iso);
      assert.equal(iso.slice(11, 19), Date.parse(iso) < Date.parse('2026-10-25T01:00:00Z') ? '08:00:00' : '09:00:00');
    }
    assert.equal(days.length, 4); // every 21 days between 1 Oct and 31 Dec
  });
});
