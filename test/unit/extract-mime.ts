// Builds whole MIME messages for the extractor tests: multipart/alternative (or a single part),
// quoted-printable, base64 or 8bit bodies, UTF-8 or ISO-8859-1, RFC 2047 encoded Subject and From name,
// optional List-Unsubscribe and attachments. The result goes through parseMessage like SMTP mail does.

export interface MimeSpec {
  from: string;
  subject: string;
  text?: string;
  html?: string;
  /** transfer encoding of the text parts (default: quoted-printable) */
  enc?: 'quoted-printable' | 'base64' | '8bit';
  charset?: 'utf-8' | 'iso-8859-1';
  headers?: string[];
  /** name + content type + body of an attached file */
  attachment?: { name: string; type: string; body: string };
}

function bytes(s: string, charset: 'utf-8' | 'iso-8859-1'): Buffer {
  return Buffer.from(s, charset === 'utf-8' ? 'utf8' : 'latin1');
}

/** Quoted-printable with soft line breaks at 76 characters. */
export function qp(s: string, charset: 'utf-8' | 'iso-8859-1' = 'utf-8'): string {
  const out: string[] = [];
  for (const line of s.split('\n')) {
    let cur = '';
    const enc = [...bytes(line, charset)].map((b) =>
      (b >= 33 && b <= 126 && b !== 61) || b === 32 ? String.fromCharCode(b) : '=' + b.toString(16).toUpperCase().padStart(2, '0'),
    );
    if (enc.length > 0 && enc[enc.length - 1] === ' ') enc[enc.length - 1] = '=20';
    for (const piece of enc) {
      if (cur.length + piece.length > 75) {
        out.push(cur + '=');
        cur = '';
      }
      cur += piece;
    }
    out.push(cur);
  }
  return out.join('\n');
}

function b64(s: string, charset: 'utf-8' | 'iso-8859-1'): string {
  return (
    bytes(s, charset)
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join('\n');
}

/** RFC 2047 B-encoding for a header value with non-ASCII characters. */
export function word(s: string): string {
  return /^[\x00-\x7f]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

function fromHeader(from: string): string {
  const m = /^(.*?)\s*<([^>]+)>$/.exec(from);
  if (!m) return from;
  return `${word(m[1]!)} <${m[2]}>`;
}

function part(type: string, body: string, spec: MimeSpec): string {
  const charset = spec.charset ?? 'utf-8';
  const enc = spec.enc ?? 'quoted-printable';
  const encoded = enc === 'base64' ? b64(body, charset) : enc === 'quoted-printable' ? qp(body, charset) : body;
  return `Content-Type: ${type}; charset="${charset}"\nContent-Transfer-Encoding: ${enc}\n\n${encoded}\n`;
}

let counter = 0;

export function mime(spec: MimeSpec): string {
  counter++;
  const head = [
    `From: ${fromHeader(spec.from)}`,
    'To: agent-7f3k@inboxd.test',
    `Subject: ${word(spec.subject)}`,
    'Date: Tue, 14 Apr 2026 10:30:00 +0000',
    `Message-ID: <m${counter}.${Date.now()}@mailer.example.net>`,
    'MIME-Version: 1.0',
    ...(spec.headers ?? []),
  ];
  const parts: string[] = [];
  if (spec.text !== undefined) parts.push(part('text/plain', spec.text, spec));
  if (spec.html !== undefined) parts.push(part('text/html', spec.html, spec));
  let body: string;
  let type: string;
  if (parts.length === 1 && !spec.attachment) {
    const [ct, ...rest] = parts[0]!.split('\n');
    head.push(ct!, rest[0]!);
    return `${head.join('\n')}\n\n${rest.slice(2).join('\n')}`;
  }
  const alt = `alt-${counter}`;
  body = `--${alt}\n${parts.join(`\n--${alt}\n`)}\n--${alt}--\n`;
  type = `multipart/alternative; boundary="${alt}"`;
  if (spec.attachment) {
    const mix = `mix-${counter}`;
    const a = spec.attachment;
    body =
      `--${mix}\nContent-Type: ${type}\n\n${body}\n--${mix}\nContent-Type: ${a.type}; name="${a.name}"\n` +
      `Content-Disposition: attachment; filename="${a.name}"\nContent-Transfer-Encoding: base64\n\n${b64(a.body, 'utf-8')}\n--${mix}--\n`;
    type = `multipart/mixed; boundary="${mix}"`;
  }
  head.push(`Content-Type: ${type}`);
  return `${head.join('\n')}\n\n${body}`;
}

/** A plain e-mail layout: logo, body, a footer with address and links. */
export function page(body: string, footer: string, lang = 'en'): string {
  return `<!DOCTYPE html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<style>body{font-family:Helvetica,Arial,sans-serif;color:#1f2933}.btn{background:#3FA2C1;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none}</style></head>
<body style="margin:0;background:#f4f5f7">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" style="background:#ffffff">
<tr><td style="padding:24px"><img src="https://cdn.mailer.example.net/brand/logo@2x.png" width="132" alt="Logo"></td></tr>
<tr><td style="padding:0 24px 24px;font-size:16px;line-height:24px">
${body}
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#8a94a6">
${footer}
</td></tr></table>
<img src="https://t.mailer.example.net/open/9f2c4e7a1b3d5f60.gif" width="1" height="1" alt="">
</td></tr></table></body></html>`;
}

/** A button-styled link. */
export function button(href: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0"><tr><td style="border-radius:6px" bgcolor="#3FA2C1"><a class="btn" href="${href}" target="_blank">${label}</a></td></tr></table>`;
}
