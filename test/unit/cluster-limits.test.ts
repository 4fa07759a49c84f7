// The shared windows of a cluster's limits (src/auth/cluster-limits.ts) against a stand-in for their table: the
// events of one tick go in one statement, each event gets its own place in its window's count, and when the database
// does not answer the limiter fails open to this instance's own count (README "Scaling out").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SharedWindows } from '../../src/auth/cluster-limits.ts';
import type { LimitRepo, WindowHit } from '../../src/auth/limit-repo.ts';
import { RateLimiter } from '../../src/auth/rate-limit.ts';
import { createLogger } from '../../src/log.ts';

/** A table of windows in memory; `down` makes every statement fail. */
function fakeRepo() {
  const rows = new Map<string, number>();
  const f = {
    statements: 0,
    down: false,
    async add(hits: readonly WindowHit[]): Promise<number[]> {
      f.statements++;
      if (f.down) throw new Error('connection refused');
      return hits.map((h) => {
        const id = `${h.scope}|${h.key}|${h.window}`;
        rows.set(id, (rows.get(id) ?? 0) + h.n);
        return rows.get(id)!;
      });
    },
    async prune(): Promise<void> {},
  };
  return f;
}

const logs: string[] = [];
const log = createLogger({ level: 'debug', format: 'json', write: (l) => logs.push(l) });

test('a burst of one tick is one statement, exact; with the database down each instance counts its own', async () => {
  const repo = fakeRepo();
  const now = () => 90_000;
  const windows = new SharedWindows({ repo: repo as unknown as LimitRepo, log, now });
  // Two instances' limiters on the same table.
  const a = new RateLimiter(5, now, undefined, { windows, scope: 'rate' });
  const b = new RateLimiter(5, now, undefined, { windows, scope: 'rate' });
  const outcome = (p: Promise<void> | undefined) =>
    Promise.resolve(p).then(
      () => 'ok',
      () => '429',
    );
  const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => outcome((i % 2 ? a : b).hit('key_1'))));
  assert.equal(repo.statements, 1, 'one statement for the burst');
  assert.deepEqual(burst, ['ok', 'ok', 'ok', 'ok', 'ok', '429', '429', '429']);
  // Another key is counted apart.
  assert.equal(await outcome(a.hit('key_2')), 'ok');

  repo.down = true;
  const alone = await Promise.all(Array.from({ length: 7 }, () => outcome(a.hit('key_3'))));
  assert.deepEqual(alone, ['ok', 'ok', 'ok', 'ok', 'ok', '429', '429'], 'fails open to the instance’s own count, still limited');
  assert.ok(logs.some((l) => l.includes('limits could not be counted in the database')));
});

test('on one instance (no shared windows) a hit answers at once, without a promise', () => {
  const r = new RateLimiter(2, () => 0);
  assert.equal(r.hit('k'), undefined);
  assert.equal(r.hit('k'), undefined);
  assert.throws(() => r.hit('k'), /more than 2 requests this minute/);
});
