// Threads (CONTRACT §9) over real SMTP: reply chains, parents arriving after their replies, merges, subject fallback
// in many languages, per-inbox threads, deletes, claimed mail, paging, scopes and bad input.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { checkThreadInvariants } from '../../helpers/threads.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const inbox = async (body: Json = {}, key?: string): Promise<Json> =>
  json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201);

/** Sends one message over SMTP with the given threading headers. */
async function mail(to: string, subject: string, h: { id?: string; inReplyTo?: string; references?: string[] } = {}, text = 'hello') {
  await sendMail(s.server.smtpPort, {
    to,
    subject,
    text,
    ...(h.id ? { messageId: `<${h.id}>` } : {}),
    ...(h.inReplyTo ? { inReplyTo: `<${h.inReplyTo}>` } : {}),
    ...(h.references ? { references: h.references.map((r) => `<${r}>`) } : {}),
  });
}

const threads = async (inboxId: string, query = ''): Promise<Json> => json(await s.api(`/v1/inboxes/${inboxId}/threads${query}`));
const thread = async (inboxId: string, threadId: string, status = 200): Promise<Json> =>
  json(await s.api(`/v1/inboxes/${inboxId}/threads/${threadId}`), status);
const messages = async (inboxId: string): Promise<Json[]> => (await json(await s.api(`/v1/inboxes/${inboxId}/messages`))).items;

describe('grouping by Message-ID, In-Reply-To and References', () => {
  test('a reply chain is one thread; threadId is on list, get and wait answers', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Deploy plan', { id: 'a1@x.test' }, 'first');
    await mail(ib.address, 'Re: Deploy plan', { id: 'a2@x.test', inReplyTo: 'a1@x.test', references: ['a1@x.test'] }, 'second');
    await mail(ib.address, 'Re: Deploy plan', { id: 'a3@x.test', inReplyTo: 'a2@x.test', references: ['a1@x.test', 'a2@x.test'] }, 'third');
    const list = await threads(ib.inboxId);
    assert.equal(list.items.length, 1);
    const t = list.items[0];
    assert.match(t.threadId, /^thr_/);
    assert.equal(t.subject, 'Deploy plan');
    assert.equal(t.messageCount, 3);
    assert.equal(t.snippet, 'third');
    assert.ok(t.participants.includes('sender@example.com') && t.participants.includes(ib.address), JSON.stringify(t.participants));
    assert.ok(t.firstMessageAt <= t.lastMessageAt);
    const detail = await thread(ib.inboxId, t.threadId);
    assert.deepEqual(
      detail.messages.map((m: Json) => m.subject),
      ['Deploy plan', 'Re: Deploy plan', 'Re: Deploy plan'],
    );
    assert.equal(detail.lastMessageId, detail.messages[2].messageId);
    const msgs = await messages(ib.inboxId);
    assert.ok(msgs.every((m) => m.threadId === t.threadId));
    const one = await json(await s.api(`/v1/inboxes/${ib.inboxId}/messages/${msgs[0]!.messageId}`));
    assert.equal(one.threadId, t.threadId);
    const waited = await json(await s.api(`/v1/inboxes/${ib.inboxId}/wait?timeoutSeconds=1`));
    assert.equal(waited.threadId, t.threadId);
  });

  test('a reply that arrives before its parent: the parent joins its thread and names it', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Re: Invoice 7', { id: 'b2@x.test', inReplyTo: 'b1@x.test', references: ['b1@x.test'] });
    await mail(ib.address, 'Invoice 7', { id: 'b1@x.test' });
    const list = await threads(ib.inboxId);
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0].messageCount, 2);
    assert.equal(list.items[0].subject, 'Invoice 7');
  });

  test('siblings whose common parent is missing share a thread through the phantom parent', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Re: Q3', { id: 'c2@x.test', inReplyTo: 'c1@x.test' });
    await mail(ib.address, 'Something else entirely', { id: 'c3@x.test', references: ['c1@x.test'] });
    const list = await threads(ib.inboxId);
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0].messageCount, 2);
  });

  test('a message referring to two threads merges them; the merged-away thread is gone', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Alpha', { id: 'd1@x.test' });
    await mail(ib.address, 'Re: Alpha', { id: 'd2@x.test', inReplyTo: 'd1@x.test' });
    await mail(ib.address, 'Beta', { id: 'd3@x.test' });
    const beforeMerge = await threads(ib.inboxId);
    assert.equal(beforeMerge.items.length, 2);
    const beta = beforeMerge.items.find((t: Json) => t.subject === 'Beta');
    await mail(ib.address, 'Re: Alpha and Beta', { id: 'd4@x.test', inReplyTo: 'd3@x.test', references: ['d1@x.test', 'd3@x.test'] });
    const merged = await threads(ib.inboxId);
    assert.equal(merged.items.length, 1);
    assert.equal(merged.items[0].messageCount, 4);
    assert.equal(merged.items[0].subject, 'Alpha');
    assert.notEqual(merged.items[0].threadId, beta.threadId, 'the bigger thread stays');
    assert.equal((await thread(ib.inboxId, beta.threadId, 404)).code, 'not_found');
    const msgs = await messages(ib.inboxId);
    assert.ok(msgs.every((m) => m.threadId === merged.items[0].threadId));
    // A later reply to a message of the merged-away thread lands in the merged one.
    await mail(ib.address, 'Re: Beta', { id: 'd5@x.test', inReplyTo: 'd3@x.test' });
    const after = await threads(ib.inboxId);
    assert.equal(after.items.length, 1);
    assert.equal(after.items[0].messageCount, 5);
  });

  test('the same Message-ID in two inboxes makes one thread in each', async () => {
    const a = await inbox();
    const b = await inbox();
    await sendMail(s.server.smtpPort, { to: [a.address, b.address], subject: 'Shared', text: 'x', messageId: '<e1@x.test>' });
    await sendMail(s.server.smtpPort, { to: [a.address, b.address], subject: 'Re: Shared', text: 'y', inReplyTo: '<e1@x.test>' });
    const ta = await threads(a.inboxId);
    const tb = await threads(b.inboxId);
    assert.equal(ta.items.length, 1);
    assert.equal(tb.items.length, 1);
    assert.equal(ta.items[0].messageCount, 2);
    assert.equal(tb.items[0].messageCount, 2);
    assert.notEqual(ta.items[0].threadId, tb.items[0].threadId);
    // A thread of another inbox is not found through this one.
    assert.equal((await thread(a.inboxId, tb.items[0].threadId, 404)).code, 'not_found');
  });
});

