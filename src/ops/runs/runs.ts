// Agent runs (CONTRACT §14): one place for an agent's plan, inboxes and history across several signups, and for a
// human to review it afterwards. Tools svc_start_run … svc_patch_run_session; REST twins under /v1/agent/runs.
// Each calls the RunService (src/runs/service.ts, Services.runs) and shapes its answer (src/runs/views.ts).
import { z } from 'zod';
import { TTL_MAX_MINUTES } from '../../inboxes/service.ts';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { getPreset } from '../../mail/presets.ts';
import { expectationOf, MAX_SERVICES, RUN_STATUSES } from '../../runs/model.ts';
import { instructionFor, mailView, PLAN_ACTIONS } from '../../runs/plan.ts';
import { timelineCursorOf } from '../../runs/records.ts';
import {
  iso,
  MailView,
  Metadata,
  RunId,
  RunOutcomeView,
  RunView,
  runOutcomeView,
  runView,
  ServiceName,
  ServiceView,
  StepView,
  serviceView,
  stepView,
} from '../../runs/views.ts';
import { principal } from '../common.ts';
import { TtlMinutes } from '../inboxes/inboxes.ts';
import { op } from '../op.ts';
import { Cursor, Limit } from '../views.ts';

export const startRunOp = op({
  name: 'runs.start',
  summary: 'Start an agent run',
  description:
    'Creates a run for a goal and its services: label agent-<runId>, four steps per service (get_address, submit_form, wait_for_mail, use_verification). `createInboxes: true` makes every service’s inbox now; otherwise svc_next_run makes each when its turn comes. The run expires with its inboxes (ttlMinutes) or after retentionMinutes.',
  access: 'write',
  http: { method: 'POST', path: '/v1/agent/runs', status: 201 },
  tool: {
    name: 'svc_start_run',
    description: 'Start a signup run for a goal needing accounts at services; then loop svc_next_run, do it, svc_report_run.',
  },
  input: z.strictObject({
    goal: z.string().trim().min(1).max(1000).describe('What the run is for, in a sentence'),
    services: z
      .array(ServiceName)
      .min(1, 'give at least one service')
      .max(MAX_SERVICES, `a run has at most ${MAX_SERVICES} services; split the task into several runs`)
      .describe(`The services to sign up to, in order: preset names (e.g. github) or any name; at most ${MAX_SERVICES}`),
    ttlMinutes: TtlMinutes.default(60),
    retentionMinutes: z
      .number()
      .int()
      .min(1)
      .max(TTL_MAX_MINUTES)
      .optional()
      .describe(`Keep the run this long (1-${TTL_MAX_MINUTES} minutes) instead of as long as its inboxes`),
    metadata: Metadata.optional(),
    createInboxes: z.boolean().default(false).describe('Create every service’s inbox now (default: one at a time, by svc_next_run)'),
  }),
  output: RunView,
  audit: { action: 'run.start', target: (_i, o) => o.runId },
  async handler(ctx, input) {
    return runView(await ctx.services.runs.start(principal(ctx), input));
  },
});

export const listRunsOp = op({
  name: 'runs.list',
  summary: 'List agent runs',
  description: 'Runs in the key’s scope, newest first; filter by status.',
  access: 'read',
  http: { method: 'GET', path: '/v1/agent/runs' },
  input: z.strictObject({ status: z.enum(RUN_STATUSES).optional(), limit: Limit, cursor: Cursor }),
  output: z.object({ items: z.array(RunView), nextCursor: z.string().nullable() }),
  async handler(ctx, input) {
    const before = decodeCursor(input.cursor, (v): v is { c: number; i: string } => {
      const o = v as { c?: unknown; i?: unknown };
      return typeof v === 'object' && v !== null && typeof o.c === 'number' && typeof o.i === 'string';
    });
    const rows = await ctx.services.runs.list(principal(ctx), { status: input.status, limit: input.limit + 1, before });
    return pageOf(rows, input.limit, runView, (r) => ({ c: r.createdAt, i: r.id }));
  },
});

