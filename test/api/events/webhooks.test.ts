// POST /webhooks/:provider: realistic payloads of each provider over real HTTP, stored through the same ingest
// path as SMTP (catch-all domains, unclaimed mail, size limit), plus every kind of bad input.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const SIGNING_KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const MAX = 64 * 1024;

let s: TestServer;
before(async () => {
  s = await startTestServer(['--max-message-bytes', String(MAX), '--domain', 'inboxd.test,second.test', '--inbound-webhooks', 'all'], {
    INBOXD_MAILGUN_SIGNING_KEY: SIGNING_KEY,
  });
});
after(async () => {
  await s.stop();
});

const create = async (body: Json = {}) => json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
/** Webhooks are called without a key, as a provider would. */
const hook = (provider: string, init: RequestInit, query = '') =>
  fetch(`${s.url}/webhooks/${provider}${query}`, { method: 'POST', ...init });

function mime(to: string, subject: string, opts: { body?: string; extra?: string } = {}): string {
  return [
    'Received: from mail-sor-f41.google.com (mail-sor-f41.google.com [209.85.220.41]) by mx.example.net; Sat, 21 Nov 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    'Date: Sat, 21 Nov 2026 10:00:00 +0000',
    `Message-ID: <${crypto.randomUUID()}@mail.example.com>`,
    'From: "Acme Accounts" <no-reply@acme.example>',
    `To: ${to}`,
    `Subject: ${subject}`,
    'Content-Type: text/plain; charset="UTF-8"',
    'Content-Transfer-Encoding: 8bit',
    ...(opts.extra ? [opts.extra] : []),
    '',
    opts.body ?? 'Your verification code is 739204. It expires in 10 minutes.',
    '',
  ].join('\r\n');
}

async function rawOf(inboxId: string, messageId: string): Promise<Buffer> {
  return Buffer.from(await (await s.api(`/v1/inboxes/${inboxId}/messages/${messageId}/raw`)).arrayBuffer());
}

async function only(inboxId: string): Promise<Json> {
  const list = await json(await s.api(`/v1/inboxes/${inboxId}/messages`));
  assert.equal(list.items.length, 1);
  return list.items[0] as Json;
}

function mailgunSignature(key = SIGNING_KEY): { timestamp: string; token: string; signature: string } {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const token = crypto.randomBytes(25).toString('hex');
  return {
    timestamp,
    token,
    signature: crypto
      .createHmac('sha256', key)
      .update(timestamp + token)
      .digest('hex'),
  };
}

function mailgunForm(to: string, message: string, sig = mailgunSignature()): FormData {
  const f = new FormData();
  f.set('recipient', to);
  f.set('sender', 'bounce+1a2b3c@acme.example');
  f.set('from', '"Acme Accounts" <no-reply@acme.example>');
  f.set('subject', 'ignored: the message itself is used');
  f.set('X-Mailgun-Incoming', 'Yes');
  f.set(
    'message-headers',
    JSON.stringify([
      ['To', to],
      ['Subject', 'x'],
    ]),
  );
  f.set('body-mime', message);
  f.set('timestamp', sig.timestamp);
  f.set('token', sig.token);
  f.set('signature', sig.signature);
  return f;
}

