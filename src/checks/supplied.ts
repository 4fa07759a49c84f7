// A message built from supplied HTML (POST /v1/checks with {html, text?, subject?}), so checks that read MIME (a
// text part, cid: parts, headers) see what a sender would send: multipart/alternative when there is text, the HTML
// alone otherwise. Pure.
const b64 = (s: string) =>
  Buffer.from(s, 'utf8')
    .toString('base64')
    .replace(/.{1,76}/g, '$&\r\n');

const encodeWord = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`);

export function mimeOf(input: { html: string; text?: string | undefined; subject?: string | undefined }, now: Date): Buffer {
  const head = [
    'From: sender@inboxd.invalid',
    'To: recipient@inboxd.invalid',
    `Subject: ${encodeWord((input.subject ?? '').replace(/[\r\n]+/g, ' '))}`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <check-${now.getTime()}@inboxd.invalid>`,
    'MIME-Version: 1.0',
  ];
  const html = ['Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: base64', '', b64(input.html)].join('\r\n');
  if (input.text === undefined) return Buffer.from(`${head.join('\r\n')}\r\n${html}`);
  const boundary = `=_inboxd_${now.getTime().toString(36)}`;
  const text = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '', b64(input.text)].join('\r\n');
  return Buffer.from(
    `${head.join('\r\n')}\r\nContent-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n--${boundary}\r\n${text}\r\n--${boundary}\r\n${html}\r\n--${boundary}--\r\n`,
  );
}
