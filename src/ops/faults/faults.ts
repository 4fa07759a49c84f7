// Fault rules (issue 29, src/faults/): set, list and clear the rules of a scope (global, a label prefix, an inbox),
// and read what fired: an inbox's timeline and the team's fault log. README "Fault rules".
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { FaultAction, FaultMatch, FaultMode, FaultRuleInput, MAX_RULES_PER_SCOPE, STAGES } from '../../faults/rules.ts';
import type { FaultTarget } from '../../faults/service.ts';
import { InboxId, inboxOf, principal, singleLine } from '../common.ts';
import { op } from '../op.ts';
import { listOf } from '../views.ts';

const LabelPrefix = singleLine(z.string().min(1).max(200)).describe(
  'Rules for inboxes whose label starts with this; absent: global rules (unscoped admin key)',
);

const Rules = z
  .array(FaultRuleInput)
  .max(10_000)
  .describe(`The rules, in order (the first that replies or disconnects decides); at most ${MAX_RULES_PER_SCOPE} per scope; [] clears`);

export const FaultRuleView = z.object({
  ruleId: z.string().describe('flt_…; a new id (and fresh counters) each time the scope is set'),
  scope: z.union([
    z.object({ kind: z.literal('global') }),
    z.object({ kind: z.literal('prefix'), labelPrefix: z.string() }),
    z.object({ kind: z.literal('inbox'), inboxId: z.string(), address: z.string().nullable() }),
  ]),
  name: z.string().nullable(),
  stage: z.enum(STAGES),
  match: FaultMatch,
  action: FaultAction,
  mode: FaultMode,
  fired: z.number().int().describe('Times it fired on this instance since it was set'),
  createdAt: z.string(),
});

const FaultEventView = z.object({
  eventId: z.string(),
  inboxId: z.string().nullable(),
  ruleId: z.string().nullable().describe('null for a local-part shortcut'),
  source: z.enum(['rule', 'shortcut']),
  stage: z.string(),
  action: z.string(),
  code: z.number().int().nullable().describe('The reply code sent (null for delay, throttle, disconnect)'),
  reply: z.string().nullable(),
  sender: z.string().nullable(),
  recipient: z.string().nullable(),
  client: z.string().nullable().describe('The SMTP client address'),
  at: z.string(),
});

const Since = z.string().min(1).max(64).optional().describe('Only events at or after this ISO 8601 time');
const EventLimit = z.coerce.number().int().min(1).max(500).default(100).describe('At most this many (1-500, default 100)');

function sinceMs(since: string | undefined): number {
  if (since === undefined) return 0;
  const t = Date.parse(since);
  if (Number.isNaN(t))
    throw new AppError('validation_failed', `since must be an ISO 8601 time; got ${JSON.stringify(since)}`, {
      errors: [{ path: 'since', message: 'not an ISO 8601 time' }],
    });
  return t;
}

const target = (labelPrefix: string | undefined): FaultTarget =>
  labelPrefix === undefined ? { kind: 'global' } : { kind: 'prefix', labelPrefix };

