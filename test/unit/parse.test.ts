// parseMessage: mapping into ParsedMessage, attachments, and hostile / broken input (bounded, best effort).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractVerification } from '../../src/mail/extract/index.ts';
import { decodeHeaderValue, parseMessage, sanitizeFilename, withoutBareCR } from '../../src/mail/parse.ts';

const crlf = (s: string) => Buffer.from(s.replace(/\r?\n/g, '\r\n'), 'utf8');

test('maps headers, addresses, subject, date, ids', async () => {
  const m = await parseMessage(
    crlf(`From: "Jay Miller" <jay@example.com>
To: a@inboxd.test, "B" <b@inboxd.test>
Cc: c@example.com
Reply-To: r@example.com
Subject: =?UTF-8?B?8J+UkCBZb3VyIGNvZGU=?=
Date: Tue, 14 Apr 2026 10:30:00 +0000
Message-ID: <m1@example.com>
In-Reply-To: <m0@example.com>
References: <a@example.com> <m0@example.com>
X-Custom: =?ISO-8859-1?Q?caf=E9?=
Content-Type: text/plain; charset=utf-8

Hello
`),
  );
  assert.equal(m.subject, '🔐 Your code');
  assert.deepEqual(m.from, { name: 'Jay Miller', address: 'jay@example.com' });
  assert.deepEqual(
    m.to.map((a) => a.address),
    ['a@inboxd.test', 'b@inboxd.test'],
  );
  assert.deepEqual(m.cc, [{ name: '', address: 'c@example.com' }]);
  assert.equal(m.replyTo[0]?.address, 'r@example.com');
  assert.equal(m.date?.toISOString(), '2026-04-14T10:30:00.000Z');
  assert.equal(m.messageId, '<m1@example.com>');
  assert.equal(m.inReplyTo, '<m0@example.com>');
  assert.deepEqual(m.references, ['<a@example.com>', '<m0@example.com>']);
  assert.equal(m.text?.trim(), 'Hello');
  assert.equal(m.html, null);
  const names = m.headers.map(([k]) => k);
  assert.ok(names.includes('x-custom') && names.every((n) => n === n.toLowerCase()));
  assert.equal(m.headers.find(([k]) => k === 'x-custom')?.[1], 'café');
});

test('raw 8-bit UTF-8 header values are decoded', async () => {
  const m = await parseMessage(
    Buffer.from('From: "Équipe" <a@example.com>\r\nSubject: Bestätigung 認証\r\nX-Raw: café\r\n\r\nbody\r\n', 'utf8'),
  );
  assert.equal(m.subject, 'Bestätigung 認証');
  assert.equal(m.from?.name, 'Équipe');
  assert.equal(m.headers.find(([k]) => k === 'x-raw')?.[1], 'café');
  assert.equal(m.headers.find(([k]) => k === 'subject')?.[1], 'Bestätigung 認証');
});

test('attachment parts are attachments, never the message text/html', async () => {
  const m = await parseMessage(
    crlf(`From: a@example.com
Subject: files
Content-Type: multipart/mixed; boundary=XX

--XX
Content-Type: text/plain; charset=utf-8

Body text
--XX
Content-Type: text/html; charset=utf-8
Content-Disposition: attachment; filename="../../etc/page.html"

<p>Your code is 482913</p>
--XX
Content-Type: text/plain
Content-Disposition: attachment; filename="C:\\\\Users\\\\x\\\\notes\u0007.txt"

code 771234
--XX
Content-Type: image/png
Content-ID: <logo@x>
Content-Disposition: inline

iVBORw0KGgo=
--XX--
`),
  );
  assert.equal(m.text?.trim(), 'Body text');
  assert.equal(m.html, null);
  assert.equal(m.attachments.length, 3);
  assert.deepEqual(
    m.attachments.map((a) => a.disposition),
    ['attachment', 'attachment', 'inline'],
  );
  assert.equal(m.attachments[0]?.filename, 'page.html');
  assert.equal(m.attachments[1]?.filename, 'notes.txt');
  assert.equal(m.attachments[2]?.contentId, 'logo@x');
  assert.equal(m.attachments[0]?.size, m.attachments[0]?.content.length);
  assert.equal(extractVerification(m).otp, null);
});

test('sanitizeFilename strips paths and control characters', () => {
  assert.equal(sanitizeFilename('../../a/b/c.pdf'), 'c.pdf');
  assert.equal(sanitizeFilename('C:\\x\\y.txt'), 'y.txt');
  assert.equal(sanitizeFilename('a\u0000b\u001fc\u202e.exe'), 'abc.exe');
  assert.equal(sanitizeFilename('..'), null);
  assert.equal(sanitizeFilename(undefined), null);
  assert.equal(sanitizeFilename('x'.repeat(400) + '.pdf')?.length, 255);
});

test('decodeHeaderValue: B and Q words, adjacent words joined, unknown charset tolerated', () => {
  assert.equal(decodeHeaderValue('=?UTF-8?Q?Bitte_best=C3=A4tigen?= =?UTF-8?Q?_Sie?='), 'Bitte bestätigen Sie');
  assert.equal(decodeHeaderValue('=?x-unknown?B?SGVsbG8=?='), 'Hello');
  assert.equal(decodeHeaderValue('plain'), 'plain');
});

