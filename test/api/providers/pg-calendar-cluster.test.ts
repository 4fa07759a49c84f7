// The local calendar on two inboxd instances sharing one PostgreSQL (issue 18 × issue 20): both sync the same
// invitations at the same time. Every calendar part is read once (its claim in calendar_seen), and a REQUEST and its
// update (a higher SEQUENCE) read by two instances at once leave the update, never the older one written last.
// not @cluster: starts its own two instances on PostgreSQL
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import { callOk, EPOCH, ics, invite, vevent } from '../../helpers/calendar.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { postgresMissing } from '../../helpers/postgres.ts';
import { freshDatabase, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const skip = postgresMissing() !== null && process.env.CI !== 'true' ? `skipped: ${postgresMissing()}` : false;
if (skip) process.stdout.write(`# pg-calendar-cluster: ${skip}\n`);

type Json = Record<string, any>;
const UIDS = 12;
const PARTS = 2;
let a: TestServer;
let b: TestServer;
let ca: Client;
let cb: Client;
let blobDir: string;

before(async () => {
  if (skip) return;
  const database = await freshDatabase();
  blobDir = tempDir('inboxd-blobs-');
  const t0 = Date.now();
  const clock = { now: () => EPOCH + (Date.now() - t0) };
  a = await startTestServer([], {}, { database, blobDir, clock });
  b = await startTestServer([], {}, { database, blobDir, clock });
  ca = await mcpClient(a.url, a.key);
  cb = await mcpClient(b.url, b.key);
});
after(async () => {
  await ca?.close();
  await cb?.close();
  await a?.stop();
  await b?.stop();
  if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
});

test('two instances sync the same invitations at once: each part read once, every update wins over its REQUEST', {
  skip,
  timeout: 120_000,
}, async () => {
  const r = await a.api('/v1/inboxes', { method: 'POST', json: { label: 'cal' } });
  assert.equal(r.status, 201);
  const inbox = (await r.json()) as Json;
  const day = (n: number) => `202611${String(10 + n).padStart(2, '0')}`;
  for (let i = 0; i < UIDS; i++) {
    const first = ics(vevent(`u${i}@example.com`, `:${day(i)}T100000Z`, `:${day(i)}T110000Z`, `Meeting ${i}`, 'SEQUENCE:0'), 'REQUEST');
    const moved = first.replace('SEQUENCE:0', 'SEQUENCE:1').replaceAll('T100000Z', 'T120000Z').replaceAll('T110000Z', 'T130000Z');
    // The update arrives first and the original right after it (a delayed MTA): the original must come out stale.
    await invite(a, inbox.address, 'REQUEST', moved);
    await invite(a, inbox.address, 'REQUEST', first);
  }
  await invite(a, inbox.address, 'REQUEST', 'BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nnot iCalendar\r\n', 'Broken');

  const args = { timeMin: '2026-11-01T00:00:00Z', timeMax: '2026-12-01T00:00:00Z', accountIds: 'local' };
  const answers = await Promise.all([ca, cb, ca, cb, ca, cb].map((c) => callOk(c, 'svc_calendar_list_events', args)));

  // nodemailer sends an invitation as two calendar parts: the text/calendar alternative and an invite.ics file.
  // Each part of the malformed one was read by exactly one of the six concurrent syncs (only its reader reports it).
  const reports = answers.flatMap((x) => x.warnings as string[]).filter((w) => /malformed iCalendar/.test(w));
  assert.equal(reports.length, PARTS, JSON.stringify(reports));
  const seen = await sql<{ outcome: string; n: number }>`
    select outcome, count(*)::int as n from calendar_seen group by outcome order by outcome`.execute(a.server.parts.store.db);
  const byOutcome = Object.fromEntries(seen.rows.map((x) => [x.outcome, x.n]));
  assert.equal(byOutcome.reading, undefined, 'no part is left claimed');
  assert.equal(
    Object.values(byOutcome).reduce((s, n) => s + n, 0),
    PARTS * (2 * UIDS + 1),
    `every part once: ${JSON.stringify(byOutcome)}`,
  );

  // Whichever instance read which part, and in whatever order, each meeting is at its updated time.
  const expected = Array.from({ length: UIDS }, (_, i) => [`Meeting ${i}`, `2026-11-${10 + i}T12:00:00.000Z`]);
  for (const c of [ca, cb]) {
    const listed = await callOk(c, 'svc_calendar_list_events', args);
    assert.deepEqual(
      listed.events.map((e: Json) => [e.title, e.start]),
      expected,
    );
  }
});
