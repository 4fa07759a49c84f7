// `inboxd check`: runs message checks on a running inboxd and fails a CI step on what `--fail-on` says.
//   inboxd check MESSAGE --inbox INBOX      a stored message (POST /v1/inboxes/:id/messages/:messageId/checks)
//   inboxd check FILE.eml | FILE.html | -   mail that was never sent (POST /v1/checks; - reads a .eml from stdin)
//   inboxd check --inbox INBOX --wait       the next message to arrive in INBOX (GET …/wait, then its checks)
// The report goes to stdout as text, json, junit or sarif (also when the checks fail); exit 0 passed, 1 failed,
// 2 could not check (usage, a bad --fail-on, the server refused or could not be reached, a check named in --fail-on
// answered error), 3 timed out.
import fs from 'node:fs';
import path from 'node:path';
import { checksOf, evaluateFailOn, FailOnError, type FailOnResult, type FailTerm, parseFailOn } from '../checks/fail-on.ts';
import { formatJunit, formatSarif, formatText, REPORT_FORMATS, type ReportFormat, type Subject } from '../checks/formats.ts';
import type { CheckReport } from '../checks/report.ts';
import { ClientError, ENV_HELP, EXIT, type FlagSpec, flagsHelp, has, many, one, type Parsed, seconds, usage } from './args.ts';
import type { Client } from './http.ts';

const MAX_SECONDS = 3600;
const SERVER_MAX_SECONDS = 120;
/** Largest file sent (the server's POST /v1/checks limit). */
const MAX_FILE = 5 * 1024 * 1024;

export const CHECK_FLAGS: Record<string, FlagSpec> = {
  '--inbox': { arg: 'INBOX', help: 'the inbox (id inb_… or address) of MESSAGE, or to --wait on' },
  '--wait': { help: 'wait for the next message to arrive in --inbox and check it' },
  '--timeout': { arg: 'SECONDS', help: `how long --wait waits and the checks may take, 1-${MAX_SECONDS} (default 60)` },
  '--subject': { arg: 'TEXT', help: 'with --wait: only a message whose subject contains this' },
  '--checks': { arg: 'LIST', help: 'checks to run, comma-separated (default: all the server has; GET /v1/checks lists them)' },
  '--clients': { arg: 'LIST', help: "compat: clients, comma-separated ids or globs, e.g. 'gmail.*,outlook.windows'" },
  '--links': { arg: 'static|reach', help: 'links: static (default, no network) or reach (hosts allowed by the server only)' },
  '--include-verification-links': { help: 'links in reach mode: also follow one-time verification links (may spend them)' },
  '--fail-on': {
    arg: 'EXPR',
    help: "fail (exit 1) when any term holds, e.g. 'html.errors>0,links.broken>0,spam.score>=5,auth.dkim!=pass' (default: any check failed)",
    repeat: true,
  },
  '--format': { arg: 'FORMAT', help: 'text (default), json, junit or sarif' },
};

export const CHECK_HELP = `Usage: inboxd check MESSAGE --inbox INBOX [options]
       inboxd check FILE.eml | FILE.html | - [options]
       inboxd check --inbox INBOX --wait [options]

Runs the message checks of a running inboxd (html, a11y, text, and compat, links, auth, spam where the server has
them) and prints the report on stdout. A .eml or .html file is checked without being sent or stored.

Options:
${flagsHelp(CHECK_FLAGS)}

--fail-on terms are metric op value, comma-separated; ops >= <= > < == !=; the step fails when any holds.
Metrics of every check: <check>.errors .warnings .info .findings .status .score .durationMs .rule.<rule-id>, and
each number or string of its meta (e.g. html.htmlBytes, text.overlap, links.broken, auth.dkim, spam.score);
summary.errors .warnings .status for the whole report. An unknown metric exits 2 and names the nearest one.

${ENV_HELP}

Exit codes:
  0  passed: no --fail-on term holds (without --fail-on: no check failed)
  1  failed: a --fail-on term holds (without --fail-on: a check failed); the report is still printed
  2  could not check: a bad flag or --fail-on, the server refused or could not be reached, or a check named in
     --fail-on answered error
  3  timed out: no message arrived within --timeout (--wait), or the checks took longer

Example (a CI step under bash -e):
  inboxd check --inbox "$INBOX_ID" --wait --timeout 120 --fail-on 'html.errors>0,a11y.errors>0' --format junit > checks.xml`;

const list = (p: Parsed, name: string): string[] | undefined => {
  const v = one(p, name);
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
};

export async function checkCommand(
  p: Parsed,
  client: Client,
  out: (s: string) => void,
  stdin: () => Promise<Buffer>,
  err: (s: string) => void,
): Promise<number> {
  try {
    return await run(p, client, out, stdin, err);
  } catch (e) {
    if (e instanceof FailOnError) throw new ClientError('could not check', e.message, EXIT.usage);
    // Every failure to get a report is "could not check" (2), but a timeout (3).
    if (e instanceof ClientError && e.exitCode !== EXIT.timeout && e.exitCode !== EXIT.usage)
      throw new ClientError(e.kind, e.message, EXIT.usage);
    if (e instanceof ClientError && e.kind === 'unreachable' && /did not answer within/.test(e.message))
      throw new ClientError('timeout', e.message, EXIT.timeout);
    throw e;
  }
}

