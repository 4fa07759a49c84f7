// Issue 27, workspace answers that looked right and were wrong: reminder suggestions for a thread with a past
// deadline, a question left open behind a reply that only puts it off, and promises by either side (dates resolved
// against each message's date); summaries without greeting or punctuation artefacts; and rules evaluate that knows
// whether a relay is configured (full_auto to an outside recipient without one is blocked, with the reason).
// REST and the official MCP SDK client.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let client: Client;
const NOW = Date.parse('2026-11-27T07:00:00Z'); // a Friday
before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => NOW } });
  client = await mcpClient(s.url, ADMIN_KEY);
});
after(async () => {
  await client.close();
  await s.stop();
});

async function call(name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
}
const suggest = async (body: Json) =>
  (await json(await s.api('/v1/workspace/reminders/suggest', { method: 'POST', json: body }))).items as Json[];

const ME = 'bob@inboxd.test';
// The thread: they ask for payment "by Friday" (2026-11-20, past), we answer that we will get back tomorrow.
const PAYMENT = [
  {
    from: 'dana@client.example',
    to: ME,
    subject: 'Invoice 4411',
    text: 'Hi Bob,\n\nCould you pay invoice 4411 by Friday? The amount is 1,240.00 EUR.\n\nThanks,\nDana',
    date: '2026-11-16T09:00:00Z', // a Monday
  },
  {
    from: ME,
    to: 'dana@client.example',
    subject: 'Re: Invoice 4411',
    text: 'Hi Dana,\n\nI will check and get back to you tomorrow.\n\nBest regards,\nBob',
    date: '2026-11-17T10:00:00Z',
  },
];

