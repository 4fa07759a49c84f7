// Search on PostgreSQL (issue 20; README "Search on PostgreSQL"): real mail over SMTP into an inboxd on a real
// PostgreSQL, searched over HTTP. What is PostgreSQL's own here: the tsvector per content (lexemes cut like FTS5's
// unicode61, fields as weights), the query compiled to tsquery, ts_rank_cd ranking, and that nothing typed is read as
// tsquery syntax.
// not @cluster: runs on its own PostgreSQL databases (and its own two instances)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { silentLogger } from '../../../src/log.ts';
import { PendingIndexer } from '../../../src/search/indexer.ts';
import { openPgStore } from '../../../src/store/db.ts';
import { parsePgUrl } from '../../../src/store/pg.ts';
import { startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { type Json, json } from '../../helpers/http.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.log(`# skipped: ${missing}`);

let pg: PgServer;
let s: TestServer;
let a: Json;
let b: Json;
const sent: Record<string, string> = {};

async function mail(to: string, name: string, m: Parameters<typeof sendMail>[1]): Promise<void> {
  const r = await sendMail(s.server.smtpPort, { to, ...m });
  sent[name] = /stored as (msg_\w+)/.exec(r.response)![1]!;
}

async function search(q: string, extra = ''): Promise<Json> {
  return json(await s.api(`/v1/search?q=${encodeURIComponent(q)}${extra}`));
}

const named = (r: Json) => r.items.map((i: Json) => Object.keys(sent).find((k) => sent[k] === i.messageId) ?? i.messageId);
const names = (r: Json) => named(r).sort();

describe('search on PostgreSQL', { skip: missing ?? false }, () => {
  before(async () => {
    pg = await startPostgres();
    s = await startTestServer([], {}, { database: await pg.createDatabase('pgsearch') });
    assert.equal(s.server.parts.store.dialect, 'postgres');
    a = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'qa-pg-1' } }), 201);
    b = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'other-run' } }), 201);
    await mail(a.address, 'subjectHit', {
      from: 'Shop <orders@shop.example>',
      subject: 'Walrus delivery scheduled',
      text: 'Your parcel leaves the warehouse today.',
    });
    await mail(a.address, 'bodyHit', {
      from: 'Carrier <track@carrier.example>',
      subject: 'Tracking update',
      text: 'The walrus figurine you ordered is in transit.',
    });
    await mail(a.address, 'code', {
      from: 'Acme Security <security@acme.example>',
      subject: 'Your sign-in code',
      text: 'Your verification code is 482913. Questions? Write to help-desk@acme.example.',
    });
    await mail(a.address, 'attachment', {
      from: 'Billing <billing@shop.example>',
      subject: 'Invoice NW-2026-0318',
      text: 'Invoice attached.',
      attachments: [{ filename: 'invoice-march.pdf', content: Buffer.from('%PDF-1.4 fake') }],
    });
    await mail(a.address, 'link', {
      from: 'Acme <noreply@acme.example>',
      subject: 'Confirm your address',
      html: '<p>Click <a href="https://acme.example/confirm?t=abc">confirm</a> to finish.</p>',
    });
    await mail(a.address, 'long', {
      from: 'Logs <logs@ci.example>',
      subject: 'Build log',
      // 17,000 words in 51 KB (within the 64 KB of text indexed per message).
      text: `${'ab '.repeat(17_000)}the last word is zebrafinch`,
    });
    await mail(a.address, 'tricky', {
      from: 'Ops <ops@ci.example>',
      subject: "it's a & b | c",
      text: 'operators: foo:* bar <-> baz !qux (quux) \\ backslash',
    });
    await mail(a.address, 'longWord', {
      from: 'Dump <dump@ci.example>',
      subject: 'Raw dump',
      text: `payload ${'q'.repeat(5000)}Z and a hippopotamus`,
    });
    await mail(b.address, 'otherRun', {
      from: 'Shop <orders@shop.example>',
      subject: 'Walrus walrus walrus',
      text: 'walrus',
    });
  });
  after(async () => {
    await s?.stop();
    await pg?.stop();
  });

  test('each content has one tsvector row with its scope tokens', async () => {
    const db = s.server.parts.store.db;
    const r = await sql<{ n: number }>`select count(*) as n from search_docs where doc @@ 'walrus'::tsquery`.execute(db);
    assert.equal(Number(r.rows[0]!.n), 3);
    // Scope and has: tokens start with ~, which no word can: the word "xcode" does not match the has:code flag.
    const flags = await sql<{ n: number }>`select count(*) as n from search_docs where doc @@ '~xcode'::tsquery`.execute(db);
    assert.equal(Number(flags.rows[0]!.n), 1);
    assert.deepEqual((await search('xcode')).items, []);
  });

  test('ranking: ts_rank_cd with the subject above the body, the answer shaped as on SQLite', async () => {
    const r = await search('walrus', `&inboxId=${a.inboxId}`);
    assert.deepEqual(named(r), ['subjectHit', 'bodyHit']);
    assert.ok(r.items[0].score > r.items[1].score, 'a subject match scores higher than a body match');
    assert.equal(r.mode, 'keyword');
    assert.equal(r.semantic, false);
    assert.equal(r.items[0].subject, 'Walrus delivery scheduled');
    assert.match(r.items[1].snippet, /«walrus»/);
    // Team-wide, the mail that says walrus four times (subject and body) comes first.
    assert.equal(named(await search('walrus'))[0], 'otherRun');
  });

  test('a code, an address and its parts, a dotted id are found', async () => {
    assert.deepEqual(names(await search('482913')), ['code']);
    assert.match((await search('482913')).items[0].snippet, /«482913»/);
    assert.deepEqual(names(await search('help-desk@acme.example')), ['code']);
    assert.deepEqual(names(await search('from:security@acme.example')), ['code']);
    assert.deepEqual(names(await search('from:acme.example')), ['code', 'link']);
    assert.deepEqual(names(await search('from:acme')), ['code', 'link']);
    assert.deepEqual(names(await search('nw-2026-0318')), ['attachment']);
    assert.deepEqual(names(await search('march')), ['attachment'], 'attachment file names are searched');
    assert.deepEqual(names(await search(`to:${a.address}`)).length, 8);
  });

  test('field filters and operators', async () => {
    assert.deepEqual(names(await search('subject:walrus')), ['otherRun', 'subjectHit']);
    assert.deepEqual(names(await search('from:carrier')), ['bodyHit']);
    assert.deepEqual(names(await search('from:walrus')), [], 'a body word is not a sender');
    assert.deepEqual(names(await search('has:attachment')), ['attachment']);
    assert.deepEqual(names(await search('has:code')), ['code']);
    assert.deepEqual(names(await search('has:link')), ['link']);
    assert.deepEqual(names(await search('walrus label:other-run')), ['otherRun']);
    assert.deepEqual(names(await search('walrus -label:other-run')), ['bodyHit', 'subjectHit']);
    assert.deepEqual(names(await search('walrus -figurine')), ['otherRun', 'subjectHit']);
    assert.deepEqual(names(await search('figurine OR 482913')), ['bodyHit', 'code']);
    assert.deepEqual(names(await search('"walrus figurine"')), ['bodyHit']);
    assert.deepEqual(names(await search('"figurine walrus"')), [], 'a phrase keeps its order');
    assert.deepEqual(names(await search('walrus after:1h')), ['bodyHit', 'otherRun', 'subjectHit']);
    assert.deepEqual(names(await search('walrus before:1h')), []);
  });

  test('a word of 5,000 characters neither refuses the mail nor hides it (PostgreSQL’s 2 KB lexeme limit)', async () => {
    assert.deepEqual(names(await search('hippopotamus')), ['longWord']);
    // Cut to its first 500 characters on both sides (a query is at most 1,000 characters).
    assert.deepEqual(names(await search('q'.repeat(900))), ['longWord']);
  });

  test('a word past PostgreSQL’s last position (16,383) is still found', async () => {
    assert.deepEqual(names(await search('zebrafinch')), ['long']);
  });

  test('hostile query text is searched as text, never read as tsquery syntax', async () => {
    for (const q of ["it's", '"a & b | c"', '!qux', 'foo:*', '<->', "'", '\\', '"\\"', "'x':* & !y", '(quux)', '&', '|']) {
      const r = await s.api(`/v1/search?q=${encodeURIComponent(q)}`);
      assert.ok(r.status === 200 || r.status === 400, `${q}: ${r.status} ${await r.clone().text()}`);
      if (r.status === 400) assert.match((await r.json()).detail, /^q: /);
    }
    assert.deepEqual(names(await search("it's")), ['tricky']);
    assert.deepEqual(names(await search('"a & b | c"')), ['tricky']);
    assert.deepEqual(names(await search('quux')), ['tricky']);
    assert.deepEqual(names(await search('"(quux) \\ backslash"')), ['tricky']);
  });

  test('paging keeps the ranking and the pinned set', async () => {
    const p1 = await search('walrus OR invoice OR code', '&limit=2');
    assert.equal(p1.items.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = await search('walrus OR invoice OR code', `&limit=2&cursor=${p1.nextCursor}`);
    const seen = [...named(p1), ...named(p2)];
    assert.equal(new Set(seen).size, seen.length);
  });
});

