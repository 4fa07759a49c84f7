// The agent's operations: verify (get an address, wait, extract, act), open, recipes, the hub, and the self-test.
// The work is the agent capability's (src/agent/service.ts, Services.agent: verify, open, extract, selfTest); these
// check the request's shape, authorise, call one method and shape the answer.
import { z } from 'zod';
import { SelfTestReport } from '../../agent/autotest.ts';
import { VERIFY_DEFAULT_SECONDS } from '../../agent/service.ts';
import { VerifyResult } from '../../agent/verify.ts';
import { AppError } from '../../errors.ts';
import { getPreset, isPresetId, listPresets, PRESET_IDS, type PresetId } from '../../mail/presets.ts';
import { SCENARIOS } from '../../mail/simulate.ts';
import { runLabel } from '../../runs/document.ts';
import { NAME, VERSION } from '../../version.ts';
import { InboxId, inboxOf, principal, singleLine, waitCall } from '../common.ts';
import { CallbackUrl, FullAddress, Label, LocalPart, TtlMinutes } from '../inboxes/inboxes.ts';
import { asShared, type OpContext, op } from '../op.ts';

const presetOf = (s: string | null): PresetId | undefined => (isPresetId(s) ? s : undefined);

export { VERIFY_DEFAULT_SECONDS } from '../../agent/service.ts';
export const VERIFY_MAX_SECONDS = 120;

export const Service = z
  .enum(PRESET_IDS, { error: () => `service must be one of: ${PRESET_IDS.join(', ')}` })
  .describe(`One of the 25 presets: ${PRESET_IDS.join(', ')}`);
export const Since = singleLine(z.string().min(1).max(64)).describe(
  'Consider only mail after this ISO 8601 time or this message id (msg_…) of the inbox. Default: mail that arrived after the inbox was created and is newer than the message verify last returned on this inbox; a time before the inbox was created also takes mail sent to the address earlier (claimed by the inbox)',
);
export const SubjectContains = singleLine(z.string().min(1).max(500)).describe('Only mail whose subject contains this (case-insensitive)');
export const ExpectFrom = singleLine(z.string().min(1).max(320)).describe('Only mail whose sender contains this, e.g. github.com');

export const TimeoutSeconds = z
  .number()
  .int('timeoutSeconds must be a whole number')
  .min(1, 'timeoutSeconds must be at least 1 (leave it out to get an address without waiting)')
  .max(VERIFY_MAX_SECONDS, `timeoutSeconds must be at most ${VERIFY_MAX_SECONDS}`)
  .describe(`Seconds to wait for the mail (1-${VERIFY_MAX_SECONDS}, default ${VERIFY_DEFAULT_SECONDS})`);

