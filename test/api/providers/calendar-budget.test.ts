// Issue #25, calendar: an invitation cannot stall the server. A rule for a date that never exists (30 February) used
// to loop forever inside ical.js on the next read by any key of the team; FREQ=SECONDLY rules amplified a few KB into
// seconds of work per read; a big VTIMEZONE block was stored once per event. Invitations arrive over real SMTP; reads
// go through real HTTP and the official MCP client; the stored rows are counted in the real SQLite file.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type RawBuilder, sql } from 'kysely';
import { callOk, EPOCH, ics, invite, vevent } from '../../helpers/calendar.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { mintKey, newInbox } from '../../helpers/workspace-mail.ts';

type Json = Record<string, any>;

const RANGE = 'timeMin=2026-10-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z&maxResults=2500';
const NEVER = 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;UNTIL=20301231T000000Z';
const NEVER_INVITE = ics(vevent('never-1', ':20261015T100000Z', ':20261015T110000Z', 'Never', NEVER), 'REQUEST');
const FINE_INVITE = ics(vevent('fine-1', ':20261020T090000Z', ':20261020T093000Z', 'Fine meeting'), 'REQUEST');

/** A custom zone (not an IANA name, so its VTIMEZONE is what times are read with), padded to `kb` KB of rules. */
function bigZone(kb: number): string {
  const pad = Array.from({ length: Math.ceil((kb * 1024) / 90) }, (_, i) => `COMMENT:padding line ${i} ${'z'.repeat(60)}`).join('\n');
  return `BEGIN:VTIMEZONE\nTZID:Custom/Plus5\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0500\nTZOFFSETTO:+0500\n${pad}\nEND:STANDARD\nEND:VTIMEZONE`;
}

/** GET events while polling /health every 20 ms: the slowest /health answer tells whether the main thread was blocked. */
async function readWhilePolling(
  s: TestServer,
  query: string,
  key?: string,
): Promise<{ body: Json; ms: number; healthMax: number; healthCount: number }> {
  let stop = false;
  let healthMax = 0;
  let healthCount = 0;
  const poll = (async () => {
    while (!stop) {
      const t = performance.now();
      const r = await s.api('/health', { key: null });
      await r.arrayBuffer();
      healthMax = Math.max(healthMax, performance.now() - t);
      healthCount++;
      await new Promise((res) => setTimeout(res, 20));
    }
  })();
  const t0 = performance.now();
  const r = await s.api(`/v1/providers/calendar/events?${query}`, key ? { key } : {});
  const body = (await r.json()) as Json;
  const ms = performance.now() - t0;
  stop = true;
  await poll;
  assert.equal(r.status, 200, JSON.stringify(body));
  return { body, ms, healthMax, healthCount };
}

/** Rows of a query on the server's own database (SQLite or PostgreSQL). */
async function rows(s: TestServer, q: RawBuilder<unknown>): Promise<Json[]> {
  return (await q.execute(s.server.parts.store.db)).rows as Json[];
}

const titles = (b: Json) => b.events.map((e: Json) => e.title);

