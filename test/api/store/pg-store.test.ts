// The store on a real PostgreSQL (issue 20): --database checks, start errors that name host:port and never the
// password, several instances migrating one empty database at once, engine-neutral unique-violation detection.
// not @cluster: builds its own PostgreSQL topologies
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig, UsageError } from '../../../src/config.ts';
import { openPgStore, openStore, type Store, StoreOpenError } from '../../../src/store/db.ts';
import { isUniqueViolation } from '../../../src/store/errors.ts';
import { type PgTarget, parsePgUrl } from '../../../src/store/pg-url.ts';
import { liveUsage } from '../../../src/store/stats.ts';
import { runCli } from '../../helpers/cli.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/server.ts';

// Without PostgreSQL the file is skipped with the reason; in CI (CI=true) it must run, so it fails instead.
const skip = postgresMissing() !== null && process.env.CI !== 'true' ? `skipped: ${postgresMissing()}` : false;
if (skip) process.stdout.write(`# pg-store: ${skip}\n`);

let pg: PgServer;
before(async () => {
  if (!skip) pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
});

const target = (url: string) => parsePgUrl(url) as PgTarget;

test('--database: a password in the URL is refused without being echoed; other malformed URLs name what is wrong', { skip }, () => {
  const secret = 'hunter2-NotForLogs';
  for (const [url, want] of [
    [`postgres://inboxd:${secret}@db.internal:5432/inboxd`, /contains a password.*INBOXD_DATABASE_PASSWORD or PGPASSWORD/],
    ['mysql://inboxd@db.internal/inboxd', /scheme mysql/],
    ['postgres://inboxd@db.internal:5432/', /names no database/],
    ['not a url', /is not a URL/],
  ] as const) {
    for (const attempt of [() => loadConfig(['--database', url], {}), () => loadConfig([], { INBOXD_DATABASE_URL: url })]) {
      assert.throws(attempt, (e: Error) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, want);
        assert.match(e.message, /^(--database|INBOXD_DATABASE_URL): /);
        assert.ok(!e.message.includes(secret), 'the password is never repeated');
        return true;
      });
    }
  }
  const ok = loadConfig(['--database', 'postgresql://inboxd@db.internal/inboxd'], { INBOXD_DATABASE_PASSWORD: secret });
  assert.equal(ok.database, 'postgresql://inboxd@db.internal/inboxd');
  assert.equal(ok.databasePassword, secret);
  assert.equal(ok.databasePoolSize, 10);
});

test('an unreachable server and a missing database: one line naming host:port and what to check, no password', { skip }, async () => {
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
  const secret = 'hunter2-NotForLogs';
  await assert.rejects(
    openPgStore(target(`postgres://inboxd@127.0.0.1:${closed}/inboxd`), { poolSize: 2, password: secret }),
    (e: Error) => {
      assert.ok(e instanceof StoreOpenError);
      assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${closed}.*connection refused.*check that PostgreSQL runs`));
      assert.ok(!e.message.includes(secret));
      return true;
    },
  );
  const url = pg.url.replace(/\/inboxd$/, '/no_such_db');
  await assert.rejects(openPgStore(target(url), { poolSize: 2, password: secret }), (e: Error) => {
    assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${pg.port} has no database "no_such_db".*createdb`));
    assert.ok(!e.message.includes(secret));
    return true;
  });
});