describe('providers', () => {
  test('raw: the body is the message; recipients from To/Cc, or from ?to=', async () => {
    const inbox = await create();
    const message = mime(`"Dev" <${inbox.address}>, someone@elsewhere.example`, 'Raw webhook', { body: 'Grüße — code 739204' });
    const r = await json(await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: message }));
    assert.equal(r.status, 'stored');
    assert.equal(r.deliveries.length, 1);
    assert.equal(r.deliveries[0].inboxId, inbox.inboxId);
    assert.deepEqual(r.rejected, [
      { rcpt: 'someone@elsewhere.example', reason: 'relaying denied: inboxd accepts mail only for inboxd.test, second.test' },
    ]);
    const msg = await only(inbox.inboxId);
    assert.equal(msg.subject, 'Raw webhook');
    assert.equal(msg.verification.otp, '739204');
    assert.deepEqual(await rawOf(inbox.inboxId, msg.messageId), Buffer.from(message), 'archived byte for byte');

    const other = await create();
    const viaQuery = await json(
      await hook(
        'raw',
        { headers: { 'content-type': 'message/rfc822' }, body: mime('list@lists.example', 'Bcc copy') },
        `?to=${encodeURIComponent(other.address)}`,
      ),
    );
    assert.equal(viaQuery.deliveries[0].inboxId, other.inboxId);
  });

  test('mailgun: body-mime of a signed form is stored byte for byte; bad or missing signatures are 401', async () => {
    const inbox = await create();
    const message = mime(inbox.address, 'Mailgun route', { body: 'Grüße aus Köln: 739204' });
    const r = await json(await hook('mailgun.mime', { body: mailgunForm(inbox.address, message) }));
    assert.equal(r.deliveries[0].inboxId, inbox.inboxId);
    const msg = await only(inbox.inboxId);
    assert.equal(msg.subject, 'Mailgun route');
    assert.deepEqual(await rawOf(inbox.inboxId, msg.messageId), Buffer.from(message), 'UTF-8 8bit body unchanged');
    const meta = await json(
      await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/raw`, { headers: { accept: 'application/json' } }),
    );
    assert.equal(meta.envelope.mailFrom, 'bounce+1a2b3c@acme.example');

    const forged = mailgunForm(inbox.address, message, mailgunSignature('key-not-the-right-one'));
    const bad = await json(await hook('mailgun', { body: forged }), 401);
    assert.equal(bad.code, 'unauthorized');
    assert.match(bad.detail, /signature does not match/);
    const unsigned = mailgunForm(inbox.address, message);
    unsigned.delete('signature');
    assert.match((await json(await hook('mailgun', { body: unsigned }), 401)).detail, /not signed/);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items.length, 1, 'refused posts stored nothing');

    // Mailgun may also post url-encoded forms.
    const form = new URLSearchParams({
      recipient: inbox.address,
      ...mailgunSignature(),
      'body-mime': mime(inbox.address, 'Mailgun urlencoded'),
    });
    assert.equal(
      (await json(await hook('mailgun', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })))
        .status,
      'stored',
    );
  });

  test('sendgrid: Inbound Parse in raw mode (email field, envelope JSON)', async () => {
    const inbox = await create();
    const message = mime('"Team" <team@acme.example>', 'SendGrid parse', { extra: `Cc: ${inbox.address}` });
    const f = new FormData();
    f.set('headers', message.split('\r\n\r\n')[0]!);
    f.set('dkim', '{@acme.example : pass}');
    f.set('to', '"Team" <team@acme.example>');
    f.set('from', '"Acme Accounts" <no-reply@acme.example>');
    f.set('subject', 'SendGrid parse');
    f.set('sender_ip', '209.85.220.41');
    f.set('spam_score', '0.1');
    f.set('envelope', JSON.stringify({ to: [inbox.address], from: 'no-reply@acme.example' }));
    f.set('charsets', JSON.stringify({ to: 'UTF-8', from: 'UTF-8', subject: 'UTF-8' }));
    f.set('SPF', 'pass');
    f.set('email', message);
    const r = await json(await hook('sendgrid', { body: f }));
    assert.equal(r.deliveries[0].inboxId, inbox.inboxId);
    const msg = await only(inbox.inboxId);
    assert.equal(msg.subject, 'SendGrid parse');
    assert.deepEqual(await rawOf(inbox.inboxId, msg.messageId), Buffer.from(message));
  });

  test('postmark: inbound JSON with RawEmail; OriginalRecipient is the envelope', async () => {
    const inbox = await create();
    const message = mime(`"Support" <support+abc@inboxd.test>`, 'Postmark inbound');
    const payload = {
      FromName: 'Acme Accounts',
      MessageStream: 'inbound',
      From: 'no-reply@acme.example',
      FromFull: { Email: 'no-reply@acme.example', Name: 'Acme Accounts', MailboxHash: '' },
      To: '"Support" <support+abc@inboxd.test>',
      ToFull: [{ Email: 'support+abc@inboxd.test', Name: 'Support', MailboxHash: 'abc' }],
      Cc: '',
      CcFull: [],
      Bcc: '',
      BccFull: [],
      OriginalRecipient: inbox.address,
      Subject: 'Postmark inbound',
      MessageID: '22c74902-a0c1-4511-804f-341342852c90',
      ReplyTo: '',
      MailboxHash: 'abc',
      Date: 'Sat, 21 Nov 2026 10:00:00 +0000',
      TextBody: 'Your verification code is 739204. It expires in 10 minutes.',
      HtmlBody: '',
      StrippedTextReply: '',
      Tag: '',
      Headers: [{ Name: 'X-Spam-Status', Value: 'No' }],
      Attachments: [],
      RawEmail: message,
    };
    const r = await json(await hook('postmark', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }));
    assert.equal(r.deliveries.length, 1);
    assert.equal(r.deliveries[0].inboxId, inbox.inboxId, 'the envelope recipient, not the To header');
    assert.equal((await only(inbox.inboxId)).verification.otp, '739204');
    const { RawEmail: _, ...withoutRaw } = payload;
    assert.match(
      (await json(await hook('postmark', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(withoutRaw) }), 400))
        .detail,
      /Include raw email content/,
    );
  });

  test('ses: SNS notification with base64 content; recipients from the receipt', async () => {
    const inbox = await create();
    const message = mime('undisclosed-recipients:;', 'SES receipt');
    const notification = {
      notificationType: 'Received',
      mail: {
        timestamp: '2026-11-21T10:00:00.000Z',
        source: 'no-reply@acme.example',
        messageId: 'o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g1',
        destination: [inbox.address],
        headersTruncated: false,
        headers: [{ name: 'Subject', value: 'SES receipt' }],
        commonHeaders: { from: ['Acme Accounts <no-reply@acme.example>'], to: ['undisclosed-recipients:;'], subject: 'SES receipt' },
      },
      receipt: {
        timestamp: '2026-11-21T10:00:00.000Z',
        processingTimeMillis: 222,
        recipients: [inbox.address],
        spamVerdict: { status: 'PASS' },
        virusVerdict: { status: 'PASS' },
        spfVerdict: { status: 'PASS' },
        dkimVerdict: { status: 'PASS' },
        dmarcVerdict: { status: 'PASS' },
        action: { type: 'SNS', topicArn: 'arn:aws:sns:us-east-1:123456789012:inboxd-inbound', encoding: 'BASE64' },
      },
      content: Buffer.from(message).toString('base64'),
    };
    const sns = {
      Type: 'Notification',
      MessageId: crypto.randomUUID(),
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:inboxd-inbound',
      Subject: 'Amazon SES Email Receipt Notification',
      Message: JSON.stringify(notification),
      Timestamp: '2026-11-21T10:00:00.300Z',
      SignatureVersion: '1',
      Signature:
        'EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=',
      SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
      UnsubscribeURL:
        'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:inboxd-inbound:c9135db0',
    };
    const headers = { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };
    const r = await json(await hook('ses', { headers, body: JSON.stringify(sns) }));
    assert.equal(r.deliveries[0].inboxId, inbox.inboxId);
    const msg = await only(inbox.inboxId);
    assert.equal(msg.subject, 'SES receipt');
    assert.deepEqual(await rawOf(inbox.inboxId, msg.messageId), Buffer.from(message));
  });

  test('ses: a SubscriptionConfirmation is logged with its SubscribeURL and never fetched', async () => {
    let fetched = 0;
    const aws = http.createServer((_req, res) => {
      fetched++;
      res.end('confirmed');
    });
    await new Promise<void>((r) => aws.listen(0, '127.0.0.1', r));
    try {
      const subscribeUrl = `http://127.0.0.1:${(aws.address() as AddressInfo).port}/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:inboxd-inbound&Token=2336412f37fb687f5d51e6e2425c464de`;
      const body = {
        Type: 'SubscriptionConfirmation',
        MessageId: crypto.randomUUID(),
        Token: '2336412f37fb687f5d51e6e2425c464de',
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:inboxd-inbound',
        Message:
          'You have chosen to subscribe to the topic arn:aws:sns:us-east-1:123456789012:inboxd-inbound.\nTo confirm the subscription, visit the SubscribeURL included in this message.',
        SubscribeURL: subscribeUrl,
        Timestamp: '2026-11-21T09:59:00.000Z',
        SignatureVersion: '1',
        Signature: 'EXAMPLE',
        SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
      };
      const r = await json(
        await hook('ses', {
          headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'SubscriptionConfirmation' },
          body: JSON.stringify(body),
        }),
      );
      assert.equal(r.status, 'ignored');
      assert.match(r.detail, /SubscribeURL/);
      const logged = s.logs
        .map((l) => JSON.parse(l) as Json)
        .find((l) => typeof l.msg === 'string' && l.msg.includes('subscription confirmation'));
      assert.equal(logged?.subscribeUrl, subscribeUrl, 'the operator finds the URL in the log');
      assert.equal(logged?.level, 'warn');
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(fetched, 0, 'the URL is only logged');
    } finally {
      aws.close();
    }
  });

  test('mail for an address without an inbox is kept unclaimed, then claimed, as with SMTP', async () => {
    const r = await json(
      await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: mime('early-bird@second.test', 'Before the inbox') }),
    );
    assert.equal(r.deliveries[0].inboxId, null);
    const inbox = await create({ address: 'early-bird@second.test' });
    assert.equal(inbox.messagesReceived, 1);
  });
});

