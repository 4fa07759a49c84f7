// The IMAP command reader and tokenizer (src/imap/parser.ts), the MIME tree IMAP sections read (src/mail/mime-tree.ts),
// BODYSTRUCTURE/ENVELOPE output (src/imap/format.ts) and POP3 dot-stuffing (src/pop3/server.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addresses, bodyStructure, envelope } from '../../src/imap/format.ts';
import { CommandReader, ParseError, parseSequenceSet, type RawCommand, type Token, tokenize } from '../../src/imap/parser.ts';
import { parseMime, partAt } from '../../src/mail/mime-tree.ts';
import { dotStuff } from '../../src/pop3/server.ts';

const strip = (t: Token[]): unknown => t.map((x) => (x.t === 'list' ? strip(x.v) : x.v));

test('a command with a synchronising literal asks for continuation, then reads exactly its bytes', () => {
  const r = new CommandReader();
  assert.deepEqual(r.push(Buffer.from('a1 LOGIN {5}\r\n')), [{ kind: 'continue' }]);
  const ev = r.push(Buffer.from('me@x "pw"\r\na2 NOOP\r\n'));
  assert.equal(ev.length, 2);
  assert.equal(ev[0]!.kind, 'command');
  const cmd = (ev[0] as { command: { parts: Array<string | Buffer> } }).command;
  assert.deepEqual(strip(tokenize(cmd)), ['a1', 'LOGIN', 'me@x ', 'pw']);
  // Split across chunks anywhere.
  const r2 = new CommandReader();
  const bytes = Buffer.from('t FETCH 1 (BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)]<0.100> UID)\r\n');
  const got = [];
  for (const b of bytes) got.push(...r2.push(Buffer.from([b])));
  assert.equal(got.length, 1);
  assert.deepEqual(strip(tokenize((got[0] as { command: RawCommand }).command)), [
    't',
    'FETCH',
    '1',
    ['BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)]<0.100>', 'UID'],
  ]);
});

test('limits: a literal, a line or a command over its limit is an overflow with the tag; nothing more is read', () => {
  const r = new CommandReader({ maxLiteralBytes: 10, maxLineBytes: 100, maxCommandBytes: 200 });
  assert.deepEqual(r.push(Buffer.from('a1 LOGIN {11}\r\n')), [
    { kind: 'overflow', tag: 'a1', message: 'literal of 11 bytes; at most 10 are accepted' },
  ]);
  assert.deepEqual(r.push(Buffer.from('a2 NOOP\r\n')), [], 'a failed reader reads nothing more');
  const long = new CommandReader({ maxLineBytes: 100 });
  const ev = long.push(Buffer.from(`b1 NOOP ${'x'.repeat(200)}`));
  assert.equal(ev[0]!.kind, 'overflow');
  const many = new CommandReader({ maxLiteralBytes: 50, maxCommandBytes: 100 });
  const evs = [...many.push(Buffer.from('c1 X {50}\r\n')), ...many.push(Buffer.from(`${'y'.repeat(50)} {50}\r\n`))];
  assert.deepEqual(
    evs.map((e) => e.kind),
    ['continue', 'overflow'],
  );
  // LITERAL+ within the limit: no continuation request, the bytes are read.
  const plus = new CommandReader();
  const p = plus.push(Buffer.from('d1 LOGIN {2+}\r\nab "c"\r\n'));
  assert.deepEqual(
    p.map((e) => e.kind),
    ['command'],
  );
});

test('tokenizer: quoted strings with escapes, nested lists, flags, NIL; bad input is a ParseError', () => {
  const r = new CommandReader();
  const [ev] = r.push(Buffer.from('x STORE 1:* +FLAGS.SILENT (\\Seen \\Deleted) "a \\"q\\" \\\\b" (1 (2 (3)))\r\n'));
  assert.deepEqual(strip(tokenize((ev as { command: RawCommand }).command)), [
    'x',
    'STORE',
    '1:*',
    '+FLAGS.SILENT',
    ['\\Seen', '\\Deleted'],
    'a "q" \\b',
    ['1', ['2', ['3']]],
  ]);
  for (const bad of ['x "unterminated', 'x (a', 'x a)', 'x BODY[HEADER', `x ${'('.repeat(40)}`])
    assert.throws(() => tokenize({ parts: [bad] }), ParseError, bad);
});

test('sequence sets: ranges either way round, * as the highest, junk refused', () => {
  const t = parseSequenceSet('1:3,7,10:*', 12)!;
  assert.deepEqual(
    [1, 2, 3, 4, 7, 9, 10, 12, 13].map((n) => t(n)),
    [true, true, true, false, true, false, true, true, false],
  );
  assert.ok(parseSequenceSet('5:2', 9)!(3));
  assert.equal(parseSequenceSet('*', 0)!(1), false);
  for (const bad of ['0', '1:', 'a', '1,,2', '1:2:3', '-1']) assert.equal(parseSequenceSet(bad, 9), null, bad);
});

