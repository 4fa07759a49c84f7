// svc_workspace_execute_calendar_event under each policy mode, into a real Radicale (read back over CalDAV), the
// Google Calendar fake and the local calendar; idempotency replays; no INBOXD_SECRET_KEY; not-connected accounts.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callErr, callOk, EPOCH, ics, SECRET_KEY, vevent } from '../../helpers/calendar.ts';
import { type GcalFake, startGcalFake } from '../../helpers/gcal-fake.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { type Radicale, radicaleSkip, startRadicale } from '../../helpers/radicale.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
const EXEC = 'svc_workspace_execute_calendar_event';

describe('execute_calendar_event', { skip: radicaleSkip() }, () => {
  let s: TestServer;
  let rad: Radicale;
  let gcal: GcalFake;
  let c: Client;
  let workUrl: string;
  let caldavId: string;
  let googleId: string;

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
    caldavId = (
      await callOk(c, 'svc_calendar_connect', { provider: 'caldav', serverUrl: rad.url, username: 'alice', password: 'wonderland' })
    ).account.id;
    googleId = (await callOk(c, 'svc_calendar_connect', { provider: 'google', ...gcal.client })).account.id;
    assert.equal(await rad.put('alice', workUrl, 'busy.ics', ics(vevent('busy-1', ':20261110T100000Z', ':20261110T110000Z', 'Busy'))), 201);
    gcal.events.get('carol@example.com')!.push({
      id: 'gbusy',
      summary: 'Google busy',
      start: { dateTime: '2026-11-10T10:00:00Z' },
      end: { dateTime: '2026-11-10T11:00:00Z' },
    });
  });
  after(async () => {
    await c?.close();
    await s?.stop();
    await gcal?.stop();
    await rad?.stop();
  });

  const ev = (extra: Json = {}) => ({
    title: 'Team sync',
    start: '2026-11-10T13:00:00Z',
    end: '2026-11-10T13:30:00Z',
    timeZone: 'Europe/Berlin',
    attendees: ['bob@example.com'],
    ...extra,
  });
  const objects = async () => (await rad.objects('alice', workUrl)).filter((o) => !o.url.endsWith('busy.ics'));

  test('with two accounts and no accountId: 400 asking which', async () => {
    assert.match(await callErr(c, EXEC, ev()), /accountId/);
  });

  test('draft_only (default): nothing created, the proposal logged as a draft action', async () => {
    const r = await callOk(c, EXEC, ev({ accountId: caldavId }));
    assert.equal(r.outcome, 'drafted');
    assert.equal(r.mode, 'draft_only');
    assert.equal(r.eventId, null);
    assert.equal(r.event.startLocal, '2026-11-10T14:00:00+01:00');
    assert.deepEqual(await objects(), []);
    const acts = await callOk(c, 'svc_workspace_list_actions', { type: 'draft' });
    const a = acts.items.find((x: Json) => x.actionId === r.actionId);
    assert.match(a.note, /calendar_event proposed.*Team sync/);
    assert.match(a.reasons[0], /draft_only/);
  });

  test('auto_send_safe: created in Radicale when safe; a conflict, a no-reply attendee or an inboxd address blocks it', async () => {
    await callOk(c, 'svc_workspace_set_policy', { mode: 'auto_send_safe' });
    const r = await callOk(c, EXEC, ev({ accountId: caldavId, location: 'Room 4' }));
    assert.equal(r.outcome, 'created', JSON.stringify(r.reasons));
    assert.equal(r.calendarId, workUrl);
    assert.ok(r.checks.every((x: Json) => x.passed));
    const objs = await objects();
    assert.equal(objs.length, 1);
    assert.equal(objs[0]!.url, r.eventId);
    assert.match(objs[0]!.data, /SUMMARY:Team sync/);
    assert.match(objs[0]!.data, /DTSTART:20261110T130000Z/);
    assert.match(objs[0]!.data, /ATTENDEE.*mailto:bob@example\.com/);
    assert.match(objs[0]!.data, /LOCATION:Room 4/);

    const conflict = await callOk(c, EXEC, ev({ accountId: caldavId, start: '2026-11-10T10:30:00Z', end: '2026-11-10T11:30:00Z' }));
    assert.equal(conflict.outcome, 'blocked');
    assert.ok(
      conflict.reasons.some((x: string) => /no_conflict: overlaps 1 event.*Busy/.test(x)),
      JSON.stringify(conflict.reasons),
    );
    assert.deepEqual(
      conflict.conflicts.map((x: Json) => x.title),
      ['Busy'],
    );
    const noreply = await callOk(
      c,
      EXEC,
      ev({ accountId: caldavId, start: '2026-11-10T15:00:00Z', end: '2026-11-10T15:30:00Z', attendees: ['noreply@example.com'] }),
    );
    assert.equal(noreply.outcome, 'blocked');
    assert.ok(noreply.reasons.some((x: string) => x.startsWith('not_role_or_noreply')));
    const own = await callOk(
      c,
      EXEC,
      ev({ accountId: caldavId, start: '2026-11-10T15:00:00Z', end: '2026-11-10T15:30:00Z', attendees: ['agent@inboxd.test'] }),
    );
    assert.equal(own.outcome, 'blocked');
    assert.ok(own.reasons.some((x: string) => x.startsWith('recipient_domain_allowed')));
    const past = await callOk(c, EXEC, ev({ accountId: caldavId, start: '2026-09-10T15:00:00Z', end: '2026-09-10T15:30:00Z' }));
    assert.equal(past.outcome, 'blocked');
    assert.equal((await objects()).length, 1, 'nothing else created');
    const blocked = await callOk(c, 'svc_workspace_list_actions', { type: 'blocked' });
    assert.ok(blocked.items.length >= 4);
  });

  test('full_auto: created in Google even over a conflict; a hard rule (no-reply attendee) still blocks', async () => {
    await callOk(c, 'svc_workspace_set_policy', { mode: 'full_auto' });
    const r = await callOk(c, EXEC, ev({ accountId: googleId, start: '2026-11-10T10:15:00Z', end: '2026-11-10T10:45:00Z' }));
    assert.equal(r.outcome, 'created', JSON.stringify(r.reasons));
    assert.equal(r.checks.find((x: Json) => x.rule === 'no_conflict').passed, false);
    const stored = gcal.events.get('carol@example.com')!.find((e) => e.id === r.eventId)!;
    assert.equal(stored.summary, 'Team sync');
    assert.equal(stored.start.dateTime, '2026-11-10T10:15:00.000Z');
    assert.equal(stored.start.timeZone, 'Europe/Berlin');
    assert.deepEqual(stored.attendees, [{ email: 'bob@example.com' }]);
    const hard = await callOk(c, EXEC, ev({ accountId: googleId, attendees: ['no-reply@example.com'] }));
    assert.equal(hard.outcome, 'blocked');
    const sent = await callOk(c, 'svc_workspace_list_actions', { type: 'sent' });
    assert.ok(sent.items.some((a: Json) => a.actionId === r.actionId && /calendar_event created/.test(a.note)));
  });

  test('idempotency: the same key replays the first answer and creates nothing again; another request under it is 409', async () => {
    const body = ev({ accountId: caldavId, title: 'Replay me', start: '2026-11-11T09:00:00Z', end: '2026-11-11T09:30:00Z' });
    const post = (b: Json, key: string) =>
      s.api('/v1/workspace/execute-calendar-event', { method: 'POST', json: b, headers: { 'Idempotency-Key': key } });
    const first = await post(body, 'cal-key-1');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), 'false');
    const a = (await first.json()) as Json;
    assert.equal(a.outcome, 'created');
    const again = await post(body, 'cal-key-1');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), a);
    const viaMcp = await callOk(c, EXEC, { ...body, idempotencyKey: 'cal-key-1' });
    assert.deepEqual(viaMcp, a);
    assert.equal((await objects()).filter((o) => /Replay me/.test(o.data)).length, 1);
    assert.equal((await post({ ...body, title: 'Other' }, 'cal-key-1')).status, 409);
  });

  test('accountId "local": created in the local calendar and listed there', async () => {
    const r = await callOk(
      c,
      EXEC,
      ev({ accountId: 'local', title: 'Local one', start: '2026-11-12T09:00:00Z', end: '2026-11-12T10:00:00Z' }),
    );
    assert.equal(r.outcome, 'created');
    assert.equal(r.provider, 'local');
    const l = await callOk(c, 'svc_calendar_list_events', {
      timeMin: '2026-11-12T00:00:00Z',
      timeMax: '2026-11-13T00:00:00Z',
      accountIds: 'local',
    });
    assert.deepEqual(
      l.events.map((e: Json) => [e.title, e.eventId, e.attendees[0]?.email]),
      [['Local one', r.eventId, 'bob@example.com']],
    );
  });

  test('disconnect (REST only): the account and its credentials are gone', async () => {
    const r = await s.api(`/v1/providers/calendar/accounts/${googleId}`, { method: 'DELETE' });
    assert.equal(r.status, 200);
    assert.deepEqual(
      (await callOk(c, 'svc_calendar_list_accounts')).items.map((a: Json) => a.id),
      [caldavId],
    );
    assert.equal((await s.api(`/v1/providers/calendar/accounts/${googleId}`, { method: 'DELETE' })).status, 404);
  });

  test('a target calendar that cannot be read: draft_only still records the proposal, auto_send_safe blocks', async () => {
    const file = path.join(rad.storage, 'collection-root', 'alice', 'work', 'broken.ics');
    fs.writeFileSync(file, 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nATTENDEE;CN="unterminated:mailto:x@y\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    try {
      await callOk(c, 'svc_workspace_set_policy', { mode: 'draft_only' });
      const d = await callOk(c, EXEC, ev({ accountId: caldavId, start: '2026-11-13T09:00:00Z', end: '2026-11-13T09:30:00Z' }));
      assert.equal(d.outcome, 'drafted');
      assert.match(d.checks.find((x: Json) => x.rule === 'no_conflict').detail, /could not be read/);
      await callOk(c, 'svc_workspace_set_policy', { mode: 'auto_send_safe' });
      const b = await callOk(c, EXEC, ev({ accountId: caldavId, start: '2026-11-13T09:00:00Z', end: '2026-11-13T09:30:00Z' }));
      assert.equal(b.outcome, 'blocked');
      assert.ok(b.reasons.some((x: string) => /no_conflict: the target calendar could not be read/.test(x)));
    } finally {
      fs.rmSync(file);
    }
  });
});