describe('bad input', () => {
  test('unknown provider → 404 naming the valid ones', async () => {
    const r = await json(await hook('mandrill', { headers: { 'content-type': 'message/rfc822' }, body: mime('a@inboxd.test', 'x') }), 404);
    assert.match(r.detail, /raw, mailgun, sendgrid, postmark, ses/);
  });

  test('empty body, body that is not MIME, wrong content type → 400/415, nothing stored', async () => {
    const inbox = await create();
    assert.match((await json(await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: '' }), 400)).detail, /empty/);
    for (const junk of [
      'hello, this is not an e-mail',
      '{"to":"x@inboxd.test","subject":"json"}',
      '\r\n\r\nbody only',
      `To ${inbox.address}\r\n\r\nno colon`,
    ]) {
      const r = await json(await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: junk }, `?to=${inbox.address}`), 400);
      assert.match(r.detail, /not MIME/, junk);
    }
    assert.equal(
      (await json(await hook('raw', { headers: { 'content-type': 'application/json' }, body: '{}' }), 415)).code,
      'unsupported_media_type',
    );
    assert.match(
      (await json(await hook('postmark', { headers: { 'content-type': 'application/json' }, body: '{not json' }), 400)).detail,
      /not valid JSON/,
    );
    assert.equal(
      (await json(await hook('sendgrid', { headers: { 'content-type': 'application/json' }, body: '{}' }), 415)).code,
      'unsupported_media_type',
    );
    const noEmail = new FormData();
    noEmail.set('to', inbox.address);
    assert.match((await json(await hook('sendgrid', { body: noEmail }), 400)).detail, /raw, full MIME/);
    const mimeless = mailgunForm(inbox.address, 'just some text without headers');
    assert.match((await json(await hook('mailgun', { body: mimeless }), 400)).detail, /not MIME/);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items.length, 0);
  });

  test('a message over --max-message-bytes → 413, whether sent plain or wrapped', async () => {
    const inbox = await create();
    const huge = mime(inbox.address, 'too big', { body: 'a'.repeat(MAX) });
    assert.equal(
      (await json(await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: huge }), 413)).code,
      'payload_too_large',
    );
    const wrapped = {
      Type: 'Notification',
      Message: JSON.stringify({
        notificationType: 'Received',
        receipt: { recipients: [inbox.address], action: { encoding: 'BASE64' } },
        content: Buffer.from(huge).toString('base64'),
      }),
    };
    assert.match(
      (await json(await hook('ses', { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(wrapped) }), 413)).detail,
      /--max-message-bytes/,
    );
    const oversizedRequest = 'x'.repeat(MAX * 2 + 1024 * 1024 + 1);
    assert.equal((await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: oversizedRequest })).status, 413);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items.length, 0);
  });

  test('mail for a foreign domain only → 400 relaying denied', async () => {
    const r = await json(
      await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: mime('victim@gmail.com', 'relay attempt') }),
      400,
    );
    assert.match(r.detail, /no recipient this inboxd takes mail for: victim@gmail\.com: relaying denied/);
    const env = new FormData();
    env.set('envelope', JSON.stringify({ to: ['victim@gmail.com'], from: 'a@b.example' }));
    env.set('email', mime('someone@inboxd.test', 'envelope wins'));
    assert.match(
      (await json(await hook('sendgrid', { body: env }), 400)).detail,
      /relaying denied/,
      'the envelope, not the To header, decides',
    );
    assert.match(
      (
        await json(
          await hook('raw', { headers: { 'content-type': 'message/rfc822' }, body: mime('undisclosed-recipients:;', 'nobody') }),
          400,
        )
      ).detail,
      /names no recipient/,
    );
  });
});
