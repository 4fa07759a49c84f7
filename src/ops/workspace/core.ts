// The workspace preview (CONTRACT §13): the hub, summaries, drafts that never send, the policy and its safety
// rules. Reminders, actions and today are in workspace-tasks.ts; execute-reply in workspace-exec.ts; monitors in
// workspace-monitors.ts.
import { z } from 'zod';
import type { Policy } from '../../workspace/repo.ts';
import { ruleList } from '../../workspace/rules.ts';
import { iso, POLICY_MODES, type PolicyMode } from '../../workspace/tables.ts';
import { InboxId, MessageId, principal } from '../common.ts';
import { op } from '../op.ts';
import { PreviewStatus, Source, STATUS, SuppliedMessage } from './common.ts';

const Engine = z
  .enum(['auto', 'builtin'])
  .default('auto')
  .describe('auto (default): the model chain, then the built-in engine; builtin: offline engine only');
const EngineMeta = {
  engine: z.enum(['builtin', 'model']).describe('Which engine wrote the answer'),
  model: z.string().nullable().describe('provider:model of the link that answered; null for the built-in engine'),
  fallbacks: z.array(z.object({ model: z.string(), error: z.string() })).describe('Links tried first, and why each was skipped'),
};

const Mode = z.enum(POLICY_MODES as unknown as ['draft_only', 'auto_send_safe', 'full_auto'], {
  error: `mode must be one of ${POLICY_MODES.join(', ')}`,
});
const Settings = z.strictObject({
  maxPerThreadPerDay: z.number().int().min(0).max(100).optional().describe('Automatic replies per thread in 24 h (default 1)'),
  maxPerDay: z.number().int().min(0).max(10_000).optional().describe('Automatic replies per team in 24 h (default 50)'),
  maxLength: z.number().int().min(1).max(20_000).optional().describe('Longest reply sent without a person, in characters (default 1200)'),
  allowRecipientDomains: z
    .array(z.string().trim().toLowerCase().min(1).max(253))
    .max(200)
    .optional()
    .describe('When set, automatic replies go only to these domains'),
});
const PolicyView = z.object({
  status: PreviewStatus,
  mode: Mode,
  settings: z.object({
    maxPerThreadPerDay: z.number(),
    maxPerDay: z.number(),
    maxLength: z.number(),
    allowRecipientDomains: z.array(z.string()),
  }),
  rules: z.array(z.object({ name: z.string(), description: z.string(), appliesTo: z.array(z.string()) })),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable().describe('Key id (key_…) that last set the policy'),
});
const policyView = (p: Policy) => ({
  status: STATUS,
  mode: p.mode,
  settings: p.settings,
  rules: ruleList(),
  updatedAt: p.updatedAt === null ? null : iso(p.updatedAt),
  updatedBy: p.updatedBy,
});

export const hubOp = op({
  name: 'workspace.hub',
  summary: 'Workspace preview hub',
  description: 'Status autonomy_preview, the policy, model readiness, counts and the workspace routes and tools.',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace' },
  input: z.strictObject({}),
  output: z.object({
    status: PreviewStatus,
    policy: PolicyView,
    models: z.object({ fallbackOrder: z.array(z.string()), ready: z.boolean() }),
    counts: z.object({ remindersOpen: z.number(), draftsPending: z.number(), monitors: z.number(), actions: z.number() }),
    routes: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string(), tool: z.string().nullable() })),
  }),
  async handler(ctx) {
    const h = await ctx.services.workspace.hub(principal(ctx));
    return {
      status: STATUS,
      policy: policyView(h.policy),
      models: h.models,
      counts: h.counts,
      routes: ctx.operations
        .filter((o) => o.http?.path.startsWith('/v1/workspace'))
        .map((o) => ({ method: o.http!.method, path: o.http!.path, summary: o.summary, tool: o.tool?.name ?? null })),
    };
  },
});