test('bare LF, NUL bytes, invalid UTF-8 and a broken charset parse', async () => {
  const raw = Buffer.concat([
    Buffer.from(
      'From: a@example.com\nSubject: nul\u0000here\nContent-Type: text/plain; charset=x-does-not-exist\n\nYour code\u0000 is 482913\n',
    ),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]),
  ]);
  const m = await parseMessage(raw);
  assert.equal(m.subject, 'nulhere');
  assert.ok(m.text?.includes('482913'));
  assert.ok(!m.text?.includes('\u0000'));
  assert.equal(extractVerification(m).otp, '482913');
});

test('ISO-8859-1 quoted-printable body and Q-encoded subject', async () => {
  const raw = Buffer.from(
    'From: a@example.com\r\nSubject: =?ISO-8859-1?Q?Tu_c=F3digo?=\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nTu c=F3digo de verificaci=F3n es 513729.\r\n',
    'latin1',
  );
  const m = await parseMessage(raw);
  assert.equal(m.subject, 'Tu código');
  assert.equal(m.text?.trim(), 'Tu código de verificación es 513729.');
});

test('a huge header is bounded, the body still parses', async () => {
  const raw =
    'From: a@example.com\r\nSubject: ' + 'x'.repeat(3_000_000) + '\r\nX-Long: ' + 'y'.repeat(2_000_000) + '\r\n\r\nYour code is 482913\r\n';
  const m = await parseMessage(Buffer.from(raw));
  assert.ok(m.subject.length <= 65_536);
  assert.equal(m.text?.trim(), 'Your code is 482913');
});

test('200,000 header lines are bounded', async () => {
  const raw = 'From: a@example.com\r\n' + 'X-H: v\r\n'.repeat(200_000) + 'Subject: hi\r\n\r\nbody\r\n';
  const m = await parseMessage(Buffer.from(raw));
  assert.ok(m.headers.length <= 2000);
  assert.equal(m.subject, 'hi');
});

test('1,000 MIME parts', async () => {
  let raw = 'From: a@example.com\r\nSubject: many\r\nContent-Type: multipart/mixed; boundary=BB\r\n\r\n';
  for (let i = 0; i < 1000; i++)
    raw += `--BB\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="f${i}.bin"\r\n\r\nhello ${i}\r\n`;
  raw += '--BB\r\nContent-Type: text/plain\r\n\r\nYour code is 482913\r\n--BB--\r\n';
  const m = await parseMessage(Buffer.from(raw));
  assert.equal(m.attachments.length, 1000);
  assert.equal(extractVerification(m).otp, '482913');
});

test('a 20 MB text body', async () => {
  const raw = Buffer.from('From: a@example.com\r\nSubject: big\r\n\r\nYour code is 482913\r\n' + 'y'.repeat(20 * 1024 * 1024));
  const m = await parseMessage(raw);
  assert.ok((m.text?.length ?? 0) > 20_000_000);
  assert.equal(extractVerification(m).otp, '482913');
});

test('deeply nested multiparts', async () => {
  let raw = 'From: a@example.com\r\nSubject: deep\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n';
  for (let i = 0; i < 300; i++) raw += `--b${i}\r\nContent-Type: multipart/mixed; boundary=b${i + 1}\r\n\r\n`;
  raw += '--b300\r\nContent-Type: text/plain\r\n\r\ncode 482913\r\n';
  for (let i = 300; i >= 0; i--) raw += `--b${i}--\r\n`;
  const m = await parseMessage(Buffer.from(raw));
  assert.equal(m.text?.trim(), 'code 482913');
});

test('html-only message: text is null, html kept', async () => {
  const m = await parseMessage(crlf('From: a@example.com\nSubject: h\nContent-Type: text/html; charset=utf-8\n\n<p>Hi <b>there</b></p>\n'));
  assert.equal(m.text, null);
  assert.match(m.html ?? '', /<b>there<\/b>/);
});

test('empty input is an Error; garbage is best-effort', async () => {
  await assert.rejects(parseMessage(Buffer.alloc(0)), /empty/);
  await assert.rejects(parseMessage(Buffer.from('\r\n\r\n')), /empty/);
  const m = await parseMessage(Buffer.from('\u0001\u0002 not a message at all'));
  assert.equal(typeof m.subject, 'string');
});

test('bare-CR line endings are parsed as lines (a 4 MB bare-CR header block does not stall the parser)', async () => {
  const same = Buffer.from('Subject: x\r\n\r\nbody\r\n');
  assert.equal(withoutBareCR(same), same, 'untouched when there is no bare CR');
  const head = Array.from({ length: 60_000 }, (_, i) => `X-Junk-${i}: ${'v'.repeat(60)}`).join('\r');
  const raw = Buffer.from(`Subject: bare cr\r${head}\r\rYour code is 482913\r`, 'latin1');
  const parsed = await parseMessage(raw);
  assert.equal(parsed.subject, 'bare cr');
  assert.match(parsed.text ?? '', /482913/);
});
