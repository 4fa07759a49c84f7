// `inboxd simulate` (deliver a realistic test message into an inbox, no SMTP needed) and `inboxd send` (send mail from
// an inbox, CONTRACT §9): one request each, the answer as JSON on stdout.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ClientError, ENV_HELP, EXIT, exitHelp, type FlagSpec, flagsHelp, many, one, type Parsed, usage } from './args.ts';
import type { Client } from './http.ts';
import { printAnswer, printChoice, printFlag, SIMULATE_PRINT } from './print.ts';

const SCENARIOS = 'otp, magic_link, otp_and_link, welcome, attachment_only, custom';

export const SIMULATE_FLAGS: Record<string, FlagSpec> = {
  '--scenario': { arg: 'NAME', help: `what to deliver: ${SCENARIOS} (default otp)` },
  '--service': { arg: 'NAME', help: 'make it look like mail from this service preset (github, slack, …)' },
  '--from': { arg: 'ADDR', help: 'From header, e.g. "Acme <no-reply@acme.test>"' },
  '--subject': { arg: 'TEXT', help: 'subject line (scenario custom)' },
  '--text': { arg: 'TEXT', help: 'plain-text body (scenario custom)' },
  '--html': { arg: 'HTML', help: 'HTML body (scenario custom)' },
  '--code': { arg: 'CODE', help: 'use this code instead of a random one (4-12 letters, digits or dashes)' },
  '--link': { arg: 'URL', help: 'use this link instead of a random one' },
  '--print': printFlag(SIMULATE_PRINT),
};

export const SIMULATE_HELP = `Usage: inboxd simulate INBOX [options]

Delivers a simulated message into INBOX (an inbox id inb_… or its address) through the same path as SMTP mail, and
prints the answer of POST /v1/inboxes/:id/simulate as JSON on stdout: messageId, subject, and expected.otp /
expected.primaryLink (what extraction should find); with --print, only that value. Needs a key that may write.

Options:
${flagsHelp(SIMULATE_FLAGS)}

${ENV_HELP}

${exitHelp(false)}

Example (a CI step under bash -e; each assignment stands alone, so a failure fails the step):
  EXPECTED=$(inboxd simulate "$INBOX_ID" --scenario otp --service github --print otp)
  GOT=$(inboxd wait "$INBOX_ID" --timeout 30 --print otp)
  test "$GOT" = "$EXPECTED"`;

export async function simulateCommand(p: Parsed, client: Client, out: (s: string) => void): Promise<number> {
  if (p.positional.length !== 1) throw usage('give exactly one INBOX (an inbox id inb_… or its address)');
  const choice = printChoice(p, SIMULATE_PRINT);
  const id = await client.inboxId(p.positional[0]!);
  const r = await client.request('POST', `/v1/inboxes/${encodeURIComponent(id)}/simulate`, {
    body: {
      scenario: one(p, '--scenario'),
      service: one(p, '--service'),
      from: one(p, '--from'),
      subject: one(p, '--subject'),
      text: one(p, '--text'),
      html: one(p, '--html'),
      code: one(p, '--code'),
      link: one(p, '--link'),
    },
  });
  return printAnswer(out, r.body, SIMULATE_PRINT, choice, `the simulated message ${String(r.body.messageId)}`);
}

export const SEND_FLAGS: Record<string, FlagSpec> = {
  '--to': { arg: 'ADDR', help: 'recipient ("user@example.com" or "Name <user@example.com>")', repeat: true },
  '--cc': { arg: 'ADDR', help: 'Cc recipient', repeat: true },
  '--bcc': { arg: 'ADDR', help: 'Bcc recipient (not written into the message)', repeat: true },
  '--subject': { arg: 'TEXT', help: 'subject line' },
  '--text': { arg: 'TEXT', help: 'plain-text body' },
  '--text-file': { arg: 'FILE', help: 'plain-text body from a file (- = stdin)' },
  '--html': { arg: 'HTML', help: 'HTML body' },
  '--html-file': { arg: 'FILE', help: 'HTML body from a file (- = stdin)' },
  '--reply-to': { arg: 'ADDR', help: 'Reply-To address', repeat: true },
  '--attach': { arg: 'FILE[;TYPE]', help: 'attach a file, optionally with its MIME type (e.g. report.pdf;application/pdf)', repeat: true },
};

