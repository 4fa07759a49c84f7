// Operations made for agents driving inboxd through MCP: wait-and-extract on an existing inbox, a quick check, a
// diagnosis with hints (AgentService.diagnose), bulk cleanup (InboxService.cleanup), preset suggestion and issuing an
// access token (src/runs/access.ts). Each validates, authorises, calls one service method and shapes the answer.
import { z } from 'zod';
import { VerifyResult } from '../../agent/verify.ts';
import { AppError } from '../../errors.ts';
import { waitFields } from '../../inboxes/wait.ts';
import { getPreset, isPresetId, listPresets, type PresetId, serviceFromAddress } from '../../mail/presets.ts';
import { InboxId, inboxOf, principal, singleLine, waitCall } from '../common.ts';
import { Label } from '../inboxes/inboxes.ts';
import { asShared, op } from '../op.ts';
import { InboxView, inboxView, MessageSummary, messageSummary } from '../views.ts';
import { ExpectFrom, Service, Since, SubjectContains, TimeoutSeconds, VERIFY_DEFAULT_SECONDS } from './agent.ts';

const presetOf = (s: string | null): PresetId | undefined => (isPresetId(s) ? s : undefined);

export const waitAndExtractOp = op({
  name: 'inboxes.wait_and_extract',
  summary: 'Wait for mail in an existing inbox and extract the code or link',
  access: 'read',
  streams: true,
  tool: {
    name: 'svc_wait_and_extract',
    description: 'After submitting a form: wait for the verification mail; agent.primaryAction says what to type or open.',
  },
  input: z.strictObject({
    inboxId: InboxId,
    service: Service.optional(),
    timeoutSeconds: TimeoutSeconds.optional(),
    subjectContains: SubjectContains.optional(),
    expectFrom: ExpectFrom.optional(),
    since: Since.optional(),
    deleteAfter: z.boolean().default(false).describe('Remove the inbox after a verified answer (default false)'),
  }),
  output: VerifyResult,
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.inboxId);
    if (input.deleteAfter && principal(ctx).scope.readOnly)
      throw new AppError('forbidden', 'this key is read-only and cannot delete the inbox (deleteAfter)');
    return asShared(
      await ctx.services.agent.waitAndExtract(waitCall(ctx), {
        inbox,
        service: input.service ?? presetOf(inbox.service),
        timeoutSeconds: input.timeoutSeconds ?? VERIFY_DEFAULT_SECONDS,
        ...waitFields(input),
      }),
    );
  },
});

export const checkEmail = op({
  name: 'inboxes.check',
  summary: 'Check an inbox for mail without waiting',
  access: 'read',
  tool: {
    name: 'svc_check_email',
    description: 'Quick look without waiting: message count, the newest few and the next action for the newest.',
  },
  input: z.strictObject({
    inboxId: InboxId,
    limit: z.number().int().min(1).max(20).default(5).describe('How many of the newest messages to list (1-20, default 5)'),
  }),
  output: z.object({ inbox: InboxView, messageCount: z.number().int(), latest: z.array(MessageSummary), newest: VerifyResult }),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.inboxId);
    const { latest, count, newest } = await ctx.services.agent.check(inbox, input.limit, presetOf(inbox.service));
    const baseUrl = ctx.services.baseUrl();
    return { inbox: inboxView(inbox), messageCount: count, latest: latest.map((m) => messageSummary(m, baseUrl)), newest };
  },
});

export const diagnose = op({
  name: 'inboxes.diagnose',
  summary: 'Diagnose why an inbox has not received the expected mail',
  access: 'read',
  tool: {
    name: 'svc_diagnose_inbox',
    description: "When a verification mail does not show up: the inbox's state and concrete hints on what went wrong.",
  },
  input: z.strictObject({ inboxId: InboxId }),
  output: z.object({
    inbox: InboxView,
    acceptsMailFor: z.array(z.string()),
    minutesLeft: z.number(),
    messages: z.array(MessageSummary),
    hints: z.array(z.string()),
  }),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.inboxId);
    const d = await ctx.services.agent.diagnose(inbox);
    const baseUrl = ctx.services.baseUrl();
    return { ...d, inbox: inboxView(d.inbox), messages: d.messages.map((m) => messageSummary(m, baseUrl)) };
  },
});

