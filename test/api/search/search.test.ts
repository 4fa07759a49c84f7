// Keyword search over real mail: SMTP in (nodemailer), GET /v1/search and /v1/inboxes/:id/search out.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { keywordPage } from '../../../src/search/engine.ts';
import { compileQuery, parseQuery } from '../../../src/search/query.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let a: Json;
let b: Json;
const sent: Record<string, string> = {};

async function createInbox(body: Json = {}, key?: string): Promise<Json> {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201);
}

async function mail(to: string, name: string, m: Parameters<typeof sendMail>[1]): Promise<void> {
  const r = await sendMail(s.server.smtpPort, { to, ...m });
  sent[name] = /stored as (msg_\w+)/.exec(r.response)![1]!;
}

async function search(q: string, extra = '', key?: string): Promise<Json> {
  return json(await s.api(`/v1/search?q=${encodeURIComponent(q)}${extra}`, key ? { key } : {}));
}

const ids = (r: Json) => r.items.map((i: Json) => i.messageId as string);
const names = (r: Json) =>
  ids(r)
    .map((id: string) => Object.keys(sent).find((k) => sent[k] === id) ?? id)
    .sort();

before(async () => {
  s = await startTestServer();
  a = await createInbox({ label: 'qa-search' });
  b = await createInbox({ label: 'other-team-run' });
  await mail(a.address, 'invoice', {
    from: 'Billing Team <billing@shop.example>',
    subject: 'Your invoice NW-2026-0318',
    text: 'Please find the invoice attached. The outstanding balance is due tomorrow.',
    attachments: [{ filename: 'invoice-march.pdf', content: Buffer.from('%PDF-1.4 fake') }],
  });
  await mail(a.address, 'code', {
    from: 'Acme Security <security@acme.example>',
    subject: 'Your verification code',
    text: 'Your verification code is 482913. It expires in 10 minutes.',
  });
  await mail(a.address, 'link', {
    from: 'Acme <noreply@acme.example>',
    subject: 'Confirm your address',
    html: '<p>Click <a href="https://acme.example/confirm?t=abc">confirm your e-mail</a> to finish signing up.</p>',
  });
  await mail(a.address, 'cafe', {
    from: 'Zoë Müller <zoe@cafe.example>',
    subject: 'Réservation au café',
    text: 'Votre réservation est confirmée. À bientôt au Café Crème!',
  });
  await mail(a.address, 'ja', {
    from: 'shop@jp.example',
    subject: '請求書のお知らせ',
    text: '請求書を添付しました。お支払い期限は明日です。',
  });
  await mail(a.address, 'zh', {
    from: 'shop@cn.example',
    subject: '发票通知',
    text: '请查看发票附件，付款截止日期是明天。',
  });
  await mail(b.address, 'other', {
    from: 'billing@shop.example',
    subject: 'Another invoice for the other run',
    text: 'invoice invoice invoice',
  });
});
after(async () => {
  await s.stop();
});

