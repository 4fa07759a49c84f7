// Monitors under caps (issue #25): a team may have only so many monitors (parallel creates included), a run reads
// only so much of a stranger's mail and says where it stopped, a scheduler tick stops at its budget and leaves the
// rest due, the main thread keeps answering /health while monitors run over large mail, and one team's many
// monitors cannot keep another team's monitor from its run. Caps are set low by flag.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MonitorRunRow } from '../../../src/workspace/tables.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { teamAdminKey } from '../../helpers/teams.ts';
import { deliver } from '../../helpers/workspace-mail.ts';

let now = Date.parse('2026-11-20T12:00:00Z');
const clock = { clock: { now: () => now } };
let s: TestServer;
before(async () => {
  s = await startTestServer(
    [
      '--max-monitors-per-team',
      '5',
      '--monitor-max-messages',
      '20',
      '--monitor-max-text-chars',
      '2000',
      '--monitor-run-bytes',
      '3000000',
      '--monitor-tick-bytes',
      '7000000',
    ],
    {},
    clock,
  );
  // The test ticks the scheduler itself: its own 15 s timer must not run monitors between the steps.
  await s.server.services.monitors.stop();
});
after(async () => {
  await s.stop();
});

const teamKey = (t: TestServer, name: string) => teamAdminKey(t, name);

const create = (t: TestServer, key: string | undefined, body: Json) =>
  t.api('/v1/workspace/monitors', {
    method: 'POST',
    ...(key ? { key } : {}),
    json: { name: 'm', kind: 'expect_mail', intervalSeconds: 60, ...body },
  });

/** A text/plain message of about `bytes` bytes whose text never contains "needle". */
const bigText = (bytes: number, n: number) => `message ${n}\n${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`;

/** Polls /health every 20 ms while `work` runs; returns the slowest answer in ms. */
async function slowestHealth<T>(t: TestServer, work: () => Promise<T>): Promise<{ result: T; slowest: number; polls: number }> {
  let done = false;
  let slowest = 0;
  let polls = 0;
  const poller = (async () => {
    while (!done) {
      const t0 = performance.now();
      const r = await t.api('/health', { key: null });
      await r.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - t0);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    await poller;
  }
  // Read after the last poll has answered (it was sent while the work ran).
  return { result, slowest, polls };
}

test('a team may have --max-monitors-per-team monitors: the next create is 409 naming the cap and the flag, nothing stored', async () => {
  const admin = await teamKey(s, 'capteam');
  const scoped = await mintKeyAs(admin, { label: 'cap-scoped', scope: { labelPrefix: 'cap-' } });
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', key: scoped, json: { label: 'cap-one' } }), 201);
  // Parallel creates by a member key scoped to one label: exactly the cap is stored.
  const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => create(s, scoped, { name: `m${i}`, inboxId: inbox.inboxId })));
  assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 201, 201, 201, 409, 409, 409, 409]);
  const refused = (await answers.find((r) => r.status === 409)!.json()) as Json;
  assert.equal(refused.code, 'conflict');
  assert.match(refused.detail, /already has 5 monitors/);
  assert.match(refused.detail, /--max-monitors-per-team/);
  for (const r of answers) if (r.status === 201) await r.arrayBuffer();
  assert.equal((await json(await s.api('/v1/workspace/monitors', { key: admin }))).items.length, 5, 'nothing half-stored');
  await json(await create(s, admin, { inboxId: inbox.inboxId }), 409);
  // Deleting one makes room again.
  const one = (await json(await s.api('/v1/workspace/monitors', { key: admin }))).items[0];
  await json(await s.api(`/v1/workspace/monitors/${one.monitorId}`, { method: 'DELETE', key: admin }));
  await json(await create(s, admin, { inboxId: inbox.inboxId }), 201);
});

async function mintKeyAs(admin: string, body: Json): Promise<string> {
  const r = await s.api('/v1/team/keys', { method: 'POST', key: admin, json: body });
  assert.equal(r.status, 201, await r.clone().text());
  return ((await r.json()) as Json).key;
}

