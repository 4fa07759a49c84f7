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
