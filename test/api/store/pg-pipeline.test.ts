// PostgreSQL's wire path for the ingest writer (issue 33, src/store/pg.ts PipelinedClient): precompiled queries are
// named prepared statements, a deferrable write inside a transaction is pipelined (answered at once, not after its
// round trip), COMMIT waits for every such write, and a failed one fails the transaction with its own error; the rows
// of an appendable INSERT go as one statement (counted by a statement-level trigger).
// not @cluster: runs on its own PostgreSQL database (one store, no instances)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openPgStore, type Store } from '../../../src/store/db.ts';
import { parsePgUrl } from '../../../src/store/pg.ts';
import { precompile, statementName } from '../../../src/store/prepared.ts';
import type { Database } from '../../../src/store/schema.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);

let pg: PgServer;
let store: Store;
let db: Kysely<Database>;
before(async () => {
  if (missing) return;
  pg = await startPostgres();
  const target = parsePgUrl(await pg.createDatabase('pipeline'));
  if (typeof target === 'string') throw new Error(target);
  store = await openPgStore(target, { poolSize: 2 });
  db = store.db;
  await sql`create table pipe_t (id int primary key, at timestamptz)`.execute(db);
  await sql`create table pipe_rows (id int primary key, note text)`.execute(db);
  await sql`create table pipe_statements (n int not null)`.execute(db);
  await sql`insert into pipe_statements values (0)`.execute(db);
  await sql`create function pipe_count() returns trigger language plpgsql as $$
    begin update pipe_statements set n = n + 1; return null; end $$`.execute(db);
  await sql`create trigger pipe_count after insert on pipe_rows for each statement execute function pipe_count()`.execute(db);
});
after(async () => {
  await store?.close();
  await pg?.stop();
});

const count = async () => Number((await sql<{ n: number }>`select count(*)::int as n from pipe_t`.execute(db)).rows[0]!.n);

test('a precompiled query is a named prepared statement of the connection', { skip: missing ?? false }, async () => {
  const byId = precompile(['id'], (p) => sql`select id from pipe_t where id = ${p.id}::int`.compile(db));
  const name = statementName(byId({ id: 1 }).sql);
  assert.ok(name);
  const prepared = await db.transaction().execute(async (trx) => {
    await trx.executeQuery(byId({ id: 1 }));
    await trx.executeQuery(byId({ id: 2 }));
    return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(trx)).rows.map((r) => r.name);
  });
  assert.ok(prepared.includes(name), `${name} not among ${JSON.stringify(prepared)}`);
});

test('a deferrable write does not wait for its round trip; COMMIT waits for it', { skip: missing ?? false }, async () => {
  // The write takes a second on the server.
  const slow = precompile(['id'], (p) => sql`insert into pipe_t (id, at) select ${p.id}::int, now() from pg_sleep(1)`.compile(db), {
    deferrable: true,
  });
  const before = await count();
  let answered = 0;
  const t0 = performance.now();
  await db.transaction().execute(async (trx) => {
    await trx.executeQuery(slow({ id: 10 }));
    answered = performance.now() - t0;
    await trx.executeQuery(slow({ id: 11 }));
  });
  const committed = performance.now() - t0;
  assert.ok(answered < 500, `the deferred write was answered after ${Math.round(answered)} ms`);
  assert.ok(committed >= 1900, `COMMIT returned after ${Math.round(committed)} ms, before both writes ran`);
  assert.equal(await count(), before + 2);
});

test('a failed deferrable write fails the transaction with its own error; nothing of it commits', { skip: missing ?? false }, async () => {
  const insert = precompile(['id'], (p) => sql`insert into pipe_t (id) values (${p.id}::int)`.compile(db), { deferrable: true });
  const before = await count();
  // The duplicate is noticed at the next statement (a read), which reports the write's error, not "transaction aborted".
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.executeQuery(insert({ id: 20 }));
      await trx.executeQuery(insert({ id: 20 }));
      await sql`select 1`.execute(trx);
    }),
    (e: Error & { code?: string }) => e.code === '23505',
  );
  // At COMMIT when nothing follows it.
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.executeQuery(insert({ id: 21 }));
      await trx.executeQuery(insert({ id: 21 }));
    }),
    (e: Error & { code?: string }) => e.code === '23505',
  );
  assert.equal(await count(), before);
  // The connections are usable after (both of the pool's).
  await Promise.all([1, 2].map((i) => db.transaction().execute((trx) => trx.executeQuery(insert({ id: 30 + i })))));
  assert.equal(await count(), before + 2);
});

test('the rows of an appendable INSERT in a transaction go as one statement, in place of the first', {
  skip: missing ?? false,
}, async () => {
  const row = precompile(
    ['id', 'note'],
    (p) =>
      db
        .insertInto('pipe_rows' as never)
        .values({ id: p.id, note: p.note } as never)
        .compile(),
    {
      deferrable: 'append',
    },
  );
  const other = precompile(['id'], (p) => sql`insert into pipe_t (id) values (${p.id}::int)`.compile(db), { deferrable: true });
  const statements = async () => Number((await sql<{ n: number }>`select n from pipe_statements`.execute(db)).rows[0]!.n);
  const n0 = await statements();
  const seen = await db.transaction().execute(async (trx) => {
    await trx.executeQuery(row({ id: 1, note: 'a' }));
    await trx.executeQuery(other({ id: 40 }));
    await trx.executeQuery(row({ id: 2, note: "b'\\" }));
    await trx.executeQuery(row({ id: 3, note: null }));
    // A read sends them first (and sees them).
    return (await sql<{ id: number; note: string | null }>`select id, note from pipe_rows order by id`.execute(trx)).rows;
  });
  assert.deepEqual(seen, [
    { id: 1, note: 'a' },
    { id: 2, note: "b'\\" },
    { id: 3, note: null },
  ]);
  assert.equal((await statements()) - n0, 1, 'three rows, one INSERT statement');
  // A duplicate among the gathered rows fails the transaction with its own error; nothing of it stays.
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.executeQuery(row({ id: 4, note: 'x' }));
      await trx.executeQuery(row({ id: 4, note: 'y' }));
    }),
    (e: Error & { code?: string }) => e.code === '23505',
  );
  assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from pipe_rows`.execute(db)).rows[0]!.n), 3);
  // Rolled back with writes not sent yet (a refusal thrown after them): none of them runs, then or later.
  for (const wait of [false, true])
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(row({ id: 5, note: 'refused' }));
        await trx.executeQuery(other({ id: 41 }));
        if (wait) await new Promise((r) => setTimeout(r, 20));
        throw new Error('refused');
      }),
      /refused/,
    );
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from pipe_rows`.execute(db)).rows[0]!.n), 3);
  assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from pipe_t where id = 41`.execute(db)).rows[0]!.n), 0);
});
