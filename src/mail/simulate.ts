// Simulated mail: realistic verification messages built as real MIME (nodemailer's composer), so a simulated
// message takes the same ingest path as SMTP mail and is indistinguishable downstream.
import crypto from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { getPreset, type PresetId } from './presets.ts';

export const SCENARIOS = ['otp', 'magic_link', 'otp_and_link', 'welcome', 'attachment_only', 'custom'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface SimulateRequest {
  scenario: Scenario;
  to: string;
  service?: PresetId | undefined;
  /** Overrides; required for `custom` (subject and text or html). */
  from?: string | undefined;
  subject?: string | undefined;
  text?: string | undefined;
  html?: string | undefined;
  code?: string | undefined;
  link?: string | undefined;
}

export interface SimulatedMail {
  raw: Buffer;
  from: string;
  subject: string;
  /** What a correct extractor finds in it. */
  expected: { otp: string | null; primaryLink: string | null };
}

function randomCode(service: PresetId | undefined): string {
  const shape = service ? getPreset(service).code : undefined;
  const len = shape?.lengths[0] ?? 6;
  if (shape?.alphabet === 'alphanumeric') {
    const abc = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    let s = '';
    for (const b of crypto.randomBytes(len)) s += abc[b % abc.length];
    return /\d/.test(s) ? s : s.slice(0, -1) + '7';
  }
  return String(crypto.randomInt(0, 10 ** len)).padStart(len, '0');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export async function composeSimulated(req: SimulateRequest): Promise<SimulatedMail> {
  const preset = req.service ? getPreset(req.service) : undefined;
  const brand = preset?.displayName ?? 'Example App';
  const domain = preset?.senderDomains[0] ?? 'example.com';
  const from = req.from ?? `${brand} <no-reply@${domain}>`;
  const code = req.code ?? randomCode(req.service);
  const token = crypto.randomBytes(16).toString('hex');
  const link = req.link ?? `https://${preset ? `accounts.${domain}` : 'app.example.com'}/verify-email?token=${token}`;
  const footer = `You received this email because someone signed up for ${brand} with this address. If it wasn't you, ignore this email.`;
  let subject: string;
  let text: string | undefined;
  let html: string | undefined;
  const attachments: Array<{ filename: string; content: Buffer | string; contentType: string }> = [];
  let expected: SimulatedMail['expected'];

  switch (req.scenario) {
    case 'otp':
      subject = req.subject ?? `Your ${brand} verification code`;
      text = `Your ${brand} verification code is:\n\n${code}\n\nThe code expires in 10 minutes.\n\n${footer}\n`;
      html = `<p>Your ${esc(brand)} verification code is:</p><p style="font-size:28px;letter-spacing:4px"><b>${esc(code)}</b></p><p>The code expires in 10 minutes.</p><p style="color:#888">${esc(footer)}</p>`;
      expected = { otp: code, primaryLink: null };
      break;
    case 'magic_link':
      subject = req.subject ?? `Sign in to ${brand}`;
      text = `Click the link below to sign in to ${brand}:\n\n${link}\n\nThe link expires in 15 minutes and can be used once.\n\n${footer}\n`;
      html = `<p>Click the button below to sign in to ${esc(brand)}.</p><p><a href="${esc(link)}" style="padding:10px 18px;background:#2563eb;color:#fff">Sign in to ${esc(brand)}</a></p><p>The link expires in 15 minutes and can be used once.</p><p style="color:#888">${esc(footer)}</p>`;
      expected = { otp: null, primaryLink: link };
      break;
    case 'otp_and_link':
      subject = req.subject ?? `Confirm your email for ${brand}`;
      text = `Enter this verification code to confirm your email: ${code}\n\nOr confirm with one click:\n${link}\n\n${footer}\n`;
      html = `<p>Enter this verification code to confirm your email:</p><p style="font-size:28px"><b>${esc(code)}</b></p><p>Or confirm with one click: <a href="${esc(link)}">Confirm email address</a></p><p style="color:#888">${esc(footer)}</p>`;
      expected = { otp: code, primaryLink: link };
      break;
    case 'welcome':
      subject = req.subject ?? `Welcome to ${brand}!`;
      text = `Your email is verified and your ${brand} account is ready. Explore the dashboard at https://app.example.com/home.\n\n${footer}\n`;
      html = `<p>Your email is verified and your ${esc(brand)} account is ready.</p><p><a href="https://app.example.com/home">Open the dashboard</a></p><p style="color:#888">${esc(footer)}</p>`;
      expected = { otp: null, primaryLink: null };
      break;
    case 'attachment_only':
      subject = req.subject ?? `Your ${brand} document`;
      text = `Your ${brand} document is attached.\n`;
      attachments.push({
        filename: 'document.pdf',
        content: minimalPdf(`Your ${brand} access code is ${code}`),
        contentType: 'application/pdf',
      });
      expected = { otp: null, primaryLink: null };
      break;
    case 'custom':
      subject = req.subject ?? '';
      text = req.text;
      html = req.html;
      expected = { otp: null, primaryLink: null };
      break;
  }
  const mail = new MailComposer({
    from,
    to: req.to,
    subject,
    ...(text !== undefined ? { text } : {}),
    ...(html !== undefined ? { html } : {}),
    attachments,
    headers: { 'X-Inboxd-Simulated': req.scenario },
    messageId: `<${crypto.randomUUID()}@${domain}>`,
    date: new Date(),
  });
  const raw = await new Promise<Buffer>((resolve, reject) => mail.compile().build((e, b) => (e ? reject(e) : resolve(b))));
  return { raw, from, subject, expected };
}

/** A tiny valid PDF whose text is visible; only so an attachment-only scenario carries something real. */
function minimalPdf(line: string): Buffer {
  const text = line.replace(/[()\\]/g, '');
  const stream = `BT /F1 14 Tf 72 720 Td (${text}) Tj ET`;
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
