// Migration 012 threads the mail a store already holds, oldest first and by the same rules as ingest: a store written
// before it opens with every claimed message in a thread, unclaimed mail left for its claim, and new mail joining
// the old threads.
// not @cluster: writes a pre-012 SQLite store by hand
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { DEFAULT_TEAM_ID } from '../../../src/store/keys.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { parsePgUrl, pgKysely, pgPool } from '../../../src/store/pg.ts';
import { type Json, json } from '../../helpers/http.ts';
import { type PgServer, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { checkThreadInvariants } from '../../helpers/threads.ts';

const BEFORE_012 = Object.keys(MIGRATIONS).filter((k) => k < '012');
/** With INBOXD_TEST_DATABASE=postgres the old store is a PostgreSQL database of its own (migration 012's PostgreSQL form). */
const ON_PG = process.env.INBOXD_TEST_DATABASE === 'postgres';

async function oldStore(dataDir: string): Promise<{ db: Kysely<any>; database: string | undefined; pg: PgServer | null }> {
  if (ON_PG) {
    const pg = await startPostgres();
    const target = parsePgUrl(pg.url);
    if (typeof target === 'string') throw new Error(target);
    return { db: pgKysely(pgPool(target, { poolSize: 2 })) as Kysely<any>, database: pg.url, pg };
  }
  const sqlite = new BetterSqlite3(path.join(dataDir, 'inboxd.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  return { db: new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) }), database: undefined, pg: null };
}

test('a store from before 012 opens with its mail in threads', async () => {
  const dataDir = tempDir();
  const { db, database, pg } = await oldStore(dataDir);
  try {
    const old = Object.fromEntries(BEFORE_012.map((k) => [k, MIGRATIONS[k]!]));
    const r = await new Migrator({ db, provider: { getMigrations: async () => old } }).migrateToLatest();
    assert.equal(r.error, undefined);
    const now = Date.now();
    await db.insertInto('teams').values({ id: DEFAULT_TEAM_ID, name: 'default', plan: 'self-hosted', created_at: now }).execute();
    const inbox = (id: string, address: string) => ({
      id,
      team_id: DEFAULT_TEAM_ID,
      address,
      label: null,
      service: null,
      ttl_minutes: 60,
      expires_at: now + 3_600_000,
      callback_url: null,
      callback_secret: null,
      created_at: now - 60_000,
      created_by_key: null,
      message_seq: 10,
    });
    await db
      .insertInto('inboxes')
      .values([inbox('inb_a', 'a@inboxd.test'), inbox('inb_b', 'b@inboxd.test')])
      .execute();
    let n = 0;
    const put = async (
      inboxId: string | null,
      subject: string,
      h: { id?: string; irt?: string; refs?: string[]; from?: string } = {},
    ): Promise<string> => {
      n++;
      const sha = `sha${String(n).padStart(61, '0')}`;
      await db
        .insertInto('contents')
        .values({
          sha256: sha,
          from_address: h.from ?? 'peer@example.com',
          from_name: null,
          to_json: JSON.stringify([{ name: '', address: inboxId === 'inb_b' ? 'b@inboxd.test' : 'a@inboxd.test' }]),
          cc_json: '[]',
          subject,
          date: null,
          message_id_header: h.id ? `<${h.id}>` : null,
          in_reply_to: h.irt ? `<${h.irt}>` : null,
          references_json: JSON.stringify((h.refs ?? []).map((x) => `<${x}>`)),
          size: 10,
          text_body: `body of ${subject}`,
          html_body: null,
          headers_json: '[]',
          attachment_count: 0,
          otp: null,
          primary_link: null,
          extraction_json: '{}',
        })
        .execute();
      const id = `msg_${n}`;
      await db
        .insertInto('message_rows')
        .values({
          id,
          inbox_id: inboxId,
          rcpt: inboxId === 'inb_b' ? 'b@inboxd.test' : 'a@inboxd.test',
          seq: inboxId ? n : 0,
          received_at: now - 50_000 + n * 1000,
          mail_from: null,
          source: 'smtp',
          content_sha256: sha,
        })
        .execute();
      return id;
    };
    // inb_a: a reply stored before its parent, a subject-fallback reply, two unrelated "Your code" mails.
    const reply = await put('inb_a', 'Re: Plan', { id: 'p2@x', irt: 'p1@x', refs: ['p1@x'] });
    const parent = await put('inb_a', 'Plan', { id: 'p1@x', from: 'boss@example.com' });
    const fallback = await put('inb_a', 'AW: Plan', {});
    const code1 = await put('inb_a', 'Your code', { id: 'c1@x' });
    const code2 = await put('inb_a', 'Your code', { id: 'c2@x' });
    // inb_b: the same Message-ID as inb_a's parent, in a thread of its own.
    const other = await put('inb_b', 'Plan', { id: 'p1@x' });
    // inb_b: two threads that a later message links, merged by the backfill.
    const m1 = await put('inb_b', 'First', { id: 'm1@x' });
    const m2 = await put('inb_b', 'Second', { id: 'm2@x' });
    await put('inb_b', 'Re: both', { id: 'm3@x', irt: 'm2@x', refs: ['m1@x', 'm2@x'] });
    const m4 = await put('inb_b', 'Re: Second', { id: 'm4@x', irt: 'm2@x' });
    const unclaimed = await put(null, 'Plan', { id: 'p1@x' });
    await db.destroy();

    const s = await startTestServer([], {}, { dataDir, ...(database ? { database } : {}) });
    try {
      const threads = async (id: string) => (await json(await s.api(`/v1/inboxes/${id}/threads`))).items as Json[];
      const a = await threads('inb_a');
      assert.equal(a.length, 3);
      const plan = a.find((t) => t.subject === 'Plan')!;
      assert.equal(plan.messageCount, 3);
      assert.deepEqual(plan.participants.sort(), ['a@inboxd.test', 'boss@example.com', 'peer@example.com']);
      assert.equal(plan.lastMessageId, fallback);
      assert.equal(plan.snippet, 'body of AW: Plan');
      const detail = await json(await s.api(`/v1/inboxes/inb_a/threads/${plan.threadId}`));
      assert.deepEqual(
        detail.messages.map((m: Json) => m.messageId),
        [reply, parent, fallback],
      );
      const codes = a.filter((t) => t.subject === 'Your code');
      assert.equal(codes.length, 2);
      assert.deepEqual(codes.map((t) => t.lastMessageId).sort(), [code1, code2].sort());
      // Newest activity first.
      assert.deepEqual(
        a.map((t) => t.lastMessageId),
        [code2, code1, fallback],
      );

      const b = await threads('inb_b');
      assert.deepEqual(
        b.map((t) => [t.subject, t.messageCount, t.lastMessageId]),
        [
          ['First', 4, m4],
          ['Plan', 1, other],
        ],
      );
      assert.notEqual(b[1]!.threadId, plan.threadId);
      const mergedMsgs = (await json(await s.api(`/v1/inboxes/inb_b/threads/${b[0]!.threadId}`))).messages.map((m: Json) => m.messageId);
      assert.deepEqual(mergedMsgs.slice(0, 2), [m1, m2]);
      const msg = await json(await s.api(`/v1/inboxes/inb_a/messages/${parent}`));
      assert.equal(msg.threadId, plan.threadId);
      const store = s.server.parts.store.db;
      const row = await store.selectFrom('message_rows').select('thread_id').where('id', '=', unclaimed).executeTakeFirstOrThrow();
      assert.equal(row.thread_id, null);
      const loose = await store
        .selectFrom('message_rows')
        .select('id')
        .where('inbox_id', 'is not', null)
        .where('thread_id', 'is', null)
        .execute();
      assert.equal(loose.length, 0);
      await checkThreadInvariants(store as never);

      // New mail joins the migrated threads through the migrated Message-ID map.
      await sendMail(s.server.smtpPort, { to: 'a@inboxd.test', subject: 'Re: Plan', text: 'new', inReplyTo: '<p2@x>' });
      const after = await threads('inb_a');
      assert.equal(after.length, 3);
      assert.equal(after[0]!.threadId, plan.threadId);
      assert.equal(after[0]!.messageCount, 4);
    } finally {
      await s.stop();
    }
  } finally {
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