export const SEND_HELP = `Usage: inboxd send INBOX --to ADDR [options]

Sends a message from INBOX (an inbox id inb_… or its address; the inbox's own address is always the sender) with
POST /v1/inboxes/:id/send, and prints the answer as JSON on stdout: the stored copy's messageId and each recipient's
delivery state (queued, sent, failed). Mail to a domain this inboxd serves is delivered locally at once; other
recipients need the operator's relay (--smtp-relay; without one the server answers 501 not_configured, exit 1).
Needs a key that may write.

Options:
${flagsHelp(SEND_FLAGS)}

${ENV_HELP}

${exitHelp(false, false)}

Example (a CI step: one inbox mails another, the second waits for it):
  inboxd send "$SENDER_ID" --to "$RECEIVER_ADDR" --subject "Invoice 42" --text "see attached" --attach invoice.pdf
  inboxd wait "$RECEIVER_ADDR" --subject "Invoice 42" --timeout 30`;

export async function sendCommand(p: Parsed, client: Client, out: (s: string) => void, stdin: () => Promise<Buffer>): Promise<number> {
  if (p.positional.length !== 1) throw usage('give exactly one INBOX to send from (an inbox id inb_… or its address)');
  const to = many(p, '--to');
  if (to.length === 0 && many(p, '--cc').length === 0 && many(p, '--bcc').length === 0)
    throw usage('give at least one --to (or --cc / --bcc)');
  if (one(p, '--text-file') === '-' && one(p, '--html-file') === '-') throw usage('only one of --text-file and --html-file can read stdin');
  const text = await body(p, '--text', '--text-file', stdin);
  const html = await body(p, '--html', '--html-file', stdin);
  const attachments = await Promise.all(many(p, '--attach').map(attachment));
  const list = (name: string) => (many(p, name).length > 0 ? many(p, name) : undefined);
  const id = await client.inboxId(p.positional[0]!);
  const r = await client.request('POST', `/v1/inboxes/${encodeURIComponent(id)}/send`, {
    body: {
      to,
      cc: list('--cc'),
      bcc: list('--bcc'),
      subject: one(p, '--subject'),
      text,
      html,
      replyTo: list('--reply-to'),
      attachments: attachments.length > 0 ? attachments : undefined,
    },
    timeoutMs: 120_000,
  });
  out(JSON.stringify(r.body));
  return EXIT.ok;
}

async function body(p: Parsed, inline: string, fileFlag: string, stdin: () => Promise<Buffer>): Promise<string | undefined> {
  const v = one(p, inline);
  const file = one(p, fileFlag);
  if (v !== undefined && file !== undefined) throw usage(`give ${inline} or ${fileFlag}, not both`);
  if (file === undefined) return v;
  return (file === '-' ? await stdin() : await readLocal(file, fileFlag)).toString('utf8');
}

async function attachment(spec: string): Promise<{ filename: string; contentType?: string; contentBase64: string }> {
  const semi = spec.lastIndexOf(';');
  const file = semi > 0 ? spec.slice(0, semi) : spec;
  const contentType = semi > 0 ? spec.slice(semi + 1) : undefined;
  const bytes = await readLocal(file, '--attach');
  return { filename: path.basename(file), ...(contentType ? { contentType } : {}), contentBase64: bytes.toString('base64') };
}

async function readLocal(file: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    throw new ClientError('usage', `${flag} ${file}: ${why}`, EXIT.usage);
  }
}
