// Replies, forwards and helpdesk threads: the newest (unquoted, topmost) code wins (README rule 7).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textToLines } from '../../src/mail/extract/doc.ts';
import { markQuotes, threadHints } from '../../src/mail/extract/quotes.ts';
import { x } from './extract-helpers.ts';

test('">" quoted older code loses to the new one', () => {
  const text =
    'Here is a new verification code: 318 442\n\nOn Sun, Apr 12, 2026 at 6:14 PM Support <support@example.com> wrote:\n> Your verification code is 907 215.\n> Marco\n';
  assert.equal(x({ subject: 'Re: code', text }).otp, '318442');
});

test('only a quoted code: not used', () => {
  const text = 'Thanks, that worked!\n\n> Your verification code is 907215.\n';
  assert.equal(x({ subject: 'Re: Your code', text }).otp, null);
});

test('Outlook "-----Original Message-----"', () => {
  const text =
    'New code: 480215\n\n-----Original Message-----\nFrom: IT <it@example.com>\nSent: Monday\nSubject: Code\n\nYour verification code is 991034.';
  assert.equal(x({ subject: 'RE: Code', text }).otp, '480215');
});

test('Outlook header block without the Original Message line', () => {
  const text =
    'Try this one instead, verification code 662091.\n\n________________________________\nFrom: IT Desk <it@example.com>\nSent: Monday, April 13, 2026 9:00 AM\nTo: Jay\nSubject: Login code\n\nYour verification code is 991034.';
  assert.equal(x({ subject: 'RE: Login code', text }).otp, '662091');
});

test('Gmail HTML: <blockquote class="gmail_quote"> is old content', () => {
  const html =
    '<div>Sorry, use this code instead: <b>204816</b></div><div class="gmail_quote"><div class="gmail_attr">On Mon, Apr 13, 2026 Support &lt;s@example.com&gt; wrote:</div><blockquote class="gmail_quote">Your verification code is 552210.</blockquote></div>';
  assert.equal(x({ subject: 'Re: Verification code', html }).otp, '204816');
});

test('forward by a person: the forwarded message is content; its own quote is old', () => {
  const text = [
    'Forwarding the latest one. The older code below no longer works.',
    '',
    '---------- Forwarded message ---------',
    'From: Contoso Support <support@contoso.example>',
    'Date: Mon, Apr 13, 2026 at 10:30 AM',
    'Subject: Re: Verification code',
    'To: Priya <priya@fabrikam.example>',
    '',
    'Here is a new verification code: 318 442',
    '',
    'On Sun, Apr 12, 2026 at 6:14 PM Contoso Support <support@contoso.example> wrote:',
    '> Your verification code is 907 215.',
  ].join('\n');
  const r = x({ from: 'Priya <priya@fabrikam.example>', subject: 'Fwd: Re: Verification code', text });
  assert.equal(r.otp, '318442');
  assert.equal(r.service, null);
});

test('helpdesk thread, newest entry first', () => {
  const text = [
    '##- Please type your reply above this line -##',
    'Your request (48213) has been updated.',
    '----------------------------------------------',
    'Dana (Support)',
    'Apr 12, 2026, 10:30 GMT+1',
    'Sorry, the previous code had expired. Here is a fresh one:',
    '604 118',
    '----------------------------------------------',
    'Jay Miller',
    'Apr 12, 2026, 09:58 GMT+1',
    "The code you sent me (552 907) says it's invalid.",
    '----------------------------------------------',
    'Dana (Support)',
    'Here is your one-time verification code: 552 907',
  ].join('\n');
  assert.equal(x({ subject: '[Support] Re: Cannot sign in', text }).otp, '604118');
});

test('a plain (non-reply) <blockquote> used for layout still counts', () => {
  assert.equal(
    x({ subject: 'Your login code', html: '<p>Use this code to log in:</p><blockquote style="font-size:24px">582031</blockquote>' }).otp,
    '582031',
  );
});

test('markQuotes marks lines and segments', () => {
  const lines = textToLines('top 1\n-----------\nmiddle\n> quoted\nOn Mon, Jay <j@example.com> wrote:\nold');
  const info = markQuotes(lines, threadHints('Re: x', null));
  assert.equal(info.thread, true);
  assert.deepEqual(
    lines.map((l) => [l.quoted, l.segment]),
    [
      [false, 0],
      [false, 1],
      [false, 1],
      [true, 1],
      [true, 1],
      [true, 1],
    ],
  );
  assert.deepEqual(threadHints('[Tailspin] Re: help', null), { reply: true, forward: false });
  assert.deepEqual(threadHints('Fwd: code', null), { reply: false, forward: true });
  assert.deepEqual(threadHints('Your code', '<id@x>'), { reply: true, forward: false });
});