export const cleanup = op({
  name: 'inboxes.cleanup',
  summary: 'Delete inboxes in bulk (by label)',
  description:
    'Deletes every inbox of the caller with exactly this label (or, with all=true, every inbox in the caller’s scope). Returns how many were removed.',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/inboxes' },
  tool: {
    name: 'svc_cleanup_inboxes',
    description: 'Delete every inbox with this label (e.g. agent-<runId>), or all of them with all=true. Use at the end of a run.',
  },
  input: z.strictObject({
    label: Label.optional().describe('Delete the inboxes with exactly this label'),
    all: z
      .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
      .default(false)
      .describe('Delete every inbox in the key’s scope'),
  }),
  output: z.object({ deleted: z.number().int() }),
  audit: { action: 'inbox.cleanup', target: (i) => i.label ?? (i.all ? '*' : null) },
  async handler(ctx, input) {
    if (input.label === undefined && !input.all)
      throw new AppError('validation_failed', 'give a label, or all=true to delete every inbox in this key’s scope', {
        errors: [{ path: 'label', message: 'required unless all=true' }],
      });
    return { deleted: await ctx.services.inboxes.cleanup(principal(ctx), input.label) };
  },
});

export const suggestPreset = op({
  name: 'agent.suggest_preset',
  summary: 'Suggest the service preset for a site, sender or name',
  access: 'read',
  tool: {
    name: 'svc_suggest_preset',
    description: 'Find the service preset and its signup recipe for a URL, domain, sender address or service name.',
  },
  input: z.strictObject({ hint: singleLine(z.string().min(1).max(500)).describe('URL, domain, sender address or service name') }),
  output: z.object({
    service: z.string().nullable(),
    displayName: z.string().nullable(),
    recipe: z.object({ summary: z.string(), steps: z.array(z.string()) }).nullable(),
    why: z.string(),
  }),
  handler(_ctx, input) {
    const h = input.hint.trim().toLowerCase();
    let id: PresetId | null = null;
    let why = '';
    const host = /^[a-z]+:\/\//.test(h)
      ? safeHost(h)
      : h.includes('@')
        ? h.slice(h.lastIndexOf('@') + 1)
        : h.includes('.')
          ? h.split('/')[0]!
          : null;
    if (host) {
      id = serviceFromAddress(`x@${host}`);
      if (id) why = `${host} is a ${getPreset(id).displayName} domain`;
    }
    if (!id) {
      const byName = listPresets().find(
        (p) => p.id === h || p.displayName.toLowerCase() === h || (h.length >= 3 && p.displayName.toLowerCase().includes(h)),
      );
      if (byName) {
        id = byName.id;
        why = `the name matches ${byName.displayName}`;
      }
    }
    if (!id)
      return {
        service: null,
        displayName: null,
        recipe: null,
        why: 'none of the 25 presets matches; verify without a service (generic extraction works for any sender)',
      };
    const p = getPreset(id);
    return { service: id, displayName: p.displayName, recipe: p.recipe, why };
  },
});

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

export const issueAccess = op({
  name: 'oauth.issue_access',
  summary: 'Issue a short-lived access token for the calling key',
  access: 'read',
  tool: {
    name: 'svc_issue_access',
    description: "Mint a 1-hour access token with your scope (with runId: only that run's inboxes), for a sub-agent.",
    // It creates a credential: not read-only, and every call makes a new one.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({
    runId: z.string().min(1).max(64).optional().describe('Scope the token to this run’s label (run_…)'),
  }),
  output: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() }),
  audit: false,
  handler(ctx, input) {
    return ctx.services.runs.issueAccess(principal(ctx), input.runId, ctx.request.ip);
  },
});

export const agentToolOps = [waitAndExtractOp, checkEmail, diagnose, cleanup, suggestPreset, issueAccess];
