// Bad search input: every malformed query is a 400 naming the problem and where it is; FTS5 syntax typed as text is
// searched as text; nothing reaches the query engine unparsed. Plus: the index survives a restart, mail stored
// before the index existed is indexed by the migration, expired unclaimed mail leaves no index row, and the MCP tool.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient, undescribedArgs } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let inbox: Json;
before(async () => {
  s = await startTestServer();
  inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'bad-input' } }), 201);
  await sendMail(s.server.smtpPort, {
    to: inbox.address,
    subject: 'NEAR(alpha beta) and star* and ^caret',
    text: 'subject:tricky column:filter "quoted" text foo-bar x@y.com AND OR NOT',
  });
});
after(async () => {
  await s.stop();
});

async function bad(q: string, re: RegExp): Promise<Json> {
  const res = await s.api(`/v1/search?q=${encodeURIComponent(q)}`);
  const body = await json(res, 400);
  assert.equal(res.headers.get('content-type')?.startsWith('application/problem+json'), true);
  assert.match(body.detail, re, `${q} → ${body.detail}`);
  assert.equal(body.errors?.[0]?.path, 'q');
  return body;
}
const search = async (q: string) => json(await s.api(`/v1/search?q=${encodeURIComponent(q)}`));

describe('malformed queries are 400 with the problem and its position', () => {
  test('unbalanced quotes', async () => {
    await bad('invoice "due tomorrow', /unclosed quote.*at character 9/);
    await bad('from:"Alice', /unclosed quote.*at character 6/);
  });
  test('stray operators', async () => {
    await bad('OR invoice', /OR needs a term on each side.*character 1\)/);
    await bad('invoice OR', /OR needs a term on each side.*character 9\)/);
    await bad('a OR OR b', /OR needs a term/);
    await bad('invoice -', /'-' must be followed by the term.*character 9\)/);
    await bad('--x', /must be followed by the term/);
    await bad('from:', /'from:' needs a value/);
    await bad('-a OR b', /negated term cannot be one side of OR/);
    await bad('before:1d OR x', /before:\/after: cannot be one side of OR/);
  });
  test('unknown operator and bad values', async () => {
    await bad('foo:bar', /unknown operator 'foo:'.*from: to: subject: label: has: before: after:.*character 1\)/);
    await bad('has:pizza', /has:pizza is not known.*character 5\)/);
    await bad('before:yesterday', /before:yesterday is not a date, time or age.*character 8\)/);
    await bad('before:2026-02-31', /is not a date/);
    await bad('after:2026-13-01', /is not a date/);
    await bad('after:25:00', /is not a date/);
  });
  test('empty and meaningless queries', async () => {
    await bad('', /q is empty/);
    await bad('   ', /q is empty/);
    await bad('* ^ ()', /nothing to search for/);
    await bad('""', /nothing to search for/);
  });
  test('a 10 KB query names the limit', async () => {
    const body = await bad('x'.repeat(10 * 1024), /1000-character limit/);
    assert.ok(body.detail.length < 300);
    await bad(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), /more than 32 terms/);
  });
  test('an invalid cursor', async () => {
    const res = await s.api('/v1/search?q=alpha&cursor=bm90LWEtY3Vyc29y');
    assert.match((await json(res, 400)).detail, /cursor/);
  });
});

describe('FTS5 syntax typed by a user is text', () => {
  test('NEAR(, *, ^, column filters, quotes, AND/NOT, dashes and @', async () => {
    for (const q of [
      'NEAR(alpha beta)',
      'NEAR(',
      'star*',
      '^caret',
      '"column:filter"',
      '"subject:tricky"',
      '"quoted"',
      'foo-bar',
      'x@y.com',
      'AND',
      'NOT',
      'alpha NOT',
      'beta AND',
    ])
      assert.equal((await search(q)).items.length, 1, q);
    // Words absent from the mail still find nothing (the special characters did not widen the query).
    for (const q of ['{subject}:alpha', 'NEAR(gamma', 'zzz*', '^zzz', 'column:zzz']) {
      const res = await s.api(`/v1/search?q=${encodeURIComponent(q)}`);
      if (res.status === 400) continue; // column: is an unknown operator
      assert.equal((await json(res)).items.length, 0, q);
    }
  });
});

