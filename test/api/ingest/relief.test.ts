// Memory given back after a burst of mail (src/server/relief.ts): once no message has arrived for a quiet spell after
// a burst, the main heap is collected, and after a longer one the idle ingest workers stop — once per burst, never
// while mail arrives, never for a trickle; the start's garbage is collected once, 3 s into a quiet start. The logic on counters and a clock of the test's own; then the real thing on a real server's
// ingest path and worker pool, with V8's own full collection.
// not @cluster: one process's workers and heap
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import { createRelief } from '../../../src/server/relief.ts';
import { startTestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

test('the start, then a burst, then quiet: one collection each; mail still arriving, a trickle, or a second check: none', () => {
  const counters = { accepted: 0, acceptedBytes: 0 };
  let clock = 0;
  let stopped = 0;
  let collected = 0;
  const lines: string[] = [];
  const relief = createRelief({
    ingest: counters,
    analyzer: { stopIdle: () => (stopped++, 2) },
    log: createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) }),
    quietMs: 10_000,
    workersQuietMs: 45_000,
    minMessages: 100,
    minBytes: 1_000_000,
    afterStartMs: 3_000,
    collect: () => collected++,
    now: () => clock,
  });
  /** `ms` more of quiet: nothing a millisecond before, the next check acts. */
  const quietFor = (ms: number, what: string): void => {
    clock += ms - 1;
    assert.equal(relief.check(), false, `${what}: not yet`);
    clock += 1;
    assert.equal(relief.check(), true, what);
  };
  // The start: 3 s without mail after it, its garbage is collected once; no worker is stopped, no burst counted.
  assert.equal(relief.check(), false);
  quietFor(3_000, 'the start');
  assert.deepEqual([stopped, collected, relief.reliefs], [0, 1, 0]);
  clock += 60_000;
  assert.equal(relief.check(), false, 'the start is collected once');
  // A trickle: 99 small messages, quiet for a minute — nothing to give back.
  counters.accepted = 99;
  counters.acceptedBytes = 99 * 5000;
  assert.equal(relief.check(), false);
  clock += 60_000;
  assert.equal(relief.check(), false);
  // The burst goes on: every check sees new mail, so no relief however long it lasts.
  for (let i = 0; i < 20; i++) {
    counters.accepted += 50;
    counters.acceptedBytes += 50 * 5000;
    clock += 9_000;
    assert.equal(relief.check(), false, `check ${i} during the burst`);
  }
  // Quiet, but not for long enough yet.
  quietFor(10_000, 'the burst');
  assert.deepEqual([stopped, collected, relief.reliefs], [0, 2, 1]);
  const line = JSON.parse(lines.at(-1)!);
  assert.equal(line.msg, 'memory given back after a burst of mail');
  assert.equal(line.messages, 1099);
  // The workers stay up for mail that comes again soon, and stop once it has been quiet for 45 s.
  quietFor(35_000, 'the workers');
  assert.deepEqual([stopped, collected, relief.reliefs], [1, 2, 1]);
  const stop = JSON.parse(lines.at(-1)!);
  assert.equal(stop.msg, 'idle ingest workers stopped after a burst of mail');
  assert.equal(stop.workersStopped, 2);
  // Still quiet: nothing more to give back.
  clock += 60_000;
  assert.equal(relief.check(), false);
  // Few but large messages count too (bytes), after their own quiet spell.
  counters.accepted += 3;
  counters.acceptedBytes += 3 * 400_000;
  assert.equal(relief.check(), false);
  clock += 10_000;
  assert.equal(relief.check(), true);
  assert.deepEqual([stopped, collected], [1, 3]);
  // Mail again before the 45 s: the workers are kept, and stopped at the next long enough quiet spell.
  counters.accepted += 1;
  assert.equal(relief.check(), false);
  quietFor(45_000, 'the workers again');
  assert.deepEqual([stopped, collected], [2, 3]);
});

test('on a real server: after a burst over SMTP and a quiet spell the workers stop and the heap is collected; mail goes on', async () => {
  const s = await startTestServer(['--ingest-threads', '2']);
  after(() => s.stop());
  const { ingest, analyzer } = s.server.parts;
  const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as { inboxId: string; address: string };
  const lines: string[] = [];
  const relief = createRelief({
    ingest,
    analyzer,
    log: createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) }),
    quietMs: 300,
    workersQuietMs: 700,
    minMessages: 20,
  });
  for (let i = 0; i < 25; i++) await sendMail(s.server.smtpPort, { to: inbox.address, subject: `burst ${i}`, text: `message ${i}` });
  assert.equal(analyzer.running, 2, 'the workers analysed the burst');
  assert.equal(relief.check(), false, 'the burst has just ended');
  await new Promise((r) => setTimeout(r, 350));
  assert.equal(relief.check(), true);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'gc is not exposed on the global');
  const line = JSON.parse(lines.at(-1)!);
  assert.equal(line.messages, 25);
  assert.ok(line.rssMbAfter > 0);
  assert.equal(analyzer.running, 2, 'the workers wait for the longer quiet spell');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(relief.check(), true);
  assert.equal(analyzer.running, 0, 'the idle workers stopped');
  assert.equal(JSON.parse(lines.at(-1)!).workersStopped, 2);
  // The next mail starts the workers again and is analysed as any other.
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'after the relief', text: 'your code is 482913' });
  const list = (await (await s.api(`/v1/inboxes/${inbox.inboxId}/messages`)).json()) as { items: Array<{ subject: string }> };
  assert.equal(list.items.length, 26);
  assert.equal(analyzer.running, 2);
});