export const verify = op({
  name: 'agent.verify',
  summary: 'Verify a signup: get an address, wait for the mail, extract the code or link',
  description: [
    'Rule 1 — only `service` (no `inboxId`, no `timeoutSeconds`): creates an inbox and answers `awaiting_message` with the address to type into the form (primaryAction `use_address`).',
    'Rule 2 — with `inboxId`: waits up to `timeoutSeconds` (default 60) for the mail and answers `verified` with the code (`otp`) or link, `received` when the mail has neither, or `timeout` (primaryAction `retry`).',
    'Rule 3 — `service` with `timeoutSeconds` > 0 and no `inboxId`: creates (or, with `localPart`/`address`, opens) the inbox and waits in one call; with `Accept: text/event-stream` it streams an `inbox` event with the address at once, `progress` events, then a `result` event.',
    'Verify uses the newest matching message that has a code or link, and keeps waiting past mail without one; `received` only when the time is up and no considered mail had either. A result is handed out once: the next verify on the inbox considers only newer mail, unless `since` (ISO time or msg_…) says otherwise. When the mail that arrived was handed out before, a streamed call sends a `handed_out` event first, and a `timeout` answer carries `alreadyHandedOut` with the `since` that gets it again.',
    '`deleteAfter: true` removes the inbox after a `verified` answer (kept on `received`, so rawUrl stays valid, and on `timeout`, so the retry works).',
  ].join(' '),
  access: 'write',
  streams: true,
  http: { method: 'POST', path: '/v1/agent/verify' },
  tool: {
    name: 'svc_verify_signup',
    description: 'Signup: with service (and runId: label agent-<runId>) get an address; call again with inboxId for the code or link.',
  },
  input: z.strictObject({
    service: Service.optional(),
    inboxId: InboxId.optional(),
    timeoutSeconds: TimeoutSeconds.optional(),
    deleteAfter: z.boolean().default(false).describe('Remove the inbox after answering (default false)'),
    localPart: LocalPart.optional(),
    address: FullAddress.optional(),
    label: Label.optional(),
    runId: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._:-]+$/, 'runId may contain letters, digits and . _ : -')
      .optional()
      .describe('Sets the label to agent-{runId}'),
    ttlMinutes: TtlMinutes.optional(),
    subjectContains: SubjectContains.optional(),
    expectFrom: ExpectFrom.optional(),
    since: Since.optional(),
  }),
  output: VerifyResult,
  audit: false,
  async handler(ctx, input) {
    if (input.runId !== undefined && input.label !== undefined)
      throw new AppError('validation_failed', 'give label or runId, not both (runId sets the label to agent-{runId})', {
        errors: [{ path: 'runId', message: 'conflicts with label' }],
      });
    // The same label a run gets (agent-<runId>, under a scoped key's prefix when it needs one), so verify's inboxes
    // and svc_start_run's share it.
    const label = input.runId !== undefined ? runLabel(principal(ctx), input.runId) : input.label;
    if (input.inboxId !== undefined) {
      if (input.localPart !== undefined || input.address !== undefined || label !== undefined) {
        throw new AppError('validation_failed', 'with inboxId, verify waits on that inbox: leave out localPart, address, label and runId', {
          errors: [{ path: 'inboxId', message: 'conflicts with inbox creation fields' }],
        });
      }
    } else if (input.service === undefined && input.localPart === undefined && input.address === undefined) {
      throw new AppError(
        'validation_failed',
        `give a service (${PRESET_IDS.join(', ')}) to get a fresh address, or an inboxId to wait for its mail`,
        { errors: [{ path: 'service', message: 'required without inboxId' }] },
      );
    }
    const { runId: _runId, ...request } = input;
    return asShared(await ctx.services.agent.verify(principal(ctx), waitCall(ctx), { ...request, label }));
  },
});

export const openInbox = op({
  name: 'inboxes.open',
  summary: 'Open an inbox and wait for its verification mail in one call',
  description:
    'Creates the inbox (or opens the one at `localPart`/`address`), waits up to `timeoutSeconds` (default 60, max 120) for mail matching `expectFrom`/`subjectContains`, extracts the code or link, and deletes the inbox afterwards unless `deleteAfter` is false. Mail that reached the address before the inbox existed is claimed by it but handed out only with a `since` time before that. Never answers 408: a timeout is `status: "timeout"`. With `Accept: text/event-stream` it streams `inbox`, `progress` and `result` events.',
  access: 'write',
  streams: true,
  http: { method: 'POST', path: '/v1/inboxes/open' },
  input: z.strictObject({
    service: Service.optional(),
    expectFrom: ExpectFrom.optional(),
    timeoutSeconds: TimeoutSeconds.default(VERIFY_DEFAULT_SECONDS),
    ttlMinutes: TtlMinutes.optional(),
    deleteAfter: z.boolean().default(true).describe('Remove the inbox after answering (default true)'),
    label: Label.optional(),
    subjectContains: SubjectContains.optional(),
    callbackUrl: CallbackUrl.optional(),
    localPart: LocalPart.optional(),
    address: FullAddress.optional(),
    since: Since.optional(),
  }),
  output: VerifyResult,
  audit: false,
  async handler(ctx, input) {
    // A created inbox's callback secret makes the answer its own (no shared encoding): asShared leaves it as it is.
    return asShared(await ctx.services.agent.open(principal(ctx), waitCall(ctx), input));
  },
});

export const extract = op({
  name: 'inboxes.extract',
  summary: 'Extract verification data from an inbox',
  description:
    'The code, link and primary action of the newest message that has a code or link (else the newest message; or of `messageId`), without waiting. `awaiting_message` when the inbox has no mail yet.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/extract' },
  tool: {
    name: 'svc_extract_verification',
    description: "Get the code, link and next action from an inbox's newest message (or messageId) without waiting.",
    args: { inboxId: 'id' },
  },
  input: z.strictObject({
    id: InboxId,
    messageId: z.string().min(1).max(64).optional().describe('Extract from this message instead of picking one'),
    service: Service.optional(),
  }),
  output: VerifyResult,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return ctx.services.agent.extract(inbox, input.messageId, input.service ?? presetOf(inbox.service));
  },
});

// The structured-extraction presets (GET …/extract/presets) moved to src/ops/ai/extract.ts.