test('a tick over large mail reads within its caps, says where each run stopped, leaves the rest due; /health keeps answering', async () => {
  const key = await teamKey(s, 'bigmail');
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', key, json: {} }), 201);
  // 12 messages of about 1 MB (no key needed to mail an inbox), each with its text in the store.
  for (let n = 0; n < 12; n++)
    await deliver(s, { from: 'x@stranger.example', to: inbox.address, subject: `big ${n}`, text: bigText(1_000_000, n) });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push((await json(await create(s, key, { name: `t${i}`, inboxId: inbox.inboxId, textContains: 'needle' }), 201)).monitorId);
  now += 60_000;
  const { result: runs, slowest, polls } = await slowestHealth(s, () => s.server.services.monitors.tick());
  const mine = runs.filter((r: MonitorRunRow) => ids.includes(r.monitor_id));
  // Each run reads at most 3 MB of text (--monitor-run-bytes): 2 of the 1 MB messages (a third would pass it).
  // The tick may read 7 MB (--monitor-tick-bytes): it starts runs until that is spent, so 4 of 5 run now.
  assert.equal(mine.length, 4, `runs this tick: ${mine.length}`);
  for (const r of mine) {
    assert.equal(r.status, 'incomplete', 'no match in what it read, and it could not read everything');
    const stop = JSON.parse(r.findings_json).at(-1);
    assert.equal(stop.cap, '--monitor-run-bytes');
    assert.match(stop.problem, /^stopped at the cap: read the text of 2 of 12 candidate messages/);
  }
  const view = await json(await s.api(`/v1/workspace/monitors/${mine[0]!.monitor_id}/runs`, { key }));
  assert.match(view.items[0].stoppedAtCap, /^stopped at the cap: .*--monitor-run-bytes/);
  const list = (await json(await s.api('/v1/workspace/monitors', { key }))).items as Json[];
  assert.equal(list.filter((m) => m.lastRunAt === null).length, 1, 'one monitor is left due for the next tick');
  assert.ok(list.some((m) => m.lastStatus === 'incomplete'));
  assert.ok(s.logs.some((l) => l.includes('workspace monitors left for the next tick')));
  const next = await s.server.services.monitors.tick();
  assert.equal(next.filter((r) => ids.includes(r.monitor_id)).length, 1, 'the next tick runs the one left');
  assert.ok(polls > 0);
  assert.ok(slowest < 500, `/health took ${slowest.toFixed(0)} ms during the tick`);
  // More mail than a run examines (--monitor-max-messages 20): a run now run says both where it stopped.
  for (let n = 0; n < 12; n++) await deliver(s, { from: 'x@stranger.example', to: inbox.address, subject: `small ${n}`, text: 'hi' });
  const manual = await json(await s.api(`/v1/workspace/monitors/${ids[0]}/run`, { method: 'POST', key, json: {} }));
  assert.equal(manual.status, 'incomplete');
  assert.match(manual.stoppedAtCap, /more than 20 messages; only the newest 20 were examined \(--monitor-max-messages\)/);
  assert.match(manual.stoppedAtCap, /read the text of 14 of 20 candidate messages .*\(--monitor-run-bytes\)/);
  // Runs on demand of one team are taken one at a time: a parallel one is 429 with Retry-After, never a pile-up.
  const burst = await Promise.all(ids.map((id) => s.api(`/v1/workspace/monitors/${id}/run`, { method: 'POST', key, json: {} })));
  assert.ok(burst.some((r) => r.status === 200));
  for (const r of burst) {
    assert.ok(r.status === 200 || (r.status === 429 && r.headers.get('retry-after') === '1'), String(r.status));
    await r.arrayBuffer();
  }
});

test("one team's many due monitors cannot keep another team's monitor from its run", async () => {
  const t = await startTestServer(
    ['--max-monitors-per-team', '200', '--monitor-run-bytes', '1000000', '--monitor-tick-bytes', '1000000'],
    {},
    clock,
  );
  await t.server.services.monitors.stop();
  try {
    const busy = await teamKey(t, 'busyteam');
    const quiet = await teamKey(t, 'quietteam');
    const big = await json(await t.api('/v1/inboxes', { method: 'POST', key: busy, json: {} }), 201);
    for (let n = 0; n < 5; n++)
      await deliver(t, { from: 'x@stranger.example', to: big.address, subject: `m ${n}`, text: bigText(100_000, n) });
    // More due monitors than a tick ever looked at before (100), all due before the quiet team's one.
    for (let i = 0; i < 101; i++)
      await json(await create(t, busy, { name: `busy ${i}`, inboxId: big.inboxId, textContains: 'needle' }), 201);
    now += 1000;
    const own = await json(await t.api('/v1/inboxes', { method: 'POST', key: quiet, json: {} }), 201);
    const q = await json(await create(t, quiet, { name: 'quiet', inboxId: own.inboxId }), 201);
    now += 60_000;
    const runs = await t.server.services.monitors.tick();
    assert.ok(
      runs.some((r) => r.monitor_id === q.monitorId),
      'the quiet team got its run in the first tick',
    );
    assert.ok(runs.length <= 4, `the tick stopped at its byte budget (${runs.length} runs)`);
  } finally {
    await t.stop();
  }
});
