// The auto_send_safe rules one by one (each passes on a plain reply and fails for its own reason), the one
// decision gate per mode, and the built-in engine's text analysis (quotes, questions, dates, drafts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { datesIn, draftReply, ownText, summarize } from '../../src/workspace/builtin.ts';
import { DEFAULT_SETTINGS, decide, evaluateRules, RULES, type RuleContext } from '../../src/workspace/rules.ts';
import type { WsMessage } from '../../src/workspace/source.ts';

const msg = (over: Partial<WsMessage> = {}): WsMessage => ({
  id: 'msg_1',
  threadId: null,
  from: 'amy@partner.example',
  fromName: 'Amy',
  to: ['me@inboxd.test'],
  subject: 'Meeting',
  text: 'Can we meet on Tuesday? See https://partner.example/agenda for room 12.',
  date: Date.parse('2026-11-18T10:00:00Z'),
  headers: [],
  attachmentCount: 0,
  direction: 'inbound',
  messageIdHeader: null,
  ...over,
});

function ctx(over: Partial<RuleContext> = {}, reply: Partial<RuleContext['reply']> = {}): RuleContext {
  const source = over.source ?? msg();
  return {
    source,
    thread: [source],
    reply: { to: source.from, text: 'Tuesday works, room 12 is fine.', attachmentCount: 0, ...reply },
    knownDomains: new Set(['partner.example']),
    isServedDomain: (d) => d === 'inboxd.test',
    relayConfigured: true,
    sentToday: { team: 0, thread: 0 },
    settings: DEFAULT_SETTINGS,
    ...over,
  };
}

const failing = (c: RuleContext) =>
  evaluateRules(c)
    .filter((x) => !x.passed)
    .map((x) => x.rule);

test('a plain, safe reply to a known sender passes every rule', () => {
  assert.deepEqual(failing(ctx()), []);
  assert.equal(decide('auto_send_safe', evaluateRules(ctx())).outcome, 'sent');
});

test('each rule fails for its own reason', () => {
  const cases: Array<[string, RuleContext]> = [
    ['not_automated_mail', ctx({ source: msg({ headers: [['Auto-Submitted', 'auto-generated']] }) })],
    ['not_automated_mail', ctx({ source: msg({ headers: [['Precedence', 'bulk']] }) })],
    ['not_role_or_noreply', ctx({ source: msg({ from: 'postmaster@partner.example' }) })],
    ['original_sender_only', ctx({}, { to: 'boss@partner.example' })],
    ['original_sender_only', ctx({ source: msg({ headers: [['Reply-To', 'Evil <x@evil.example>']] }) })],
    ['sender_not_failing_authentication', ctx({ source: msg({ headers: [['Authentication-Results', 'mx; spf=softfail']] }) })],
    ['within_rate_limits', ctx({ sentToday: { team: 0, thread: 1 } })],
    ['within_rate_limits', ctx({ sentToday: { team: 50, thread: 0 } })],
    ['known_sender_domain', ctx({ knownDomains: new Set() })],
    ['recipient_domain_allowed', ctx({ settings: { ...DEFAULT_SETTINGS, allowRecipientDomains: ['other.example'] } })],
    ['no_attachments', ctx({}, { attachmentCount: 1 })],
    ['no_new_links', ctx({}, { text: 'See https://elsewhere.example/x' })],
    ['no_new_numbers', ctx({}, { text: 'Room 14 then.' })],
    ['no_sensitive_wording', ctx({}, { text: 'Here is the API key you asked for.' })],
    ['no_sensitive_wording', ctx({ source: msg({ text: 'Please send the wire transfer details.' }) })],
    ['bounded_length', ctx({}, { text: '   ' })],
    ['recipient_deliverable', ctx({ relayConfigured: false })],
  ];
  for (const [rule, c] of cases) assert.ok(failing(c).includes(rule), `${rule}: ${JSON.stringify(evaluateRules(c))}`);
  assert.deepEqual(new Set(cases.map(([r]) => r)).size, RULES.length, 'every rule has a failing case');
});

