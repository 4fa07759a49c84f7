// Parsed content is stored once per raw message (migration 004), however many recipients the SMTP transaction
// had: one `contents` row, attachment rows once, a small row per recipient. Every recipient still sees the whole
// message; content and blobs go only when the last message that uses them goes.
// not @cluster: checks a local blob goes at once (a shared bucket keeps it for the delete grace)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--max-message-bytes', String(8 * 1024 * 1024)]);
});
after(async () => {
  await s.stop();
});

const count = async (table: string) =>
  Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(s.server.parts.store.db)).rows[0]!.n);
/** Bytes the database uses: SQLite's pages in use (freed pages are not growth); PostgreSQL's database size. */
const usedBytes = async () => {
  const sqlite = s.server.parts.store.sqlite;
  if (!sqlite) return s.server.parts.store.sizeBytes();
  return (
    ((sqlite.pragma('page_count', { simple: true }) as number) - (sqlite.pragma('freelist_count', { simple: true }) as number)) *
    (sqlite.pragma('page_size', { simple: true }) as number)
  );
};
const stored = (sha: string) => s.server.parts.blobs.exists(sha);

async function createInbox(): Promise<Json> {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
}

describe('one SMTP transaction to 100 recipients', () => {
  const recipients: Json[] = [];
  let orphanAddresses: string[] = [];
  let text = '';
  let html = '';
  let attachment: Buffer;
  let growth = 0;
  let contentBytes = 0;

  before(async () => {
    for (let i = 0; i < 98; i++) recipients.push(await createInbox());
    // Two recipients have no inbox yet: their copies are unclaimed, and share the content too.
    orphanAddresses = [`late-a-${crypto.randomUUID().slice(0, 8)}@inboxd.test`, `late-b-${crypto.randomUUID().slice(0, 8)}@inboxd.test`];
    text = `Your code is 482913.\n${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(4000)}\n`;
    html = `<p>Your code is <b>482913</b>.</p>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(3000)}`;
    attachment = crypto.randomBytes(64 * 1024);
    contentBytes = text.length + html.length;
    const before = await usedBytes();
    const sent = await sendMail(s.server.smtpPort, {
      to: [...recipients.map((r) => r.address), ...orphanAddresses],
      subject: 'Shared content',
      text,
      html,
      attachments: [{ filename: 'report.bin', content: attachment }],
    });
    assert.match(sent.response, /^250 /);
    assert.equal(sent.accepted.length, 100);
    growth = (await usedBytes()) - before;
  });

  test('the database grows by about one copy, not one per recipient', async () => {
    // One copy of text + html (+ headers, JSON, 100 small rows and their indexes) — far from 100 copies.
    assert.ok(growth < contentBytes * 2, `the database grew by ${growth} bytes for ${contentBytes} bytes of content`);
    // PostgreSQL compresses the repetitive test text (TOAST), so only SQLite's growth says the text is there.
    if (!TEST_ON_POSTGRES) assert.ok(growth > contentBytes / 2, `the content is in the database (${growth} bytes)`);
    assert.equal(await count('contents'), 1, 'one content row for the whole transaction');
    assert.equal(await count('content_attachments'), 1, 'the attachment row is stored once');
    assert.equal(await count('message_rows'), 100);
  });

  test('every recipient sees the whole message, with its own ids and envelope', async () => {
    const ids = new Set<string>();
    for (const r of recipients) {
      const list = await json(await s.api(`/v1/inboxes/${r.inboxId}/messages`));
      assert.equal(list.items.length, 1, r.address);
      const m = await json(await s.api(`/v1/inboxes/${r.inboxId}/messages/${list.items[0].messageId}`));
      ids.add(m.messageId);
      assert.equal(m.subject, 'Shared content');
      assert.equal(m.text, text);
      assert.equal(m.html, html);
      assert.equal(m.verification.otp, '482913');
      assert.ok(m.headers.some((h: Json) => h.name === 'subject' && h.value === 'Shared content'));
      assert.equal(m.attachments.length, 1);
      assert.match(m.attachments[0].url, new RegExp(`/v1/inboxes/${r.inboxId}/messages/${m.messageId}/attachments/att_`));
      const meta = await json(
        await s.api(`/v1/inboxes/${r.inboxId}/messages/${m.messageId}/raw`, { headers: { accept: 'application/json' } }),
      );
      assert.equal(meta.envelope.rcptTo, r.address);
    }
    assert.equal(ids.size, recipients.length, 'each recipient has its own message id');
    const r = recipients[7]!;
    const m = (await json(await s.api(`/v1/inboxes/${r.inboxId}/messages`))).items[0];
    const att = (await json(await s.api(`/v1/inboxes/${r.inboxId}/messages/${m.messageId}/attachments`))).items[0];
    const bytes = Buffer.from(
      await (await s.api(`/v1/inboxes/${r.inboxId}/messages/${m.messageId}/attachments/${att.attachmentId}`)).arrayBuffer(),
    );
    assert.ok(bytes.equals(attachment));
  });

  test('an inbox created later claims its copy of the shared content', async () => {
    const late = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: orphanAddresses[0] } }), 201);
    const list = await json(await s.api(`/v1/inboxes/${late.inboxId}/messages`));
    assert.equal(list.items.length, 1);
    const m = await json(await s.api(`/v1/inboxes/${late.inboxId}/messages/${list.items[0].messageId}`));
    assert.equal(m.text, text);
    recipients.push(late);
  });

  test('content and blobs stay while any message uses them, and go with the last one', async () => {
    const first = (await json(await s.api(`/v1/inboxes/${recipients[0]!.inboxId}/messages`))).items[0];
    const rawSha = (
      await json(
        await s.api(`/v1/inboxes/${recipients[0]!.inboxId}/messages/${first.messageId}/raw`, { headers: { accept: 'application/json' } }),
      )
    ).sha256;
    const attSha = crypto.createHash('sha256').update(attachment).digest('hex');
    await json(await s.api(`/v1/inboxes/${recipients[0]!.inboxId}/messages/${first.messageId}`, { method: 'DELETE' }));
    for (const r of recipients.slice(1, 50)) assert.equal((await s.api(`/v1/inboxes/${r.inboxId}`, { method: 'DELETE' })).status, 200);
    assert.equal(await count('contents'), 1);
    assert.ok((await stored(rawSha)) && (await stored(attSha)));
    const other = recipients[60]!;
    const m = (await json(await s.api(`/v1/inboxes/${other.inboxId}/messages`))).items[0];
    assert.equal((await json(await s.api(`/v1/inboxes/${other.inboxId}/messages/${m.messageId}`))).text, text);

    for (const r of recipients.slice(50)) assert.equal((await s.api(`/v1/inboxes/${r.inboxId}`, { method: 'DELETE' })).status, 200);
    // One unclaimed copy is left: it still holds the content.
    assert.equal(await count('contents'), 1);
    const last = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: orphanAddresses[1] } }), 201);
    assert.equal((await s.api(`/v1/inboxes/${last.inboxId}`, { method: 'DELETE' })).status, 200);
    assert.equal(await count('contents'), 0);
    assert.equal(await count('content_attachments'), 0);
    assert.ok(!(await stored(rawSha)), 'raw blob removed with the last message');
    assert.ok(!(await stored(attSha)), 'attachment blob removed with the last message');
  });
});