async function run(
  p: Parsed,
  client: Client,
  out: (s: string) => void,
  stdin: () => Promise<Buffer>,
  err: (s: string) => void,
): Promise<number> {
  const format = (one(p, '--format') ?? 'text') as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) throw usage(`--format must be one of ${REPORT_FORMATS.join(', ')} (got '${format}')`);
  const terms: FailTerm[] = many(p, '--fail-on').flatMap((e) => parseFailOn(e));
  const links = one(p, '--links');
  if (links !== undefined && links !== 'static' && links !== 'reach') throw usage(`--links must be static or reach (got '${links}')`);
  const timeout = seconds(p, '--timeout', 1, MAX_SECONDS) ?? 60;
  let checks = list(p, '--checks');
  // A check named in --fail-on runs even when --checks left it out.
  if (checks) for (const c of checksOf(terms)) if (!checks.includes(c)) checks = [...checks, c];
  const body = {
    ...(checks ? { checks } : {}),
    ...(list(p, '--clients') ? { clients: list(p, '--clients') } : {}),
    ...(links || has(p, '--include-verification-links')
      ? { links: { mode: links ?? 'static', includeVerificationLinks: has(p, '--include-verification-links') } }
      : {}),
  };
  const timeoutMs = timeout * 1000 + 10_000;

  let report: CheckReport;
  let subject: Subject;
  const inbox = one(p, '--inbox');
  if (has(p, '--wait')) {
    if (!inbox) throw usage('--wait needs --inbox INBOX (the inbox to wait on)');
    if (p.positional.length > 0) throw usage('give either --wait or a MESSAGE / FILE, not both');
    const id = await client.inboxId(inbox);
    const messageId = await waitForOne(client, id, timeout, one(p, '--subject'));
    report = await post(client, `/v1/inboxes/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}/checks`, body, timeoutMs);
    subject = { name: messageId, artifact: `${messageId}.html` };
  } else {
    if (p.positional.length !== 1)
      throw usage('give one MESSAGE (msg_… with --inbox), FILE.eml, FILE.html or - (a .eml on stdin), or --inbox INBOX --wait');
    const target = p.positional[0]!;
    if (/^msg_\w+$/.test(target) && !fs.existsSync(target)) {
      if (!inbox) throw usage(`a message id needs --inbox (the id or address of the inbox ${target} is in)`);
      const id = await client.inboxId(inbox);
      report = await post(client, `/v1/inboxes/${encodeURIComponent(id)}/messages/${encodeURIComponent(target)}/checks`, body, timeoutMs);
      subject = { name: target, artifact: `${target}.html` };
    } else {
      const bytes = target === '-' ? await stdin() : readFile(target);
      const name = target === '-' ? 'stdin.eml' : path.basename(target);
      const html = /\.html?$/i.test(target);
      const q = { checks: checks?.join(','), clients: list(p, '--clients')?.join(','), linkMode: links };
      const r = html
        ? await client.request('POST', '/v1/checks', { body: { html: bytes.toString('utf8'), ...body }, timeoutMs })
        : await client.request('POST', '/v1/checks', { query: q, raw: { bytes, contentType: 'message/rfc822' }, timeoutMs });
      report = r.body as unknown as CheckReport;
      subject = { name, artifact: html ? name : `${name}.html` };
    }
  }

  const verdict: FailOnResult | null = terms.length > 0 ? evaluateFailOn(terms, report) : null;
  out(render(format, report, verdict, subject));
  if (verdict) {
    if (verdict.failed) {
      err(
        `checks failed: ${verdict.terms
          .filter((t) => t.failed)
          .map((t) => `${t.term.source} (actual ${t.actual})`)
          .join(', ')}`,
      );
      return EXIT.error;
    }
    return EXIT.ok;
  }
  if (report.summary.status === 'failed') {
    err(
      `checks failed: ${Object.entries(report.checks)
        .filter(([, c]) => c.status === 'failed')
        .map(([n]) => n)
        .join(', ')}`,
    );
    return EXIT.error;
  }
  if (report.summary.status === 'error') {
    const bad = Object.entries(report.checks).filter(([, c]) => c.status === 'error');
    err(`could not check: ${bad.map(([n, c]) => `${n}: ${c.reason ?? 'error'}`).join('; ')}`);
    return EXIT.usage;
  }
  return EXIT.ok;
}

function render(format: ReportFormat, r: CheckReport, v: FailOnResult | null, subject: Subject): string {
  if (format === 'json') return JSON.stringify(v ? { ...r, failOn: v } : r, null, 2);
  if (format === 'junit') return formatJunit(r, v, subject);
  if (format === 'sarif') return formatSarif(r, subject, r.dataVersion);
  return formatText(r, v, subject);
}

function readFile(file: string): Buffer {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw usage(`cannot read ${file}: no such file (give a msg_… id with --inbox, a .eml or .html file, or -)`);
  }
  if (!st.isFile()) throw usage(`${file} is not a file`);
  if (st.size > MAX_FILE) throw usage(`${file} is ${st.size} bytes; the server checks at most ${MAX_FILE}`);
  return fs.readFileSync(file);
}

async function post(client: Client, url: string, body: unknown, timeoutMs: number): Promise<CheckReport> {
  const r = await client.request('POST', url, { body, timeoutMs });
  return r.body as unknown as CheckReport;
}

/** The next message of the inbox (from now on), waiting up to `total` seconds in server-sized pieces. */
async function waitForOne(client: Client, inboxId: string, total: number, subject: string | undefined): Promise<string> {
  const since = new Date().toISOString();
  const deadline = Date.now() + total * 1000;
  for (;;) {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    const chunk = Math.min(left, SERVER_MAX_SECONDS);
    const r = await client.request('GET', `/v1/inboxes/${encodeURIComponent(inboxId)}/wait`, {
      query: { timeoutSeconds: String(chunk), since, subjectContains: subject, includeBody: 'false' },
      timeoutMs: (chunk + 30) * 1000,
      expect: [408],
    });
    if (r.status !== 408) return (r.body as { messageId: string }).messageId;
    if (Date.now() >= deadline - 500) throw new ClientError('timeout', `no message arrived in ${inboxId} within ${total} s`, EXIT.timeout);
  }
}
