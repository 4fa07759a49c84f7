// `inboxd wait` and `inboxd verify`: block until mail arrives, for a shell step. Waits longer than the server's
// longest single wait (120 s) are made of several, so --timeout may be up to an hour.
import { ClientError, ENV_HELP, EXIT, exitHelp, type FlagSpec, flagsHelp, has, one, type Parsed, seconds, usage } from './args.ts';
import type { Client } from './http.ts';
import { printAnswer, printChoice, printFlag, VERIFY_PRINT, WAIT_PRINT } from './print.ts';

const SERVER_MAX_SECONDS = 120;
const MAX_SECONDS = 3600;

export const WAIT_FLAGS: Record<string, FlagSpec> = {
  '--timeout': { arg: 'SECONDS', help: `how long to wait, 0-${MAX_SECONDS} (default 60; 0 = only look, do not wait)` },
  '--subject': { arg: 'TEXT', help: 'only a message whose subject contains this (case-insensitive)' },
  '--from': { arg: 'TEXT', help: 'only a message whose sender contains this, e.g. github.com' },
  '--since': { arg: 'ID|TIME', help: 'only mail after this message id (msg_…) or ISO 8601 time' },
  '--no-body': { help: 'leave text, html and headers out of the answer (the code and link stay)' },
  '--print': printFlag(WAIT_PRINT),
};

export const WAIT_HELP = `Usage: inboxd wait INBOX [options]

Waits until a message arrives in INBOX (an inbox id inb_… or its address) and prints it as JSON on stdout: the
newest matching message after --since, at once if it is already there. The JSON is the answer of
GET /v1/inboxes/:id/wait (from, subject, text, html, verification.otp, verification.primaryLink, …).

Options:
${flagsHelp(WAIT_FLAGS)}

${ENV_HELP}

${exitHelp(true)}
On any exit but 0 nothing is printed on stdout; stderr says why.

Example (a CI step under bash -e, as GitHub Actions and GitLab CI run them; the assignment stands alone, so a
timeout or a mail without a code fails the step — \`export X=$(…)\`, \`local X=$(…)\` or \`… | jq\` would hide the status):
  export INBOXD_URL=http://inboxd:8025 INBOXD_KEY=ibx_…
  CODE=$(inboxd wait "$INBOX_ID" --subject "verification" --timeout 120 --print otp)`;

export async function waitCommand(p: Parsed, client: Client, out: (s: string) => void): Promise<number> {
  if (p.positional.length !== 1) throw usage('give exactly one INBOX (an inbox id inb_… or its address)');
  const total = seconds(p, '--timeout', 0, MAX_SECONDS) ?? 60;
  const choice = printChoice(p, WAIT_PRINT);
  const id = await client.inboxId(p.positional[0]!);
  const deadline = Date.now() + total * 1000;
  for (;;) {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    const chunk = Math.min(left, SERVER_MAX_SECONDS);
    const r = await client.request('GET', `/v1/inboxes/${encodeURIComponent(id)}/wait`, {
      query: {
        timeoutSeconds: String(chunk),
        subjectContains: one(p, '--subject'),
        from: one(p, '--from'),
        since: one(p, '--since'),
        includeBody: has(p, '--no-body') ? 'false' : undefined,
      },
      timeoutMs: (chunk + 30) * 1000,
      expect: [408],
    });
    if (r.status !== 408) {
      const m = r.body as { messageId?: string; subject?: string };
      return printAnswer(out, r.body, WAIT_PRINT, choice, `the message ${m.messageId} ("${m.subject}")`);
    }
    if (Date.now() >= deadline - 500)
      throw new ClientError('timeout', `no matching message arrived in ${id} within ${total} s`, EXIT.timeout);
  }
}

export const VERIFY_FLAGS: Record<string, FlagSpec> = {
  '--service': { arg: 'NAME', help: 'the service preset (github, google, slack, …; GET /v1 lists all 25)' },
  '--inbox': { arg: 'INBOX', help: 'wait on this inbox (id or address) instead of creating one' },
  '--timeout': {
    arg: 'SECONDS',
    help: `wait this long for the mail, 1-${MAX_SECONDS}; without it and without --inbox only the address is returned`,
  },
  '--label': { arg: 'LABEL', help: 'label of a new inbox (e.g. the CI run id)' },
  '--run-id': { arg: 'ID', help: 'sets the label of a new inbox to agent-ID' },
  '--address': { arg: 'ADDR', help: 'open (or create) the inbox with this whole address' },
  '--local-part': { arg: 'NAME', help: 'create the inbox with this part before the @' },
  '--ttl-minutes': { arg: 'N', help: 'lifetime of a new inbox in minutes' },
  '--subject': { arg: 'TEXT', help: 'only mail whose subject contains this' },
  '--from': { arg: 'TEXT', help: 'only mail whose sender contains this' },
  '--since': { arg: 'ID|TIME', help: 'only mail after this message id or ISO 8601 time' },
  '--delete-after': { help: 'remove the inbox after a verified answer' },
  '--print': printFlag(VERIFY_PRINT),
};