describe('subject fallback', () => {
  test('reply and forward prefixes in many languages join the thread with the same base subject', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Order 42 shipped', {});
    const prefixed = [
      'Re: Order 42 shipped',
      'AW: Order 42 shipped',
      'WG: Order 42 shipped',
      'SV: Order 42 shipped',
      'RE : Order 42 shipped',
      'Réf. : Order 42 shipped',
      'TR: Order 42 shipped',
      'RV: Order 42 shipped',
      'Odp: Order 42 shipped',
      '答复: Order 42 shipped',
      '回复：Order 42 shipped',
      '返信: Order 42 shipped',
      'Ответ: Order 42 shipped',
      'Re[2]: Order 42 shipped',
      'Re: Fwd: Re: order 42 shipped',
    ];
    for (const subject of prefixed) await mail(ib.address, subject, {});
    const list = await threads(ib.inboxId);
    assert.equal(list.items.length, 1, JSON.stringify(list.items.map((t: Json) => t.subject)));
    assert.equal(list.items[0].messageCount, prefixed.length + 1);
    assert.equal(list.items[0].subject, 'Order 42 shipped');
  });

  test('subjects without a prefix never join by subject; a prefixed one joins the most recent', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Your code', {}, 'code 111111');
    await mail(ib.address, 'Your code', {}, 'code 222222');
    const two = await threads(ib.inboxId);
    assert.equal(two.items.length, 2);
    await mail(ib.address, 'Re: Your code', {}, 'thanks');
    const list = await threads(ib.inboxId);
    assert.equal(list.items.length, 2);
    const newest = list.items[0];
    assert.equal(newest.messageCount, 2);
    assert.equal(newest.threadId, two.items[0].threadId, 'joined the most recent "Your code" thread');
    // A reply prefix with nothing to join starts its own thread, and known headers win over the subject.
    await mail(ib.address, 'Re: Something new', {});
    await mail(ib.address, 'Re: Your code', { inReplyTo: 'unknown-parent@x.test' });
    assert.equal((await threads(ib.inboxId)).items.length, 3);
  });
});

