// The same bytes mailed to a new inbox again and again (a CI job resending one fixture to a fresh inbox per run): the
// content's search row lists the scope of at most SCOPE_INBOXES inboxes, then a shared token, so a further copy
// costs no index work at all (issue 30's defect: each copy rebuilt the row over every earlier copy), and every copy
// is still found in its own scope and nowhere else. Index work is counted as what the index stores, not as time: the
// FTS5 segments (SQLite) or the row version (PostgreSQL) must not change when copy 30 or 40 arrives.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { SCOPE_INBOXES } from '../../../src/search/indexer.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, type TestServer } from '../../helpers/server.ts';
import { sendRaw } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const RAW = [
  'From: Fixture <fixture@sender.example>',
  'To: whoever@inboxd.test',
  'Subject: Quince sign-up code 5521',
  'Message-ID: <one-fixture@sender.example>',
  'Date: Fri, 27 Nov 2026 01:00:00 +0000',
  '',
  'Every run of the pipeline mails these very bytes: a quince sign-up code.',
  '',
].join('\r\n');

const COPIES = 40;

// the store's Kysely handle, for reading the index's own tables
const db = (): any => s.server.parts.store.db;

/** What the index holds for the content: its row's size in tokens and a mark that changes whenever it is written. */
async function indexState(inboxId: string): Promise<{ tokens: number; written: string } | null> {
  const rid = (
    await sql<{ rid: number }>`select c.rowid as rid from contents c join message_rows m on m.content_sha256 = c.sha256
      where m.inbox_id = ${inboxId}`.execute(db())
  ).rows[0]?.rid;
  if (rid === undefined) return null;
  if (TEST_ON_POSTGRES) {
    const r = (
      await sql<{ n: number; x: string }>`select length(doc) as n, xmin::text as x from search_docs where rid = ${rid}`.execute(db())
    ).rows[0];
    return r ? { tokens: Number(r.n), written: r.x } : null;
  }
  const row = (await sql<{ sz: Uint8Array }>`select sz from search_fts_docsize where id = ${rid}`.execute(db())).rows[0];
  if (!row) return null;
  // docsize: one varint per column (scope, subject, sender, rcpts, body, files, label), token counts
  let tokens = 0;
  for (let i = 0, v = 0, shift = 0; i < row.sz.length; i++) {
    v |= (row.sz[i]! & 0x7f) << shift;
    shift += 7;
    if (row.sz[i]! < 0x80) {
      tokens += v;
      v = 0;
      shift = 0;
    }
  }
  const segs = (await sql<{ n: number; b: number }>`select count(*) as n, sum(length(block)) as b from search_fts_data`.execute(db()))
    .rows[0]!;
  return { tokens, written: `${segs.n}/${segs.b}` };
}

async function inboxHits(inboxId: string, q = 'quince'): Promise<Json[]> {
  return (await json(await s.api(`/v1/inboxes/${inboxId}/search?q=${encodeURIComponent(q)}`))).items;
}

test('a copy in a new inbox costs no index work once the content is in many inboxes, and every copy stays in its scope', async () => {
  const inboxes: Json[] = [];
  for (let i = 0; i < COPIES; i++)
    inboxes.push(await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: i % 2 ? 'quince-b' : 'quince-a' } }), 201));
  const states: Array<{ tokens: number; written: string }> = [];
  for (const inbox of inboxes) {
    await sendRaw(s.server.smtpPort, RAW, inbox.address);
    states.push((await indexState(inbox.inboxId))!);
  }
  // The row is bounded: copy 40 leaves it no bigger than copy SCOPE_INBOXES did.
  assert.ok(
    states[COPIES - 1]!.tokens <= states[SCOPE_INBOXES - 1]!.tokens,
    `row of ${states[COPIES - 1]!.tokens} tokens after ${COPIES} copies, ${states[SCOPE_INBOXES - 1]!.tokens} after ${SCOPE_INBOXES}`,
  );
  // And unwritten: from the copy after the row became shared on, the index is not touched at all.
  const settled = states.slice(SCOPE_INBOXES + 1).map((x) => x.written);
  assert.deepEqual(
    settled,
    settled.map(() => settled[0]),
    'the index was written again by a later copy',
  );

  // Every copy is found in its own inbox, once; the team sees all; a key limited to one label sees only its half.
  for (const inbox of inboxes) {
    const hits = await inboxHits(inbox.inboxId);
    assert.deepEqual(
      hits.map((h) => h.inboxId),
      [inbox.inboxId],
    );
  }
  assert.equal((await json(await s.api('/v1/search?q=quince&limit=100'))).items.length, COPIES);
  const onlyB = await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label: 'quince-b-only', scope: { labelPrefix: 'quince-b' } } }),
    201,
  );
  const bHits = (await json(await s.api('/v1/search?q=quince&limit=100', { key: onlyB.key }))).items as Json[];
  assert.equal(bHits.length, COPIES / 2);
  assert.ok(bHits.every((h) => inboxes.find((i) => i.inboxId === h.inboxId)?.label === 'quince-b'));
  // label: picks one half, -label: the other (decided per message row, the shared row lists no labels).
  assert.equal((await json(await s.api('/v1/search?q=quince+label:quince-a&limit=100'))).items.length, COPIES / 2);
  const notA = (await json(await s.api('/v1/search?q=quince+-label:quince-a&limit=100'))).items as Json[];
  assert.equal(notA.length, COPIES / 2);
  assert.ok(notA.every((h) => inboxes.find((i) => i.inboxId === h.inboxId)?.label === 'quince-b'));

  // Deleting inboxes removes their copies from search; the last one takes the content's row with it.
  for (const inbox of inboxes.slice(0, COPIES - 1)) await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' });
  const last = inboxes[COPIES - 1]!;
  assert.equal((await json(await s.api('/v1/search?q=quince&limit=100'))).items.length, 1);
  assert.deepEqual(
    (await inboxHits(last.inboxId)).map((h) => h.inboxId),
    [last.inboxId],
  );
  const rid = (
    await sql<{ rid: number }>`select c.rowid as rid from contents c join message_rows m on m.content_sha256 = c.sha256
      where m.inbox_id = ${last.inboxId}`.execute(db())
  ).rows[0]!.rid;
  await s.api(`/v1/inboxes/${last.inboxId}`, { method: 'DELETE' });
  const left = TEST_ON_POSTGRES
    ? await sql`select 1 from search_docs where rid = ${rid}`.execute(db())
    : await sql`select 1 from search_fts_docsize where id = ${rid}`.execute(db());
  assert.equal(left.rows.length, 0, 'the search row outlived its content');
});