describe('reminder suggestions', () => {
  test('the issue’s thread: the past deadline is overdue, the question stays open, our promise is overdue — REST and MCP', async () => {
    for (const items of [
      await suggest({ messages: PAYMENT, me: ME }),
      (await call('svc_workspace_suggest_reminders', { messages: PAYMENT, me: ME })).items,
    ]) {
      assert.ok(items.length > 0, 'a thread that needs a reminder gets one');
      const deadline = items.find((x: Json) => x.kind === 'deadline' && x.promise === null);
      assert.ok(deadline, JSON.stringify(items));
      assert.equal(deadline.overdue, true);
      assert.equal(deadline.date, '2026-11-20', '"by Friday" resolved against the Monday it was written, not against now');
      assert.match(deadline.note, /^Overdue since 2026-11-20 \(by Friday\): Could you pay invoice 4411 by Friday\?/);
      assert.ok(Date.parse(deadline.dueAt) >= NOW, 'an overdue item is due now, so it can be saved as it is');

      const question = items.find((x: Json) => x.kind === 'needs_reply');
      assert.ok(question, 'a reply that only puts the question off does not answer it');
      assert.match(question.note, /Could you pay invoice 4411 by Friday\?/);
      assert.equal(question.overdue, true);

      const promise = items.find((x: Json) => x.promise === 'ours');
      assert.ok(promise, JSON.stringify(items));
      assert.equal(promise.kind, 'deadline');
      assert.equal(promise.date, '2026-11-18', '"tomorrow" is the day after our message');
      assert.equal(promise.overdue, true);
      assert.match(promise.note, /promised by 2026-11-18: "I will check and get back to you tomorrow\."/);
    }
    // Each one can be saved as suggested.
    const one = (await suggest({ messages: PAYMENT, me: ME }))[0]!;
    await json(await s.api('/v1/workspace/reminders', { method: 'POST', json: { note: one.note, dueAt: one.dueAt, kind: one.kind } }), 201);
  });

  test('questions anywhere in the thread: answered by a later message of ours, open when we only put them off', async () => {
    const thread = [
      {
        from: 'amy@partner.example',
        to: ME,
        subject: 'Venue',
        text: 'Which venue did you book? And what is the capacity?',
        date: '2026-11-24T09:00:00Z',
      },
      { from: ME, to: 'amy@partner.example', subject: 'Re: Venue', text: 'We booked the Harbour Hall.', date: '2026-11-24T10:00:00Z' },
      { from: 'amy@partner.example', to: ME, subject: 'Re: Venue', text: 'Great, thank you.', date: '2026-11-24T11:00:00Z' },
    ];
    const items = await suggest({ messages: thread, me: ME });
    const open = items.filter((x) => x.kind === 'needs_reply');
    assert.equal(open.length, 1, JSON.stringify(items));
    assert.match(open[0]!.note, /^Answer amy@partner\.example: And what is the capacity\?/, 'the venue was answered, the capacity not');
    const answered = await suggest({
      messages: [thread[0], { ...thread[1], text: 'We booked the Harbour Hall; its capacity is 300 people.' }, thread[2]],
      me: ME,
    });
    assert.deepEqual(
      answered.filter((x) => x.kind === 'needs_reply'),
      [],
    );
  });

  test('promises by either side, in several languages; a delivered promise is not suggested', async () => {
    const theirs = await suggest({
      me: ME,
      messages: [
        { from: ME, to: 'kai@vendor.example', subject: 'Quote', text: 'Could you send the quote?', date: '2026-11-20T09:00:00Z' },
        { from: 'kai@vendor.example', to: ME, subject: 'Re: Quote', text: "Sure, we'll send it by Monday.", date: '2026-11-20T12:00:00Z' },
      ],
    });
    const p = theirs.find((x) => x.promise === 'theirs');
    assert.ok(p, JSON.stringify(theirs));
    assert.equal(p.kind, 'follow_up');
    assert.equal(p.date, '2026-11-23', '"by Monday" from a Friday message');
    assert.equal(p.overdue, true);
    assert.match(p.note, /kai@vendor\.example promised by 2026-11-23: "Sure, we'll send it by Monday\."/);

    const future = await suggest({
      me: ME,
      messages: [
        {
          from: 'kai@vendor.example',
          to: ME,
          subject: 'Quote',
          text: 'Ich schicke Ihnen das Angebot morgen.',
          date: '2026-11-27T06:00:00Z',
        },
      ],
    });
    const de = future.find((x) => x.promise === 'theirs');
    assert.ok(de, JSON.stringify(future));
    assert.equal(de.date, '2026-11-28');
    assert.equal(de.overdue, false);
    for (const text of ['Je vous envoie le devis demain.', 'Te envío el presupuesto mañana.', 'Ik stuur de offerte morgen.']) {
      const items = await suggest({
        me: ME,
        messages: [{ from: 'kai@vendor.example', to: ME, subject: 'Quote', text, date: '2026-11-27T06:00:00Z' }],
      });
      assert.equal(items.find((x) => x.promise === 'theirs')?.date, '2026-11-28', text);
    }

    const kept = await suggest({
      me: ME,
      messages: [
        { from: 'kai@vendor.example', to: ME, subject: 'Quote', text: "We'll send the quote by Monday.", date: '2026-11-20T12:00:00Z' },
        { from: 'kai@vendor.example', to: ME, subject: 'Re: Quote', text: 'Here is the quote, attached.', date: '2026-11-23T08:00:00Z' },
      ],
    });
    assert.deepEqual(
      kept.filter((x) => x.promise),
      [],
      'a later message of theirs delivered it',
    );
  });

  test('a past date that was not a deadline, or was met, is not overdue', async () => {
    const items = await suggest({
      me: ME,
      messages: [
        {
          from: 'dana@client.example',
          to: ME,
          subject: 'Invoice',
          text: 'Please pay the invoice by Friday.',
          date: '2026-11-16T09:00:00Z',
        },
        {
          from: ME,
          to: 'dana@client.example',
          subject: 'Re: Invoice',
          text: 'Paid today, see the remittance.',
          date: '2026-11-19T09:00:00Z',
        },
        {
          from: 'dana@client.example',
          to: ME,
          subject: 'Re: Invoice',
          text: 'We met on Monday and it went well.',
          date: '2026-11-25T09:00:00Z',
        },
      ],
    });
    assert.deepEqual(
      items.filter((x) => x.overdue),
      [],
      JSON.stringify(items),
    );
  });
});

