// `inboxd sendmail` (or the executable run through a symlink named `sendmail`): a drop-in for /usr/sbin/sendmail as
// PHP mail(), cron and many frameworks call it. Reads one message on stdin and hands it to a running inboxd over SMTP.
// Exit codes are sendmail's (sysexits.h): 0 ok, 64 usage, 65 bad message, 69 refused for good, 75 try again later.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser/index.js';

export const SYSEXIT = { ok: 0, usage: 64, dataErr: 65, unavailable: 69, software: 70, tempFail: 75 } as const;

/** Largest message read from stdin; inboxd's own limit (--max-message-bytes) answers above it anyway. */
const MAX_STDIN_BYTES = 512 * 1024 * 1024;
/** Most recipients one invocation takes (arguments plus -t headers): inboxd refuses more per transaction anyway. */
const MAX_RECIPIENTS = 1000;

export const SENDMAIL_HELP = `Usage: inboxd sendmail [options] [RECIPIENT…] < message
       sendmail [options] [RECIPIENT…] < message      (the executable run through a symlink named sendmail)

A drop-in for /usr/sbin/sendmail: reads one message (headers, a blank line, the body) on stdin and delivers it to a
running inboxd over SMTP. Point PHP (sendmail_path = "/usr/local/bin/inboxd sendmail -t -i"), cron (MAILTO with a
symlink named sendmail) or an app's "sendmail" transport at it.

Options (sendmail's):
  -t               also read recipients from the To:, Cc: and Bcc: headers (Bcc: is removed from the message)
  -f ADDR, -r ADDR envelope sender (default: the From: header's address, else USER@HOSTNAME)
  -F NAME          the sender's full name, used when the message has no From: header
  -i, -oi          a line with a single dot does not end the message (read to end of input)
  -bm              deliver the message (the default)
  -bs              speak SMTP on stdin/stdout (passed through to inboxd)
  -odi -odb -oem -oep -oeq -om -v -U -n -m -G  and  -N DSN -R RET -V ENVID -B TYPE -L TAG -h N -C FILE -O OPT=V -X FILE
                   accepted and ignored (they only make sense to a real mail transfer agent)
Options (inboxd's):
  --smtp HOST:PORT the running inboxd's SMTP listener (env INBOXD_SMTP; default: the smtp port in
                   <data-dir>/ports.json, else localhost:25)
  --data-dir DIR   where to look for ports.json (env INBOXD_DATA_DIR; default ./inboxd-data)
  --timeout S      give up after S seconds (default 60)
  --help           this text
Environment:
  INBOXD_SMTP      as --smtp
  INBOXD_KEY       sent as the SMTP AUTH PLAIN password (needed when the server runs with --smtp-auth required)
  INBOXD_DOMAIN    the domain a bare recipient name gets (cron's MAILTO=root → root@DOMAIN; default inboxd.test,
                   the first one when it is a list, as for the server)

A message without From:, Date: or Message-ID: gets one, as sendmail does. STARTTLS is used when the server offers
it, without checking its certificate (the shim talks to your own inboxd; see README "sendmail").

Exit codes (sysexits): 0 delivered · 64 usage (bad flag, no recipient) · 65 the message is unusable
69 refused for good (5xx) · 75 try again later (4xx, inboxd not reachable, timeout). Messages go to stderr.`;

interface Opts {
  fromHeaders: boolean;
  sender: string | undefined;
  fullName: string | undefined;
  ignoreDots: boolean;
  smtpSession: boolean;
  smtp: string | undefined;
  dataDir: string | undefined;
  timeoutSeconds: number;
  recipients: string[];
  help: boolean;
}

class SendmailError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

const usage = (m: string) => new SendmailError(m, SYSEXIT.usage);

/** Flags that take a value (attached `-fa@b` or as the next argument) and are ignored. */
const IGNORED_WITH_VALUE = new Set(['N', 'R', 'V', 'B', 'L', 'h', 'C', 'O', 'X', 'p', 'q']);
/** Single-letter switches that are accepted and ignored. */
const IGNORED_SWITCHES = new Set(['v', 'U', 'n', 'm', 'G', 'A', 'd']);