describe('the search queue shared by two instances', { skip: missing ?? false }, () => {
  test('two instances draining at once index every queued content once, between them', async () => {
    const server = await startPostgres();
    const target = parsePgUrl(await server.createDatabase('pgqueue'));
    if (typeof target === 'string') throw new Error(target);
    const one = await openPgStore(target, { poolSize: 4 });
    const two = await openPgStore(target, { poolSize: 4 });
    try {
      const db = one.db;
      const now = Date.now();
      await sql`insert into teams (id, name, created_at) values ('team_q', 'q', ${now})`.execute(db);
      await sql`insert into inboxes (id, team_id, address, label, ttl_minutes, expires_at, created_at)
        values ('inb_q', 'team_q', 'q@x.test', 'queue', 60, ${now + 3_600_000}, ${now})`.execute(db);
      const n = 450;
      await sql`insert into contents (sha256, to_json, cc_json, subject, references_json, size, text_body, headers_json,
          attachment_count, extraction_json)
        select 'sha' || g, '[]', '[]', 'queued ' || g, '[]', 1, 'pangolin number ' || g, '{}', 0, '{}' from generate_series(1, ${n}) g`.execute(
        db,
      );
      await sql`insert into message_rows (id, inbox_id, rcpt, seq, received_at, source, content_sha256)
        select 'msg_' || g, 'inb_q', 'q@x.test', g, ${now}, 'smtp', 'sha' || g from generate_series(1, ${n}) g`.execute(db);
      await sql`insert into search_pending (rid) select rowid from contents`.execute(db);
      // The write queue is the instance's own; here each drain step simply runs.
      const writer = { run: <T>(f: () => Promise<T>) => f() } as never;
      const a = new PendingIndexer({ db: one.db, writer, log: silentLogger });
      const b = new PendingIndexer({ db: two.db, writer, log: silentLogger });
      const [na, nb] = await Promise.all([a.drain(), b.drain()]);
      assert.equal(na + nb, n, `each queued content indexed by one instance (${na} + ${nb})`);
      const count = async (q: string) => Number((await sql<{ c: number }>`${sql.raw(q)}`.execute(db)).rows[0]!.c);
      assert.equal(await count('select count(*) as c from search_pending'), 0);
      assert.equal(await count("select count(*) as c from search_docs where doc @@ 'pangolin'::tsquery"), n);
    } finally {
      await one.close();
      await two.close();
      await server.stop();
    }
  });
});

