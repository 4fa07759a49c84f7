// Mail in over real SMTP (nodemailer and raw dialogues), read back over real HTTP.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';
import { sendMail, sendRaw, smtpDialogue } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--max-message-bytes', String(2 * 1024 * 1024), '--domain', 'inboxd.test,second.test']);
});
after(async () => {
  await s.stop();
});

async function createInbox(body: Json = {}): Promise<Json> {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
}
async function waitFor(inboxId: string, query = ''): Promise<Json> {
  return json(await s.api(`/v1/inboxes/${inboxId}/wait?timeoutSeconds=10${query}`));
}

describe('receiving', () => {
  test('plain text mail is stored and readable', async () => {
    const inbox = await createInbox({ label: 'ci-1' });
    assert.match(inbox.inboxId, /^inb_/);
    assert.match(inbox.address, /^[a-z][a-z0-9]{11}@inboxd\.test$/);
    const sent = await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'Hello', text: 'Just text.\n' });
    assert.match(sent.response, /^250 2\.6\.0 stored as msg_/);
    const msg = await waitFor(inbox.inboxId);
    assert.equal(msg.subject, 'Hello');
    assert.equal(msg.text.trim(), 'Just text.');
    assert.equal(msg.from.address, 'sender@example.com');
    assert.equal(msg.hasRaw, true);
    assert.equal(msg.hasAttachments, false);
    const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    assert.equal(list.items.length, 1);
    assert.equal(list.nextCursor, null);
    const one = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}`));
    assert.equal(one.messageId, msg.messageId);
    assert.ok(one.headers.some((h: Json) => h.name === 'subject' && h.value === 'Hello'));
  });

  test('html, multipart/alternative, UTF-8 and RFC 2047 subjects', async () => {
    const inbox = await createInbox();
    await sendMail(s.server.smtpPort, {
      to: inbox.address,
      subject: 'Grüße aus Köln — 確認コード ✓',
      text: 'plain part',
      html: '<p>html <b>part</b></p>',
    });
    const msg = await waitFor(inbox.inboxId);
    assert.equal(msg.subject, 'Grüße aus Köln — 確認コード ✓');
    assert.equal(msg.text.trim(), 'plain part');
    assert.equal(msg.html, '<p>html <b>part</b></p>');
    const raw = await (await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`)).text();
    assert.match(raw, /Subject: =\?UTF-8\?/i, 'raw keeps the encoded-word form');
  });

  test('attachments: bytes equal, safe names, metadata, raw .eml and its JSON metadata', async () => {
    const inbox = await createInbox();
    const pdf = crypto.randomBytes(50_000);
    await sendMail(s.server.smtpPort, {
      to: inbox.address,
      subject: 'files',
      text: 'see attached',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: '../../etc/passwd', content: 'root:x:0:0\n', contentType: 'text/plain' },
        { filename: 'page.html', content: '<script>alert(1)</script>', contentType: 'text/html' },
      ],
    });
    const msg = await waitFor(inbox.inboxId);
    assert.equal(msg.attachmentCount, 3);
    const atts = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments`));
    assert.equal(atts.items.length, 3);
    const [a, b, c] = atts.items;
    assert.equal(a.filename, 'report.pdf');
    const res = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments/${a.attachmentId}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="report.pdf"/);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(pdf), 'attachment bytes are identical');
    assert.ok(!b.filename.includes('/') && !b.filename.includes('..'), `traversal stripped: ${b.filename}`);
    const passwd = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments/${b.attachmentId}`);
    assert.equal(await passwd.text(), 'root:x:0:0\n');
    assert.match(passwd.headers.get('content-disposition') ?? '', /^attachment;/);
    const html = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments/${c.attachmentId}`);
    assert.match(html.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.equal(html.headers.get('x-content-type-options'), 'nosniff');
    // blobs are named by hash, nothing from the message
    for (const f of fs.readdirSync(path.join(s.dataDir, 'blobs'), { recursive: true }) as string[])
      assert.ok(!/passwd|report|\.\./.test(f), f);
    const raw = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`);
    assert.equal(raw.headers.get('content-type'), 'message/rfc822');
    const eml = Buffer.from(await raw.arrayBuffer());
    assert.equal(eml.length, msg.size);
    const meta = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { headers: { accept: 'application/json' } }),
    );
    assert.equal(meta.size, eml.length);
    assert.equal(meta.sha256, crypto.createHash('sha256').update(eml).digest('hex'));
    assert.equal(meta.envelope.rcptTo, inbox.address);
  });

  test('one message to two inboxes is delivered to both', async () => {
    const a = await createInbox();
    const b = await createInbox();
    await sendMail(s.server.smtpPort, { to: [a.address, b.address], subject: 'both', text: 'x' });
    assert.equal((await waitFor(a.inboxId)).subject, 'both');
    assert.equal((await waitFor(b.inboxId)).subject, 'both');
  });

  test('addresses at every configured domain are accepted, case-insensitively', async () => {
    const inbox = await createInbox({ address: 'MixedCase@Second.Test' });
    assert.equal(inbox.address, 'mixedcase@second.test');
    await sendMail(s.server.smtpPort, { to: 'MIXEDCASE@SECOND.TEST', subject: 'case', text: 'x' });
    assert.equal((await waitFor(inbox.inboxId)).subject, 'case');
  });
});

