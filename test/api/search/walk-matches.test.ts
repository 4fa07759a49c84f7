// The deadline-bound walk over FTS5 matches (src/search/engine.ts walkMatches): newest first, every match exactly once
// across its steps whatever their size, stopping when asked, when the matches run out, or at the deadline. Its steps
// are keyset steps (`rowid <= hi … limit n`): a rowid-range step makes FTS5 read a common word's whole posting list,
// which at 1,000,000 messages turned a query with no match into 422 budget_exceeded after 2 s (now 35 ms).
// not @cluster: SQLite's FTS5 walk (PostgreSQL searches under statement_timeout instead)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { walkMatches } from '../../../src/search/engine.ts';
import type { Database } from '../../../src/store/schema.ts';

function index(rows: number): { db: Kysely<Database>; sqlite: BetterSqlite3.Database; statements: string[] } {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec('create virtual table search_fts using fts5(body)');
  const insert = sqlite.prepare('insert into search_fts(rowid, body) values (?, ?)');
  // Every row has `common`; every 7th has `seven`; row 3 alone has `lonely`.
  sqlite.transaction(() => {
    for (let r = 1; r <= rows; r++) insert.run(r, `common ${r % 7 === 0 ? 'seven' : ''} ${r === 3 ? 'lonely' : ''}`);
  })();
  const statements: string[] = [];
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: sqlite }),
    log: (e) => {
      if (e.level === 'query') statements.push(e.query.sql);
    },
  });
  return { db, sqlite, statements };
}

const far = () => ({ at: Date.now() + 60_000 });

test('every match once, newest first, across the steps; done when they run out', async () => {
  const { db, statements } = index(5000);
  for (const [expr, expected] of [
    ['common', 5000],
    ['seven', Math.floor(5000 / 7)],
    ['lonely', 1],
    ['nothing', 0],
  ] as const) {
    statements.length = 0;
    const seen: number[] = [];
    const end = await walkMatches(db, expr, 5000, far(), async (rowids) => {
      seen.push(...rowids);
      return false;
    });
    assert.equal(end, 'done', expr);
    assert.equal(seen.length, expected, expr);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => b - a),
      `${expr}: newest first`,
    );
    assert.equal(new Set(seen).size, seen.length, `${expr}: no match twice`);
    // Keyset steps only: a lower rowid bound would make FTS5 read the whole posting list at every step.
    for (const s of statements) assert.doesNotMatch(s, /rowid >=|between/i, s);
    if (expected > 64) assert.ok(statements.length > 1, `${expr}: more than one step`);
  }
  await db.destroy();
});

test('starts below `top`, stops when the step says enough, and at the deadline', async () => {
  const { db } = index(3000);
  const first: number[] = [];
  assert.equal(
    await walkMatches(db, 'seven', 2000, far(), async (rowids) => {
      first.push(...rowids);
      return first.length >= 10;
    }),
    'enough',
  );
  assert.equal(first[0], 1995, 'the newest match at or below top');
  assert.ok(first.every((r) => r <= 2000 && r % 7 === 0));
  let steps = 0;
  assert.equal(
    await walkMatches(db, 'common', 3000, { at: Date.now() - 1 }, async () => {
      steps++;
      return false;
    }),
    'timeout',
  );
  assert.equal(steps, 0, 'a passed deadline stops before the first step');
  await db.destroy();
});