describe('calendar budgets', () => {
  describe('a rule for a date that never exists', () => {
    let s: TestServer;
    let c: Client | undefined;
    let readOnly: string;
    let inbox: { inboxId: string; address: string };
    const t0 = Date.now();
    const clock = { now: () => EPOCH + (Date.now() - t0) };
    const dir = tempDir();
    before(async () => {
      s = await startTestServer(['--calendar-max-rule-steps', '5000'], {}, { clock, dataDir: dir });
      inbox = await newInbox(s);
      readOnly = await mintKey(s, { label: 'ro', scope: { readOnly: true } });
      await invite(s, inbox.address, 'REQUEST', NEVER_INVITE);
      await invite(s, inbox.address, 'REQUEST', FINE_INVITE);
    });
    after(async () => {
      await c?.close();
      await s?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a read-only key gets the other events and a warning naming the skipped event, promptly; /health answers', async () => {
      const r = await readWhilePolling(s, RANGE, readOnly);
      assert.deepEqual(titles(r.body), ['Fine meeting']);
      const w = r.body.warnings.find((x: string) => x.includes('never-1'));
      assert.ok(w, JSON.stringify(r.body.warnings));
      assert.match(w, /found no instance in 5000 steps/);
      assert.ok(r.ms < 10_000, `read took ${r.ms} ms`);
      assert.ok(r.healthMax < 2000, `slowest /health ${r.healthMax} ms`);
    });

    test('the skipped event is remembered: the next read (MCP) does not expand it again', async () => {
      const [row] = await rows(s, sql`select skip_reason from calendar_local_events where uid = 'never-1'`);
      assert.match(row!.skip_reason, /found no instance/);
      c = await mcpClient(s.url, readOnly);
      const t = performance.now();
      const out = (await callOk(c, 'svc_calendar_list_events', {
        timeMin: '2026-10-01T00:00:00Z',
        timeMax: '2026-12-31T00:00:00Z',
      })) as Json;
      assert.ok(performance.now() - t < 10_000);
      assert.deepEqual(titles(out), ['Fine meeting']);
      assert.ok(
        out.warnings.some((x: string) => x.includes('never-1') && x.includes('remembered')),
        JSON.stringify(out.warnings),
      );
      const status = (await callOk(c, 'svc_calendar_status', {})) as Json;
      assert.match(JSON.stringify(status), /event never-1 is skipped by every read: its recurrence rule found no instance/);
    });

    test('after a restart the stored event does not hang the next read', async () => {
      await c?.close();
      c = undefined;
      await s.stop();
      s = await startTestServer(['--calendar-max-rule-steps', '5000'], {}, { clock, dataDir: dir });
      // Forget the remembered skip, so the restarted server meets the poisonous rule itself.
      await rows(s, sql`update calendar_local_events set skip_reason = null`);
      const r = await readWhilePolling(s, RANGE);
      assert.deepEqual(titles(r.body), ['Fine meeting']);
      assert.ok(r.body.warnings.some((x: string) => x.includes('never-1')));
      assert.ok(r.healthMax < 2000, `slowest /health ${r.healthMax} ms`);
      c = await mcpClient(s.url, s.key);
      const out = (await callOk(c, 'svc_calendar_list_events', {
        timeMin: '2026-10-01T00:00:00Z',
        timeMax: '2026-12-31T00:00:00Z',
      })) as Json;
      assert.deepEqual(titles(out), ['Fine meeting']);
    });
  });

  test('backstop: a rule the step cap does not stop runs out of its time budget in the sandbox while /health answers', async () => {
    const t0 = Date.now();
    // 1 s per job: the poisonous event is cut at its budget, then a fresh worker must start and expand the fine one
    // within the read's 3 s; at 400 ms a loaded 2-core runner spent the read on worker restarts (flaky).
    const s = await startTestServer(
      ['--calendar-max-rule-steps', '10000000', '--calendar-read-budget-ms', '1000'],
      {},
      { clock: { now: () => EPOCH + (Date.now() - t0) } },
    );
    try {
      const inbox = await newInbox(s);
      await invite(s, inbox.address, 'REQUEST', NEVER_INVITE);
      await invite(s, inbox.address, 'REQUEST', FINE_INVITE);
      const r = await readWhilePolling(s, RANGE);
      assert.deepEqual(titles(r.body), ['Fine meeting']);
      assert.ok(
        r.body.warnings.some((x: string) => x.includes('never-1') && /took more than 1000 ms, over its budget/.test(x)),
        JSON.stringify(r.body.warnings),
      );
      assert.ok(r.healthCount >= 3, `only ${r.healthCount} /health answers during the read`);
      assert.ok(r.healthMax < 2000, `slowest /health ${r.healthMax} ms`);
    } finally {
      await s.stop();
    }
  });

  test('FREQ=SECONDLY events are capped per event and per read, with warnings', async () => {
    const t0 = Date.now();
    const s = await startTestServer(
      ['--calendar-max-event-instances', '50', '--calendar-max-instances', '120'],
      {},
      { clock: { now: () => EPOCH + (Date.now() - t0) } },
    );
    try {
      const inbox = await newInbox(s);
      const events = Array.from({ length: 5 }, (_, i) =>
        vevent(`sec-${i}`, ':20200101T000000Z', ':20200101T000001Z', `Every second ${i}`, 'RRULE:FREQ=SECONDLY'),
      ).join('\n');
      await invite(s, inbox.address, 'REQUEST', ics(events, 'REQUEST'));
      const t = performance.now();
      const r = await s.api(`/v1/providers/calendar/events?${RANGE}`);
      const body = (await r.json()) as Json;
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.ok(performance.now() - t < 10_000);
      assert.equal(body.events.length, 120);
      assert.equal(body.truncated, false);
      // Expansion starts near the range, not at DTSTART in 2020: the first instance is the range's first second.
      assert.equal(body.events[0].start, '2026-10-01T00:00:00.000Z');
      assert.ok(
        body.warnings.some((w: string) => /only the first 50 are listed/.test(w)),
        JSON.stringify(body.warnings),
      );
      assert.ok(
        body.warnings.some((w: string) => /limit of 120 instances/.test(w)),
        JSON.stringify(body.warnings),
      );
    } finally {
      await s.stop();
    }
  });

  describe('time zones', () => {
    let s: TestServer;
    let inbox: { inboxId: string; address: string };
    before(async () => {
      const t0 = Date.now();
      s = await startTestServer([], {}, { clock: { now: () => EPOCH + (Date.now() - t0) } });
      inbox = await newInbox(s);
    });
    after(() => s?.stop());

    test('an invitation of 30 events with a 40 KB VTIMEZONE stores the zone once, and times are read with it', async () => {
      const events = Array.from({ length: 30 }, (_, i) =>
        vevent(`tz-${i}`, ';TZID=Custom/Plus5:20261102T100000', ';TZID=Custom/Plus5:20261102T110000', `Zoned ${i}`),
      ).join('\n');
      await invite(s, inbox.address, 'REQUEST', ics(`${bigZone(40)}\n${events}`, 'REQUEST'));
      const r = await s.api(`/v1/providers/calendar/events?${RANGE}`);
      const body = (await r.json()) as Json;
      assert.equal(body.events.length, 30);
      assert.equal(body.events[0].start, '2026-11-02T05:00:00.000Z');
      const [zones] = await rows(s, sql`select count(*) n, sum(length(ics)) bytes from calendar_local_zones`);
      const [stored] = await rows(s, sql`select count(*) n, sum(length(ics)) bytes from calendar_local_events where uid like 'tz-%'`);
      assert.equal(Number(zones!.n), 1);
      assert.ok(Number(zones!.bytes) > 40_000);
      assert.equal(Number(stored!.n), 30);
      assert.ok(Number(stored!.bytes) < 30 * 1000, `event rows hold ${stored!.bytes} bytes`);
    });

    test('an event stored the old way (its VTIMEZONE inside the row) is still read, and an update writes it the new way', async () => {
      const [{ team_id: team }] = (await rows(s, sql`select team_id from inboxes where id = ${inbox.inboxId}`)) as [Json];
      const old = ics(
        `${bigZone(1)}\n${vevent('old-1', ';TZID=Custom/Plus5:20261103T100000', ';TZID=Custom/Plus5:20261103T110000', 'Old row', 'RRULE:FREQ=DAILY;COUNT=3')}`,
      );
      await rows(
        s,
        sql`insert into calendar_local_events (id, team_id, inbox_key, inbox_id, scope_label, uid, sequence, status, source, message_id, ics, summary, first_start, last_end, created_at, updated_at)
         values ('cev_old', ${team}, ${inbox.inboxId}, ${inbox.inboxId}, null, 'old-1', 0, 'confirmed', 'invitation', null, ${old}, 'Old row', ${Date.parse('2026-11-01T00:00:00Z')}, null, 0, 0)`,
      );
      const r = await s.api(`/v1/providers/calendar/events?${RANGE}`);
      const body = (await r.json()) as Json;
      const mine = body.events.filter((e: Json) => e.title === 'Old row');
      assert.deepEqual(
        mine.map((e: Json) => e.start),
        ['2026-11-03T05:00:00.000Z', '2026-11-04T05:00:00.000Z', '2026-11-05T05:00:00.000Z'],
      );
      // One instance moved by a later invitation (no VTIMEZONE of its own): merged with the old row's zone.
      const moved = ics(
        vevent(
          'old-1',
          ';TZID=Custom/Plus5:20261104T150000',
          ';TZID=Custom/Plus5:20261104T160000',
          'Old row (moved)',
          'SEQUENCE:1\nRECURRENCE-ID;TZID=Custom/Plus5:20261104T100000',
        ),
        'REQUEST',
      );
      await invite(s, inbox.address, 'REQUEST', moved);
      const r2 = await s.api(`/v1/providers/calendar/events?${RANGE}`);
      const after = ((await r2.json()) as Json).events.filter((e: Json) => e.title.startsWith('Old row'));
      assert.deepEqual(
        after.map((e: Json) => [e.title, e.start]),
        [
          ['Old row', '2026-11-03T05:00:00.000Z'],
          ['Old row (moved)', '2026-11-04T10:00:00.000Z'],
          ['Old row', '2026-11-05T05:00:00.000Z'],
        ],
      );
      const [row] = await rows(s, sql`select zones_id, ics from calendar_local_events where uid = 'old-1'`);
      assert.ok(row!.zones_id, 'rewritten with its zones apart');
      assert.ok(!row!.ics.includes('BEGIN:VTIMEZONE'));
    });
  });
});