test('two instances migrating one empty database at once: both open, every migration applied once', { skip }, async () => {
  const url = await pg.createDatabase('concurrent_migrate');
  const stores = await Promise.all([0, 1, 2].map(() => openPgStore(target(url), { poolSize: 2 })));
  try {
    const rows = await sql<{ name: string; n: number }>`select name, count(*) as n from kysely_migration group by name`.execute(
      stores[0]!.db,
    );
    assert.ok(rows.rows.length >= 14, `${rows.rows.length} migrations recorded`);
    for (const r of rows.rows) assert.equal(r.n, 1, r.name);
    // int8 comes back as a JavaScript number (per pool), not a string.
    const t = await stores[1]!.db
      .selectFrom('inboxes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(t.n, 0);
    assert.equal(stores[0]!.dialect, 'postgres');
    assert.equal(stores[0]!.sqlite, undefined);
    assert.ok((await stores[0]!.sizeBytes()) > 0);
    // A reopen finds nothing to do.
    const again = await openPgStore(target(url), { poolSize: 2 });
    await again.close();
  } finally {
    for (const s of stores) await s.close();
  }
});

async function insertTeamTwice(store: Store): Promise<unknown> {
  const team = { id: 'team_x', name: 'x', created_at: 1 } as never;
  await store.db.insertInto('teams').values(team).execute();
  try {
    await store.db.insertInto('teams').values(team).execute();
  } catch (e) {
    return e;
  }
  return null;
}

test('unique violations are recognised on both engines, by column', { skip }, async () => {
  const dir = tempDir();
  const lite = await openStore(path.join(dir, 'inboxd.db'));
  const pgs = await openPgStore(target(await pg.createDatabase('unique_violation')), { poolSize: 2 });
  try {
    for (const store of [lite, pgs]) {
      const e = await insertTeamTwice(store);
      assert.ok(e, `${store.dialect}: the second insert fails`);
      assert.ok(isUniqueViolation(e), store.dialect);
      assert.ok(isUniqueViolation(e, 'teams.id'), store.dialect);
      assert.ok(!isUniqueViolation(e, 'inboxes.address'), store.dialect);
      assert.ok(!isUniqueViolation(new Error('other')));
    }
  } finally {
    await lite.close();
    await pgs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('label scopes compare byte-wise even in a database with a linguistic collation (ICU en)', { skip }, async () => {
  const url = await pg.createDatabase('icu_en');
  const admin = openPgStore(target(pg.url), { poolSize: 2 });
  // A database whose default collation ignores case and punctuation at first: cI-b sorts inside ci-…
  const a = await admin;
  try {
    await sql`drop database icu_en`.execute(a.db);
    await sql.raw(`create database icu_en template template0 locale_provider icu icu_locale 'en' locale 'C.UTF-8'`).execute(a.db);
  } finally {
    await a.close();
  }
  const store = await openPgStore(target(url), { poolSize: 2 });
  try {
    await store.db
      .insertInto('teams')
      .values({ id: 'team_1', name: 't', created_at: 1 } as never)
      .execute();
    for (const [i, label] of ['ci-a', 'cI-b', 'cia', 'ci a', 'ci-'].entries())
      await store.db
        .insertInto('inboxes')
        .values({
          id: `inb_${i}`,
          team_id: 'team_1',
          address: `l${i}@x.test`,
          label,
          ttl_minutes: 1,
          expires_at: 1,
          created_at: 1,
        } as never)
        .execute();
    const usage = await liveUsage(store.db, 'team_1', 'ci-');
    assert.equal(usage.activeInboxes, 2, 'ci-a and ci- only');
  } finally {
    await store.close();
  }
});

test('commits are durable when they return: synchronous_commit is on in every session, whatever the database default', {
  skip,
}, async () => {
  const url = await pg.createDatabase('sync_off');
  const admin = await openPgStore(target(pg.url), { poolSize: 2 });
  try {
    await sql.raw('alter database sync_off set synchronous_commit = off').execute(admin.db);
  } finally {
    await admin.close();
  }
  const store = await openPgStore(target(url), { poolSize: 3 });
  try {
    const rows = await Promise.all(
      [0, 1, 2].map(() => sql<{ v: string }>`select current_setting('synchronous_commit') as v`.execute(store.db)),
    );
    for (const r of rows) assert.equal(r.rows[0]!.v, 'on');
  } finally {
    await store.close();
  }
});

test('inboxd serve: a password in --database exits 2, an unreachable server exits 1, neither prints the password', { skip }, async () => {
  const secret = 'hunter2-NotForLogs';
  const dir = tempDir();
  try {
    const bad = await runCli(['serve', '--data-dir', dir, '--database', `postgres://inboxd:${secret}@127.0.0.1:1/inboxd`]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--database: the URL contains a password/);
    assert.ok(!(bad.stdout + bad.stderr).includes(secret));
    const away = await runCli(
      ['serve', '--data-dir', dir, '--http-port', '0', '--smtp-port', '0', '--database', 'postgres://inboxd@127.0.0.1:1/inboxd'],
      { env: { INBOXD_DATABASE_PASSWORD: secret } },
    );
    assert.equal(away.code, 1, away.stderr);
    assert.match(away.stderr, /cannot reach PostgreSQL at 127\.0\.0\.1:1 \(connection refused\)/);
    assert.ok(!(away.stdout + away.stderr).includes(secret));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
