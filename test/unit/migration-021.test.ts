// Migration 021 on a store from before it: contents whose HTML draws a part through a cid: URL get an
// attachment_count without that inline part; a part the HTML does not show still counts (issue 27).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { openStore } from '../../src/store/db.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { tempDir } from '../helpers/server.ts';

test('021 recounts attachments without the inline parts of stored contents', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'inboxd.db');
  try {
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '021'));
    const old = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    const r = await new Migrator({ db: old, provider: { getMigrations: async () => before } }).migrateToLatest();
    assert.equal(r.error, undefined);
    const content = (sha256: string, html: string | null, count: number) => ({
      sha256,
      from_address: 'a@example.com',
      from_name: null,
      to_json: '[]',
      cc_json: '[]',
      subject: sha256,
      date: null,
      message_id_header: null,
      in_reply_to: null,
      references_json: '[]',
      size: 1,
      text_body: null,
      html_body: html,
      headers_json: '[]',
      attachment_count: count,
      otp: null,
      primary_link: null,
      extraction_json: '{}',
    });
    const part = (id: string, sha: string, idx: number, cid: string | null, disposition = 'inline') => ({
      id,
      content_sha256: sha,
      idx,
      filename: `${id}.png`,
      content_type: 'image/png',
      disposition,
      content_id: cid,
      size: 1,
      sha256: `blob-${id}`,
    });
    await old
      .insertInto('contents')
      .values([
        // a logo drawn by the HTML (Content-ID written with angle brackets and in another case) and a PDF
        content('c1', '<p>Hi</p><img src="cid:Logo@Shop.example"><img src=\'cid:sig%40shop.example\'>', 3),
        // an inline-disposition part the HTML does not draw: still an attachment
        content('c2', '<p>see the photo</p>', 1),
        // no HTML at all
        content('c3', null, 1),
      ])
      .execute();
    await old
      .insertInto('content_attachments')
      .values([
        part('att_1', 'c1', 0, '<logo@shop.example>'),
        part('att_2', 'c1', 1, 'sig@shop.example', 'attachment'),
        part('att_3', 'c1', 2, null, 'attachment'),
        part('att_4', 'c2', 0, 'photo@x'),
        part('att_5', 'c3', 0, 'photo@y'),
      ])
      .execute();
    await old.destroy();

    const store = await openStore(file);
    try {
      const rows = await store.db.selectFrom('contents').select(['sha256', 'attachment_count']).orderBy('sha256').execute();
      assert.deepEqual(rows, [
        { sha256: 'c1', attachment_count: 1 },
        { sha256: 'c2', attachment_count: 1 },
        { sha256: 'c3', attachment_count: 1 },
      ]);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