describe('MCP tool svc_search_messages', () => {
  test('listed with described parameters, and answers', async () => {
    const client = await mcpClient(s.url, ADMIN_KEY);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'svc_search_messages');
      assert.ok(tool);
      for (const k of ['query', 'inboxId', 'mode', 'limit']) assert.ok(k in (tool.inputSchema.properties ?? {}), `${k} is an argument`);
      assert.deepEqual(undescribedArgs(tool.inputSchema as Json, tool.name), []);
      const r = await client.callTool({
        name: 'svc_search_messages',
        arguments: { query: 'alpha', inboxId: inbox.inboxId, mode: 'hybrid' },
      });
      const out = r.structuredContent as Json;
      assert.equal(out.items.length, 1);
      assert.equal(out.semantic, false);
      assert.equal(out.mode, 'keyword');
      const err = await client.callTool({ name: 'svc_search_messages', arguments: { query: 'foo:bar' } });
      assert.equal(err.isError, true);
    } finally {
      await client.close();
    }
  });
});

describe('durability', () => {
  test('the index survives a restart; mail stored before the index is indexed by the migration', async () => {
    const dir = tempDir();
    try {
      let t = await startTestServer([], {}, { dataDir: dir });
      const ib = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      await sendMail(t.server.smtpPort, { to: ib.address, subject: 'aardvark survives', text: 'restart me' });
      await t.stop();
      t = await startTestServer([], {}, { dataDir: dir });
      assert.equal((await json(await t.api('/v1/search?q=aardvark'))).items.length, 1);
      const pg = t.server.parts.store.dialect === 'postgres';
      // PostgreSQL: the same as mail stored before the index, without a downgrade: no index rows, every content queued.
      if (pg) {
        await sql`delete from search_docs`.execute(t.server.parts.store.db);
        await sql`insert into search_pending (rid) select rowid from contents`.execute(t.server.parts.store.db);
      }
      await t.stop();
      if (!pg) {
        await undoMigrationsAfter020(dir);
        undoSearchMigration(dir);
      }
      t = await startTestServer([], {}, { dataDir: dir });
      let n = 0;
      for (let i = 0; i < 100 && n === 0; i++) {
        await t.server.services.search.pending.idle();
        n = (await json(await t.api('/v1/search?q=aardvark'))).items.length;
        if (n === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(n, 1);
      await t.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('expired unclaimed mail leaves no index row', async () => {
    const now = { t: Date.now() };
    const t = await startTestServer(['--unclaimed-ttl-minutes', '1'], {}, { clock: { now: () => now.t } });
    try {
      await sendMail(t.server.smtpPort, { to: `nobody${Date.now()}@inboxd.test`, subject: 'ocelot', text: 'x' });
      const ib = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      await sendMail(t.server.smtpPort, { to: ib.address, subject: 'ocelot kept', text: 'y' });
      now.t += 2 * 60_000;
      await t.server.services.inboxes.sweep();
      const store = t.server.parts.store;
      const count = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(store.db)).rows[0]!.n);
      if (store.dialect === 'postgres') assert.equal(await count("select count(*) n from search_docs where doc @@ 'ocelot'::tsquery"), 1);
      else assert.equal(await count("select count(*) n from search_fts where search_fts match 'ocelot'"), 1);
      assert.equal(await count('select count(*) n from message_rows'), 1);
    } finally {
      await t.stop();
    }
  });
});

/** Undoes migration 014 (and the later ones, which Kysely requires to come after it) in a stopped SQLite store. */
/** Runs the down() of every migration after 020, newest first, so the store is as 020 left it. */
async function undoMigrationsAfter020(dir: string): Promise<void> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path.join(dir, 'inboxd.db')) }) });
  try {
    for (const name of Object.keys(MIGRATIONS)
      .filter((n) => n >= '021')
      .reverse())
      await MIGRATIONS[name]!.down!(db);
    await db.deleteFrom('kysely_migration').where('name', '>=', '021').execute();
  } finally {
    await db.destroy();
  }
}

function undoSearchMigration(dir: string): void {
  const db = new BetterSqlite3(path.join(dir, 'inboxd.db'));
  for (const x of ['trigger search_content_deleted', 'trigger search_row_moved']) db.exec(`drop ${x}`);
  for (const x of ['search_embed_state', 'search_vectors', 'search_pending', 'search_fts']) db.exec(`drop table ${x}`);
  // The tables of every later migration go too, so they can run again after 014 (015 workspace, 016–019 providers).
  const later = db
    .prepare(
      "select name from sqlite_master where type = 'table' and (name like 'workspace\\_%' escape '\\' or name like 'calendar\\_%' escape '\\' or name in ('provider_accounts', 'mailbox_settings'))",
    )
    .all() as Array<{ name: string }>;
  for (const { name } of later) db.exec(`drop table ${name}`);
  // 020 swapped message_rows' content index for a (content, inbox) one: put the old one back.
  db.exec('drop index message_rows_content_inbox');
  db.exec('create index message_rows_content on message_rows (content_sha256)');
  db.prepare("delete from kysely_migration where name >= '014'").run();
  db.close();
}