export const VERIFY_HELP = `Usage: inboxd verify --service NAME [options]       a new address (and, with --timeout, the code)
       inboxd verify --inbox INBOX [options]        wait on an inbox for its code or link

Prints the answer of POST /v1/agent/verify as JSON on stdout: status (verified, received, awaiting_message,
timeout), email.inboxId, email.address, verification.otp, verification.primaryLink and agent.primaryAction; with
--print, only that value.
A code is handed out once: calling again on the same inbox waits for newer mail (a resent code). When the mail that
arrived was handed out before, stderr says so at once, and --since (the time it names) gets it again.

Options:
${flagsHelp(VERIFY_FLAGS)}

${ENV_HELP}

${exitHelp(true)}
Status verified, received (mail without a code or link) and awaiting_message exit 0; timeout exits 3 and still
prints the JSON (its email.inboxId is what to wait on next) — with --print, nothing.

Example (a CI step under bash -e, as GitHub Actions and GitLab CI run them; each assignment stands alone, so a
timeout or a mail without a code fails the step — \`export X=$(…)\`, \`local X=$(…)\` or \`… | jq\` would hide the status):
  ADDR=$(inboxd verify --service github --label "ci-$CI_JOB_ID" --print address)
  ./signup.sh "$ADDR"
  OTP=$(inboxd verify --inbox "$ADDR" --timeout 120 --print otp)`;

export async function verifyCommand(
  p: Parsed,
  client: Client,
  out: (s: string) => void,
  _stdin: unknown,
  err: (s: string) => void = () => undefined,
): Promise<number> {
  if (p.positional.length > 0) throw usage(`unexpected argument '${p.positional[0]}' (use --service NAME or --inbox INBOX)`);
  const inboxRef = one(p, '--inbox');
  if (inboxRef === undefined && !has(p, '--service') && !has(p, '--address') && !has(p, '--local-part'))
    throw usage('give --service NAME (a new address) or --inbox INBOX (wait for its mail)');
  const total = seconds(p, '--timeout', 1, MAX_SECONDS);
  const choice = printChoice(p, VERIFY_PRINT);
  const ttl = one(p, '--ttl-minutes');
  if (ttl !== undefined && !/^\d+$/.test(ttl)) throw usage(`--ttl-minutes must be a whole number (got '${ttl}')`);
  const common = {
    service: one(p, '--service'),
    subjectContains: one(p, '--subject'),
    expectFrom: one(p, '--from'),
    since: one(p, '--since'),
    deleteAfter: has(p, '--delete-after') || undefined,
  };
  let body: Record<string, unknown> = {
    ...common,
    inboxId: inboxRef === undefined ? undefined : await client.inboxId(inboxRef),
    label: one(p, '--label'),
    runId: one(p, '--run-id'),
    address: one(p, '--address'),
    localPart: one(p, '--local-part'),
    ttlMinutes: ttl === undefined ? undefined : Number(ttl),
  };
  // The mail that arrived was handed out by an earlier verify: said once, at once (the server streams it first).
  let noted = false;
  const onEvent = (event: string, data: unknown) => {
    if (event !== 'handed_out' || noted) return;
    noted = true;
    const h = data as HandedOut;
    err(
      `inboxd verify: note: the mail that arrived (${h.messageId}, "${h.subject}", received ${h.receivedAt}) was already handed out by an earlier verify at ${h.handedOutAt}; waiting for newer mail (a resent code). To get it again: --since ${h.since}`,
    );
  };
  const deadline = total === undefined ? 0 : Date.now() + total * 1000;
  for (;;) {
    const left = total === undefined ? undefined : Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    const chunk = left === undefined ? undefined : Math.min(left, SERVER_MAX_SECONDS);
    const request = { body: { ...body, timeoutSeconds: chunk }, timeoutMs: ((chunk ?? 60) + 30) * 1000 };
    const r =
      chunk === undefined
        ? await client.request('POST', '/v1/agent/verify', request)
        : await client.stream('POST', '/v1/agent/verify', { ...request, onEvent });
    const status = r.body.status;
    if (status !== 'timeout') return printAnswer(out, r.body, VERIFY_PRINT, choice, `the answer (status ${String(status)})`);
    if (Date.now() >= deadline - 500) {
      if (choice === undefined) out(JSON.stringify(r.body));
      const h = r.body.alreadyHandedOut as HandedOut | undefined;
      const ref = inboxRef ?? (r.body.email as { inboxId: string }).inboxId;
      throw new ClientError(
        'timeout',
        h
          ? `no new verification mail arrived within ${total ?? 60} s; the mail that did arrive (${h.messageId}, "${h.subject}") was already handed out by an earlier verify at ${h.handedOutAt} — to get it again: inboxd verify --inbox ${ref} --since ${h.since}`
          : `no verification mail arrived within ${total ?? 60} s`,
        EXIT.timeout,
      );
    }
    // Keep waiting on the inbox the first call made or opened.
    const email = r.body.email as { inboxId: string };
    body = { ...common, inboxId: email.inboxId };
  }
}

/** The server's `alreadyHandedOut` (src/agent/verify.ts HandedOut), as the client reads it. */
interface HandedOut {
  messageId: string;
  subject: string;
  receivedAt: string;
  handedOutAt: string;
  since: string;
}