describe('unclaimed mail', () => {
  test('mail sent before the inbox exists is claimed by the inbox created with that address', async () => {
    await sendMail(s.server.smtpPort, { to: 'early-bird@inboxd.test', subject: 'before create', text: 'x' });
    const inbox = await createInbox({ localPart: 'early-bird' });
    const msg = await waitFor(inbox.inboxId);
    assert.equal(msg.subject, 'before create');
    assert.equal(msg.inboxId, inbox.inboxId);
  });
});

describe('SMTP policy', () => {
  test('relay to a foreign domain is denied at RCPT with 550 5.7.1', async () => {
    const replies = await smtpDialogue(s.server.smtpPort, ['EHLO test', 'MAIL FROM:<a@example.com>', 'RCPT TO:<victim@gmail.com>', 'QUIT']);
    assert.ok(
      replies.some((r) => r.startsWith('550 5.7.1 relaying denied')),
      replies.join('\n'),
    );
  });

  test('EHLO announces SIZE, ENHANCEDSTATUSCODES, PIPELINING, 8BITMIME, AUTH PLAIN LOGIN; no STARTTLS without a cert', async () => {
    const replies = await smtpDialogue(s.server.smtpPort, ['EHLO test', 'QUIT']);
    const ehlo = replies.filter((r) => r.startsWith('250'));
    assert.ok(
      ehlo.some((r) => r.includes(`SIZE ${2 * 1024 * 1024}`)),
      ehlo.join('\n'),
    );
    assert.ok(ehlo.some((r) => r.includes('ENHANCEDSTATUSCODES')));
    assert.ok(ehlo.some((r) => r.includes('PIPELINING')));
    assert.ok(ehlo.some((r) => r.includes('8BITMIME')));
    assert.ok(ehlo.some((r) => r.includes('AUTH PLAIN LOGIN')));
    assert.ok(!ehlo.some((r) => r.includes('STARTTLS')));
  });

  test('a message over --max-message-bytes is refused with 552 5.3.4 and nothing is stored', async () => {
    const inbox = await createInbox();
    await assert.rejects(
      sendMail(s.server.smtpPort, { to: inbox.address, subject: 'big', text: 'x'.repeat(3 * 1024 * 1024) }),
      /552 5\.3\.4/,
    );
    const replies = await smtpDialogue(s.server.smtpPort, ['EHLO t', `MAIL FROM:<a@example.com> SIZE=${10 * 1024 * 1024}`, 'QUIT']);
    assert.ok(
      replies.some((r) => r.startsWith('552 5.3.4')),
      replies.join('\n'),
    );
    const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    assert.equal(list.items.length, 0);
  });

  test('more than 100 recipients: the 101st gets 452 4.5.3', async () => {
    const rcpts = Array.from({ length: 101 }, (_, i) => `RCPT TO:<r${i}@inboxd.test>`);
    const replies = await smtpDialogue(s.server.smtpPort, ['EHLO t', 'MAIL FROM:<a@example.com>', ...rcpts, 'RSET', 'QUIT']);
    assert.equal(replies.filter((r) => r.startsWith('250 2.1.5')).length, 100);
    assert.ok(
      replies.some((r) => r.startsWith('452 4.5.3')),
      replies.slice(-4).join('\n'),
    );
  });
});