describe('summaries', () => {
  test('the latest sentence and key points skip greetings and sign-offs and add no stray period — REST and MCP', async () => {
    const messages = [
      {
        from: 'dana@client.example',
        to: ME,
        subject: 'Signed copy',
        text: 'Hi Bob,\n\nThanks for the quick turnaround on the draft.\n\nPlease send the signed copy before the audit.\n\nBest regards,\nDana Client\nHead of Finance',
        date: '2026-11-24T09:00:00Z',
      },
      {
        from: ME,
        to: 'dana@client.example',
        subject: 'Re: Signed copy',
        text: 'Hello Dana,\nsure, it goes out tomorrow.\n\nCheers,\nBob',
        date: '2026-11-24T10:00:00Z',
      },
      {
        from: 'dana@client.example',
        to: ME,
        subject: 'Re: Signed copy',
        text: 'Good morning!\n\nThe copy arrived today. All good\n\nKind regards\nDana',
        date: '2026-11-25T08:00:00Z',
      },
    ];
    for (const r of [
      await json(await s.api('/v1/workspace/summarize', { method: 'POST', json: { messages, me: ME } })),
      await call('svc_workspace_summarize', { messages, me: ME }),
    ]) {
      assert.match(r.summary, /Latest from dana@client\.example: The copy arrived today\. Dates mentioned/, r.summary);
      assert.doesNotMatch(r.summary, /[,.!?]\.|Hi Bob|Good morning/);
      assert.deepEqual(r.keyPoints, [
        'dana@client.example: Please send the signed copy before the audit.',
        'bob@inboxd.test: sure, it goes out tomorrow.',
        'dana@client.example: The copy arrived today.',
      ]);
    }
  });
});

describe('rules evaluate knows whether mail can leave', () => {
  const message = { from: 'dana@corp.example', subject: 'Lunch', text: 'Shall we meet at noon?' };
  test('no relay: full_auto to an outside recipient is blocked by recipient_deliverable, with the reason; a served domain is not', async () => {
    await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'full_auto' } }));
    try {
      for (const r of [
        await json(await s.api('/v1/workspace/rules/evaluate', { method: 'POST', json: { message, text: 'Yes, see you at noon.' } })),
        await call('svc_workspace_rules_evaluate', { message, text: 'Yes, see you at noon.' }),
      ]) {
        assert.equal(r.outcome, 'blocked');
        assert.equal(r.outcomes.full_auto, 'blocked');
        const c = r.checks.find((x: Json) => x.rule === 'recipient_deliverable');
        assert.equal(c.passed, false);
        assert.match(c.detail, /no SMTP relay is configured.*dana@corp\.example.*501 not_configured.*--smtp-relay/);
        assert.ok(r.reasons.some((x: string) => x.startsWith('recipient_deliverable: ')));
      }
      const local = await json(
        await s.api('/v1/workspace/rules/evaluate', {
          method: 'POST',
          json: { message: { ...message, from: 'agent@inboxd.test' }, text: 'Yes, see you at noon.' },
        }),
      );
      assert.equal(local.checks.find((x: Json) => x.rule === 'recipient_deliverable').passed, true);
      assert.equal(local.outcomes.full_auto, 'sent', 'a served domain is delivered locally');
      const rules = await json(await s.api('/v1/workspace/rules'));
      assert.deepEqual(rules.rules.find((x: Json) => x.name === 'recipient_deliverable').appliesTo, ['auto_send_safe', 'full_auto']);
    } finally {
      await json(await s.api('/v1/workspace/policy', { method: 'PUT', json: { mode: 'draft_only' } }));
    }
  });

  test('with --smtp-relay the same reply passes recipient_deliverable', async () => {
    const r2 = await startTestServer(['--smtp-relay', 'smtp://127.0.0.1:9']);
    try {
      const r = await json(
        await r2.api('/v1/workspace/rules/evaluate', { method: 'POST', json: { message, text: 'Yes, see you at noon.' } }),
      );
      const c = r.checks.find((x: Json) => x.rule === 'recipient_deliverable');
      assert.equal(c.passed, true, c.detail);
      assert.equal(r.outcomes.full_auto, 'sent');
    } finally {
      await r2.stop();
    }
  });
});