describe('embeddings on a cluster', { skip: missing ?? false }, () => {
  test('two instances on one database: each message is embedded once, by one of them', async () => {
    const server = await startPostgres();
    const fake = await startFakeEmbeddings();
    fake.delayMs = 150;
    const blobDir = tempDir('inboxd-blobs-');
    const database = await server.createDatabase('pgembed');
    const args = ['--embeddings', `openai:test-embed@${fake.base}`, '--embeddings-retry-seconds', '1'];
    const one = await startTestServer(args, {}, { database, blobDir });
    const two = await startTestServer(args, {}, { database, blobDir });
    try {
      const ib = await json(await one.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      for (let i = 0; i < 12; i++) {
        const to = i % 2 ? one : two;
        const r = await sendMail(to.server.smtpPort, { to: ib.address, subject: `Statement ${i}`, text: `overdue balance number ${i}` });
        assert.match(r.response, /^250 /);
      }
      for (let i = 0; i < 500 && (await one.server.services.search.embeddings!.backlog()) > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(await one.server.services.search.embeddings!.backlog(), 0);
      const docs = fake.inputs.filter((t) => t.startsWith('Statement '));
      assert.equal(docs.length, 12, `embedded once each: ${docs.join(' | ')}`);
      const r = await json(await two.api(`/v1/search?q=${encodeURIComponent('unpaid bill')}&mode=semantic`));
      assert.equal(r.semantic, true);
      assert.equal(r.items.length, 12);
    } finally {
      await one.stop();
      await two.stop();
      await fake.stop();
      await server.stop();
      fs.rmSync(blobDir, { recursive: true, force: true });
    }
  });
});

describe('search under its time budget on PostgreSQL', { skip: missing ?? false }, () => {
  test('statement_timeout bounds each search: a query over --search-budget-ms is 422 budget_exceeded', async () => {
    const server = await startPostgres();
    const t = await startTestServer(['--search-budget-ms', '10'], {}, { database: await server.createDatabase('pgbudget') });
    try {
      const ib = await json(await t.api('/v1/inboxes', { method: 'POST', json: { label: 'budget' } }), 201);
      const words = Array.from({ length: 3000 }, (_, i) => `a-b-c w${i % 97}`).join(' ');
      for (let i = 0; i < 300; i += 50)
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            t.server.parts.ingest.accept({
              raw: Buffer.from(`From: x@example.com\r\nTo: ${ib.address}\r\nSubject: n ${i + k}\r\n\r\ncode ${i + k} ${words}\r\n`),
              rcpts: [ib.address],
              mailFrom: null,
              source: 'test',
            }),
          ),
        );
      // The search's transaction has statement_timeout = the budget: PostgreSQL cancels the statement, the caller gets
      // 422 naming what to narrow (the budget is lowered below the flag's minimum only to make the cancel certain).
      t.server.services.search.limits.budgetMs = 1;
      const res = await t.api(`/v1/search?q=${encodeURIComponent('a OR b OR c OR w1 OR w2 "a b c"')}&limit=100`);
      const body = await json(res, 422);
      assert.equal(body.code, 'budget_exceeded');
      assert.match(body.detail, /the search took more than 1 ms, over its budget; narrow it.*--search-budget-ms/);
      // The connection it ran on is fine afterwards (the timeout was local to the search's transaction).
      t.server.services.search.limits.budgetMs = 5000;
      await json(await t.api(`/v1/search?q=${encodeURIComponent('w1')}&limit=1`));
    } finally {
      await t.stop();
      await server.stop();
    }
  });
});
