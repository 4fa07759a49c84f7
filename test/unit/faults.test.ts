// Fault rules without a server: the local-part shortcuts, the modes, glob matching, the checks across fields, and
// the SMTP hook's cost when no rule exists (an immediate null, no database read).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FaultRepo } from '../../src/faults/repo.ts';
import { compileGlob, modeFires, normalizeRules, seededUnit, shortcutOf } from '../../src/faults/rules.ts';
import { FaultService } from '../../src/faults/service.ts';
import type { Logger } from '../../src/log.ts';

test('local-part shortcuts', () => {
  assert.deepEqual(shortcutOf('fail-452+anything@x.test'), { stage: 'rcpt', action: { type: 'reply', code: 452 } });
  assert.deepEqual(shortcutOf('FAIL-550-DATA@x.test'), { stage: 'data', action: { type: 'reply', code: 550 } });
  assert.deepEqual(shortcutOf('disconnect-eod+1@x.test'), { stage: 'end-of-data', action: { type: 'disconnect' } });
  assert.deepEqual(shortcutOf('delay-99999+a@x.test'), { stage: 'rcpt', action: { type: 'delay', ms: 30_000 } }, 'capped');
  assert.deepEqual(shortcutOf('greylist-5+a@x.test'), { stage: 'rcpt', action: { type: 'greylist', retryAfterSeconds: 5 } });
  assert.deepEqual(shortcutOf('mailbox-full@x.test'), { stage: 'rcpt', action: { type: 'mailbox-full', permanent: false } });
  for (const plain of ['failing+452@x.test', 'fail-252@x.test', 'fail-45@x.test', 'greylist-data@x.test', 'delay-0@x.test', 'user@x.test'])
    assert.equal(shortcutOf(plain), null, plain);
});

test('modes: first, every, seeded probability', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((k) => modeFires({ type: 'first', n: 2 }, k)),
    [true, true, false, false],
  );
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((k) => modeFires({ type: 'every', n: 3 }, k)),
    [false, false, true, false, false, true],
  );
  const seq = (seed: number) => Array.from({ length: 1000 }, (_, k) => modeFires({ type: 'probability', p: 0.3, seed }, k + 1));
  assert.deepEqual(seq(1), seq(1));
  assert.notDeepEqual(seq(1), seq(2));
  const rate = seq(9).filter(Boolean).length / 1000;
  assert.ok(rate > 0.25 && rate < 0.35, `fired ${rate}`);
  for (let k = 1; k < 100; k++) assert.ok(seededUnit(3, k) >= 0 && seededUnit(3, k) < 1);
});

test('globs: * and ? only, case-insensitive, bounded on hostile input', () => {
  assert.equal(compileGlob('*@EXAMPLE.com')('a@example.COM'), true);
  assert.equal(compileGlob('a.c')('abc'), false);
  assert.equal(compileGlob('[a]*')('[a]x'), true);
  assert.equal(compileGlob('(a|b)+')('a'), false);
  const hostile = compileGlob('*a'.repeat(128));
  const t0 = performance.now();
  assert.equal(hostile(`${'a'.repeat(511)}b`), false);
  assert.ok(performance.now() - t0 < 200);
});

test('checks across fields name the rule and field', () => {
  const { errors } = normalizeRules(
    [
      { stage: 'connect', action: { type: 'disconnect' } },
      { stage: 'rcpt', action: { type: 'throttle', bytesPerSecond: 500 } },
    ],
    { kind: 'inbox', inboxId: 'inb_x' },
  );
  assert.deepEqual(
    errors.map((e) => e.path),
    ['rules.0.stage', 'rules.1.stage'],
  );
});

function fakeRepo(rows: unknown[] = []) {
  const calls: string[] = [];
  const repo = new Proxy(
    {},
    {
      get: (_t, name: string) => async () => {
        calls.push(name);
        if (name === 'version') return 1;
        if (name === 'all') return rows;
        return [];
      },
    },
  ) as FaultRepo;
  return { repo, calls };
}
const log = { warn() {}, info() {}, error() {}, debug() {} } as unknown as Logger;

test('with no rule the SMTP hook answers null at once and reads nothing', async () => {
  const { repo, calls } = fakeRepo();
  let lookups = 0;
  const svc = new FaultService({
    repo,
    inboxByAddress: async () => {
      lookups++;
      return undefined;
    },
    recentMessages: async () => [],
    shared: false,
    shortcuts: true,
    now: () => Date.now(),
    log,
  });
  await svc.start();
  calls.length = 0;
  const session = { id: 's1', client: '127.0.0.1', sender: 'a@b.test', recipients: ['u@x.test'], recipient: 'u@x.test', tx: {} };
  for (const stage of ['connect', 'ehlo', 'auth', 'mail', 'rcpt', 'data', 'end-of-data'] as const)
    assert.equal(svc.decide(stage, session), null, `${stage}: a plain null, not a promise`);
  assert.deepEqual(calls, []);
  assert.equal(lookups, 0);
  // A shortcut address is looked up (for the timeline), the rest still costs nothing.
  const d = svc.decide('rcpt', { ...session, recipient: 'fail-451+x@x.test' });
  assert.ok(d instanceof Promise);
  assert.equal((await d)?.reply?.code, 451);
  await svc.stop();
});