const MIXED = [
  'From: "Ann, A." <ann@example.com>',
  'To: b@example.com, Group: c@example.com, d@example.com;',
  'Subject: =?UTF-8?Q?h=C3=A9llo?=',
  'Message-ID: <m1@example.com>',
  'Content-Type: multipart/mixed; boundary="XX"',
  '',
  'preamble',
  '--XX',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'line one',
  'line two',
  '--XX',
  'Content-Type: message/rfc822',
  '',
  'Subject: inner',
  'Content-Type: multipart/alternative; boundary=YY',
  '',
  '--YY',
  '',
  'inner text',
  '--YY',
  'Content-Type: text/html',
  '',
  '<p>x</p>',
  '--YY--',
  '--XX',
  'Content-Type: application/pdf; name=a.pdf',
  'Content-Disposition: attachment; filename="a.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  'AAAA',
  '--XX--',
  '',
].join('\r\n');

test('MIME tree: parts, sections through an encapsulated message, BODYSTRUCTURE and ENVELOPE', () => {
  const raw = Buffer.from(MIXED);
  const root = parseMime(raw);
  const body = (p: number[]) => {
    const part = partAt(root, p)!;
    return raw.toString('latin1', part.bodyStart, part.bodyEnd);
  };
  assert.equal(root.parts.length, 3);
  assert.equal(body([1]), 'line one\r\nline two');
  assert.equal(body([2, 1]), 'inner text', 'part 2.1 is the first part of the encapsulated message');
  assert.equal(body([2, 2]), '<p>x</p>');
  assert.equal(body([3]), 'AAAA');
  assert.equal(partAt(root, [4]), null);
  assert.equal(partAt(root, [1, 1]), null);
  const single = parseMime(Buffer.from('Subject: s\r\n\r\nhello\r\n'));
  assert.equal(partAt(single, [1]), single, 'part 1 of a single-part message is its body');
  const bs = bodyStructure(raw, root, true);
  assert.match(bs, /^\(\("TEXT" "PLAIN" \("CHARSET" "utf-8"\) NIL NIL "7BIT" 18 2 NIL NIL NIL NIL\)/);
  assert.match(bs, /\("MESSAGE" "RFC822" NIL NIL NIL "7BIT" \d+ \(NIL "inner" /);
  assert.match(
    bs,
    /\("APPLICATION" "PDF" \("NAME" "a.pdf"\) NIL NIL "BASE64" 4 NIL \("ATTACHMENT" \("FILENAME" "a.pdf"\)\) NIL NIL\) "MIXED" \("BOUNDARY" "XX"\)/,
  );
  const env = envelope(raw, root);
  assert.match(env, /^\(NIL "=\?UTF-8\?Q\?h=C3=A9llo\?=" \(\("Ann, A\." NIL "ann" "example.com"\)\)/);
  assert.equal(
    addresses('b@example.com, Group: c@example.com, d@example.com;'),
    '((NIL NIL "b" "example.com")(NIL NIL "c" "example.com")(NIL NIL "d" "example.com"))',
  );
  // Deep nesting is bounded: a thousand nested multiparts parse without recursion trouble.
  let deep = 'Content-Type: text/plain\r\n\r\nend';
  for (let i = 0; i < 1000; i++) deep = `Content-Type: multipart/mixed; boundary=b${i}\r\n\r\n--b${i}\r\n${deep}\r\n--b${i}--`;
  const t = parseMime(Buffer.from(deep));
  assert.ok(bodyStructure(Buffer.from(deep), t, true).length > 0);
  // So is a chain of encapsulated messages: past the depth bound the innermost is an opaque body, never a
  // MESSAGE/RFC822 without its structure.
  let chain = 'Subject: last\r\n\r\nend';
  for (let i = 0; i < 40; i++) chain = `Content-Type: message/rfc822\r\n\r\n${chain}`;
  const cs = bodyStructure(Buffer.from(chain), parseMime(Buffer.from(chain)), true);
  assert.match(cs, /"APPLICATION" "OCTET-STREAM"/);
  assert.equal(cs.split('"MESSAGE" "RFC822"').length - 1, 32);
});

test('UTF-8 header values (RFC 6532) go out as literals of their UTF-8 bytes, not re-encoded', () => {
  const raw = Buffer.from('Subject: Grüße 🎉\r\nFrom: Zoë <z@example.com>\r\n\r\nbody\r\n', 'utf8');
  const env = envelope(raw, parseMime(raw));
  const subject = Buffer.from('Grüße 🎉', 'utf8');
  assert.ok(env.includes(`{${subject.length}}\r\nGrüße 🎉`), env);
  assert.ok(env.includes(`{${Buffer.byteLength('Zoë')}}\r\nZoë`), env);
});

test('POP3 dot-stuffing: CRLF line ends, leading dots doubled, TOP cuts after the header and n lines', () => {
  const raw = Buffer.from('Subject: x\n\n.one\ntwo\n..three\n');
  assert.equal(dotStuff(raw, null).toString(), 'Subject: x\r\n\r\n..one\r\ntwo\r\n...three\r\n');
  assert.equal(dotStuff(raw, 1).toString(), 'Subject: x\r\n\r\n..one\r\n');
  assert.equal(dotStuff(raw, 0).toString(), 'Subject: x\r\n\r\n');
});
