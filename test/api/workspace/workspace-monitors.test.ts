// Monitors on a controllable clock: the scheduler runs a monitor only when its interval has passed, each run is
// stored with its findings, run-now does not move the schedule, and create/list/delete/runs with their errors.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { deliver, mintKey, newInbox } from '../../helpers/workspace-mail.ts';

let s: TestServer;
let now = Date.parse('2026-11-20T12:00:00Z');
before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => now } });
});
after(async () => {
  await s.stop();
});

const tick = () => s.server.services.monitors.tick();
const runsOf = async (id: string) => (await json(await s.api(`/v1/workspace/monitors/${id}/runs`))).items as Json[];

test('expect_mail fires on schedule: failed without mail, ok once it arrives, findings stored per run', async () => {
  const inbox = await newInbox(s);
  const m = await json(
    await s.api('/v1/workspace/monitors', {
      method: 'POST',
      json: {
        name: 'nightly report',
        kind: 'expect_mail',
        inboxId: inbox.inboxId,
        from: 'reports@',
        subjectContains: 'nightly',
        withinMinutes: 30,
        intervalSeconds: 600,
      },
    }),
    201,
  );
  assert.match(m.monitorId, /^mon_/);
  assert.equal(m.nextRunAt, new Date(now + 600_000).toISOString());
  assert.deepEqual(await tick(), [], 'not due yet');
  now += 600_000;
  const [r1] = await tick();
  assert.equal(r1!.status, 'failed');
  assert.deepEqual(await tick(), [], 'ran once; next run is one interval later');
  now += 60_000;
  await deliver(s, { from: 'reports@ci.example', to: inbox.address, subject: 'nightly build report', text: 'all green' });
  await deliver(s, { from: 'other@ci.example', to: inbox.address, subject: 'nightly build report', text: 'not from reports@' });
  now += 540_000;
  await tick();
  const runs = await runsOf(m.monitorId);
  assert.deepEqual(
    runs.map((r) => [r.trigger, r.status]),
    [
      ['schedule', 'ok'],
      ['schedule', 'failed'],
    ],
  );
  assert.equal(runs[0]!.findings.length, 1);
  assert.equal(runs[0]!.findings[0].from, 'reports@ci.example');
  assert.match(runs[1]!.findings[0].problem, /no matching mail in the last 30 minutes/);
  const list = await json(await s.api('/v1/workspace/monitors'));
  const mine = list.items.find((x: Json) => x.monitorId === m.monitorId);
  assert.equal(mine.lastStatus, 'ok');
  assert.equal(mine.nextRunAt, new Date(now + 600_000).toISOString());
  // 31 minutes later the mail is outside the window: the run-now says so and leaves the schedule alone
  now += 31 * 60_000;
  const manual = await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/run`, { method: 'POST', json: {} }));
  assert.equal(manual.trigger, 'manual');
  assert.equal(manual.status, 'failed');
  assert.equal(
    (await json(await s.api('/v1/workspace/monitors'))).items.find((x: Json) => x.monitorId === m.monitorId).nextRunAt,
    mine.nextRunAt,
  );
});

test('no_reply_after: conversations whose last message is theirs and older than N hours', async () => {
  const inbox = await newInbox(s);
  await deliver(s, {
    from: 'kim@x.example',
    to: inbox.address,
    subject: 'Status?',
    text: 'Any news?',
    date: new Date(now - 30 * 3600_000).toISOString(),
  });
  await deliver(s, {
    from: 'lee@x.example',
    to: inbox.address,
    subject: 'Fresh',
    text: 'Hi',
    date: new Date(now - 3600_000).toISOString(),
  });
  const m = await json(
    await s.api('/v1/workspace/monitors', {
      method: 'POST',
      json: { name: 'unanswered', kind: 'no_reply_after', inboxId: inbox.inboxId, hours: 24, intervalSeconds: 3600 },
    }),
    201,
  );
  const r = await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/run`, { method: 'POST', json: {} }));
  assert.equal(r.status, 'alert');
  assert.deepEqual(
    r.findings.map((f: Json) => f.from),
    ['kim@x.example'],
  );
  now += 3600_000;
  const [sched] = (await tick()).filter((x) => x.monitor_id === m.monitorId);
  assert.equal(sched!.status, 'alert');
  const runs = await runsOf(m.monitorId);
  assert.equal(runs.length, 2);
  const page = await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/runs?limit=1`));
  assert.equal(page.items[0].trigger, 'schedule');
  assert.equal(
    (await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/runs?limit=1&cursor=${page.nextCursor}`))).items[0].trigger,
    'manual',
  );
});

test('bad input and scope: 400s, 404s, read-only 403, delete removes runs; deleted inbox → error run', async () => {
  const inbox = await newInbox(s);
  await json(await s.api('/v1/workspace/monitors', { method: 'POST', json: { name: 'x', kind: 'bogus', inboxId: inbox.inboxId } }), 400);
  await json(
    await s.api('/v1/workspace/monitors', {
      method: 'POST',
      json: { name: 'x', kind: 'expect_mail', inboxId: inbox.inboxId, intervalSeconds: 5 },
    }),
    400,
  );
  await json(await s.api('/v1/workspace/monitors', { method: 'POST', json: { name: 'x', kind: 'expect_mail', inboxId: 'inb_nope' } }), 404);
  const m = await json(
    await s.api('/v1/workspace/monitors', {
      method: 'POST',
      json: { name: 'x', kind: 'expect_mail', inboxId: inbox.inboxId, intervalSeconds: 60 },
    }),
    201,
  );
  const ro = await mintKey(s, { label: 'ro-mon', scope: { readOnly: true } });
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/run`, { method: 'POST', key: ro, json: {} }), 403);
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}`, { method: 'DELETE', key: ro }), 403);
  const scoped = await mintKey(s, { label: 'sc-mon', scope: { labelPrefix: 'elsewhere-' } });
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/runs`, { key: scoped }), 404);
  assert.ok(!(await json(await s.api('/v1/workspace/monitors', { key: scoped }))).items.some((x: Json) => x.monitorId === m.monitorId));
  await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }));
  const r = await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/run`, { method: 'POST', json: {} }));
  assert.equal(r.status, 'error');
  assert.match(r.findings[0].problem, /no longer exists/);
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}`, { method: 'DELETE' }));
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}/runs`), 404);
  await json(await s.api(`/v1/workspace/monitors/${m.monitorId}`, { method: 'DELETE' }), 404);
  await json(await s.api('/v1/workspace/monitors/mon_nope/run', { method: 'POST', json: {} }), 404);
});
