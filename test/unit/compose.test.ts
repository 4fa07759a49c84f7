// The pure parts of sending: MIME composition, reply subject / references / recipients, address parsing, and the
// relay settings (credentials never in the URL).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simpleParser } from 'mailparser';
import { loadConfig, UsageError } from '../../src/config.ts';
import { composeMail, MAX_REFERENCES, parseMailbox, replyRecipients, replyReferences, replySubject } from '../../src/mail/compose.ts';

test('composeMail: From, Message-ID at the sender domain, UTF-8 subject, threading headers, no Bcc in the bytes', async () => {
  const c = await composeMail({
    from: 'me@inboxd.test',
    to: [{ name: 'Zoë', address: 'zoe@example.com' }],
    cc: [],
    bcc: [{ name: '', address: 'secret@example.com' }],
    replyTo: [],
    subject: 'Ärger',
    text: 'hello',
    html: undefined,
    attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('abc') }],
    inReplyTo: '<p@example.com>',
    references: ['<r@example.com>', '<p@example.com>'],
    date: new Date('2026-01-01T00:00:00Z'),
  });
  assert.match(c.messageId, /^<[0-9a-f-]+@inboxd\.test>$/);
  assert.doesNotMatch(c.raw.toString(), /secret@example\.com/);
  const p = await simpleParser(c.raw);
  assert.equal(p.subject, 'Ärger');
  assert.equal(p.from?.value[0]?.address, 'me@inboxd.test');
  assert.equal(p.messageId, c.messageId);
  assert.equal(p.inReplyTo, '<p@example.com>');
  assert.deepEqual(p.references, ['<r@example.com>', '<p@example.com>']);
  assert.equal(p.attachments[0]?.content.toString(), 'abc');
});

test('replySubject: Re: once, whatever the case', () => {
  assert.equal(replySubject('Order 42'), 'Re: Order 42');
  assert.equal(replySubject('Re: Order 42'), 'Re: Order 42');
  assert.equal(replySubject('RE:Order 42'), 'RE:Order 42');
  assert.equal(replySubject(''), 'Re:');
});

test('replyReferences: the chain plus the parent, bounded to the root and the newest', () => {
  assert.deepEqual(replyReferences({ references: [], inReplyTo: null, messageId: '<a@x>' }), ['<a@x>']);
  assert.deepEqual(replyReferences({ references: [], inReplyTo: '<p@x>', messageId: 'a@x' }), ['<p@x>', '<a@x>']);
  const long = Array.from({ length: 50 }, (_, i) => `<m${i}@x>`);
  const r = replyReferences({ references: long, inReplyTo: null, messageId: '<last@x>' });
  assert.equal(r.length, MAX_REFERENCES);
  assert.equal(r[0], '<m0@x>');
  assert.equal(r.at(-1), '<last@x>');
  assert.equal(r.at(-2), '<m49@x>');
});

test('replyRecipients: reply-to wins, replyAll adds from/to/cc, never the inbox, no duplicates', () => {
  const o = { from: 'ann@x.test', replyTo: [], to: ['Me@inboxd.test', 'bob@x.test'], cc: ['carl@x.test', 'bob@x.test'] };
  assert.deepEqual(replyRecipients(o, 'me@inboxd.test', false), { to: ['ann@x.test'], cc: [] });
  assert.deepEqual(replyRecipients(o, 'me@inboxd.test', true), { to: ['ann@x.test', 'bob@x.test'], cc: ['carl@x.test'] });
  assert.deepEqual(replyRecipients({ ...o, replyTo: ['team@x.test'] }, 'me@inboxd.test', false), { to: ['team@x.test'], cc: [] });
  assert.deepEqual(replyRecipients({ from: 'me@inboxd.test', replyTo: [], to: [], cc: [] }, 'me@inboxd.test', true), { to: [], cc: [] });
});

test('parseMailbox: plain, named, quoted; refuses what is not an address', () => {
  assert.deepEqual(parseMailbox('a@b.test'), { name: '', address: 'a@b.test' });
  assert.deepEqual(parseMailbox('Ann Lee <a@b.test>'), { name: 'Ann Lee', address: 'a@b.test' });
  assert.deepEqual(parseMailbox('"Lee, Ann" <a@b.test>'), { name: 'Lee, Ann', address: 'a@b.test' });
  for (const bad of ['a', 'a@b', '@b.test', 'a@@b.test', 'a b@c.test', 'a@-b.test', 'x <a@b.test', `${'a'.repeat(65)}@b.test`])
    assert.equal(parseMailbox(bad), null, bad);
});

test('--smtp-relay: smtp or smtps host:port only; credentials only from the environment', () => {
  const base = ['--data-dir', '/tmp/x'];
  assert.equal(loadConfig([...base, '--smtp-relay', 'smtp://relay.lab:25']).smtpRelay, 'smtp://relay.lab:25');
  assert.throws(
    () => loadConfig([...base, '--smtp-relay', 'smtp://u:p@relay.lab:25']),
    (e: Error) => e instanceof UsageError && /INBOXD_SMTP_RELAY_USER/.test(e.message),
  );
  assert.throws(() => loadConfig([...base, '--smtp-relay', 'http://relay.lab']), UsageError);
  const c = loadConfig(base, { INBOXD_SMTP_RELAY: 'smtps://relay.lab:465', INBOXD_SMTP_RELAY_USER: 'u', INBOXD_SMTP_RELAY_PASSWORD: 'p' });
  assert.deepEqual([c.smtpRelay, c.smtpRelayUser, c.smtpRelayPassword], ['smtps://relay.lab:465', 'u', 'p']);
});
