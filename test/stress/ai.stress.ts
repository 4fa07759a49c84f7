// Hostile input at full size for the built-in engine: huge and pathological messages finish (bounded work) and
// still answer every preset with a valid shape.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AiService, standaloneSandbox } from '../../src/ai/service.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const sandbox = standaloneSandbox();
after(() => sandbox.close());
const ai = new AiService({ env: {}, sandbox });

function mail(contentType: string, body: string, attachments = ''): Buffer {
  return Buffer.from(
    [
      'From: Big <big@example.com>',
      'To: a@inboxd.test',
      'Subject: Invoice 1 total €1,00',
      'Date: Mon, 06 Apr 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary=zz',
      '',
      '--zz',
      `Content-Type: ${contentType}; charset=utf-8`,
      '',
      body,
      attachments,
      '--zz--',
      '',
    ].join('\r\n'),
  );
}

const CASES: Array<[string, Buffer]> = [
  ['50,000 unclosed JSON-LD scripts', mail('text/html', '<script type="application/ld+json">{'.repeat(50_000))],
  ['one 4 MB line of amounts', mail('text/plain', 'Total 1.234,56 € '.repeat(250_000))],
  ['200,000 short lines of labels', mail('text/plain', 'Invoice number 1\nTotal $1.00\nDue date 01/02/2026\n'.repeat(70_000))],
  ['digits and separators without end', mail('text/plain', '1 234 567 890 '.repeat(300_000))],
  [
    'a 2 MB XML attachment of nested Invoice tags',
    mail(
      'text/plain',
      'see attachment',
      `--zz\r\nContent-Type: application/xml\r\nContent-Disposition: attachment; filename=a.xml\r\n\r\n${'<Invoice >'.repeat(200_000)}\r\n`,
    ),
  ],
];

for (const [name, raw] of CASES) {
  test(`built-in engine on ${name}`, async () => {
    const msg = await parseMessage(raw);
    for (const preset of ['invoice', 'receipt', '2fa'] as const) {
      const r = await ai.extract(msg, `${name}-${preset}`, { preset });
      assert.equal(r.engine, 'builtin');
      assert.equal(r.validated, true, `${preset}: ${JSON.stringify(r.errors)}`);
    }
  });
}