test('the gate: draft_only never sends; auto_send_safe needs every rule; full_auto only the hard ones', () => {
  const safe = evaluateRules(ctx());
  assert.equal(decide('draft_only', safe).outcome, 'drafted');
  const newLink = evaluateRules(ctx({}, { text: 'See https://elsewhere.example/x' }));
  assert.equal(decide('auto_send_safe', newLink).outcome, 'blocked');
  assert.equal(decide('full_auto', newLink).outcome, 'sent');
  const auto = evaluateRules(ctx({ source: msg({ headers: [['List-Id', '<x>']] }) }));
  assert.equal(decide('full_auto', auto).outcome, 'blocked');
  assert.equal(decide('draft_only', auto).outcome, 'drafted');
});

test('built-in engine: own words only, questions, dates resolved against the message date', () => {
  assert.equal(ownText('Yes.\n\nOn Mon, Bob wrote:\n> old?\n> text'), 'Yes.');
  assert.equal(ownText('Fine.\n-- \nBob\nCEO'), 'Fine.');
  const base = Date.parse('2026-11-18T10:00:00Z'); // a Wednesday
  const d = Object.fromEntries(
    datesIn('Send it by Friday. Launch on March 3. Review 2026-12-01. Call tomorrow. Due 5th January 2027.', base).map((x) => [
      x.text,
      x.date,
    ]),
  );
  assert.equal(d['by Friday'], '2026-11-20');
  assert.equal(d['March 3'], '2027-03-03', 'a month already past means next year');
  assert.equal(d['2026-12-01'], '2026-12-01');
  assert.equal(d.tomorrow, '2026-11-19');
  assert.equal(d['5th January 2027'], '2027-01-05');
  const s = summarize([msg(), msg({ from: 'me@inboxd.test', direction: 'outbound', text: 'Yes, Tuesday.' })]);
  assert.equal(s.questions[0]!.text, 'Can we meet on Tuesday?');
  assert.doesNotMatch(s.summary, /open question/, 'answered by a later message from someone else');
});

test('built-in draft: answers from notes, names the rest, replies to the newest inbound sender', () => {
  const d = draftReply([msg({ text: 'What time is the call? Who else joins?' })], ['The call time is 15:00 UTC.']);
  assert.equal(d.to, 'amy@partner.example');
  assert.equal(d.subject, 'Re: Meeting');
  assert.deepEqual(d.answered, [{ question: 'What time is the call?', answer: 'The call time is 15:00 UTC.' }]);
  assert.deepEqual(d.unanswered, ['Who else joins?']);
  assert.equal(d.confidence, 0.5);
  assert.match(d.text, /^Hi Amy,/);
});

test('recipient_deliverable: without a relay an outside recipient fails (hard: full_auto blocks); a served domain passes', () => {
  const noRelay = evaluateRules(ctx({ relayConfigured: false }));
  const c = noRelay.find((x) => x.rule === 'recipient_deliverable')!;
  assert.equal(c.passed, false);
  assert.match(c.detail, /no SMTP relay is configured.*amy@partner\.example.*501 not_configured.*--smtp-relay/);
  assert.equal(decide('full_auto', noRelay).outcome, 'blocked');
  assert.equal(decide('auto_send_safe', noRelay).outcome, 'blocked');
  assert.equal(decide('full_auto', evaluateRules(ctx({ relayConfigured: true }))).outcome, 'sent');
  const local = evaluateRules(ctx({ relayConfigured: false }, { to: 'amy@inboxd.test' })).find((x) => x.rule === 'recipient_deliverable')!;
  assert.equal(local.passed, true, local.detail);
});