export function parseSendmailArgs(argv: string[]): Opts {
  const o: Opts = {
    fromHeaders: false,
    sender: undefined,
    fullName: undefined,
    ignoreDots: false,
    smtpSession: false,
    smtp: undefined,
    dataDir: undefined,
    timeoutSeconds: 60,
    recipients: [],
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (name: string, attached: string): string => {
      if (attached !== '') return attached;
      const next = argv[++i];
      if (next === undefined) throw usage(`${name} needs a value`);
      return next;
    };
    if (a === '--') {
      o.recipients.push(...argv.slice(i + 1));
      break;
    }
    if (a === '--help' || a === '-h' || a === '-?') {
      o.help = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      const v = eq > 0 ? a.slice(eq + 1) : undefined;
      const need = () => {
        const got = v ?? argv[++i];
        if (got === undefined || got === '') throw usage(`${name} needs a value`);
        return got;
      };
      if (name === '--smtp') o.smtp = need();
      else if (name === '--data-dir') o.dataDir = need();
      else if (name === '--timeout') {
        const t = need();
        if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > 3600) throw usage(`--timeout must be 1-3600 seconds (got '${t}')`);
        o.timeoutSeconds = Number(t);
      } else throw usage(`unknown option '${name}' (inboxd sendmail --help lists them)`);
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      o.recipients.push(a);
      continue;
    }
    const flag = a[1]!;
    const rest = a.slice(2);
    if (flag === 't' && rest === '') o.fromHeaders = true;
    else if (flag === 'i' && rest === '') o.ignoreDots = true;
    else if (flag === 'f' || flag === 'r') o.sender = value(`-${flag}`, rest);
    else if (flag === 'F') o.fullName = value('-F', rest);
    else if (flag === 'o') {
      // -oi is -i; -odX, -oeX, -om, -oXvalue … are delivery-mode and error-mode options of a real MTA.
      if (rest === '') throw usage('-o needs an option letter (e.g. -oi)');
      if (rest === 'i') o.ignoreDots = true;
    } else if (flag === 'b') {
      if (rest === 's') o.smtpSession = true;
      else if (rest !== 'm')
        throw usage(`-b${rest}: only -bm (deliver, the default) and -bs (SMTP on stdin/stdout) are supported by inboxd sendmail`);
    } else if (flag === 'e' || IGNORED_SWITCHES.has(flag)) {
      // -em/-ep/-eq/-ee (error modes), -v, -U, -n, -m, -G, -Am, -d…: accepted, no effect.
    } else if (IGNORED_WITH_VALUE.has(flag)) {
      if (flag === 'q' || flag === 'p') throw usage(`-${flag}: queue runs and protocols are not supported by inboxd sendmail`);
      value(`-${flag}`, rest);
    } else throw usage(`unknown option '${a}' (inboxd sendmail --help lists them)`);
  }
  return o;
}

interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

