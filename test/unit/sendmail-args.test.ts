// `inboxd sendmail` argument and message handling (src/client/sendmail.ts): sendmail's flags, -t recipients from
// folded and grouped headers, Bcc removed, missing From/Date/Message-ID added, unusable input refused with its sysexit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSendmailArgs, prepare, resolveTarget } from '../../src/client/sendmail.ts';

test('flags: attached and separate values, legacy flags ignored, unknown ones refused', () => {
  const o = parseSendmailArgs([
    '-odi',
    '-oem',
    '-oi',
    '-fbounce@x.test',
    '-F',
    'Cron Daemon',
    '-N',
    'never',
    '-B8BITMIME',
    '-v',
    'a@b.test',
    '--',
    '-c@d.test',
  ]);
  assert.equal(o.ignoreDots, true);
  assert.equal(o.sender, 'bounce@x.test');
  assert.equal(o.fullName, 'Cron Daemon');
  assert.deepEqual(o.recipients, ['a@b.test', '-c@d.test']);
  assert.equal(parseSendmailArgs(['-bs']).smtpSession, true);
  assert.throws(() => parseSendmailArgs(['-bp']), /only -bm .* and -bs/);
  assert.throws(() => parseSendmailArgs(['-q']), /queue runs/);
  assert.throws(() => parseSendmailArgs(['-Z']), /unknown option '-Z'/);
  assert.throws(() => parseSendmailArgs(['-f']), /-f needs a value/);
  assert.throws(() => parseSendmailArgs(['--smtp']), /--smtp needs a value/);
});

test('-t: recipients from folded To/Cc/Bcc (groups too), Bcc removed, arguments added, From/Date/Message-ID kept or added', () => {
  const input = Buffer.from(
    [
      'To: "Doe, Jane" <jane@x.test>,',
      '  bob@x.test',
      'Cc: Team: carol@x.test, dan@x.test;',
      'Bcc: eve@x.test',
      'Subject: hi',
      '',
      'body',
      '',
    ].join('\r\n'),
  );
  const p = prepare(input, { fromHeaders: true, sender: undefined, fullName: 'App', recipients: ['frank@x.test'] }, { USER: 'www' });
  assert.deepEqual(p.rcpts, ['frank@x.test', 'jane@x.test', 'bob@x.test', 'carol@x.test', 'dan@x.test', 'eve@x.test']);
  const text = p.raw.toString();
  assert.doesNotMatch(text, /^Bcc:/im);
  assert.match(text, /^From: "App" <www@[^>]+>\r\n/m);
  assert.match(text, /^Date: .+\+0000\r\n/m);
  assert.match(text, /^Message-ID: <.+@.+>\r\n/m);
  assert.ok(text.endsWith('\r\n\r\nbody\r\n'), 'the body is unchanged');
  assert.match(p.from, /^www@/);
});

test('a bare name gets the INBOXD_DOMAIN (first of a list) or inboxd.test', () => {
  const opts = { fromHeaders: false, sender: 'cron@h.test', fullName: undefined, recipients: ['root', 'ops@x.test'] };
  assert.deepEqual(prepare(Buffer.from('Subject: x\n\nx\n'), opts, {}).rcpts, ['root@inboxd.test', 'ops@x.test']);
  assert.deepEqual(prepare(Buffer.from('Subject: x\n\nx\n'), opts, { INBOXD_DOMAIN: 'Mail.Test,other.test' }).rcpts, [
    'root@mail.test',
    'ops@x.test',
  ]);
});

test('unusable input: no recipient is 64, a header block line that is no header is 65', () => {
  assert.throws(
    () => prepare(Buffer.from('Subject: x\n\nbody'), { fromHeaders: true, sender: undefined, fullName: undefined, recipients: [] }, {}),
    (e: Error & { exitCode?: number }) => e.exitCode === 64 && /no recipient/.test(e.message),
  );
  assert.throws(
    () =>
      prepare(
        Buffer.from('Subject: x\nthis is not a header\n\nbody'),
        { fromHeaders: false, sender: undefined, fullName: undefined, recipients: ['a@b.test'] },
        {},
      ),
    (e: Error & { exitCode?: number }) => e.exitCode === 65,
  );
  // A message with no header at all is all body.
  const p = prepare(
    Buffer.from('just text\n'),
    { fromHeaders: false, sender: 'a@b.test', fullName: undefined, recipients: ['c@d.test'] },
    {},
  );
  assert.match(p.raw.toString(), /^From: a@b\.test\r\nDate: .*\r\nMessage-ID: .*\r\n\r\njust text\n$/);
});

test('where to deliver: --smtp, INBOXD_SMTP, then the data dir ports.json, then localhost:25', () => {
  assert.deepEqual(resolveTarget({ smtp: 'mail:2525', dataDir: undefined }, {}), { host: 'mail', port: 2525, from: '--smtp' });
  assert.deepEqual(resolveTarget({ smtp: undefined, dataDir: undefined }, { INBOXD_SMTP: '[::1]:26' }), {
    host: '::1',
    port: 26,
    from: 'INBOXD_SMTP',
  });
  assert.throws(() => resolveTarget({ smtp: 'mail:99999', dataDir: undefined }, {}), /not HOST:PORT/);
  assert.deepEqual(resolveTarget({ smtp: undefined, dataDir: '/nonexistent-dir' }, {}), {
    host: 'localhost',
    port: 25,
    from: 'the default',
  });
});