describe('hostile and broken mail is stored, never half-stored', () => {
  const cases: Array<[string, Buffer | string]> = [
    [
      'malformed MIME (boundary never closed)',
      'Subject: broken\r\nContent-Type: multipart/mixed; boundary="zz"\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nhalf a part',
    ],
    ['no headers at all', '\r\njust a body\r\n'],
    [
      '8-bit body with a wrong charset',
      Buffer.concat([
        Buffer.from('Subject: =?iso-8859-1?q?caf=E9?=\r\nContent-Type: text/plain; charset=x-unknown-charset\r\n\r\n'),
        Buffer.from([0xe9, 0xff, 0xfe, 0x41, 0x0d, 0x0a]),
      ]),
    ],
    ['RFC 2047 subject in mixed encodings', 'Subject: =?UTF-8?B?w6nDqA==?= and =?ISO-8859-1?Q?=E0_la?=\r\n\r\nbody'],
    ['zero-byte body', 'Subject: empty\r\n\r\n'],
    ['bare LF line endings', 'Subject: lf only\nFrom: a@example.com\n\nline one\nline two\n'],
    ['NUL bytes', Buffer.from('Subject: nul\r\n\r\nbefore\x00after\x00\r\n', 'latin1')],
    ['a 200 KB header', `Subject: huge\r\nX-Huge: ${'a'.repeat(200_000)}\r\n\r\nbody`],
    [
      '1,000 MIME parts',
      'Subject: many parts\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n' +
        Array.from({ length: 1000 }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('') +
        '--b--\r\n',
    ],
  ];
  for (const [name, raw] of cases) {
    test(name, async () => {
      const inbox = await createInbox();
      const r = await sendRaw(s.server.smtpPort, raw, inbox.address);
      assert.match(r.response, /^250 /);
      const msg = await waitFor(inbox.inboxId);
      assert.equal(typeof msg.subject, 'string');
      const rawBack = Buffer.from(await (await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`)).arrayBuffer());
      assert.equal(rawBack.length, msg.size);
    });
  }
});

describe('inbox API input errors', () => {
  test('ttlMinutes out of range → 400 naming the field', async () => {
    for (const ttl of [0, 10081, 1.5, '60']) {
      const body = await json(await s.api('/v1/inboxes', { method: 'POST', json: { ttlMinutes: ttl } }), 400);
      assert.equal(body.code, 'validation_failed');
      assert.equal(body.errors[0].path, 'ttlMinutes');
    }
  });

  test('invalid localPart → 400; foreign address domain → 400; both → 400', async () => {
    for (const body of [
      { localPart: 'a b' },
      { localPart: '.lead' },
      { localPart: 'x'.repeat(65) },
      { localPart: 'a@b' },
      { address: 'x@gmail.com' },
      { localPart: 'a', address: 'a@inboxd.test' },
    ]) {
      const r = await json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 400);
      assert.equal(r.code, 'validation_failed', JSON.stringify(body));
    }
  });

  test('unknown field, wrong type, invalid JSON, wrong content type', async () => {
    assert.equal(
      (await json(await s.api('/v1/inboxes', { method: 'POST', json: { lable: 'x' } }), 400)).errors[0].message,
      'unknown field: lable (did you mean label?)',
    );
    assert.equal((await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 5 } }), 400)).errors[0].path, 'label');
    const bad = await s.api('/v1/inboxes', { method: 'POST', body: '{"label":', headers: { 'content-type': 'application/json' } });
    assert.equal((await json(bad, 400)).code, 'validation_failed');
    const form = await s.api('/v1/inboxes', {
      method: 'POST',
      body: 'label=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal((await json(form, 415)).code, 'unsupported_media_type');
    const arr = await s.api('/v1/inboxes', { method: 'POST', json: [1] });
    assert.equal((await json(arr, 400)).code, 'validation_failed');
  });

  test('a taken address → 409', async () => {
    await createInbox({ localPart: 'taken-once' });
    assert.equal((await json(await s.api('/v1/inboxes', { method: 'POST', json: { localPart: 'taken-once' } }), 409)).code, 'conflict');
  });

  test('unknown inbox → 404; a message id of another inbox → 404; unknown attachment → 404', async () => {
    assert.equal((await json(await s.api('/v1/inboxes/inb_doesnotexist'), 404)).code, 'not_found');
    const a = await createInbox();
    const b = await createInbox();
    await sendMail(s.server.smtpPort, { to: a.address, subject: 'for a', text: 'x' });
    const msg = await waitFor(a.inboxId);
    assert.equal((await json(await s.api(`/v1/inboxes/${b.inboxId}/messages/${msg.messageId}`), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${b.inboxId}/messages/${msg.messageId}/raw`), 404)).code, 'not_found');
    assert.equal(
      (await json(await s.api(`/v1/inboxes/${a.inboxId}/messages/${msg.messageId}/attachments/att_nope`), 404)).code,
      'not_found',
    );
  });

  test('401 without a key, with a wrong key and with a malformed header', async () => {
    const none = await s.api('/v1/inboxes', { key: null });
    assert.equal((await json(none, 401)).code, 'unauthorized');
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="inboxd"');
    const wrong = await s.api('/v1/inboxes', { key: 'ibx_wrongwrongwrongwrongwrongwrong12' });
    assert.equal((await json(wrong, 401)).code, 'unauthorized');
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const malformed = await s.api('/v1/inboxes', { key: null, headers: { authorization: 'Basic abc' } });
    assert.equal((await json(malformed, 401)).code, 'unauthorized');
  });

  test('list paging with cursor and label filter; a forged cursor → 400', async () => {
    const label = `page-${crypto.randomUUID()}`;
    for (let i = 0; i < 5; i++) await createInbox({ label });
    const p1 = await json(await s.api(`/v1/inboxes?label=${label}&limit=2`));
    assert.equal(p1.items.length, 2);
    const p2 = await json(await s.api(`/v1/inboxes?label=${label}&limit=2&cursor=${p1.nextCursor}`));
    const p3 = await json(await s.api(`/v1/inboxes?label=${label}&limit=2&cursor=${p2.nextCursor}`));
    assert.equal(p3.items.length, 1);
    assert.equal(p3.nextCursor, null);
    const ids = new Set([...p1.items, ...p2.items, ...p3.items].map((i: Json) => i.inboxId));
    assert.equal(ids.size, 5);
    assert.equal((await json(await s.api('/v1/inboxes?cursor=garbage'), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api('/v1/inboxes?limit=501'), 400)).code, 'validation_failed');
    assert.equal((await json(await s.api('/v1/inboxes?bogus=1'), 400)).code, 'validation_failed');
  });
});