describe('query language over real mail', () => {
  test('words, ranking, snippet and the answer shape', async () => {
    const r = await search('invoice');
    assert.deepEqual(names(r), ['invoice', 'other']);
    assert.equal(r.mode, 'keyword');
    assert.equal(r.semantic, false);
    assert.equal(r.nextCursor, null);
    const item = r.items.find((i: Json) => i.messageId === sent.invoice);
    assert.match(item.snippet, /«invoice»/);
    assert.equal(typeof item.score, 'number');
    assert.equal(item.subject, 'Your invoice NW-2026-0318');
    assert.equal(item.from.address, 'billing@shop.example');
    // The message that says invoice four times (subject and body) ranks first.
    assert.equal(r.items[0].messageId, sent.other);
  });

  test('bm25 unless a word is in too many messages: then newest first', async () => {
    const db = s.server.parts.store.db;
    const teamId = (await db.selectFrom('inboxes').select('team_id').executeTakeFirstOrThrow()).team_id;
    const q = compileQuery(parseQuery('invoice', Date.now()), s.server.parts.store.dialect);
    const ranked = await keywordPage(db, { teamId, labelPrefix: null }, q, 10, 0, undefined);
    assert.equal(ranked.ranking, 'bm25');
    assert.equal(ranked.hits[0]!.id, sent.other, 'four times invoice first');
    // With the threshold at one posting, "invoice" (in two messages) is too common: newest first, score 0.
    const newest = await keywordPage(db, { teamId, labelPrefix: null }, q, 10, 0, undefined, 5000, 1);
    assert.equal(newest.ranking, 'newest');
    assert.deepEqual(
      newest.hits.map((h) => h.id),
      [sent.other, sent.invoice],
    );
    assert.ok(newest.hits.every((h) => h.score === 0));
  });

  test('AND of words, phrases, negation, OR', async () => {
    assert.deepEqual(names(await search('verification code')), ['code']);
    assert.deepEqual(names(await search('"verification code"')), ['code']);
    assert.deepEqual(names(await search('"code verification"')), []);
    assert.deepEqual(names(await search('acme -verification')), ['link']);
    assert.deepEqual(names(await search('acme !verification')), ['link']);
    assert.deepEqual(names(await search('confirm OR réservation')), ['cafe', 'link']);
    assert.deepEqual(names(await search('invoice OR confirm -other')), ['invoice', 'link']);
  });

  test('from:, to:, subject:, label:, has:', async () => {
    assert.deepEqual(names(await search('from:acme.example')), ['code', 'link']);
    assert.deepEqual(names(await search('from:"Acme Security"')), ['code']);
    assert.deepEqual(names(await search('from:zoe@cafe.example')), ['cafe']);
    assert.deepEqual(names(await search(`to:${b.address}`)), ['other']);
    assert.deepEqual(names(await search('subject:invoice')), ['invoice', 'other']);
    assert.deepEqual(names(await search('subject:balance')), []);
    assert.deepEqual(names(await search('label:other-team-run')), ['other']);
    assert.deepEqual(names(await search('invoice label:qa-search')), ['invoice']);
    assert.deepEqual(names(await search('has:attachment')), ['invoice']);
    assert.deepEqual(names(await search('has:code')), ['code']);
    assert.deepEqual(names(await search('has:link')), ['link']);
    assert.deepEqual(names(await search('acme -has:link')), ['code']);
    // Attachment file names are searched.
    assert.deepEqual(names(await search('march')), ['invoice']);
  });

  test('before: and after: with dates, times and ages', async () => {
    const all = Object.keys(sent).sort();
    assert.deepEqual(names(await search('after:1h')), all);
    assert.deepEqual(names(await search('before:1h')), []);
    assert.deepEqual(names(await search('after:2000-01-01 before:2999-01-01')), all);
    assert.deepEqual(names(await search('invoice before:2000-01-01T10:00')), []);
    assert.deepEqual(names(await search('invoice after:2000-01-01T10:00:00Z')), ['invoice', 'other']);
    assert.deepEqual(names(await search('invoice -before:1d')), ['invoice', 'other']);
    const today = await search('after:00:00');
    assert.equal(today.items.length, all.length);
  });

  test('diacritics are folded both ways', async () => {
    assert.deepEqual(names(await search('cafe')), ['cafe']);
    assert.deepEqual(names(await search('CAFÉ')), ['cafe']);
    assert.deepEqual(names(await search('reservation confirmee')), ['cafe']);
    assert.deepEqual(names(await search('from:zoe from:muller')), ['cafe']);
    const r = await search('bientot');
    assert.match(r.items[0].snippet, /«bientôt»/);
  });

  test('Japanese and Chinese text is found by its words', async () => {
    assert.deepEqual(names(await search('請求書')), ['ja']);
    assert.deepEqual(names(await search('支払い')), ['ja']);
    assert.deepEqual(names(await search('期限')), ['ja']);
    assert.deepEqual(names(await search('发票')), ['zh']);
    assert.deepEqual(names(await search('付款')), ['zh']);
    assert.deepEqual(names(await search('"截止日期"')), ['zh']);
    assert.deepEqual(names(await search('明天')), ['zh']);
    // Any substring, across word boundaries (お支払い contains 支払), and single characters.
    assert.deepEqual(names(await search('支払')), ['ja']);
    assert.deepEqual(names(await search('日')), ['ja', 'zh']);
    assert.deepEqual(names(await search('subject:知らせ')), ['ja']);
    assert.match((await search('发票')).items[0].snippet, /«发票»/);
  });

  test('one inbox: /v1/inboxes/:id/search', async () => {
    const r = await json(await s.api(`/v1/inboxes/${a.inboxId}/search?q=invoice`));
    assert.deepEqual(names(r), ['invoice']);
    assert.deepEqual(names(await search('invoice', `&inboxId=${b.inboxId}`)), ['other']);
    assert.deepEqual(names(await search('invoice', '&label=qa-search')), ['invoice']);
  });
});