// Real-looking mails: a greeting line, paragraphs, a closing and a signature (issue 27: "Latest from Dana Client:
// Hi Bob,." and key points ending "..").
const mail = (from: string, fromName: string, text: string, over: Partial<WsMessage> = {}) => msg({ from, fromName, text, ...over });
const REAL = [
  mail(
    'dana@client.example',
    'Dana Client',
    'Hi Bob,\n\nThanks for the quick turnaround on the draft.\n\nCould you send the signed copy by Friday? We need it for the audit.\n\nBest regards,\nDana Client\nHead of Finance, Client Ltd.',
  ),
  mail('bob@inboxd.test', 'Bob', 'Hello Dana,\nsure, I will send it tomorrow.\n\nCheers,\nBob', { direction: 'outbound' }),
  mail(
    'ops@vendor.example',
    'Vendor Ops',
    'Dear team,\n\nPlease review the attached invoice before the end of the month.\nThe amount is unchanged from last quarter.\n\nThank you!\n\n--\nVendor Ops | vendor.example',
  ),
  mail(
    'zoe@shipping.example',
    'Zoe',
    'Good morning!\n\nThe shipment left our warehouse today. Tracking follows\n\nKind regards\nZoe\nShipping Co.',
  ),
  mail('marie@client.fr', 'Marie', 'Bonjour Bob,\n\nLe contrat est prêt. Pouvez-vous le signer ?\n\nCordialement,\nMarie'),
];

test('summaries: the lead skips greetings and thanks, a signature is cut, no period is added after punctuation', () => {
  for (const [i, m] of REAL.entries()) {
    const s = summarize([m]);
    assert.doesNotMatch(s.summary, /[,.!?]\.|\.\.|Latest from [^:]+: (Hi|Hello|Dear|Good morning|Bonjour)\b/i, `${i}: ${s.summary}`);
    for (const k of s.keyPoints) assert.doesNotMatch(k, /\.\.$|[,!?]\.$|: (Hi|Hello|Dear|Good morning|Bonjour)\b/, `${i}: ${k}`);
    for (const k of s.keyPoints) assert.doesNotMatch(k, /regards|Cheers|Cordialement|Head of Finance|Vendor Ops \|/i, `${i}: ${k}`);
  }
  const latest = (m: WsMessage) =>
    /Latest from ([^:]+): (.*?)(?: \d+ open question| Dates mentioned|$)/.exec(summarize([m]).summary)!.slice(1);
  assert.deepEqual(latest(REAL[0]!), ['Dana Client', 'Could you send the signed copy by Friday?']);
  assert.deepEqual(latest(REAL[1]!), ['Bob', 'sure, I will send it tomorrow.']);
  assert.deepEqual(latest(REAL[2]!), ['Vendor Ops', 'Please review the attached invoice before the end of the month.']);
  assert.deepEqual(latest(REAL[3]!), ['Zoe', 'The shipment left our warehouse today.']);
  assert.deepEqual(latest(REAL[4]!), ['Marie', 'Le contrat est prêt.']);
  const thread = summarize(REAL.slice(0, 2));
  assert.deepEqual(thread.keyPoints, ['Dana Client: Could you send the signed copy by Friday?', 'Bob: sure, I will send it tomorrow.']);
  // A lead without punctuation of its own gets one full stop, so the next part of the summary reads apart.
  assert.match(summarize([mail('a@b.example', 'A', 'Invoice attached')]).summary, /Latest from A: Invoice attached\.$/);
  assert.equal(ownText('Thanks!\nSee you.'), 'Thanks!\nSee you.', 'a closing line is a signature only after words of the message');
  // "Thanks!" is followed by the message itself, not by a signature: nothing is cut.
  const body = 'Hi Bob,\nThanks!\nCould you send me the file?\nBob';
  assert.equal(ownText(body), body);
  assert.equal(ownText('Hi,\nThanks!\nPlease send the file by Friday.\nBob'), 'Hi,\nThanks!\nPlease send the file by Friday.\nBob');
  assert.equal(ownText('See the file.\n\nRegards,\nDana Client\nHead of Finance, Client Ltd.\n+49 30 1234567'), 'See the file.');
});