describe('delete', () => {
  test('deleting an inbox removes its messages and unreferenced blobs', async () => {
    const inbox = await createInbox();
    const body = crypto.randomBytes(20_000).toString('base64');
    await sendMail(s.server.smtpPort, {
      to: inbox.address,
      subject: 'to delete',
      text: body,
      attachments: [{ filename: 'a.bin', content: crypto.randomBytes(10_000) }],
    });
    const msg = await waitFor(inbox.inboxId);
    const meta = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { headers: { accept: 'application/json' } }),
    );
    const blob: string = meta.sha256;
    assert.ok(await s.server.parts.blobs.exists(blob));
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }));
    // A shared store (INBOXD_TEST_CLUSTER) keeps an object for the delete grace; the hourly sweep takes it.
    assert.equal(await s.server.parts.blobs.exists(blob), TEST_CLUSTER, 'raw blob removed (kept for the grace on a shared store)');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}`), 404)).code, 'not_found');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' }), 404)).code, 'not_found');
  });

  test('deleting one message keeps a blob another message still uses', async () => {
    const a = await createInbox();
    const b = await createInbox();
    const raw = `Subject: shared\r\nMessage-ID: <${crypto.randomUUID()}@x>\r\n\r\nsame bytes`;
    await sendRaw(s.server.smtpPort, raw, [a.address, b.address]);
    const ma = await waitFor(a.inboxId);
    const mb = await waitFor(b.inboxId);
    await json(await s.api(`/v1/inboxes/${a.inboxId}/messages/${ma.messageId}`, { method: 'DELETE' }));
    assert.equal((await s.api(`/v1/inboxes/${b.inboxId}/messages/${mb.messageId}/raw`)).status, 200);
    assert.equal((await s.api(`/v1/inboxes/${a.inboxId}/messages/${ma.messageId}`)).status, 404);
  });
});
