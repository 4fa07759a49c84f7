// Message checks (issue 28): run them on a stored message and read its last report, check supplied mail (a .eml or
// HTML) without sending it, list the checks, and explain a finding's rule. Every surface shows the one report shape.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { InboxId, inboxOf, MessageId } from '../common.ts';
import { op } from '../op.ts';

/** Largest supplied message or HTML (POST /v1/checks), in bytes. */
export const SUPPLIED_LIMIT = 5 * 1024 * 1024;

const Location = z.object({
  part: z.enum(['html', 'text', 'headers', 'envelope']).optional(),
  line: z.number().int().optional().describe('1-based line in the decoded HTML (or text), as the console’s source view shows it'),
  column: z.number().int().optional(),
  selector: z.string().optional(),
});

export const FindingView = z.object({
  check: z.string(),
  rule: z.string().describe('Stable rule id within the check (svc_explain_finding explains it)'),
  severity: z.enum(['error', 'warning', 'info']),
  title: z.string(),
  detail: z.string(),
  location: Location.optional(),
  clients: z.array(z.string()).optional(),
  evidence: z.string().optional(),
  docs: z.string().optional(),
  tags: z.array(z.string()).optional().describe('e.g. environmental (a spam rule that reflects the test set-up), truncated'),
});

const CheckEntryView = z.object({
  status: z
    .enum(['passed', 'failed', 'skipped', 'error'])
    .describe('failed: an error finding; error: the check could not answer (see reason)'),
  score: z.number().optional(),
  reason: z.string().optional(),
  durationMs: z.number(),
  findings: z.array(FindingView),
  meta: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Check-specific figures; each number or string is a --fail-on metric (<check>.<key>)'),
});

export const CheckReportView = z.object({
  messageId: z.string().nullable(),
  contentHash: z.string().describe('sha256 of the raw message'),
  dataVersion: z.string().describe('Engine and check rule/data versions the report was made with'),
  checkedAt: z.string(),
  cached: z.boolean().optional().describe('True when the same content was already checked under the same versions and options'),
  options: z.object({
    checks: z.array(z.string()),
    clients: z.array(z.string()),
    links: z.object({ mode: z.enum(['static', 'reach']), includeVerificationLinks: z.boolean() }),
  }),
  checks: z.record(z.string(), CheckEntryView),
  summary: z.object({
    status: z.enum(['passed', 'failed', 'error']),
    errors: z.number().int(),
    warnings: z.number().int(),
    info: z.number().int(),
    findings: z.number().int(),
    checks: z.record(z.string(), z.number().int()),
    durationMs: z.number(),
  }),
});

const Names = z
  .array(z.string().min(1).max(64))
  .max(32)
  .optional()
  .describe('Checks to run (default: all this server has; GET /v1/checks lists them), e.g. ["html","a11y","text"]');
const Clients = z
  .array(z.string().min(1).max(100))
  .max(100)
  .optional()
  .describe('compat: client ids or globs, e.g. ["gmail.*","outlook.windows"]');
const Links = z
  .strictObject({
    mode: z
      .enum(['static', 'reach'])
      .optional()
      .describe('static (default: no network) or reach (follow links to --link-check-hosts only)'),
    includeVerificationLinks: z.boolean().optional().describe('reach: also follow one-time verification links (a GET can spend the token)'),
  })
  .optional()
  .describe('links: static (no network, the default) or reach mode, and whether reach follows verification links');
/** A comma-separated query parameter as a list. */
const CommaList = z
  .string()
  .max(2000)
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  )
  .optional();

export const runChecks = op({
  name: 'checks.run',
  summary: 'Check a message',
  description:
    'Runs the message checks (html, a11y, text, and those this server adds: compat, links, auth, spam) over a stored message and answers the report; the same content checked under the same versions and options answers from the cache.',
  access: 'read',
  http: { method: 'POST', path: '/v1/inboxes/:id/messages/:messageId/checks' },
  tool: {
    name: 'svc_check_message',
    description: 'Check a received message for QA problems (HTML breaking in clients, accessibility, text part); findings per check.',
    args: { inboxId: 'id' },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId, checks: Names, clients: Clients, links: Links }),
  output: CheckReportView,
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return ctx.services.checks.checkMessage(inbox, input.messageId, input, ctx.signal);
  },
});

export const lastReport = op({
  name: 'checks.last',
  summary: 'Get the last check report of a message',
  description: 'The newest report of the message (from POST …/checks or the inbox’s on-arrival checks); 404 when none ran yet.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/checks' },
  input: z.strictObject({ id: InboxId, messageId: MessageId }),
  output: CheckReportView,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return ctx.services.checks.lastReport(inbox, input.messageId);
  },
});

const Supplied = z.strictObject({
  html: z.string().max(SUPPLIED_LIMIT).describe('The HTML body to check'),
  text: z.string().max(SUPPLIED_LIMIT).optional().describe('Its text/plain alternative, if the mail will have one'),
  subject: z.string().max(998).optional().describe('Its subject line, if it has one'),
  checks: Names,
  clients: Clients,
  links: Links,
});

