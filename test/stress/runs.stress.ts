// A run at its limits: 50 services with their inboxes, 40 messages each (2,000 mails, half with a code), and 20
// concurrent reports racing on one run. The timeline must page through every event exactly once, in order, and
// concurrent writers must each get either their change or a 409 — never a lost update.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

test('50 services, 2,000 mails: the timeline has every event once, in order', async () => {
  const services = Array.from({ length: 50 }, (_, i) => `service-${i}`);
  const run = (await (
    await s.api('/v1/agent/runs', { method: 'POST', json: { goal: 'load', services, createInboxes: true } })
  ).json()) as Json;
  assert.equal(run.services.length, 50);
  for (const svc of run.services as Json[])
    for (let n = 0; n < 40; n++) {
      const code = n % 2 === 0 ? `Your code is ${String(100000 + n)}` : 'Welcome aboard';
      const raw = Buffer.from(`From: a@example.com\r\nTo: ${svc.address}\r\nSubject: mail ${n}\r\n\r\n${code}\r\n`);
      await s.server.parts.ingest.accept({ raw, rcpts: [svc.address], mailFrom: 'a@example.com', source: 'test' });
    }
  const seen: Json[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${cursor}` : '';
    const page = (await (await s.api(`/v1/agent/runs/${run.runId}/timeline?limit=500${q}`)).json()) as Json;
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  const count = (t: string) => seen.filter((e) => e.type === t).length;
  assert.equal(count('inbox.created'), 50);
  assert.equal(count('message.received'), 2000);
  assert.equal(count('code.extracted'), 1000);
  assert.equal(new Set(seen.map((e) => e.seq)).size, seen.length, 'no event twice');
  const ats = seen.map((e) => Date.parse(e.at));
  assert.deepEqual(
    ats,
    [...ats].sort((a, b) => a - b),
  );
});

test('20 concurrent reports on one run: each is applied or refused with 409, none lost', async () => {
  const run = (await (
    await s.api('/v1/agent/runs', { method: 'POST', json: { goal: 'race', services: Array.from({ length: 5 }, (_, i) => `s${i}`) } })
  ).json()) as Json;
  const stepIds = (run.steps as Json[]).map((x) => x.stepId as string);
  const answers = await Promise.all(
    stepIds.map((stepId) => s.api(`/v1/agent/runs/${run.runId}/report`, { method: 'POST', json: { stepId, outcome: 'done' } })),
  );
  const ok = answers.filter((r) => r.status === 200).length;
  assert.ok(answers.every((r) => r.status === 200 || r.status === 409));
  const after = (await (await s.api(`/v1/agent/runs/${run.runId}`)).json()) as Json;
  assert.equal((after.steps as Json[]).filter((x) => x.status === 'done').length, ok, 'every 200 is stored, nothing else');
  assert.equal(after.version, 1 + ok);
});