describe('upkeep: deletes and claimed mail', () => {
  test('deleting messages updates the thread; an emptied thread disappears and its ids are forgotten', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Ticket 9', { id: 'f1@x.test' }, 'one');
    await mail(ib.address, 'Re: Ticket 9', { id: 'f2@x.test', inReplyTo: 'f1@x.test' }, 'two');
    const [t] = (await threads(ib.inboxId)).items;
    const msgs = await messages(ib.inboxId); // newest first
    await json(await s.api(`/v1/inboxes/${ib.inboxId}/messages/${msgs[0]!.messageId}`, { method: 'DELETE' }));
    const after1 = await thread(ib.inboxId, t.threadId);
    assert.equal(after1.messageCount, 1);
    assert.equal(after1.lastMessageId, msgs[1]!.messageId);
    assert.equal(after1.snippet, 'one');
    assert.equal(after1.lastMessageAt, msgs[1]!.receivedAt);
    await json(await s.api(`/v1/inboxes/${ib.inboxId}/messages/${msgs[1]!.messageId}`, { method: 'DELETE' }));
    assert.equal((await thread(ib.inboxId, t.threadId, 404)).code, 'not_found');
    assert.deepEqual((await threads(ib.inboxId)).items, []);
    // A reply to the deleted message starts a new thread (no stale link to the removed one).
    await mail(ib.address, 'Re: Ticket 9', { id: 'f3@x.test', inReplyTo: 'f1@x.test' });
    const fresh = (await threads(ib.inboxId)).items;
    assert.equal(fresh.length, 1);
    assert.notEqual(fresh[0].threadId, t.threadId);
    assert.equal(fresh[0].messageCount, 1);
  });

  test('a damaged participants list never refuses mail: the thread takes the new message and starts the list over', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Fragile', { id: 'k1@x.test' });
    const [t] = (await threads(ib.inboxId)).items;
    await s.server.parts.store.db.updateTable('threads').set({ participants_json: '{not json' }).where('id', '=', t.threadId).execute();
    await mail(ib.address, 'Re: Fragile', { id: 'k2@x.test', inReplyTo: 'k1@x.test' });
    const after = await thread(ib.inboxId, t.threadId);
    assert.equal(after.messageCount, 2);
    assert.deepEqual(after.participants.sort(), [ib.address, 'sender@example.com'].sort());
  });

  test('deleting an inbox removes its threads', async () => {
    const ib = await inbox();
    await mail(ib.address, 'Bye', { id: 'g1@x.test' });
    await json(await s.api(`/v1/inboxes/${ib.inboxId}`, { method: 'DELETE' }));
    const db = s.server.parts.store.db;
    assert.equal((await db.selectFrom('threads').select('id').where('inbox_id', '=', ib.inboxId).execute()).length, 0);
    assert.equal((await db.selectFrom('thread_refs').select('message_id').where('inbox_id', '=', ib.inboxId).execute()).length, 0);
  });

  test('mail stored unclaimed is threaded when an inbox claims it', async () => {
    const address = `later-${Date.now()}@inboxd.test`;
    await mail(address, 'Welcome', { id: 'h1@x.test' });
    await mail(address, 'Re: Welcome', { id: 'h2@x.test', inReplyTo: 'h1@x.test' });
    await mail(address, 'Unrelated', { id: 'h3@x.test' });
    const ib = await inbox({ address });
    const list = await threads(ib.inboxId);
    assert.deepEqual(list.items.map((t: Json) => [t.subject, t.messageCount]).sort(), [
      ['Unrelated', 1],
      ['Welcome', 2],
    ]);
    // Mail after the claim joins the claimed threads.
    await mail(address, 'Re: Welcome', { id: 'h4@x.test', inReplyTo: 'h2@x.test' });
    const top = (await threads(ib.inboxId)).items[0];
    assert.equal(top.subject, 'Welcome');
    assert.equal(top.messageCount, 3);
  });
});