export const setFaults = op({
  name: 'faults.set',
  summary: 'Set the global or label-prefix fault rules',
  description:
    'Replaces the fault rules of one scope: global (no labelPrefix; an unscoped admin key) or the inboxes whose label starts with labelPrefix (a scoped key: inside its own prefix). Counters start again. Rules act on SMTP at the stage they name; see README "Fault rules".',
  access: 'write',
  http: { method: 'PUT', path: '/v1/faults' },
  tool: {
    name: 'svc_set_fault_rules',
    description: 'Make SMTP misbehave to test retries (reply codes, disconnect, delay, throttle, rate limit, greylist, mailbox full).',
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  input: z.strictObject({ labelPrefix: LabelPrefix.optional(), rules: Rules }),
  output: z.object({ rules: z.array(FaultRuleView) }),
  audit: { action: 'faults.set' },
  async handler(ctx, input) {
    return { rules: await ctx.services.faults.setRules(principal(ctx), target(input.labelPrefix), input.rules) };
  },
});

export const listFaults = op({
  name: 'faults.list',
  summary: 'List fault rules',
  description:
    "The team's fault rules the key can see: global ones, those of label prefixes inside its scope and those of its inboxes, each with its scope and how often it fired. Filter with labelPrefix (that prefix's rules only) or inboxId.",
  access: 'read',
  http: { method: 'GET', path: '/v1/faults' },
  tool: {
    name: 'svc_list_fault_rules',
    description: 'List the SMTP fault rules in force (global, per label prefix, per inbox) and how often each fired.',
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({
    labelPrefix: LabelPrefix.optional().describe("Only this label prefix's rules"),
    inboxId: InboxId.optional().describe("Only this inbox's rules"),
  }),
  output: listOf(FaultRuleView),
  audit: false,
  async handler(ctx, input) {
    const t: FaultTarget | undefined =
      input.inboxId !== undefined
        ? { kind: 'inbox', inbox: inboxView(await inboxOf(ctx, input.inboxId)) }
        : input.labelPrefix !== undefined
          ? target(input.labelPrefix)
          : undefined;
    return { items: await ctx.services.faults.listRules(principal(ctx), t), nextCursor: null };
  },
});

export const clearFaults = op({
  name: 'faults.clear',
  summary: 'Delete the global or label-prefix fault rules',
  description:
    'Deletes the rules of one scope: global (no labelPrefix; an unscoped admin key) or one label prefix. Answers how many there were.',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/faults' },
  input: z.strictObject({ labelPrefix: LabelPrefix.optional() }),
  output: z.object({ deleted: z.number().int() }),
  audit: { action: 'faults.clear' },
  async handler(ctx, input) {
    return { deleted: await ctx.services.faults.clearRules(principal(ctx), target(input.labelPrefix)) };
  },
});

export const faultEvents = op({
  name: 'faults.events',
  summary: 'The fault log',
  description:
    "Faults that fired, newest first (kept 24 h): for an unscoped key all of the team's, including those at connect, ehlo, auth and mail and for addresses without an inbox; for a scoped key those of its inboxes.",
  access: 'read',
  http: { method: 'GET', path: '/v1/faults/events' },
  input: z.strictObject({ since: Since, limit: EventLimit }),
  output: listOf(FaultEventView),
  audit: false,
  async handler(ctx, input) {
    return { items: await ctx.services.faults.events(principal(ctx), sinceMs(input.since), input.limit), nextCursor: null };
  },
});

function inboxView(i: { id: string; team_id: string; label: string | null; address: string }) {
  return { id: i.id, teamId: i.team_id, label: i.label, address: i.address };
}

export const setInboxFaults = op({
  name: 'inboxes.faults.set',
  summary: "Set an inbox's fault rules",
  description:
    'Replaces the fault rules of one inbox (stages rcpt, data, end-of-data; they act on mail to its address only). Counters start again. [] clears them. See README "Fault rules".',
  access: 'write',
  http: { method: 'PUT', path: '/v1/inboxes/:id/faults' },
  tool: {
    name: 'svc_set_inbox_fault_rules',
    description: 'Make SMTP delivery to one inbox fail on purpose, e.g. 451 on the first two tries; [] clears.',
    args: { inboxId: 'id' },
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  input: z.strictObject({ id: InboxId, rules: Rules }),
  output: z.object({ rules: z.array(FaultRuleView) }),
  audit: { action: 'inboxes.faults.set', target: (i) => i.id },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return { rules: await ctx.services.faults.setRules(principal(ctx), { kind: 'inbox', inbox: inboxView(inbox) }, input.rules) };
  },
});

export const listInboxFaults = op({
  name: 'inboxes.faults.list',
  summary: "List an inbox's fault rules",
  description: 'The fault rules set on this inbox (not the global or label-prefix ones that may also apply: GET /v1/faults).',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/faults' },
  input: z.strictObject({ id: InboxId }),
  output: listOf(FaultRuleView),
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return { items: await ctx.services.faults.listRules(principal(ctx), { kind: 'inbox', inbox: inboxView(inbox) }), nextCursor: null };
  },
});

export const clearInboxFaults = op({
  name: 'inboxes.faults.clear',
  summary: "Delete an inbox's fault rules",
  description: "Deletes the inbox's fault rules; answers how many there were.",
  access: 'write',
  http: { method: 'DELETE', path: '/v1/inboxes/:id/faults' },
  input: z.strictObject({ id: InboxId }),
  output: z.object({ deleted: z.number().int() }),
  audit: { action: 'inboxes.faults.clear', target: (i) => i.id },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return { deleted: await ctx.services.faults.clearRules(principal(ctx), { kind: 'inbox', inbox: inboxView(inbox) }) };
  },
});

const TimelineItem = z.object({
  type: z.enum(['fault', 'message']),
  at: z.string(),
  fault: FaultEventView.optional().describe('type fault: the fault that fired'),
  message: z
    .object({ messageId: z.string(), subject: z.string().nullable(), from: z.string().nullable(), recipient: z.string().nullable() })
    .optional()
    .describe('type message: a message that arrived'),
});

export const inboxTimeline = op({
  name: 'inboxes.timeline',
  summary: "An inbox's timeline: faults that fired and mail that arrived",
  description:
    'The newest `limit` events since `since`, oldest first: each fault a rule or shortcut fired for mail to this inbox (stage, code, client) and each message that arrived. Shows that an app retried after a 4xx. `truncated`: older events exist.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/timeline' },
  tool: {
    name: 'svc_get_inbox_timeline',
    description: "An inbox's timeline: SMTP faults injected and messages that arrived, to see an app retry.",
    args: { inboxId: 'id' },
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({ id: InboxId, since: Since, limit: EventLimit }),
  output: z.object({ items: z.array(TimelineItem), truncated: z.boolean() }),
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    return ctx.services.faults.timeline(inbox.id, sinceMs(input.since), input.limit);
  },
});