describe('without INBOXD_SECRET_KEY, and with no account connected', () => {
  let s: TestServer;
  let c: Client;
  let hits = 0;
  let dav: http.Server;
  let davUrl: string;
  before(async () => {
    dav = http.createServer((_req, res) => {
      hits++;
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => dav.listen(0, '127.0.0.1', () => r()));
    davUrl = `http://127.0.0.1:${(dav.address() as AddressInfo).port}/`;
    s = await startTestServer();
    c = await mcpClient(s.url, s.key);
  });
  after(async () => {
    await c?.close();
    await s?.stop();
    await new Promise<void>((r) => dav.close(() => r()));
  });

  test('connect is refused with not_configured before any network work', async () => {
    const text = await callErr(c, 'svc_calendar_connect', { provider: 'caldav', serverUrl: davUrl, username: 'a', password: 'b' });
    assert.match(text, /INBOXD_SECRET_KEY/);
    const r = await s.api('/v1/providers/calendar/accounts', {
      method: 'POST',
      json: { provider: 'google', refreshToken: 'r', clientId: 'c', clientSecret: 's' },
    });
    assert.equal(r.status, 501);
    assert.equal(hits, 0);
    assert.equal((await callOk(c, 'svc_calendar_status')).canConnect, false);
  });

  test('execute with a remote accountId: not_configured saying how to connect; without one: the local calendar', async () => {
    const text = await callErr(c, EXEC, {
      accountId: 'pac_nothere',
      title: 'x',
      start: '2030-01-01T09:00:00Z',
      end: '2030-01-01T10:00:00Z',
    });
    assert.match(text, /svc_calendar_connect/);
    const r = await callOk(c, EXEC, { title: 'x', start: '2030-01-01T09:00:00Z', end: '2030-01-01T10:00:00Z' });
    assert.equal(r.provider, 'local');
    assert.equal(r.outcome, 'drafted');
    assert.match(
      await callErr(c, EXEC, { title: 'x', start: '2030-01-01T10:00:00Z', end: '2030-01-01T09:00:00Z' }),
      /end must be after start/,
    );
    assert.match(
      await callErr(c, 'svc_calendar_list_events', {
        timeMin: '2030-01-01T00:00:00Z',
        timeMax: '2030-01-02T00:00:00Z',
        timeZone: 'Mars/Base',
      }),
      /IANA/,
    );
  });
});