describe('listing, scope and bad input', () => {
  test('newest activity first, cursor paging, and a reply moves its thread to the top', async () => {
    const ib = await inbox();
    for (let i = 1; i <= 5; i++) await mail(ib.address, `Topic ${i}`, { id: `p${i}@x.test` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await threads(ib.inboxId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((t: Json) => t.subject));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ['Topic 5', 'Topic 4', 'Topic 3', 'Topic 2', 'Topic 1']);
    await mail(ib.address, 'Re: Topic 1', { inReplyTo: 'p1@x.test' });
    assert.equal((await threads(ib.inboxId, '?limit=1')).items[0].subject, 'Topic 1');
    // The messages of one thread page too, oldest first.
    const t1 = (await threads(ib.inboxId, '?limit=1')).items[0];
    const p1 = await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads/${t1.threadId}?limit=1`));
    assert.equal(p1.messages[0].subject, 'Topic 1');
    const p2 = await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads/${t1.threadId}?limit=1&cursor=${p1.nextCursor}`));
    assert.equal(p2.messages[0].subject, 'Re: Topic 1');
    assert.equal(p2.nextCursor, null);
  });

  test('bad input: unknown thread 404, forged cursor 400, bad limit 400, unknown inbox 404', async () => {
    const ib = await inbox();
    assert.equal((await thread(ib.inboxId, 'thr_nope', 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads?cursor=bogus`), 400)).code, 'validation_failed');
    const wrongShape = Buffer.from(JSON.stringify({ s: 1 })).toString('base64url');
    assert.equal((await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads?cursor=${wrongShape}`), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads/thr_x?cursor=bogus`), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads?limit=0`), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api('/v1/console/threads?cursor=bogus'), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api('/v1/inboxes/inb_nope/threads'), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${ib.inboxId}/threads?bogus=1`), 400)).code, 'validation_failed');
    assert.equal((await s.api(`/v1/inboxes/${ib.inboxId}/threads`, { key: null })).status, 401);
  });

  test('scoped keys see only their labels’ threads, in inbox routes and the console', async () => {
    const mint = async (prefix: string) =>
      (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: prefix, scope: { labelPrefix: prefix } } }), 201))
        .key as string;
    const keyA = await mint('scope-a-');
    const keyB = await mint('scope-b-');
    const a = await inbox({ label: 'scope-a-1' }, keyA);
    const b = await inbox({ label: 'scope-b-1' }, keyB);
    await mail(a.address, 'For A', { id: 'sa@x.test' });
    await mail(b.address, 'For B', { id: 'sb@x.test' });
    const tb = (await threads(b.inboxId)).items[0];
    assert.equal((await json(await s.api(`/v1/inboxes/${b.inboxId}/threads`, { key: keyA }), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${b.inboxId}/threads/${tb.threadId}`, { key: keyA }), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${a.inboxId}/threads/${tb.threadId}`, { key: keyA }), 404)).code, 'not_found');
    const consoleA = await json(await s.api('/v1/console/threads', { key: keyA }));
    assert.deepEqual(
      consoleA.items.map((t: Json) => [t.subject, t.inbox.inboxId, t.inbox.address, t.inbox.label]),
      [['For A', a.inboxId, a.address, 'scope-a-1']],
    );
    // The unscoped key sees both, newest activity first, with paging.
    const all = await json(await s.api('/v1/console/threads?limit=2'));
    assert.deepEqual(
      all.items.map((t: Json) => t.subject),
      ['For B', 'For A'],
    );
    assert.ok(all.nextCursor);
    const next = await json(await s.api(`/v1/console/threads?limit=2&cursor=${all.nextCursor}`));
    assert.ok(!next.items.some((t: Json) => ['For A', 'For B'].includes(t.subject)));
  });
});

test('invariants hold after everything above: counts, newest message, refs and messages point at live threads', async () => {
  await checkThreadInvariants(s.server.parts.store.db as never);
});