export async function sendmailCommand(argv: string[], io: Partial<Io> = {}): Promise<number> {
  const stderr = io.stderr ?? ((s: string) => process.stderr.write(s));
  const env = io.env ?? process.env;
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  try {
    const o = parseSendmailArgs(argv);
    if (o.help) {
      stdout.write(SENDMAIL_HELP + '\n');
      return SYSEXIT.ok;
    }
    const target = resolveTarget(o, env);
    if (o.smtpSession) return await smtpSession(target, stdin, stdout, o.timeoutSeconds);
    const input = await readMessage(stdin, o.ignoreDots);
    const msg = prepare(input, o, env);
    return await deliver(target, msg, o.timeoutSeconds, env.INBOXD_KEY, stderr);
  } catch (e) {
    if (e instanceof SendmailError) {
      stderr(`sendmail: ${e.message}\n`);
      return e.exitCode;
    }
    stderr(`sendmail: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return SYSEXIT.software;
  }
}

export interface Target {
  host: string;
  port: number;
  /** Where the address came from, for messages. */
  from: string;
}

export function resolveTarget(o: Pick<Opts, 'smtp' | 'dataDir'>, env: NodeJS.ProcessEnv): Target {
  const given = o.smtp ?? (env.INBOXD_SMTP || undefined);
  if (given !== undefined) {
    const m = /^(?:\[([^\]]+)\]|([^:]+))?(?::(\d{1,5}))?$/.exec(given.trim());
    const port = m?.[3] ? Number(m[3]) : 25;
    if (!m || port < 1 || port > 65535) throw usage(`--smtp / INBOXD_SMTP '${given}' is not HOST:PORT (e.g. localhost:2525)`);
    return { host: m[1] ?? m[2] ?? 'localhost', port, from: o.smtp !== undefined ? '--smtp' : 'INBOXD_SMTP' };
  }
  const dir = o.dataDir ?? (env.INBOXD_DATA_DIR || './inboxd-data');
  const file = path.join(dir, 'ports.json');
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // no running server wrote one here: the default below
  }
  if (text !== undefined) {
    let smtp: unknown;
    try {
      smtp = (JSON.parse(text) as { smtp?: unknown }).smtp;
    } catch {
      smtp = undefined;
    }
    if (typeof smtp !== 'number' || !Number.isInteger(smtp) || smtp < 1 || smtp > 65535)
      throw usage(`${file} has no usable smtp port; give --smtp HOST:PORT or INBOXD_SMTP`);
    return { host: '127.0.0.1', port: smtp, from: file };
  }
  return { host: 'localhost', port: 25, from: 'the default' };
}

/** stdin up to EOF, or up to a line holding a single dot unless -i. Bare LF line ends are kept as they came. */
async function readMessage(stdin: NodeJS.ReadableStream, ignoreDots: boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stdin as AsyncIterable<Buffer | string>) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > MAX_STDIN_BYTES) throw new SendmailError(`the message is larger than ${MAX_STDIN_BYTES} bytes`, SYSEXIT.dataErr);
    chunks.push(b);
  }
  const all = Buffer.concat(chunks);
  if (ignoreDots) return all;
  // Without -i, a line that is exactly "." ends the message (what sendmail does for callers that do not pass -i).
  const text = all.toString('latin1');
  const m = /(^|\n)\.\r?(\n|$)/.exec(text);
  return m ? all.subarray(0, m.index + m[1]!.length) : all;
}

export interface Prepared {
  raw: Buffer;
  from: string;
  rcpts: string[];
}

/** Splits the header block, finds recipients (-t), removes Bcc:, adds From:/Date:/Message-ID: when missing. */
export function prepare(
  input: Buffer,
  o: Pick<Opts, 'fromHeaders' | 'sender' | 'fullName' | 'recipients'>,
  env: NodeJS.ProcessEnv,
): Prepared {
  const text = input.toString('latin1');
  const m = /\r?\n\r?\n/.exec(text);
  // A message with no blank line: all headers if it looks like headers, else all body.
  const looksLikeHeaders = /^[!-9;-~]+:/.test(text);
  const headEnd = m ? m.index : looksLikeHeaders ? text.length : 0;
  const eol = /\r\n/.test(text.slice(0, Math.max(headEnd, 1) + 2)) || (!m && !looksLikeHeaders) ? '\r\n' : '\n';
  const headText = text.slice(0, headEnd);
  const body = m ? input.subarray(m.index + m[0].length) : looksLikeHeaders ? Buffer.alloc(0) : input;
  // Header fields with their continuation lines.
  const fields: string[] = [];
  for (const line of headText.split(/\r?\n/)) {
    if (line === '') continue;
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += `${eol}${line}`;
    else fields.push(line);
  }
  for (const f of fields)
    if (!/^[!-9;-~]+:/.test(f))
      throw new SendmailError(`the message's header block has a line that is not a header field: '${f.slice(0, 60)}'`, SYSEXIT.dataErr);
  const nameOf = (f: string) => f.slice(0, f.indexOf(':')).trim().toLowerCase();
  const fieldValue = (f: string) =>
    f
      .slice(f.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
  const addresses = (v: string): string[] =>
    flatten(addressparser(v))
      .map((a) => a.trim())
      .filter((a) => a !== '');

  const rcpts: string[] = [];
  for (const r of o.recipients) rcpts.push(...(r.includes('<') || r.includes(',') ? addresses(r) : [r.trim()]));
  if (o.fromHeaders) for (const f of fields) if (['to', 'cc', 'bcc'].includes(nameOf(f))) rcpts.push(...addresses(fieldValue(f)));
  // A bare local name (cron's MAILTO=root) gets inboxd's first mail domain, as sendmail appends its own host name.
  const domain = (env.INBOXD_DOMAIN ?? '').split(',')[0]?.trim().toLowerCase() || 'inboxd.test';
  const unique = [...new Set(rcpts.filter((r) => r !== '').map((r) => (/^[^\s@<>]+$/.test(r) ? `${r}@${domain}` : r)))];
  if (unique.length === 0)
    throw usage(
      o.fromHeaders
        ? 'no recipient: the message has no To:, Cc: or Bcc: address and none was given'
        : 'no recipient given (name one, or use -t to read them from the headers)',
    );
  if (unique.length > MAX_RECIPIENTS) throw usage(`${unique.length} recipients; at most ${MAX_RECIPIENTS} per message`);
  for (const r of unique) if (!/^[^\s@<>]+@[^\s@<>]+$/.test(r)) throw usage(`'${r}' is not an email address (user@domain)`);

  const fromField = fields.find((f) => nameOf(f) === 'from');
  const headerFrom = fromField ? addresses(fieldValue(fromField))[0] : undefined;
  const user = env.USER || env.LOGNAME || safeUser();
  const sender = o.sender ?? headerFrom ?? `${user}@${os.hostname() || 'localhost'}`;
  if (sender !== '' && sender !== '<>' && !/^[^\s@<>]+@[^\s@<>]+$/.test(sender)) throw usage(`-f '${sender}' is not an email address`);

  const kept = fields.filter((f) => nameOf(f) !== 'bcc');
  const added: string[] = [];
  if (!fromField) {
    const name = o.fullName?.replace(/["\\\r\n]/g, '');
    added.push(`From: ${name ? `"${name}" <${sender}>` : sender}`);
  }
  if (!fields.some((f) => nameOf(f) === 'date')) added.push(`Date: ${new Date().toUTCString().replace('GMT', '+0000')}`);
  if (!fields.some((f) => nameOf(f) === 'message-id'))
    added.push(
      `Message-ID: <${Date.now().toString(36)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}@${domainOf(sender) ?? 'localhost'}>`,
    );
  const head = [...kept, ...added].join(eol);
  const raw = Buffer.concat([Buffer.from(head + eol + eol, 'latin1'), body]);
  return { raw, from: sender === '<>' ? '' : sender, rcpts: unique };
}

function flatten(list: ReturnType<typeof addressparser>): string[] {
  const out: string[] = [];
  for (const a of list) {
    if ('group' in a && Array.isArray(a.group)) out.push(...flatten(a.group));
    else if ('address' in a && typeof a.address === 'string') out.push(a.address);
  }
  return out;
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'nobody';
  }
}

function domainOf(a: string): string | undefined {
  const at = a.lastIndexOf('@');
  return at > 0 ? a.slice(at + 1) : undefined;
}

interface SmtpErr extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: SmtpErr[];
}

async function deliver(
  t: Target,
  msg: Prepared,
  timeoutSeconds: number,
  key: string | undefined,
  stderr: (s: string) => void,
): Promise<number> {
  const ms = timeoutSeconds * 1000;
  const transport = nodemailer.createTransport({
    host: t.host,
    port: t.port,
    secure: false,
    connectionTimeout: ms,
    greetingTimeout: ms,
    socketTimeout: ms,
    name: os.hostname() || 'localhost',
    // The shim talks to the operator's own inboxd: STARTTLS when offered, without checking the certificate.
    tls: { rejectUnauthorized: false },
    ...(key ? { auth: { user: 'sendmail', pass: key } } : {}),
    logger: false,
    debug: false,
  });
  try {
    const info = (await transport.sendMail({ envelope: { from: msg.from, to: msg.rcpts }, raw: msg.raw })) as {
      rejected?: string[];
      rejectedErrors?: SmtpErr[];
    };
    const refused = info.rejectedErrors ?? [];
    if (refused.length === 0) return SYSEXIT.ok;
    for (const e of refused)
      stderr(`sendmail: ${(e as { recipient?: string }).recipient ?? ''}: refused: ${oneLine(e.response ?? e.message)}\n`);
    stderr(`sendmail: delivered to ${msg.rcpts.length - refused.length} of ${msg.rcpts.length} recipients\n`);
    return refused.some((e) => (e.responseCode ?? 500) < 500) ? SYSEXIT.tempFail : SYSEXIT.unavailable;
  } catch (e) {
    const err = e as SmtpErr;
    const where = `${t.host}:${t.port} (from ${t.from})`;
    if (err.responseCode !== undefined) {
      const temporary = err.responseCode < 500;
      const detail = err.rejectedErrors?.length
        ? err.rejectedErrors.map((r) => oneLine(r.response ?? r.message)).join('; ')
        : oneLine(err.response ?? err.message);
      stderr(`sendmail: inboxd at ${where} refused the message${temporary ? ' for now' : ''}: ${detail}\n`);
      return temporary ? SYSEXIT.tempFail : SYSEXIT.unavailable;
    }
    const why =
      err.code === 'ETIMEDOUT'
        ? `no answer within ${timeoutSeconds} s`
        : err.code === 'ESOCKET' || err.code === 'ECONNECTION' || err.code === 'EDNS'
          ? `cannot connect (${oneLine(err.message)})`
          : oneLine(err.message);
    stderr(`sendmail: inboxd is not reachable at ${where}: ${why}; is it running? (set --smtp HOST:PORT or INBOXD_SMTP)\n`);
    return SYSEXIT.tempFail;
  } finally {
    transport.close();
  }
}

/** -bs: the caller speaks SMTP on stdin/stdout; the bytes go to inboxd's listener and back unchanged. */
function smtpSession(t: Target, stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, timeoutSeconds: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: t.host, port: t.port });
    let connected = false;
    let failed = false;
    socket.setTimeout(timeoutSeconds * 1000 * 10, () => socket.destroy(new Error('idle')));
    socket.once('connect', () => {
      connected = true;
      // End of input does not half-close the connection: the caller may have written its whole dialogue at once,
      // and inboxd must still answer the DATA it is storing and the QUIT. The server closes after QUIT; a caller
      // that ends without QUIT is disconnected once the timeout passes.
      // The caller's commands go on only after inboxd's greeting: a client that talks first is cut off (421).
      socket.pipe(stdout, { end: false });
      let greeted = '';
      const onGreeting = (c: Buffer) => {
        greeted += c.toString('latin1');
        if (!/^\d{3} [^\n]*\n/m.test(greeted)) return;
        socket.off('data', onGreeting);
        stdin.pipe(socket, { end: false });
        stdin.once('end', () => {
          socket.setTimeout(timeoutSeconds * 1000, () => socket.destroy());
        });
      };
      socket.on('data', onGreeting);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      if (connected) {
        failed = true;
        return;
      }
      stdout.write(`421 4.3.0 inboxd is not reachable at ${t.host}:${t.port} (${e.code ?? e.message}); try again later\r\n`);
      resolve(SYSEXIT.tempFail);
    });
    socket.once('close', () => {
      if (connected) resolve(failed ? SYSEXIT.tempFail : SYSEXIT.ok);
    });
  });
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 500);
}