describe('scope', () => {
  test('a key scoped to a label prefix never sees another label’s mail', async () => {
    const scoped = await json(
      await s.api('/v1/team/keys', { method: 'POST', json: { label: 'run', scope: { labelPrefix: 'other-' } } }),
      201,
    );
    const r = await search('invoice', '', scoped.key);
    assert.deepEqual(names(r), ['other']);
    assert.deepEqual(names(await search('acme', '', scoped.key)), []);
    assert.deepEqual(names(await search('label:qa-search', '', scoped.key)), []);
    const other = await s.api(`/v1/inboxes/${a.inboxId}/search?q=invoice`, { key: scoped.key });
    assert.equal(other.status, 404);
    const viaParam = await s.api(`/v1/search?q=invoice&inboxId=${a.inboxId}`, { key: scoped.key });
    assert.equal(viaParam.status, 404);
  });

  test('one message to two inboxes: indexed once, each copy seen only in its own scope', async () => {
    const x = await createInbox({ label: 'shared-x' });
    const y = await createInbox({ label: 'private-y' });
    const r = await sendMail(s.server.smtpPort, { to: [x.address, y.address], subject: 'capybara shared', text: 'one content' });
    assert.match(r.response, /^250 /);
    const store = s.server.parts.store;
    const rows =
      store.dialect === 'postgres'
        ? (await sql<{ n: number }>`select count(*) as n from search_docs where doc @@ 'capybara'::tsquery`.execute(store.db)).rows[0]!.n
        : (store.sqlite!.prepare("select count(*) as n from search_fts where search_fts match 'capybara'").get() as { n: number }).n;
    assert.equal(Number(rows), 1, 'one index row for the shared content');
    const all = await search('capybara');
    assert.deepEqual(all.items.map((i: Json) => i.inboxId).sort(), [x.inboxId, y.inboxId].sort());
    assert.deepEqual(
      (await search('capybara label:shared-x')).items.map((i: Json) => i.inboxId),
      [x.inboxId],
    );
    assert.deepEqual(
      (await search('capybara', `&inboxId=${y.inboxId}`)).items.map((i: Json) => i.inboxId),
      [y.inboxId],
    );
    const scoped = await json(
      await s.api('/v1/team/keys', { method: 'POST', json: { label: 'xonly', scope: { labelPrefix: 'shared-' } } }),
      201,
    );
    assert.deepEqual(
      (await search('capybara', '', scoped.key)).items.map((i: Json) => i.inboxId),
      [x.inboxId],
    );
    assert.deepEqual((await search('capybara label:private-y', '', scoped.key)).items, []);
    // The copy in y goes with its inbox; x's copy stays searchable.
    await s.api(`/v1/inboxes/${y.inboxId}`, { method: 'DELETE' });
    assert.deepEqual(
      (await search('capybara')).items.map((i: Json) => i.inboxId),
      [x.inboxId],
    );
  });

  test('another team sees nothing (team token in every query)', async () => {
    const r = await s.server.services.search.search({
      scope: { teamId: 'team_someone_else', labelPrefix: null },
      q: 'invoice',
      mode: 'keyword',
      limit: 10,
      now: Date.now(),
    });
    assert.equal(r.rows.length, 0);
  });
});

describe('paging', () => {
  test('cursor pages are disjoint and complete', async () => {
    const inbox = await createInbox({ label: 'paging' });
    const want: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await sendMail(s.server.smtpPort, { to: inbox.address, subject: `Weekly report ${i}`, text: `report number ${i} zebra` });
      want.push(/stored as (msg_\w+)/.exec(r.response)![1]!);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Json = await search('zebra', `&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...ids(r));
      cursor = r.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual([...seen].sort(), [...want].sort());
    assert.equal(new Set(seen).size, seen.length);
    // Same relevance: newest first.
    assert.deepEqual(seen, [...want].reverse());
  });
});

describe('deletion', () => {
  test('deleted messages and deleted inboxes vanish from search', async () => {
    const inbox = await createInbox({ label: 'del' });
    const r1 = await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'platypus one', text: 'x' });
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'platypus two', text: 'y' });
    const id1 = /stored as (msg_\w+)/.exec(r1.response)![1]!;
    assert.equal((await search('platypus')).items.length, 2);
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${id1}`, { method: 'DELETE' }));
    assert.deepEqual(ids(await search('platypus')).length, 1);
    const del = await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' });
    assert.ok(del.status === 200 || del.status === 204, String(del.status));
    assert.equal((await search('platypus')).items.length, 0);
  });
});

describe('claimed mail', () => {
  test('mail that arrived before its inbox is searchable once claimed', async () => {
    const address = `early${Date.now()}@inboxd.test`;
    await sendMail(s.server.smtpPort, { to: address, subject: 'wombat early bird', text: 'arrived first' });
    assert.equal((await search('wombat')).items.length, 0);
    const inbox = await createInbox({ address });
    assert.equal(inbox.claimed ?? 1, 1);
    let r: Json = { items: [] };
    for (let i = 0; i < 50 && r.items.length === 0; i++) {
      r = await search('wombat');
      if (r.items.length === 0) await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(r.items.length, 1);
    assert.equal(r.items[0].inboxId, inbox.inboxId);
  });
});