export const checkSupplied = op({
  name: 'checks.supplied',
  summary: 'Check mail without sending it',
  description:
    'Checks a message that was never sent: the body is a .eml (Content-Type message/rfc822, up to 5 MiB) or JSON {html, text?, subject?, checks?, clients?, links?}. With a .eml, the query parameters checks and clients (comma-separated) and linkMode choose. Nothing is stored.',
  access: 'read',
  http: { method: 'POST', path: '/v1/checks', body: 'raw', bodyLimit: () => SUPPLIED_LIMIT + 64 * 1024 },
  tool: {
    name: 'svc_check_html',
    description: 'Check e-mail HTML you are about to send (client rendering, accessibility, text part); nothing is sent or stored.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    html: z.string().max(SUPPLIED_LIMIT).optional().describe('The HTML body to check'),
    text: z.string().max(SUPPLIED_LIMIT).optional().describe('Its text/plain alternative, if the mail will have one'),
    subject: z.string().max(998).optional().describe('Its subject line, if it has one (the spam and text checks read it)'),
    checks: z
      .union([Names, CommaList])
      .optional()
      .describe('Checks to run, as a list or comma-separated (default: all; GET /v1/checks lists them), e.g. "html,a11y,text"'),
    clients: z
      .union([Clients, CommaList])
      .optional()
      .describe('compat: client ids or globs, as a list or comma-separated, e.g. "gmail.*,outlook.windows"'),
    linkMode: z.enum(['static', 'reach']).optional().describe('.eml: static (default) or reach'),
  }),
  output: CheckReportView,
  audit: false,
  async handler(ctx, input) {
    const body = ctx.body;
    if (body && /^application\/json\b/i.test(body.contentType)) {
      let json: unknown;
      try {
        json = JSON.parse(body.bytes.toString('utf8'));
      } catch {
        throw new AppError('validation_failed', 'the body is not valid JSON; send {html, text?, subject?} or a .eml as message/rfc822');
      }
      const parsed = Supplied.safeParse(json);
      if (!parsed.success)
        throw new AppError(
          'validation_failed',
          `the JSON body must be {html, text?, subject?, checks?, clients?, links?}: ${parsed.error.issues[0]?.message}`,
          {
            errors: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
          },
        );
      const j = parsed.data;
      return ctx.services.checks.checkSupplied({ kind: 'html', html: j.html, text: j.text, subject: j.subject }, j, ctx.signal);
    }
    const req = { checks: input.checks, clients: input.clients, links: { mode: input.linkMode } };
    if (body && body.bytes.length > 0) {
      if (body.bytes.length > SUPPLIED_LIMIT)
        throw new AppError('payload_too_large', `the message is over ${SUPPLIED_LIMIT} bytes; check a smaller one`);
      return ctx.services.checks.checkSupplied({ kind: 'eml', raw: body.bytes }, req, ctx.signal);
    }
    if (input.html === undefined)
      throw new AppError('validation_failed', 'nothing to check: send a .eml (message/rfc822) or JSON {html, text?, subject?}', {
        errors: [{ path: 'html', message: 'required without a body' }],
      });
    return ctx.services.checks.checkSupplied({ kind: 'html', html: input.html, text: input.text, subject: input.subject }, req, ctx.signal);
  },
});

export const listChecks = op({
  name: 'checks.list',
  summary: 'List the message checks',
  description: 'The checks this server runs (name, description, rule/data version, rule ids): the names for checks and --checks.',
  access: 'read',
  http: { method: 'GET', path: '/v1/checks' },
  input: z.strictObject({}),
  output: z.object({
    items: z.array(z.object({ name: z.string(), description: z.string(), version: z.string(), rules: z.array(z.string()) })),
  }),
  handler(ctx) {
    return { items: ctx.services.checks.catalogue() };
  },
});

export const explainFinding = op({
  name: 'checks.explain',
  summary: 'Explain a check rule',
  description: 'What a rule of a check looks for, why it matters in mail clients, and how to fix a finding of it.',
  access: 'read',
  http: { method: 'GET', path: '/v1/checks/:check/rules/:rule' },
  tool: {
    name: 'svc_explain_finding',
    description: 'Explain a finding of a check (its check and rule): what it looks for, why it matters, how to fix the template.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    check: z.string().min(1).max(64).describe('The finding’s check, e.g. html, a11y, text, compat'),
    rule: z.string().min(1).max(200).describe('The finding’s rule, e.g. gmail-clipping, img-missing-alt'),
  }),
  output: z.object({
    check: z.string(),
    rule: z.string(),
    known: z.boolean().describe('False when the check does not document the rule (the answer then says less)'),
    title: z.string(),
    why: z.string(),
    fix: z.string(),
    docs: z.string().optional(),
  }),
  handler(ctx, input) {
    return ctx.services.checks.explain(input.check, input.rule);
  },
});

export const checkOps = [listChecks, checkSupplied, explainFinding, runChecks, lastReport];
