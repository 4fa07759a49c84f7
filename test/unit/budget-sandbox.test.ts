// The untrusted-work sandbox: a job over its time or heap budget is stopped from outside (its worker terminated) while
// the main thread keeps serving, the next job runs on a fresh worker, and one owner cannot take the whole queue.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BudgetError, budgetProblem, Sandbox } from '../../src/budget/sandbox.ts';
import { createLogger } from '../../src/log.ts';

const warnings: string[] = [];
const log = createLogger({ level: 'warn', format: 'json', write: (l) => warnings.push(l) });
const sandboxes: Sandbox[] = [];
function sandbox(over: Partial<ConstructorParameters<typeof Sandbox>[0]> = {}): Sandbox {
  const s = new Sandbox({ threads: 1, timeoutMs: 300, maxHeapMb: 32, maxQueued: 8, ownerShare: 0.5, log, ...over });
  sandboxes.push(s);
  return s;
}
after(() => Promise.all(sandboxes.map((s) => s.close())));

// Catastrophic backtracking: (a+)+$ on 30 a's and a '!' runs for minutes on a backtracking engine.
const EVIL = { pattern: '^(a+)+$', values: [`${'a'.repeat(30)}!`] };

describe('sandbox', () => {
  it('answers a cheap job', async () => {
    const s = sandbox();
    assert.deepEqual(await s.run('regex.test', { pattern: '^a+$', values: ['aaa', 'ab'] }), [true, false]);
  });

  it('stops a job over its time budget without blocking the main thread, then runs the next job', async () => {
    const s = sandbox();
    await s.run('regex.test', { pattern: 'x', values: [] }); // the worker is up
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const t0 = performance.now();
    const err = await s.run('regex.test', EVIL).then(
      () => null,
      (e: unknown) => e,
    );
    const took = performance.now() - t0;
    clearInterval(timer);
    assert.ok(err instanceof BudgetError, String(err));
    assert.equal(err.kind, 'time');
    assert.ok(took < 3000, `stopped after ${took} ms`);
    assert.ok(ticks >= 10, `the main thread ticked ${ticks} times while the job ran`);
    assert.ok(longestGap < 200, `longest main-thread gap ${longestGap} ms`);
    assert.deepEqual(await s.run('regex.test', { pattern: 'b', values: ['abc'] }), [true]);
    assert.equal(s.stats().timedOut, 1);
    assert.ok(warnings.some((w) => w.includes('untrusted work stopped') && w.includes('"reason":"time"')));
    const problem = budgetProblem(err, 'the pattern', 'simplify it');
    assert.equal(problem.status, 422);
    assert.equal(problem.code, 'budget_exceeded');
    assert.match(problem.detail, /the pattern took more than 300 ms, over its budget; simplify it/);
  });

  it('a job that needs more heap than the limit stops only its worker', async () => {
    // 48 MB, not the smallest allowed 16: a fresh worker run from source holds ~14 MB of old space before its first
    // job, and under load the job after the OOM, on the next fresh worker, ran out too (a CI run).
    const s = sandbox({ maxHeapMb: 48, timeoutMs: 5000 });
    const huge = Array.from({ length: 160 }, (_, i) => `${i}`.padEnd(1024 * 1024, 'x'));
    const err = await s.run('regex.test', { pattern: 'x', values: huge }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof BudgetError, String(err));
    assert.equal(err.kind, 'memory');
    assert.deepEqual(await s.run('regex.test', { pattern: 'y', values: ['y'] }), [true]);
  });

  it('one owner holds at most its share of the queue; others still get in, and are served in turns', async () => {
    const s = sandbox({ maxQueued: 8, ownerShare: 0.5, timeoutMs: 200 });
    const greedy = Array.from({ length: 6 }, () => s.run('regex.test', EVIL, { owner: 'team-a' }).catch((e: BudgetError) => e.kind));
    const results = await Promise.all(greedy.slice(4));
    assert.deepEqual(results, ['busy', 'busy']);
    const t0 = performance.now();
    const other = await s.run('regex.test', { pattern: 'ok', values: ['ok'] }, { owner: 'team-b' });
    const waited = performance.now() - t0;
    assert.deepEqual(other, [true]);
    // team-b's job ran after at most one of team-a's four (round robin), not after all of them.
    assert.ok(waited < 3 * 200 + 1500, `team-b waited ${waited} ms`);
    const kinds = await Promise.all(greedy.slice(0, 4));
    assert.deepEqual(kinds, ['time', 'time', 'time', 'time']);
    const busy = budgetProblem(new BudgetError('busy', 'regex.test', 4, 'x'), 'the search', '');
    assert.equal(busy.status, 503);
    assert.equal(busy.headers['Retry-After'], '1');
  });

  it('after close, jobs are refused and nothing is left running', async () => {
    const s = sandbox();
    const pending = s.run('regex.test', EVIL).catch((e: BudgetError) => e.kind);
    await new Promise((r) => setTimeout(r, 50));
    await s.close();
    assert.equal(await pending, 'closed');
    assert.equal(await s.run('regex.test', EVIL).catch((e: BudgetError) => e.kind), 'closed');
    assert.equal(s.stats().threads, 0);
  });

  it('an idle sandbox does not keep a process alive, a running job does', async () => {
    const url = new URL('../../src/budget/sandbox.ts', import.meta.url).href;
    const logUrl = new URL('../../src/log.ts', import.meta.url).href;
    const script = `
      const { Sandbox } = await import(${JSON.stringify(url)});
      const { silentLogger } = await import(${JSON.stringify(logUrl)});
      const s = new Sandbox({ threads: 1, timeoutMs: 5000, maxHeapMb: 32, maxQueued: 4, ownerShare: 1, log: silentLogger });
      const r = await s.run('regex.test', { pattern: 'a', values: ['a'] });
      console.log(JSON.stringify(r));`;
    // A file, not `node -e`: workers inherit the parent's execArgv, and --input-type does not apply to them.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-sandbox-'));
    const file = path.join(dir, 'run.mjs');
    fs.writeFileSync(file, script);
    const t0 = performance.now();
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [file], { timeout: 15_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(out.trim(), '[true]');
    assert.ok(performance.now() - t0 < 10_000);
  });
});