test('on a shared database the version is read once per connection, not per command', async () => {
  const rule = {
    id: 'flt_1',
    team_id: 'team_1',
    scope: 'global',
    label_prefix: null,
    inbox_id: null,
    position: 0,
    rule_json: JSON.stringify({ name: null, stage: 'mail', match: {}, action: { type: 'delay', ms: 1 }, mode: { type: 'always' } }),
    created_at: 0,
    created_by: null,
    address: null,
    inbox_label: null,
  };
  const { repo, calls } = fakeRepo([rule]);
  const svc = new FaultService({
    repo,
    inboxByAddress: async () => undefined,
    recentMessages: async () => [],
    shared: true,
    shortcuts: false,
    now: () => Date.now(),
    log,
  });
  await svc.start();
  calls.length = 0;
  const session = { id: 's2', client: '127.0.0.1', sender: 'a@b.test', recipients: [] };
  assert.equal(await svc.decide('connect', session), null);
  assert.deepEqual(calls, ['version']);
  for (let i = 0; i < 50; i++) assert.equal((svc.decide('mail', session) as { delayMs: number }).delayMs, 1);
  assert.deepEqual(
    calls.filter((c) => c !== 'insertEvents'),
    ['version'],
    'mail-stage decisions read nothing',
  );
  await svc.stop();
});

test('the glob work of one SMTP command is capped: 1000 hostile rules cost well under a few ms, and do not fire', async () => {
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    id: `flt_${i}`,
    team_id: 't',
    scope: 'global',
    label_prefix: null,
    inbox_id: null,
    position: i,
    rule_json: JSON.stringify({
      name: null,
      stage: 'rcpt',
      match: { recipient: `${'*a'.repeat(128)}` },
      action: { type: 'reply', code: 451 },
      mode: { type: 'always' },
    }),
    created_at: 0,
    created_by: null,
    address: null,
    inbox_label: null,
  }));
  const { repo } = fakeRepo(rows);
  const warnings: string[] = [];
  const svc = new FaultService({
    repo,
    inboxByAddress: async () => ({ id: 'inb_1', teamId: 't', label: null }),
    recentMessages: async () => [],
    shared: false,
    shortcuts: false,
    now: () => Date.now(),
    log: { ...log, warn: (m: string) => warnings.push(m) } as unknown as Logger,
  });
  await svc.start();
  const session = { id: 's3', client: '127.0.0.1', sender: null, recipients: [], recipient: `${'a'.repeat(300)}b@x.test`, tx: {} };
  await svc.decide('rcpt', session);
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) assert.equal(await svc.decide('rcpt', session), null);
  const per = (performance.now() - t0) / 20;
  assert.ok(per < 5, `${per.toFixed(2)} ms per RCPT`);
  assert.equal(warnings.length, 1, 'one warning a minute');
  assert.match(warnings[0]!, /ran out of its budget/);
  await svc.stop();
});

test('shared database: connections that arrive together share one version read, never one sent before they came', async () => {
  const reads: Array<(v: number) => void> = [];
  const repo = new Proxy(
    {},
    {
      get: (_t, name) => async () => {
        if (name === 'version') return new Promise<number>((r) => reads.push(r));
        return [];
      },
    },
  ) as FaultRepo;
  const svc = new FaultService({
    repo,
    inboxByAddress: async () => undefined,
    recentMessages: async () => [],
    shared: true,
    shortcuts: true,
    now: () => Date.now(),
    log,
  });
  const started = svc.start();
  await new Promise((r) => setImmediate(r));
  reads.shift()!(0); // the start's own read
  await started;
  const first = svc.freshen();
  await new Promise((r) => setImmediate(r));
  assert.equal(reads.length, 1, 'the first connection sends a read');
  // Three more arrive while it is in flight: they may not use its answer (sent before they came), so they wait for
  // the next read, which all three share.
  let laterDone = 0;
  const later = [svc.freshen(), svc.freshen(), svc.freshen()].map((p) => p.then(() => laterDone++));
  await new Promise((r) => setImmediate(r));
  assert.equal(reads.length, 1, 'nothing more is sent while a read is in flight');
  reads.shift()!(0);
  await first;
  await new Promise((r) => setImmediate(r));
  assert.equal(laterDone, 0, 'the later connections did not take the earlier answer');
  assert.equal(reads.length, 1, 'one read for the three of them');
  reads.shift()!(0);
  await Promise.all(later);
  assert.equal(laterDone, 3);
  await svc.stop();
});