const RecipeView = z.object({
  service: z.string(),
  displayName: z.string(),
  senderDomains: z.array(z.string()),
  sends: z.enum(['code', 'link', 'both']),
  code: z
    .object({ lengths: z.array(z.number().int()), alphabet: z.enum(['digits', 'alphanumeric']), prefix: z.string().optional() })
    .nullable(),
  summary: z.string(),
  steps: z.array(z.string()),
});

function recipeView(id: (typeof PRESET_IDS)[number]): z.infer<typeof RecipeView> {
  const p = getPreset(id);
  return {
    service: p.id,
    displayName: p.displayName,
    senderDomains: p.senderDomains,
    sends: p.sends,
    code: p.code ?? null,
    summary: p.recipe.summary,
    steps: p.recipe.steps,
  };
}

export const recipes = op({
  name: 'agent.recipes',
  summary: 'List the service recipes',
  access: 'read',
  http: { method: 'GET', path: '/v1/agent/recipes' },
  input: z.strictObject({}),
  output: z.object({ items: z.array(RecipeView), nextCursor: z.null() }),
  handler() {
    return { items: listPresets().map((p) => recipeView(p.id)), nextCursor: null };
  },
});

export const recipe = op({
  name: 'agent.recipe',
  summary: 'Get the recipe of one service preset',
  access: 'read',
  http: { method: 'GET', path: '/v1/agent/recipes/:service' },
  input: z.strictObject({ service: Service }),
  output: RecipeView,
  handler(_ctx, input) {
    return recipeView(input.service);
  },
});

export const hub = op({
  name: 'agent.hub',
  summary: 'Agent hub: presets, recipes, the verify contract, test and self-test URLs',
  access: 'public',
  http: { method: 'GET', path: '/v1/agent' },
  input: z.strictObject({}),
  output: z.object({
    name: z.string(),
    version: z.string(),
    services: z.array(z.string()),
    recipesUrl: z.string(),
    verify: z.object({ endpoint: z.string(), rules: z.array(z.string()), statuses: z.array(z.string()), actionTypes: z.array(z.string()) }),
    simulateScenarios: z.array(z.string()),
    testUrl: z.string(),
    autotestUrl: z.string(),
    mcp: z.string(),
    tools: z.array(z.string()),
  }),
  audit: false,
  handler(ctx) {
    const base = ctx.services.baseUrl();
    return {
      name: NAME,
      version: VERSION,
      services: [...PRESET_IDS],
      recipesUrl: `${base}/v1/agent/recipes`,
      verify: {
        endpoint: `POST ${base}/v1/agent/verify`,
        rules: [
          '{"service":"github"} → status awaiting_message, agent.primaryAction {type:"use_address", value:<address>}: type the address into the signup form.',
          '{"inboxId":"inb_…","service":"github","timeoutSeconds":60} → waits; status verified with agent.primaryAction {type:"otp"|"link", value, instruction}, received (type "manual", read rawUrl), or timeout (type "retry").',
          '{"service":"github","timeoutSeconds":60} → create and wait in one call; send Accept: text/event-stream to get the address at once (event "inbox"), then "progress" and "result" events.',
          'deleteAfter:true removes the inbox after a verified answer (a timeout keeps it for the retry).',
          'Verify uses the newest mail with a code or link and hands each result out once: the next verify on the inbox waits for newer mail unless since (ISO time or msg_…) says otherwise.',
        ],
        statuses: ['awaiting_message', 'verified', 'received', 'timeout'],
        actionTypes: ['use_address', 'otp', 'link', 'manual', 'retry'],
      },
      simulateScenarios: [...SCENARIOS],
      testUrl: `${base}/v1/agent/test`,
      autotestUrl: `${base}/v1/agent/autotest`,
      mcp: `${base}/mcp`,
      tools: ctx.operations.flatMap((o) => (o.tool ? [o.tool.name] : [])),
    };
  },
});

export const autotest = op({
  name: 'agent.autotest',
  summary: 'Self-test: create an inbox, simulate mail, verify, clean up',
  description: 'Runs the whole flow end to end inside this server and reports pass/fail with timings. Needs a key that may create inboxes.',
  access: 'write',
  http: { method: 'GET', path: '/v1/agent/autotest' },
  input: z.strictObject({}),
  output: SelfTestReport,
  audit: false,
  handler(ctx: OpContext) {
    return ctx.services.agent.selfTest(principal(ctx), waitCall(ctx));
  },
});

export const agentOps = [hub, verify, recipes, recipe, autotest, openInbox, extract];