export const getRunSessionOp = op({
  name: 'runs.get',
  summary: 'Get an agent run (its session document)',
  access: 'read',
  http: { method: 'GET', path: '/v1/agent/runs/:id' },
  tool: {
    name: 'svc_get_run_session',
    description: 'Read a run: goal, status, services with inboxes and addresses, steps, metadata, notes and version.',
    args: { runId: 'id' },
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({ id: RunId }),
  output: RunView,
  async handler(ctx, input) {
    return runView(await ctx.services.runs.load(principal(ctx), input.id));
  },
});

export const patchRunSessionOp = op({
  name: 'runs.patch',
  summary: 'Change a run’s status, metadata or notes',
  description:
    'status: active | succeeded | failed | abandoned (succeeded is final: 409); metadata: a JSON Merge Patch (RFC 7396: null removes a key); notes replaces the notes; ifVersion: 409 when the run changed since you read it.',
  access: 'write',
  http: { method: 'PATCH', path: '/v1/agent/runs/:id' },
  tool: {
    name: 'svc_patch_run_session',
    description: 'Update a run: status, metadata (merge patch; secrets masked), notes. Pass ifVersion to avoid lost updates.',
    args: { runId: 'id' },
  },
  input: z.strictObject({
    id: RunId,
    status: z
      .enum(RUN_STATUSES)
      .optional()
      .describe('New status: active, succeeded, failed or abandoned (succeeded is final; going back from it is 409)'),
    metadata: Metadata.optional(),
    notes: z.string().max(10_000).nullable().optional().describe('Free notes for the reviewer; replaces the notes, null clears them'),
    ifVersion: z.number().int().min(1).optional().describe('The run version you read; 409 if the run changed since'),
  }),
  output: RunView,
  audit: { action: 'run.patch', target: (i) => i.id },
  async handler(ctx, input) {
    return runView(await ctx.services.runs.patchById(principal(ctx), input.id, input));
  },
});

export const nextRunOp = op({
  name: 'runs.next',
  summary: 'Get (and start) the next step of a run',
  description:
    'Marks the first unfinished step active (a failed step comes back for another attempt), makes the service’s inbox when it has none, and answers with everything the step needs: the address, the preset’s recipe, what mail to expect. `step` is null when every step is finished.',
  access: 'write',
  http: { method: 'POST', path: '/v1/agent/runs/:id/next' },
  tool: {
    name: 'svc_next_run',
    description: 'The next step of a run (get_address, submit_form, wait_for_mail, use_verification) with what to do.',
    args: { runId: 'id' },
  },
  input: z.strictObject({ id: RunId }),
  output: z.object({
    runId: z.string(),
    status: z.enum(RUN_STATUSES),
    step: StepView.nullable(),
    service: ServiceView.nullable(),
    instruction: z.string(),
    recipe: z.object({ summary: z.string(), steps: z.array(z.string()) }).nullable(),
    waitFor: z
      .object({
        sends: z.enum(['code', 'link', 'both', 'unknown']),
        senderDomains: z.array(z.string()),
        codeShape: z.string().nullable(),
      })
      .nullable(),
    mail: MailView.nullable().describe('The newest mail of the service with a code or link, if any arrived'),
    remainingSteps: z.number().int(),
    outcome: RunOutcomeView.nullable().describe('How the run ended, when step is null (a finished run); null while there is a step'),
  }),
  audit: { action: 'run.next', target: (i) => i.id },
  async handler(ctx, input) {
    const { run, step, service: svc, mail, outcome } = await ctx.services.runs.nextById(principal(ctx), input.id);
    const remaining = run.steps.filter((x) => x.status !== 'done' && x.status !== 'skipped').length;
    if (!step || !svc)
      return {
        runId: run.id,
        status: run.status,
        step: null,
        service: null,
        instruction: finishedInstruction(run.status, remaining),
        recipe: null,
        waitFor: null,
        mail: null,
        remainingSteps: remaining,
        outcome: outcome && runOutcomeView(outcome),
      };
    return {
      runId: run.id,
      status: run.status,
      step: stepView(step),
      service: serviceView(svc),
      instruction: instructionFor(step, svc, mail),
      recipe: svc.preset ? getPreset(svc.preset).recipe : null,
      waitFor: step.kind === 'wait_for_mail' || step.kind === 'use_verification' ? expectationOf(svc) : null,
      mail: mail ? mailView(mail) : null,
      remainingSteps: remaining,
      outcome: null,
    };
  },
});

/** What svc_next_run says when it hands out no step (README "Driving a signup run from an agent"). */
function finishedInstruction(status: (typeof RUN_STATUSES)[number], remaining: number): string {
  if (status === 'succeeded')
    return 'The run succeeded: every step is done or skipped and nothing is left to do. outcome lists each service’s address and how its verification ended.';
  if (status === 'active')
    return 'Every step is finished. Set the run’s status with svc_patch_run_session (succeeded, failed or abandoned).';
  return `The run is ${status}; no step is handed out (${remaining} step${remaining === 1 ? '' : 's'} unfinished). To try again, set its status to active with svc_patch_run_session, then call svc_next_run: the unfinished steps come back.`;
}

export const reportRunOp = op({
  name: 'runs.report',
  summary: 'Report the outcome of a run step',
  description:
    'outcome done | failed | skipped, with an optional note. 409 when the step does not exist or is already done or skipped, or the run is not active. The run succeeds when every step is done or skipped.',
  access: 'write',
  http: { method: 'POST', path: '/v1/agent/runs/:id/report' },
  tool: {
    name: 'svc_report_run',
    description: "Report a step's outcome: done, failed (with a note; it is retried) or skipped.",
    args: { runId: 'id' },
  },
  input: z.strictObject({
    id: RunId,
    stepId: z.string().min(1).max(100).describe('The stepId from svc_next_run, e.g. 1.submit_form'),
    outcome: z.enum(['done', 'failed', 'skipped']).describe('How the step ended: done, failed (it comes back for another try) or skipped'),
    note: z.string().trim().min(1).max(1000).optional().describe('What happened, in a few words (never a password or code)'),
  }),
  output: z.object({ runId: z.string(), status: z.enum(RUN_STATUSES), step: StepView, remainingSteps: z.number().int() }),
  audit: { action: 'run.report', target: (i) => `${i.id}/${i.stepId}` },
  async handler(ctx, input) {
    const { run, step } = await ctx.services.runs.reportById(principal(ctx), input.id, input.stepId, input.outcome, input.note);
    const remainingSteps = run.steps.filter((x) => x.status !== 'done' && x.status !== 'skipped').length;
    return { runId: run.id, status: run.status, step: stepView(step), remainingSteps };
  },
});

export const planNextOp = op({
  name: 'runs.plan',
  summary: 'Suggest what to do next in a run',
  description:
    'Changes nothing. Reads the run and the mail of its inboxes and answers suggestions, most useful first: the code to type when it arrived, the link to open, "no mail after 90 s: check the address, then resend" … With waitSeconds (up to 120) it first waits for a code or link when the current step expects one.',
  access: 'read',
  streams: true,
  http: { method: 'GET', path: '/v1/agent/runs/:id/plan' },
  tool: {
    name: 'svc_plan_next',
    description: 'What to do next in a run from its steps and mail (type_code, open_link, wait, resend). Changes nothing.',
    args: { runId: 'id' },
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({
    id: RunId,
    waitSeconds: z.coerce
      .number()
      .int('waitSeconds must be a whole number')
      .min(0)
      .max(120, 'waitSeconds must be at most 120')
      .default(0)
      .describe('Wait up to this long for a code or link first (0-120, default 0)'),
  }),
  output: z.object({
    runId: z.string(),
    status: z.enum(RUN_STATUSES),
    step: StepView.nullable(),
    service: ServiceView.nullable(),
    mail: MailView.nullable(),
    suggestions: z.array(z.object({ action: z.enum(PLAN_ACTIONS), value: z.string().nullable(), reason: z.string() })).min(1),
  }),
  async handler(ctx, input) {
    const { run, plan } = await ctx.services.runs.planById(principal(ctx), input.id, input.waitSeconds, ctx.signal, (ms) =>
      ctx.emit?.('progress', { elapsedSeconds: Math.round(ms / 1000), timeoutSeconds: input.waitSeconds }),
    );
    return {
      runId: run.id,
      status: run.status,
      step: plan.step ? stepView(plan.step) : null,
      service: plan.service ? serviceView(plan.service) : null,
      mail: plan.mail,
      suggestions: plan.suggestions,
    };
  },
});

export const runTimelineOp = op({
  name: 'runs.timeline',
  summary: 'A run’s timeline',
  description:
    'Every event of the run in order: run.started, inbox.created, step.started, message.received, code.extracted, step.done / step.failed / step.skipped, session.patched, access.issued, run.finished. Mail events come from the run’s inboxes, including mail that arrived while nobody was looking.',
  access: 'read',
  http: { method: 'GET', path: '/v1/agent/runs/:id/timeline' },
  tool: {
    name: 'svc_get_run_timeline',
    description: "A run's history, oldest first: inboxes, mail, extractions (codes masked), steps, changes, tokens.",
    args: { runId: 'id' },
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({ id: RunId, limit: Limit, cursor: Cursor }),
  output: z.object({
    runId: z.string(),
    label: z.string(),
    items: z.array(
      z.object({
        seq: z.number().int(),
        at: z.string(),
        type: z.string(),
        stepId: z.string().nullable(),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
  async handler(ctx, input) {
    const { run, items } = await ctx.services.runs.timelineById(principal(ctx), input.id, input.limit + 1, input.cursor);
    const page = pageOf(
      items,
      input.limit,
      (e) => ({ seq: e.seq, at: iso(e.at)!, type: e.type, stepId: e.stepId, data: e.data }),
      timelineCursorOf,
    );
    return { runId: run.id, label: run.label, ...page };
  },
});

export const runOps = [startRunOp, listRunsOp, getRunSessionOp, patchRunSessionOp, nextRunOp, reportRunOp, planNextOp, runTimelineOp];
