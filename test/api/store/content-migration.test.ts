// Migration 004 moves existing messages to the shared-content tables: a store written before it (one full row per
// recipient) opens with every message readable and every API answer as the code before 004 computed it from the
// old rows (messageView of the row and its attachments), and copies of one raw message now share one content.
// not @cluster: writes a pre-004 SQLite store by hand
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { messageView } from '../../../src/ops/views.ts';
import { LocalBlobStore } from '../../../src/store/blobs.ts';
import { DEFAULT_TEAM_ID } from '../../../src/store/keys.ts';
import type { AttachmentRow, MessageRow } from '../../../src/store/messages.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, tempDir } from '../../helpers/server.ts';

const skip = TEST_ON_POSTGRES
  ? 'SQLite only: it upgrades a SQLite file written before migration 004; a PostgreSQL database starts at the current schema'
  : false;

const BEFORE_004 = ['001_foundation', '002_mail', '003_access', '003_events'];

/** A row of the pre-004 `messages` table (011 added `direction`, 'inbound' for every old message; 012 threads; 023 flags). */
type LegacyRow = Omit<MessageRow, 'direction' | 'thread_id' | 'flags'>;

function legacyMessage(id: string, inboxId: string | null, rcpt: string, rawSha: string, over: Partial<LegacyRow> = {}): LegacyRow {
  return {
    id,
    inbox_id: inboxId,
    rcpt,
    seq: 1,
    received_at: Date.now() - 1000,
    mail_from: 'bounce@example.com',
    from_address: 'noreply@example.com',
    from_name: 'Example',
    // Parsed from the raw bytes, so the same for every copy of one raw message.
    to_json: JSON.stringify([
      { name: '', address: 'a@inboxd.test' },
      { name: '', address: 'b@inboxd.test' },
    ]),
    cc_json: '[]',
    subject: 'Your code',
    date: 1_700_000_000_000,
    message_id_header: '<legacy@example.com>',
    in_reply_to: null,
    references_json: '[]',
    size: 46, // the raw below
    raw_sha256: rawSha,
    text_body: 'Your code is 123456',
    html_body: '<p>Your code is <b>123456</b></p>',
    headers_json: JSON.stringify([
      ['subject', 'Your code'],
      ['from', 'Example <noreply@example.com>'],
    ]),
    attachment_count: 1,
    otp: '123456',
    primary_link: null,
    extraction_json: JSON.stringify({ otp: '123456', primaryLink: null }),
    source: 'smtp',
    ...over,
  };
}

test('a store from before 004 opens with the same answers, and copies share one content', { skip }, async () => {
  const dataDir = tempDir();
  try {
    const raw = Buffer.from('Subject: Your code\r\n\r\nYour code is 123456!!!\r\n');
    const att = Buffer.from('attachment bytes');
    const blobs = new LocalBlobStore(path.join(dataDir, 'blobs'));
    const rawSha = (await blobs.put(raw)).sha256;
    const attSha = (await blobs.put(att)).sha256;
    const other = Buffer.from('Subject: other\r\n\r\nhello\r\n');
    const otherSha = (await blobs.put(other)).sha256;

    const sqlite = new BetterSqlite3(path.join(dataDir, 'inboxd.db'));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    const old = Object.fromEntries(BEFORE_004.map((k) => [k, MIGRATIONS[k]!]));
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
      created_at: now - 5000,
      created_by_key: null,
      message_seq: 1,
    });
    await db
      .insertInto('inboxes')
      .values([inbox('inb_a', 'a@inboxd.test'), inbox('inb_b', 'b@inboxd.test')])
      .execute();
    // The old ingest wrote one full row (and attachment rows) per recipient of the same raw message.
    const ma = legacyMessage('msg_a', 'inb_a', 'a@inboxd.test', rawSha);
    const mb = legacyMessage('msg_b', 'inb_b', 'b@inboxd.test', rawSha);
    const mu = legacyMessage('msg_u', null, 'later@inboxd.test', rawSha, { seq: 0 });
    const mo = legacyMessage('msg_o', 'inb_a', 'a@inboxd.test', otherSha, {
      seq: 2,
      size: other.length,
      subject: 'other',
      text_body: 'hello',
      html_body: null,
      attachment_count: 0,
      otp: null,
      extraction_json: '{"otp":null}',
    });
    await db.insertInto('messages').values([ma, mb, mu, mo]).execute();
    const attRow = (id: string, messageId: string): AttachmentRow => ({
      id,
      message_id: messageId,
      idx: 0,
      filename: 'a.txt',
      content_type: 'text/plain',
      disposition: 'attachment',
      content_id: null,
      size: att.length,
      sha256: attSha,
    });
    const aa = attRow('att_a', 'msg_a');
    await db
      .insertInto('attachments')
      .values([aa, attRow('att_b', 'msg_b'), attRow('att_u', 'msg_u')])
      .execute();
    await db.destroy();

    const s = await startTestServer([], {}, { dataDir });
    try {
      // The answer as computed from the old row, plus the thread migration 012 gave the message.
      const same = async (path: string, m: LegacyRow, atts: AttachmentRow[]) => {
        const got = await json(await s.api(path));
        assert.match(got.threadId, /^thr_/);
        const want = JSON.parse(
          JSON.stringify({
            ...messageView({ ...m, direction: 'inbound', thread_id: got.threadId, flags: 0 }, atts, s.server.services.baseUrl()),
            labels: [], // a read gives the message's labels (migration 024); mail from before has none
          }),
        );
        assert.deepEqual(got, want);
      };
      await same('/v1/inboxes/inb_a/messages/msg_a', ma, [aa]);
      await same('/v1/inboxes/inb_a/messages/msg_o', mo, []);
      // The second copy shares the first copy's content, attachment rows included (same attachment id).
      await same('/v1/inboxes/inb_b/messages/msg_b', mb, [{ ...aa, message_id: 'msg_b' }]);
      const list = await json(await s.api('/v1/inboxes/inb_a/messages'));
      assert.deepEqual(
        list.items.map((i: { messageId: string }) => i.messageId),
        ['msg_o', 'msg_a'],
      );
      const bytes = Buffer.from(await (await s.api('/v1/inboxes/inb_b/messages/msg_b/attachments/att_a')).arrayBuffer());
      assert.ok(bytes.equals(att));
      assert.equal(await (await s.api('/v1/inboxes/inb_b/messages/msg_b/raw')).text(), raw.toString());

      const db2 = s.server.parts.store.sqlite!;
      assert.equal((db2.prepare('select count(*) n from contents').get() as { n: number }).n, 2);
      assert.equal((db2.prepare('select count(*) n from content_attachments').get() as { n: number }).n, 1);
      assert.equal((db2.prepare('select count(*) n from message_rows').get() as { n: number }).n, 4);
      // The unclaimed copy is still unclaimed (and still readable once an inbox claims it).
      assert.equal((db2.prepare('select count(*) n from message_rows where inbox_id is null').get() as { n: number }).n, 1);
    } finally {
      await s.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
