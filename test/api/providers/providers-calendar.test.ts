// The calendar tools (issue 18) through the official MCP SDK client against a real Radicale (CalDAV, htpasswd auth),
// the Google Calendar fake and invitations sent by real SMTP into inboxd's own inboxes: connecting (wrong password,
// server down, nothing stored), listing with recurring expansion across a DST change and an unknown TZID, the local
// invitation calendar (REQUEST, CANCEL, malformed, scope), and availability / conflicts / suggestions / agenda over
// all three together.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Kysely } from 'kysely';
import { CALENDAR_TOOLS, callErr, callOk, EPOCH, ics, invite, SECRET_KEY, vevent } from '../../helpers/calendar.ts';
import { type GcalFake, startGcalFake } from '../../helpers/gcal-fake.ts';
import { mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { type Radicale, radicaleSkip, startRadicale } from '../../helpers/radicale.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { storedIncludes } from '../../helpers/stored.ts';
import { mintKey, newInbox } from '../../helpers/workspace-mail.ts';

type Json = Record<string, any>;

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const WEEKLY = ics(
  `${vevent(
    'weekly-1',
    ';TZID=Europe/Berlin:20261015T100000',
    ';TZID=Europe/Berlin:20261015T110000',
    'Weekly sync',
    'RRULE:FREQ=WEEKLY;COUNT=5\nEXDATE;TZID=Europe/Berlin:20261022T100000',
  )}\n${vevent(
    'weekly-1',
    ';TZID=Europe/Berlin:20261029T140000',
    ';TZID=Europe/Berlin:20261029T150000',
    'Weekly sync (moved)',
    'RECURRENCE-ID;TZID=Europe/Berlin:20261029T100000',
  )}`,
);

const skip = radicaleSkip();

describe('calendar providers', { skip }, () => {
  let s: TestServer;
  let rad: Radicale;
  let gcal: GcalFake;
  let c: Client;
  let workUrl: string;
  let caldavId: string;
  let googleId: string;
  let inbox: { inboxId: string; address: string };

  before(async () => {
    rad = await startRadicale({ alice: 'wonderland' });
    workUrl = await rad.makeCalendar('alice', 'work');
    gcal = await startGcalFake();
    const t0 = Date.now();
    s = await startTestServer(
      ['--google-calendar-api-base', gcal.apiBase, '--google-token-url', gcal.tokenUrl],
      { INBOXD_SECRET_KEY: SECRET_KEY },
      { clock: { now: () => EPOCH + (Date.now() - t0) } },
    );
    c = await mcpClient(s.url, s.key);
    inbox = await newInbox(s, { label: 'team-a/inbox' });
  });
  after(async () => {
    await c?.close();
    await s?.stop();
    await gcal?.stop();
    await rad?.stop();
  });

  test('tools/list: the 8 calendar tools, every argument described; no disconnect tool', async () => {
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name).filter((n) => n.startsWith('svc_calendar_'));
    assert.deepEqual(names.sort(), [...CALENDAR_TOOLS].sort());
    for (const t of tools.filter((x) => x.name.startsWith('svc_calendar_') || x.name === 'svc_workspace_execute_calendar_event')) {
      assert.ok((t.description ?? '').length > 80, t.name);
      assert.deepEqual(undescribedArgs(t.inputSchema as Json, t.name), []);
    }
  });

  test('status with nothing connected: the local calendar works, no accounts', async () => {
    const st = await callOk(c, 'svc_calendar_status');
    assert.equal(st.configured, true);
    assert.equal(st.canConnect, true);
    assert.deepEqual(st.accounts, []);
    assert.match(st.howToConnect, /svc_calendar_connect/);
  });

  test('connect CalDAV with a wrong password: a clear 4xx naming the server and the password, nothing stored', async () => {
    const text = await callErr(c, 'svc_calendar_connect', { provider: 'caldav', serverUrl: rad.url, username: 'alice', password: 'wrong' });
    assert.match(text, /refused the login/);
    assert.match(text, /password/);
    const r = await s.api('/v1/providers/calendar/accounts', {
      method: 'POST',
      json: { provider: 'caldav', serverUrl: rad.url, username: 'alice', password: 'wrong' },
    });
    assert.equal(r.status, 400);
    assert.equal((await callOk(c, 'svc_calendar_list_accounts')).items.length, 0);
  });

  test('connect CalDAV to a server that is down: 503 saying it could not reach it, nothing stored', async () => {
    const port = await closedPort();
    const r = await s.api('/v1/providers/calendar/accounts', {
      method: 'POST',
      json: { provider: 'caldav', serverUrl: `http://127.0.0.1:${port}/`, username: 'alice', password: 'wonderland' },
    });
    assert.equal(r.status, 503);
    assert.match(((await r.json()) as Json).detail, /could not reach the CalDAV server/);
    assert.equal((await callOk(c, 'svc_calendar_list_accounts')).items.length, 0);
  });

  test('connect CalDAV to an HTTP server that is not CalDAV: 400 naming serverUrl, nothing stored', async () => {
    const web = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
    const r = await s.api('/v1/providers/calendar/accounts', {
      method: 'POST',
      json: { provider: 'caldav', serverUrl: `http://127.0.0.1:${(web.address() as net.AddressInfo).port}/`, username: 'a', password: 'b' },
    });
    await new Promise<void>((r) => web.close(() => r()));
    const body = (await r.json()) as Json;
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.match(body.detail, /did not answer like a CalDAV server/);
    assert.equal((await callOk(c, 'svc_calendar_list_accounts')).items.length, 0);
  });

  test('connect CalDAV and Google: checked first, credentials never returned or logged', async () => {
    const cd = await callOk(c, 'svc_calendar_connect', {
      provider: 'caldav',
      serverUrl: rad.url,
      username: 'alice',
      password: 'wonderland',
      label: 'work',
    });
    caldavId = cd.account.id;
    assert.equal(cd.account.provider, 'caldav');
    assert.deepEqual(
      cd.calendars.map((x: Json) => [x.id, x.name, x.primary]),
      [[workUrl, 'work', true]],
    );
    const badGoogle = await callErr(c, 'svc_calendar_connect', {
      provider: 'google',
      refreshToken: 'nope',
      clientId: 'x',
      clientSecret: 'y',
    });
    assert.match(badGoogle, /refused the refresh token/);
    const g = await callOk(c, 'svc_calendar_connect', { provider: 'google', ...gcal.client });
    googleId = g.account.id;
    assert.equal(g.account.address, 'carol@example.com');
    const listed = await callOk(c, 'svc_calendar_list_accounts');
    assert.deepEqual(listed.items.map((a: Json) => a.id).sort(), [caldavId, googleId].sort());
    const all = JSON.stringify([cd, g, listed, await callOk(c, 'svc_calendar_status')]) + s.logs.join('\n');
    for (const secret of ['wonderland', gcal.client.refreshToken, gcal.client.clientSecret, 'access-1'])
      assert.ok(!all.includes(secret), secret);
    assert.ok(!(await storedIncludes(s, 'wonderland')), 'the password is sealed in the database');
  });

  test('list events: CalDAV weekly event with an EXDATE and a moved instance across the Berlin DST change; an unknown TZID as UTC with a warning; Google paged', async () => {
    assert.equal(await rad.put('alice', workUrl, 'weekly-1.ics', WEEKLY), 201);
    assert.equal(
      await rad.put(
        'alice',
        workUrl,
        'mars.ics',
        ics(vevent('mars-1', ';TZID=Mars/Olympus_Mons:20261105T150000', ';TZID=Mars/Olympus_Mons:20261105T160000', 'On Mars')),
      ),
      201,
    );
    const gEvents = gcal.events.get('carol@example.com')!;
    for (const [i, h] of [8, 9, 10].entries())
      gEvents.push({
        id: `g${i}`,
        summary: `Google ${i}`,
        start: { dateTime: `2026-11-05T${String(h).padStart(2, '0')}:00:00Z` },
        end: { dateTime: `2026-11-05T${String(h).padStart(2, '0')}:30:00Z` },
      });
    const r = await callOk(c, 'svc_calendar_list_events', {
      timeMin: '2026-10-12T00:00:00Z',
      timeMax: '2026-11-10T00:00:00Z',
      timeZone: 'Europe/Berlin',
    });
    const weekly = r.events.filter((e: Json) => e.uid === 'weekly-1');
    assert.deepEqual(
      weekly.map((e: Json) => [e.start, e.startLocal, e.title]),
      [
        ['2026-10-15T08:00:00.000Z', '2026-10-15T10:00:00+02:00', 'Weekly sync'],
        ['2026-10-29T13:00:00.000Z', '2026-10-29T14:00:00+01:00', 'Weekly sync (moved)'],
        ['2026-11-05T09:00:00.000Z', '2026-11-05T10:00:00+01:00', 'Weekly sync'],
      ],
    );
    assert.ok(weekly.every((e: Json) => e.accountId === caldavId && e.recurring && e.eventTimeZone === 'Europe/Berlin'));
    const mars = r.events.find((e: Json) => e.uid === 'mars-1');
    assert.equal(mars.start, '2026-11-05T15:00:00.000Z');
    assert.ok(r.warnings.some((w: string) => /Mars\/Olympus_Mons.*UTC/.test(w)));
    assert.deepEqual(
      r.events.filter((e: Json) => e.provider === 'google').map((e: Json) => e.title),
      ['Google 0', 'Google 1', 'Google 2'],
    );
    assert.ok(r.sources.every((x: Json) => x.ok));
    // sorted by start across accounts
    const starts = r.events.map((e: Json) => e.start);
    assert.deepEqual(starts, [...starts].sort());
  });

  test('Google: an expired access token → 401 → refresh → retry; the new token is stored (no second refresh)', async () => {
    const before = gcal.refreshes;
    gcal.expireTokens();
    const args = { timeMin: '2026-11-05T00:00:00Z', timeMax: '2026-11-06T00:00:00Z', accountIds: [googleId] };
    assert.equal((await callOk(c, 'svc_calendar_list_events', args)).events.length, 3);
    assert.equal(gcal.refreshes, before + 1);
    assert.equal((await callOk(c, 'svc_calendar_list_events', args)).events.length, 3);
    assert.equal(gcal.refreshes, before + 1, 'the refreshed token was sealed and stored, and reused');
  });

  test('invitations sent by SMTP: REQUEST shows up in the local calendar, a later CANCEL removes it; a malformed one is skipped with a reason', async () => {
    const inv = ics(
      vevent(
        'inv-1@example.com',
        ':20261110T100000Z',
        ':20261110T110000Z',
        'Planning',
        'SEQUENCE:0\nORGANIZER:mailto:organizer@example.com\nATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:me@example.com',
      ),
      'REQUEST',
    );
    await invite(s, inbox.address, 'REQUEST', inv);
    await invite(s, inbox.address, 'REQUEST', 'BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nthis is not iCalendar\r\n', 'Broken');
    const args = { timeMin: '2026-11-10T00:00:00Z', timeMax: '2026-11-11T00:00:00Z', accountIds: 'local' };
    const r = await callOk(c, 'svc_calendar_list_events', args);
    assert.deepEqual(
      r.events.map((e: Json) => [e.title, e.start, e.organizer, e.inboxId]),
      [['Planning', '2026-11-10T10:00:00.000Z', 'organizer@example.com', inbox.inboxId]],
    );
    assert.ok(
      r.warnings.some((w: string) => /malformed iCalendar/.test(w)),
      JSON.stringify(r.warnings),
    );
    const st = await callOk(c, 'svc_calendar_status');
    assert.ok(st.local.recentlySkipped.some((x: Json) => /malformed/.test(x.reason)));
    // an update with a higher SEQUENCE moves it; CANCEL removes it
    await invite(
      s,
      inbox.address,
      'REQUEST',
      inv
        .replace('SEQUENCE:0', 'SEQUENCE:1')
        .replace(/T100000Z/, 'T120000Z')
        .replace(/DTEND:20261110T110000Z/, 'DTEND:20261110T130000Z'),
    );
    assert.equal((await callOk(c, 'svc_calendar_list_events', args)).events[0].start, '2026-11-10T12:00:00.000Z');
    await invite(s, inbox.address, 'CANCEL', inv.replace('METHOD:REQUEST', 'METHOD:CANCEL').replace('SEQUENCE:0', 'SEQUENCE:2'));
    assert.deepEqual((await callOk(c, 'svc_calendar_list_events', args)).events, []);
  });

  test('a part claimed by an instance that stopped while reading it is read again', async () => {
    await invite(
      s,
      inbox.address,
      'REQUEST',
      ics(vevent('stale-1', ':20261120T090000Z', ':20261120T100000Z', 'Claimed then lost'), 'REQUEST'),
    );
    const db = s.server.parts.store.db as unknown as Kysely<any>;
    const m = await db
      .selectFrom('messages')
      .select(['id', 'inbox_id'])
      .where('subject', '=', 'Invitation')
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const team = (await db.selectFrom('inboxes').select('team_id').where('id', '=', m.inbox_id).executeTakeFirstOrThrow()).team_id;
    await db
      .insertInto('calendar_seen')
      .values({ team_id: team, message_id: m.id, idx: 0, inbox_id: m.inbox_id, scope_label: null, outcome: 'reading', reason: null, at: 0 })
      .execute();
    const r = await callOk(c, 'svc_calendar_list_events', {
      timeMin: '2026-11-20T00:00:00Z',
      timeMax: '2026-11-21T00:00:00Z',
      accountIds: 'local',
    });
    assert.deepEqual(
      r.events.map((e: Json) => e.title),
      ['Claimed then lost'],
    );
  });

  test('scope: a key scoped to a label sees only invitations received by its inboxes, and no remote account', async () => {
    const other = await newInbox(s, { label: 'team-b/inbox' });
    await invite(s, inbox.address, 'REQUEST', ics(vevent('a-1', ':20261111T090000Z', ':20261111T100000Z', 'For team A'), 'REQUEST'));
    await invite(s, other.address, 'REQUEST', ics(vevent('b-1', ':20261111T090000Z', ':20261111T100000Z', 'For team B'), 'REQUEST'));
    const key = await mintKey(s, { label: 'scoped-a', scope: { labelPrefix: 'team-a/' } });
    const sc = await mcpClient(s.url, key);
    try {
      const args = { timeMin: '2026-11-11T00:00:00Z', timeMax: '2026-11-12T00:00:00Z' };
      const mine = await callOk(sc, 'svc_calendar_list_events', args);
      assert.deepEqual(
        mine.events.map((e: Json) => e.title),
        ['For team A'],
      );
      assert.deepEqual(
        mine.sources.map((x: Json) => x.accountId),
        ['local'],
      );
      assert.deepEqual((await callOk(sc, 'svc_calendar_list_accounts')).items, []);
      assert.match(await callErr(sc, 'svc_calendar_list_events', { ...args, accountIds: [caldavId] }), /scoped/);
      assert.match(
        await callErr(sc, 'svc_calendar_connect', { provider: 'caldav', serverUrl: rad.url, username: 'alice', password: 'x' }),
        /admin/,
      );
      const all = await callOk(c, 'svc_calendar_list_events', { ...args, accountIds: 'local' });
      assert.deepEqual(all.events.map((e: Json) => e.title).sort(), ['For team A', 'For team B']);
    } finally {
      await sc.close();
    }
  });

  describe('scheduling over local + CalDAV + Google', () => {
    // Tuesday 2026-11-17 (UTC): local 10:00-11:00, CalDAV 11:00-12:00 (back to back), Google 14:00-15:00.
    before(async () => {
      await invite(
        s,
        inbox.address,
        'REQUEST',
        ics(vevent('day-local', ':20261117T100000Z', ':20261117T110000Z', 'Local invite'), 'REQUEST'),
      );
      assert.equal(
        await rad.put(
          'alice',
          workUrl,
          'day-caldav.ics',
          ics(vevent('day-caldav', ':20261117T110000Z', ':20261117T120000Z', 'CalDAV meeting')),
        ),
        201,
      );
      gcal.events.get('carol@example.com')!.push({
        id: 'day-google',
        summary: 'Google meeting',
        start: { dateTime: '2026-11-17T14:00:00Z' },
        end: { dateTime: '2026-11-17T15:00:00Z' },
      });
    });
    const day = { timeMin: '2026-11-17T00:00:00Z', timeMax: '2026-11-18T00:00:00Z' };

    test('availability: busy merged over all three accounts, free slots inside working hours', async () => {
      const a = await callOk(c, 'svc_calendar_availability', { ...day, durationMinutes: 30 });
      assert.deepEqual(
        a.busy.map((b: Json) => [b.start, b.end]),
        [
          ['2026-11-17T10:00:00.000Z', '2026-11-17T12:00:00.000Z'],
          ['2026-11-17T14:00:00.000Z', '2026-11-17T15:00:00.000Z'],
        ],
      );
      assert.deepEqual(
        a.free.map((b: Json) => [b.start, b.end]),
        [
          ['2026-11-17T09:00:00.000Z', '2026-11-17T10:00:00.000Z'],
          ['2026-11-17T12:00:00.000Z', '2026-11-17T14:00:00.000Z'],
          ['2026-11-17T15:00:00.000Z', '2026-11-17T17:00:00.000Z'],
        ],
      );
      assert.equal(a.complete, true);
      assert.equal(a.sources.length, 3);
    });

    test('check conflicts: overlap across accounts; back-to-back is not a conflict', async () => {
      const hit = await callOk(c, 'svc_calendar_check_conflicts', { start: '2026-11-17T10:30:00Z', end: '2026-11-17T11:30:00Z' });
      assert.equal(hit.conflict, true);
      assert.deepEqual(
        hit.conflicts.map((e: Json) => e.title),
        ['Local invite', 'CalDAV meeting'],
      );
      const b2b = await callOk(c, 'svc_calendar_check_conflicts', { start: '2026-11-17T12:00:00Z', end: '2026-11-17T14:00:00Z' });
      assert.equal(b2b.conflict, false);
    });

    test('suggest meeting: ranked slots with buffers, free in every calendar, with reasons', async () => {
      const r = await callOk(c, 'svc_calendar_suggest_meeting', {
        ...day,
        durationMinutes: 60,
        bufferBeforeMinutes: 15,
        bufferAfterMinutes: 15,
        count: 3,
      });
      // 09:00-09:45 is too short; 12:15-13:45 holds one hour, 15:15-17:00 one more without overlapping it.
      assert.deepEqual(
        r.slots.map((x: Json) => x.start),
        ['2026-11-17T16:00:00.000Z', '2026-11-17T12:30:00.000Z'],
      );
      for (const x of r.slots) {
        const [a, b] = [Date.parse(x.start), Date.parse(x.end)];
        for (const [bs, be] of [
          ['10:00', '12:00'],
          ['14:00', '15:00'],
        ]) {
          const [s0, e0] = [Date.parse(`2026-11-17T${bs}:00Z`), Date.parse(`2026-11-17T${be}:00Z`)];
          assert.ok(b + 15 * 60_000 <= s0 || a >= e0 + 15 * 60_000, `${x.start} keeps the buffers`);
        }
        assert.ok(a >= Date.parse('2026-11-17T09:00:00Z') && b <= Date.parse('2026-11-17T17:00:00Z'));
        assert.ok(x.reasons.some((t: string) => /free in all \d+ calendars/.test(t)));
      }
      assert.ok(r.calendars >= 3);
    });

    test('agenda: the day in order with its gaps', async () => {
      const a = await callOk(c, 'svc_calendar_agenda', { date: '2026-11-17', timeZone: 'UTC' });
      assert.deepEqual(
        a.events.map((e: Json) => e.title),
        ['Local invite', 'CalDAV meeting', 'Google meeting'],
      );
      assert.deepEqual(
        a.gaps.map((g: Json) => [g.startLocal, g.minutes]),
        [
          ['2026-11-17T09:00:00+00:00', 60],
          ['2026-11-17T12:00:00+00:00', 120],
          ['2026-11-17T15:00:00+00:00', 120],
        ],
      );
      assert.equal(a.hours, 24);
    });

    test('DST: the Berlin agenda of 25 Oct has 25 hours; New York working hours move with the clock change', async () => {
      assert.equal(
        await rad.put(
          'alice',
          workUrl,
          'dst.ics',
          ics(vevent('dst-1', ';TZID=Europe/Berlin:20261025T100000', ';TZID=Europe/Berlin:20261025T110000', 'Sunday brunch')),
        ),
        201,
      );
      const a = await callOk(c, 'svc_calendar_agenda', { date: '2026-10-25', timeZone: 'Europe/Berlin', accountIds: [caldavId] });
      assert.equal(a.hours, 25);
      assert.equal(a.dayStart, '2026-10-24T22:00:00.000Z');
      assert.deepEqual(
        a.events.map((e: Json) => [e.title, e.start, e.startLocal]),
        [['Sunday brunch', '2026-10-25T09:00:00.000Z', '2026-10-25T10:00:00+01:00']],
      );
      const ny = await callOk(c, 'svc_calendar_availability', {
        timeMin: '2026-10-30T00:00:00Z',
        timeMax: '2026-11-03T00:00:00Z',
        timeZone: 'America/New_York',
        accountIds: 'local',
      });
      assert.deepEqual(
        ny.free.map((f: Json) => [f.start, f.startLocal]),
        [
          ['2026-10-30T13:00:00.000Z', '2026-10-30T09:00:00-04:00'],
          ['2026-11-02T14:00:00.000Z', '2026-11-02T09:00:00-05:00'],
        ],
      );
    });
  });

  test('a broken object on the CalDAV server: that account is reported missing, the others still answer; named, it is a 503', async () => {
    const file = path.join(rad.storage, 'collection-root', 'alice', 'work', 'broken.ics');
    fs.writeFileSync(file, 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nATTENDEE;CN="unterminated:mailto:x@y\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    try {
      const r = await callOk(c, 'svc_calendar_list_events', { timeMin: '2026-11-17T00:00:00Z', timeMax: '2026-11-18T00:00:00Z' });
      const cd = r.sources.find((x: Json) => x.accountId === caldavId);
      assert.equal(cd.ok, false);
      assert.match(cd.error, /CalDAV server .* failed/);
      assert.deepEqual(
        r.events.map((e: Json) => e.title),
        ['Local invite', 'Google meeting'],
      );
      const st = (await callOk(c, 'svc_calendar_list_accounts')).items.find((a: Json) => a.id === caldavId);
      assert.equal(st.status, 'error');
      const named = await s.api(
        `/v1/providers/calendar/events?timeMin=2026-11-17T00:00:00Z&timeMax=2026-11-18T00:00:00Z&accountIds=${caldavId}`,
      );
      assert.equal(named.status, 503);
    } finally {
      fs.rmSync(file);
    }
  });
});
