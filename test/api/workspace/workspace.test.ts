// The workspace preview over HTTP (CONTRACT §13): hub, summaries and drafts with no model, policy and its admin
// rule, rules status/evaluate without side effects, reminders, actions, today and decisions, and bad input.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { deliver, mintKey, newInbox } from '../../helpers/workspace-mail.ts';

let s: TestServer;
let now = Date.parse('2026-11-20T12:00:00Z');
before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => now } });
});
after(async () => {
  await s.stop();
});

const THREAD = [
  {
    from: 'alice@partner.example',
    to: 'me@inboxd.test',
    subject: 'Launch plan',
    text: 'Hi,\n\nWe plan the launch for 2026-12-04. Can you send the final logo files by Friday? Also, which venue did you book?',
    date: '2026-11-18T09:00:00Z',
  },
  {
    from: 'me@inboxd.test',
    to: 'alice@partner.example',
    subject: 'Re: Launch plan',
    text: 'The venue is the Harbour Hall. Logo files are coming.',
    date: '2026-11-18T11:00:00Z',
  },
  {
    from: 'alice@partner.example',
    to: 'me@inboxd.test',
    subject: 'Re: Launch plan',
    text: 'Great. What is the capacity of the venue? And who presents the demo?\n\n> The venue is the Harbour Hall.',
    date: '2026-11-19T08:00:00Z',
  },
];