export const summarizeOp = op({
  name: 'workspace.summarize',
  summary: 'Summarize a mail thread',
  description:
    'A stored thread (inboxId + threadId), one stored message (inboxId + messageId) or supplied messages. Returns a summary, key points, the questions asked and the dates mentioned. Works offline with the built-in engine.',
  access: 'read',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/summarize' },
  tool: {
    name: 'svc_workspace_summarize',
    description: 'Summarize a thread (stored or supplied messages): summary, key points, open questions, dates, people.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({ ...Source, engine: Engine }),
  output: z.object({
    status: PreviewStatus,
    summary: z.string(),
    keyPoints: z.array(z.string()),
    questions: z.array(z.object({ text: z.string(), from: z.string(), messageIndex: z.number() })),
    dates: z.array(z.object({ text: z.string(), date: z.string().nullable(), sentence: z.string() })),
    participants: z.array(z.string()),
    messageCount: z.number(),
    ...EngineMeta,
  }),
  async handler(ctx, input) {
    return { status: STATUS, ...(await ctx.services.workspace.summarize(principal(ctx), input, ctx.signal)) };
  },
});

export const draftReplyOp = op({
  name: 'workspace.draft_reply',
  summary: 'Draft a reply (never sends)',
  description:
    'Drafts a reply to the newest inbound message: answers the questions the notes or earlier mail can answer and names the others. A draft of stored mail is kept (draftId) for the today view and execute-reply. Never sends, whatever the policy.',
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/draft-reply' },
  tool: {
    name: 'svc_workspace_draft_reply',
    description: 'Draft a reply to a thread without sending; returns the draft and which questions it answered.',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({
    ...Source,
    notes: z.array(z.string().max(4000)).max(20).optional().describe('Facts the draft may use to answer questions'),
    engine: Engine,
  }),
  output: z.object({
    status: PreviewStatus,
    draftId: z.string().nullable().describe('drf_… for stored mail; null for supplied messages'),
    to: z.string().nullable(),
    subject: z.string(),
    text: z.string(),
    answered: z.array(z.object({ question: z.string(), answer: z.string() })),
    unanswered: z.array(z.string()),
    confidence: z.number(),
    sent: z.literal(false).describe('Drafting never sends'),
    ...EngineMeta,
  }),
  async handler(ctx, input) {
    const d = await ctx.services.workspace.draftReply(principal(ctx), input, ctx.signal);
    return { status: STATUS, ...d, sent: false as const };
  },
});

export const getPolicyOp = op({
  name: 'workspace.get_policy',
  summary: 'Read the workspace policy',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/policy' },
  tool: {
    name: 'svc_workspace_get_policy',
    description: 'Read the workspace policy: mode (draft_only, auto_send_safe, full_auto), limits and safety rules.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: PolicyView,
  async handler(ctx) {
    return policyView(await ctx.services.workspace.policy(principal(ctx)));
  },
});

export const setPolicyOp = op({
  name: 'workspace.set_policy',
  summary: 'Set the workspace policy (admin)',
  description: 'Unscoped admin keys only. Settings not given keep their current values.',
  access: 'admin',
  http: { method: 'PUT', path: '/v1/workspace/policy' },
  tool: {
    name: 'svc_workspace_set_policy',
    description: 'Set the workspace policy mode and limits (unscoped admin key).',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    mode: Mode.describe('draft_only (never send), auto_send_safe (send only replies passing every rule) or full_auto'),
    settings: Settings.optional().describe('Limits of automatic sending; omitted fields keep their value'),
  }),
  output: PolicyView,
  audit: { action: 'workspace.policy.set', target: (i) => i.mode },
  async handler(ctx, input) {
    return policyView(await ctx.services.workspace.setPolicy(principal(ctx), input.mode as PolicyMode, input.settings));
  },
});

const CheckView = z.object({ rule: z.string(), passed: z.boolean(), detail: z.string() });

export const rulesStatusOp = op({
  name: 'workspace.rules_status',
  summary: 'List the safety rules and the current mode',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/rules' },
  tool: {
    name: 'svc_workspace_rules_status',
    description: 'The safety rules gating automatic replies, the policy mode, and last-24-hour send counts.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({
    status: PreviewStatus,
    mode: Mode,
    rules: z.array(z.object({ name: z.string(), description: z.string(), appliesTo: z.array(z.string()) })),
    last24h: z.object({ sent: z.number(), draft: z.number(), blocked: z.number() }),
  }),
  async handler(ctx) {
    const r = await ctx.services.workspace.rulesStatus(principal(ctx));
    return { status: STATUS, mode: r.mode, rules: ruleList(), last24h: r.last24h };
  },
});

export const rulesEvaluateOp = op({
  name: 'workspace.rules_evaluate',
  summary: 'Evaluate the safety rules on a reply (dry run)',
  description:
    'Runs every rule on a reply to a stored message (inboxId + messageId) or a supplied message, and says which pass or fail and why, and what each mode would do. Stores, sends and logs nothing.',
  access: 'read',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/rules/evaluate' },
  tool: {
    name: 'svc_workspace_rules_evaluate',
    description: "Dry-run the safety rules on a reply to a message: each rule's verdict and the outcome per mode.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    inboxId: InboxId.optional(),
    messageId: MessageId.optional(),
    message: SuppliedMessage.extend({
      headers: z.record(z.string().max(100), z.string().max(2000)).optional().describe('Headers of the message, e.g. Auto-Submitted'),
    })
      .optional()
      .describe('A message to evaluate instead of a stored one'),
    text: z.string().max(100_000).optional().describe('The reply text to evaluate'),
    html: z.string().max(200_000).optional().describe('The reply HTML, if any (its links are checked too)'),
    attachmentCount: z.number().int().min(0).max(100).optional().describe('Attachments the reply would carry'),
  }),
  output: z.object({
    status: PreviewStatus,
    mode: Mode,
    outcome: z.enum(['sent', 'drafted', 'blocked']).describe('What execute-reply would do under the current mode'),
    outcomes: z.object({ draft_only: z.string(), auto_send_safe: z.string(), full_auto: z.string() }),
    reasons: z.array(z.string()),
    checks: z.array(CheckView),
    reply: z.object({ to: z.string(), text: z.string() }),
  }),
  async handler(ctx, input) {
    return { status: STATUS, ...(await ctx.services.workspace.evaluate(principal(ctx), input, ctx.signal)) };
  },
});

export const workspaceOps = [hubOp, summarizeOp, draftReplyOp, getPolicyOp, setPolicyOp, rulesStatusOp, rulesEvaluateOp];