describe('hub, summaries and drafts', () => {
  test('GET /v1/workspace: autonomy_preview, default policy draft_only, models with the built-in last, routes', async () => {
    const h = await json(await s.api('/v1/workspace'));
    assert.equal(h.status, 'autonomy_preview');
    assert.equal(h.policy.mode, 'draft_only');
    assert.deepEqual(h.models.fallbackOrder, ['builtin']);
    assert.equal(h.models.ready, true);
    const paths = h.routes.map((r: Json) => `${r.method} ${r.path}`);
    for (const p of ['POST /v1/workspace/execute-reply', 'GET /v1/workspace/today', 'GET /v1/workspace/models', 'PUT /v1/workspace/policy'])
      assert.ok(paths.includes(p), p);
    assert.equal((await json(await s.api('/v1/workspace/models'))).items.at(-1).provider, 'builtin');
  });

  test('summarize supplied messages with no model: key points, questions asked, dates resolved', async () => {
    const r = await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: { messages: THREAD, me: 'me@inboxd.test' } }));
    assert.equal(r.engine, 'builtin');
    assert.equal(r.messageCount, 3);
    assert.match(r.summary, /3 messages about "Launch plan"/);
    assert.ok(r.keyPoints.some((k: string) => /launch for 2026-12-04/.test(k)));
    const qs = r.questions.map((q: Json) => q.text);
    assert.ok(qs.includes('What is the capacity of the venue?'), qs.join('|'));
    assert.ok(qs.some((q: string) => /logo files by Friday\?/.test(q)));
    assert.ok(!qs.some((q: string) => /Harbour Hall/.test(q)), 'quoted text is not the sender’s');
    const dates = Object.fromEntries(r.dates.map((d: Json) => [d.text, d.date]));
    assert.equal(dates['2026-12-04'], '2026-12-04');
    assert.equal(dates['by Friday'], '2026-11-20', 'Friday after Wed 18 Nov');
    assert.deepEqual(r.participants.sort(), ['alice@partner.example', 'me@inboxd.test']);
  });

  test('draft-reply answers what it can (notes, our earlier mail), names the rest, never sends', async () => {
    const r = await json(
      await s.api('/v1/workspace/draft-reply', {
        method: 'POST',
        json: { messages: THREAD, me: 'me@inboxd.test', notes: ['The venue capacity is 300 seats.'] },
      }),
    );
    assert.equal(r.sent, false);
    assert.equal(r.to, 'alice@partner.example');
    assert.equal(r.subject, 'Re: Launch plan');
    assert.equal(r.draftId, null, 'supplied mail: nothing stored');
    assert.deepEqual(
      r.answered.map((a: Json) => a.question),
      ['What is the capacity of the venue?'],
    );
    assert.match(r.text, /300 seats/);
    assert.deepEqual(r.unanswered, ['And who presents the demo?']);
    assert.match(r.text, /I do not have an answer yet for:\n- And who presents the demo\?/);
  });

  test('stored message: summarize and draft by messageId; the draft is stored and logged', async () => {
    const inbox = await newInbox(s);
    const id = await deliver(s, {
      from: 'bob@client.example',
      fromName: 'Bob Stone',
      to: inbox.address,
      subject: 'Invoice question',
      text: 'Could you confirm the meeting on 3 December 2026? Thanks.',
    });
    const sum = await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: { inboxId: inbox.inboxId, messageId: id } }));
    assert.equal(sum.dates[0].date, '2026-12-03');
    const d = await json(await s.api('/v1/workspace/draft-reply', { method: 'POST', json: { inboxId: inbox.inboxId, messageId: id } }));
    assert.match(d.draftId, /^drf_/);
    assert.match(d.text, /^Hi Bob,/);
    const acts = await json(await s.api(`/v1/workspace/actions?messageId=${id}`));
    assert.deepEqual(
      acts.items.map((a: Json) => [a.type, a.draftId]),
      [['draft', d.draftId]],
    );
    // another team's view of the inbox does not exist: a scoped key outside the label gets 404
    const scoped = await mintKey(s, { label: 'scoped', scope: { labelPrefix: 'elsewhere-' } });
    assert.equal(
      (await s.api('/v1/workspace/summarize', { method: 'POST', key: scoped, json: { inboxId: inbox.inboxId, messageId: id } })).status,
      404,
    );
  });

  test('bad sources: both or neither source → 400; unknown message → 404; 10,000 supplied messages bounded', async () => {
    const both = await json(
      await s.api('/v1/workspace/summarize', { method: 'POST', json: { messages: THREAD, inboxId: 'inb_x', messageId: 'msg_x' } }),
      400,
    );
    assert.match(both.detail, /either messages/);
    assert.equal((await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: {} }), 400)).code, 'validation_failed');
    const inbox = await newInbox(s);
    await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: { inboxId: inbox.inboxId, messageId: 'msg_nope' } }), 404);
    const many = Array.from({ length: 10_000 }, (_, i) => ({ from: 'a@b.example', text: `m${i}` }));
    const r = await s.api('/v1/workspace/summarize', { method: 'POST', json: { messages: many } });
    const body = (await r.json()) as Json;
    assert.ok(r.status === 400 || r.status === 413, String(r.status));
    assert.match(body.detail, /at most 200 messages|too large/);
    const big = Array.from({ length: 50 }, () => ({ from: 'a@b.example', text: 'x'.repeat(30_000) }));
    const r2 = await s.api('/v1/workspace/summarize', { method: 'POST', json: { messages: big } });
    assert.equal(r2.status, 413, 'a body over the JSON limit is refused before parsing');
  });

  test('stored threads by threadId', async () => {
    const inbox = await newInbox(s);
    await deliver(s, { from: 'carol@x.example', to: inbox.address, subject: 'Plan', text: 'Can we meet on Monday?', messageId: 'p1@x' });
    const id2 = await deliver(s, {
      from: 'carol@x.example',
      to: inbox.address,
      subject: 'Re: Plan',
      text: 'Or Tuesday?',
      headers: { 'In-Reply-To': '<p1@x>' },
    });
    const msg = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${id2}`));
    assert.match(msg.threadId, /^thr_/);
    const sum = await json(
      await s.api('/v1/workspace/summarize', { method: 'POST', json: { inboxId: inbox.inboxId, threadId: msg.threadId } }),
    );
    assert.equal(sum.messageCount, 2);
    const sug = await json(
      await s.api('/v1/workspace/reminders/suggest', { method: 'POST', json: { inboxId: inbox.inboxId, threadId: msg.threadId } }),
    );
    assert.ok(sug.items.some((x: Json) => x.kind === 'needs_reply' && x.threadId === msg.threadId));
    await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: { inboxId: inbox.inboxId, threadId: 'thr_unknown' } }), 404);
  });
});

describe('policy and rules', () => {
  test('GET policy: draft_only by default with every rule listed', async () => {
    const p = await json(await s.api('/v1/workspace/policy'));
    assert.equal(p.mode, 'draft_only');
    assert.deepEqual(p.settings, { maxPerThreadPerDay: 1, maxPerDay: 50, maxLength: 1200, allowRecipientDomains: [] });
    assert.ok(p.rules.length >= 10);
    assert.deepEqual(p.rules.find((r: Json) => r.name === 'not_automated_mail').appliesTo, ['auto_send_safe', 'full_auto']);
    assert.deepEqual(p.rules.find((r: Json) => r.name === 'no_new_links').appliesTo, ['auto_send_safe']);
  });

  test('PUT policy: admin only (member, scoped admin, read-only → 403), unknown mode → 400, settings merge', async () => {
    const member = await mintKey(s, { label: 'm', role: 'member' });
    const scopedAdmin = await mintKey(s, { label: 'sa', role: 'admin', scope: { labelPrefix: 'ci-' } });
    const ro = await mintKey(s, { label: 'ro', role: 'admin', scope: { readOnly: true } });
    for (const key of [member, scopedAdmin, ro])
      assert.equal(
        (await json(await s.api('/v1/workspace/policy', { method: 'PUT', key, json: { mode: 'full_auto' } }), 403)).code,
        'forbidden',
      );
    const bad = await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'yolo' } }), 400);
    assert.match(bad.detail, /draft_only, auto_send_safe, full_auto/);
    await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'auto_send_safe', extra: 1 } }), 400);
    const set = await json(
      await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'auto_send_safe', settings: { maxLength: 500 } } }),
    );
    assert.equal(set.mode, 'auto_send_safe');
    assert.equal(set.settings.maxLength, 500);
    assert.match(set.updatedBy, /^key_/);
    const again = await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'draft_only' } }));
    assert.equal(again.settings.maxLength, 500, 'settings not given keep their value');
    assert.equal((await json(await s.api('/v1/workspace/policy', { key: member }))).mode, 'draft_only', 'members read it');
    await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'draft_only', settings: { maxLength: 1200 } } }));
  });

  test('rules status lists the rules and the last 24 h counts', async () => {
    const r = await json(await s.api('/v1/workspace/rules'));
    assert.equal(r.mode, 'draft_only');
    assert.ok(r.rules.some((x: Json) => x.name === 'original_sender_only'));
    assert.equal(typeof r.last24h.sent, 'number');
  });

  test('rules evaluate on a supplied message: each rule with its reason, outcome per mode, no side effect', async () => {
    const before = await json(await s.api('/v1/workspace/actions'));
    const ev = (message: Json, text: string) =>
      s.api('/v1/workspace/rules/evaluate', { method: 'POST', json: { message, text } }).then((r) => json(r));
    const ok = await ev({ from: 'dana@corp.example', subject: 'Lunch', text: 'Shall we meet at noon?' }, 'Yes, see you at noon.');
    const byRule = Object.fromEntries(ok.checks.map((c: Json) => [c.rule, c]));
    assert.equal(byRule.not_automated_mail.passed, true);
    assert.equal(byRule.known_sender_domain.passed, false, 'supplied mail has no history');
    assert.equal(ok.outcome, 'drafted');
    // No relay on this server: full_auto would be refused at send time, so evaluate says blocked (issue 27).
    assert.deepEqual(ok.outcomes, { draft_only: 'drafted', auto_send_safe: 'blocked', full_auto: 'blocked' });
    assert.equal(byRule.recipient_deliverable.passed, false);

    const auto = await ev({ from: 'dana@corp.example', text: 'Out of office', headers: { 'Auto-Submitted': 'auto-replied' } }, 'ok');
    assert.match(auto.checks.find((c: Json) => c.rule === 'not_automated_mail').detail, /Auto-Submitted: auto-replied/);
    assert.equal(auto.outcomes.full_auto, 'blocked', 'hard rules bind full_auto');
    const list = await ev({ from: 'news@corp.example', text: 'Weekly', headers: { 'List-Id': '<w.corp.example>' } }, 'ok');
    assert.equal(list.checks.find((c: Json) => c.rule === 'not_automated_mail').passed, false);
    const noreply = await ev({ from: 'no-reply@corp.example', text: 'Your order' }, 'thanks');
    assert.match(noreply.checks.find((c: Json) => c.rule === 'not_role_or_noreply').detail, /no-reply or role/);
    const spoof = await ev(
      {
        from: 'ceo@corp.example',
        text: 'Quick favour',
        headers: { 'Authentication-Results': 'mx.example; dmarc=fail header.from=corp.example' },
      },
      'ok',
    );
    assert.equal(spoof.checks.find((c: Json) => c.rule === 'sender_not_failing_authentication').passed, false);
    const risky = await ev(
      { from: 'dana@corp.example', text: 'Please see https://corp.example/doc' },
      'Pay 4,200 EUR to IBAN DE89 at https://evil.example/pay and send your password',
    );
    const fails = Object.fromEntries(risky.checks.filter((c: Json) => !c.passed).map((c: Json) => [c.rule, c.detail]));
    assert.match(fails.no_new_links, /evil\.example/);
    assert.match(fails.no_new_numbers, /4,200/);
    assert.match(fails.no_sensitive_wording, /the reply mentions credentials/);
    const long = await ev({ from: 'dana@corp.example', text: 'Hi' }, 'a'.repeat(1300));
    assert.match(long.checks.find((c: Json) => c.rule === 'bounded_length').detail, /1300 characters \(limit 1200\)/);
    const loop = await ev({ from: 'agent@inboxd.test', text: 'hi' }, 'hello');
    assert.equal(loop.checks.find((c: Json) => c.rule === 'recipient_domain_allowed').passed, false);
    const after = await json(await s.api('/v1/workspace/actions'));
    assert.equal(after.items.length, before.items.length, 'evaluate logs nothing');
    await json(await s.api('/v1/workspace/rules/evaluate', { method: 'POST', json: { text: 'x' } }), 400);
  });
});

describe('reminders and actions', () => {
  test('suggest: follow-up where we wrote last, open questions, deadlines; nothing stored', async () => {
    const waiting = await json(
      await s.api('/v1/workspace/reminders/suggest', {
        method: 'POST',
        json: { me: 'me@inboxd.test', messages: [THREAD[0], { ...THREAD[1], text: 'Sent the files. Could you confirm by 2026-11-27?' }] },
      }),
    );
    const kinds = waiting.items.map((x: Json) => x.kind);
    assert.ok(kinds.includes('follow_up'), kinds.join());
    assert.ok(kinds.includes('deadline'));
    const dl = waiting.items.find((x: Json) => x.kind === 'deadline' && /2026-12-04/.test(x.note));
    assert.equal(dl.dueAt, '2026-12-03T09:00:00.000Z', 'a day ahead of the date');
    const open = await json(
      await s.api('/v1/workspace/reminders/suggest', { method: 'POST', json: { messages: THREAD, me: 'me@inboxd.test' } }),
    );
    assert.ok(open.items.some((x: Json) => x.kind === 'needs_reply' && /capacity/.test(x.note)));
    const inbox = await newInbox(s);
    await deliver(s, { from: 'hal@x.example', to: inbox.address, subject: 'Specs', text: 'Which version do you run?' });
    const fromInbox = await json(await s.api('/v1/workspace/reminders/suggest', { method: 'POST', json: { inboxId: inbox.inboxId } }));
    assert.deepEqual(
      fromInbox.items.map((x: Json) => [x.kind, x.inboxId]),
      [['needs_reply', inbox.inboxId]],
    );
    assert.equal((await json(await s.api('/v1/workspace/reminders'))).items.length, 0);
  });

  test('create, list with filters, complete (twice is harmless), unknown → 404; actions by reminderId', async () => {
    const inbox = await newInbox(s);
    const due = new Date(now + 2 * 3600_000).toISOString();
    const a = await json(
      await s.api('/v1/workspace/reminders', {
        method: 'POST',
        json: { note: 'Chase Alice', dueAt: due, kind: 'follow_up', inboxId: inbox.inboxId },
      }),
      201,
    );
    assert.match(a.reminderId, /^rem_/);
    assert.equal(a.status, 'open');
    const b = await json(
      await s.api('/v1/workspace/reminders', {
        method: 'POST',
        json: { note: 'Later', dueAt: new Date(now + 9 * 86_400_000).toISOString() },
      }),
      201,
    );
    const all = await json(await s.api('/v1/workspace/reminders'));
    assert.deepEqual(
      all.items.map((r: Json) => r.reminderId),
      [a.reminderId, b.reminderId],
    );
    assert.equal((await json(await s.api('/v1/workspace/reminders?kind=follow_up'))).items.length, 1);
    assert.equal((await json(await s.api(`/v1/workspace/reminders?inboxId=${inbox.inboxId}`))).items.length, 1);
    assert.equal(
      (await json(await s.api(`/v1/workspace/reminders?dueBefore=${encodeURIComponent(new Date(now + 86_400_000).toISOString())}`))).items
        .length,
      1,
    );
    const page = await json(await s.api('/v1/workspace/reminders?limit=1'));
    assert.equal(page.items.length, 1);
    assert.equal((await json(await s.api(`/v1/workspace/reminders?limit=1&cursor=${page.nextCursor}`))).items[0].reminderId, b.reminderId);
    const done = await json(await s.api(`/v1/workspace/reminders/${a.reminderId}/complete`, { method: 'PATCH', json: {} }));
    assert.equal(done.status, 'completed');
    await json(await s.api(`/v1/workspace/reminders/${a.reminderId}/complete`, { method: 'PATCH', json: {} }));
    assert.equal((await json(await s.api('/v1/workspace/reminders?status=open'))).items.length, 1);
    assert.equal(
      (await json(await s.api('/v1/workspace/reminders/rem_nope/complete', { method: 'PATCH', json: {} }), 404)).code,
      'not_found',
    );
    await json(
      await s.api('/v1/workspace/actions', { method: 'POST', json: { type: 'wait', reminderId: b.reminderId, note: 'waiting on legal' } }),
      201,
    );
    const acts = await json(await s.api(`/v1/workspace/actions?reminderId=${a.reminderId}`));
    assert.deepEqual(
      acts.items.map((x: Json) => x.type),
      ['completed'],
    );
    assert.equal((await json(await s.api(`/v1/workspace/actions?reminderId=${b.reminderId}`))).items[0].note, 'waiting on legal');
    const sent = await json(await s.api('/v1/workspace/actions', { method: 'POST', json: { type: 'sent' } }), 400);
    assert.match(sent.detail, /sent is logged by execute-reply/);
    await json(await s.api('/v1/workspace/actions', { method: 'POST', json: { type: 'wait', reminderId: 'rem_nope' } }), 404);
    await s.api(`/v1/workspace/reminders/${b.reminderId}/complete`, { method: 'PATCH', json: {} });
  });

  test('due dates: past, malformed, without a zone, absurdly far → 400 with the reason; nothing stored', async () => {
    const count = async () => (await json(await s.api('/v1/workspace/reminders?limit=500'))).items.length;
    const n = await count();
    const past = await json(
      await s.api('/v1/workspace/reminders', { method: 'POST', json: { note: 'x', dueAt: '2020-01-01T00:00:00Z' } }),
      400,
    );
    assert.match(past.detail, /in the past/);
    for (const dueAt of ['tomorrow', '2026-13-45T00:00:00Z', '2026-12-01T09:00:00', '', 12345])
      assert.equal(
        (await json(await s.api('/v1/workspace/reminders', { method: 'POST', json: { note: 'x', dueAt } }), 400)).code,
        'validation_failed',
        String(dueAt),
      );
    await json(await s.api('/v1/workspace/reminders', { method: 'POST', json: { note: 'x', dueAt: '2099-01-01T00:00:00Z' } }), 400);
    await json(
      await s.api('/v1/workspace/reminders', { method: 'POST', json: { note: 'x', dueAt: '2026-12-01T00:00:00Z', threadId: 'thr_x' } }),
      400,
    );
    assert.equal(await count(), n);
  });

  test('read-only keys read but cannot create, complete or log', async () => {
    const ro = await mintKey(s, { label: 'ro2', scope: { readOnly: true } });
    await json(await s.api('/v1/workspace/reminders', { key: ro }));
    await json(
      await s.api('/v1/workspace/reminders', { method: 'POST', key: ro, json: { note: 'x', dueAt: '2026-12-01T00:00:00Z' } }),
      403,
    );
    await json(await s.api('/v1/workspace/actions', { method: 'POST', key: ro, json: { type: 'wait' } }), 403);
  });
});

describe('today and decisions', () => {
  test('items: reminder due, draft awaiting decision, conversation awaiting reply; decisions act on each', async () => {
    const inbox = await newInbox(s);
    const rem = await json(
      await s.api('/v1/workspace/reminders', {
        method: 'POST',
        json: { note: 'Call Erin', dueAt: new Date(now + 3600_000).toISOString(), inboxId: inbox.inboxId },
      }),
      201,
    );
    const waiting = await deliver(s, {
      from: 'erin@shop.example',
      to: inbox.address,
      subject: 'Order 17',
      text: 'Is my order shipped?',
      date: '2026-11-20T08:00:00Z',
    });
    const drafted = await deliver(s, {
      from: 'frank@shop.example',
      to: inbox.address,
      subject: 'Refund',
      text: 'Where is my refund?',
      date: '2026-11-20T09:00:00Z',
    });
    await deliver(s, {
      from: 'noreply@shop.example',
      to: inbox.address,
      subject: 'Newsletter',
      text: 'Deals!',
      date: '2026-11-20T09:30:00Z',
    });
    const d = await json(
      await s.api('/v1/workspace/draft-reply', { method: 'POST', json: { inboxId: inbox.inboxId, messageId: drafted } }),
    );
    const t = await json(await s.api('/v1/workspace/today'));
    const mine = t.items.filter((i: Json) => i.inboxId === inbox.inboxId);
    const byId = Object.fromEntries(mine.map((i: Json) => [i.id, i.kind]));
    assert.equal(byId[rem.reminderId], 'reminder_due');
    assert.equal(byId[d.draftId], 'draft_awaiting_decision');
    assert.equal(byId[waiting], 'awaiting_reply');
    assert.equal(byId[drafted], undefined, 'the drafted message shows as its draft');
    assert.equal(mine.length, 3, 'the no-reply newsletter is not awaiting anything');

    // snooze a reminder: gone until the time comes
    const until = new Date(now + 2 * 86_400_000).toISOString();
    assert.equal(
      (await json(await s.api(`/v1/workspace/today/${rem.reminderId}/decision`, { method: 'POST', json: { decision: 'snooze', until } })))
        .state,
      'snoozed',
    );
    // approve a draft under draft_only: drafted, never sent
    const ap = await json(await s.api(`/v1/workspace/today/${d.draftId}/decision`, { method: 'POST', json: { decision: 'approve' } }));
    assert.equal(ap.state, 'drafted');
    assert.equal(ap.reply.sentMessageId, null);
    // dismiss the awaiting conversation
    assert.equal(
      (await json(await s.api(`/v1/workspace/today/${waiting}/decision`, { method: 'POST', json: { decision: 'dismiss' } }))).state,
      'dismissed',
    );
    const t2 = (await json(await s.api('/v1/workspace/today'))).items.filter((i: Json) => i.inboxId === inbox.inboxId);
    assert.deepEqual(
      t2.map((i: Json) => i.id),
      [d.draftId],
      'the draft still waits (draft_only kept it); reminder snoozed; conversation dismissed',
    );
    assert.equal(
      (await json(await s.api(`/v1/workspace/today/${d.draftId}/decision`, { method: 'POST', json: { decision: 'dismiss' } }))).state,
      'dismissed',
    );
    now += 3 * 86_400_000;
    try {
      const t3 = (await json(await s.api('/v1/workspace/today'))).items.filter((i: Json) => i.inboxId === inbox.inboxId);
      assert.deepEqual(
        t3.map((i: Json) => i.id),
        [rem.reminderId],
        'the snooze ended',
      );
    } finally {
      now -= 3 * 86_400_000;
    }
    // bad decisions
    await json(await s.api(`/v1/workspace/today/${rem.reminderId}/decision`, { method: 'POST', json: { decision: 'snooze' } }), 400);
    await json(
      await s.api(`/v1/workspace/today/${rem.reminderId}/decision`, {
        method: 'POST',
        json: { decision: 'snooze', until: '2020-01-01T00:00:00Z' },
      }),
      400,
    );
    await json(await s.api(`/v1/workspace/today/${rem.reminderId}/decision`, { method: 'POST', json: { decision: 'send_now' } }), 400);
    await json(await s.api('/v1/workspace/today/xyz_1/decision', { method: 'POST', json: { decision: 'dismiss' } }), 404);
    await json(await s.api('/v1/workspace/today/drf_nope/decision', { method: 'POST', json: { decision: 'dismiss' } }), 404);
    // snoozing an awaiting message makes a reminder due at that time
    const other = await deliver(s, {
      from: 'gina@shop.example',
      to: inbox.address,
      subject: 'Sizes',
      text: 'Do you have size 42?',
      date: '2026-11-20T10:00:00Z',
    });
    assert.equal(
      (await json(await s.api(`/v1/workspace/today/${other}/decision`, { method: 'POST', json: { decision: 'snooze', until } }))).state,
      'snoozed',
    );
    const rems = await json(await s.api(`/v1/workspace/reminders?inboxId=${inbox.inboxId}&status=open`));
    assert.ok(rems.items.some((r: Json) => r.messageId === other && r.dueAt === until));
  });
});

describe('providers not connected', () => {
  test('execute-gmail-draft on an unconnected account and execute-calendar-event answer 501 not_configured saying how to connect', async () => {
    const g = await json(
      await s.api('/v1/workspace/execute-gmail-draft', { method: 'POST', json: { text: 'hello', accountId: 'pac_none' } }),
      501,
    );
    assert.equal(g.code, 'not_configured');
    assert.match(g.detail, /svc_gmail_connect/);
    const c = await json(
      await s.api('/v1/workspace/execute-calendar-event', {
        method: 'POST',
        json: { accountId: 'pac_none', title: 'Sync', start: '2026-12-01T09:00:00Z', end: '2026-12-01T09:30:00Z' },
      }),
      501,
    );
    assert.match(c.detail, /svc_calendar_connect/);
  });
});
