// The today view (CONTRACT §13, spec "today view"): the edges of src/workspace/today.ts — reminders due,
// conversations awaiting our reply, drafts awaiting a decision; and a decision on one item: approve (a draft or
// awaiting reply is sent subject to the policy, a reminder is completed), dismiss, or snooze until a time.
import { z } from 'zod';
import { iso } from '../../workspace/tables.ts';
import { AWAITING_DAYS } from '../../workspace/today.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';
import { PreviewStatus, STATUS } from './common.ts';
import { DateTime } from './tasks.ts';

const Item = z.object({
  id: z.string().describe('rem_… (reminder), drf_… (draft) or msg_… (message awaiting a reply): the id to decide on'),
  kind: z.enum(['reminder_due', 'draft_awaiting_decision', 'awaiting_reply']),
  title: z.string(),
  why: z.string(),
  dueAt: z.string().nullable(),
  inboxId: z.string().nullable(),
  threadId: z.string().nullable(),
  messageId: z.string().nullable(),
  decisions: z.array(z.enum(['approve', 'dismiss', 'snooze'])),
});

export const todayOp = op({
  name: 'workspace.today',
  summary: 'Today view',
  description: `Reminders due within a day (and snoozes that ended), drafts awaiting a decision, and conversations of the last ${AWAITING_DAYS} days awaiting our reply.`,
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/today' },
  input: z.strictObject({}),
  output: z.object({ status: PreviewStatus, now: z.string(), items: z.array(Item) }),
  async handler(ctx) {
    const t = await ctx.services.workspace.today.items(principal(ctx));
    return { status: STATUS, now: iso(t.now), items: t.items };
  },
});

export const decisionOp = op({
  name: 'workspace.today_decision',
  summary: 'Decide on a today item',
  description:
    'approve: a draft or awaiting-reply message is replied to through the policy gate (draft_only never sends; the outcome says what happened), a reminder is completed; dismiss; snooze until a future time.',
  access: 'write',
  http: { method: 'POST', path: '/v1/workspace/today/:id/decision' },
  input: z.strictObject({
    id: z.string().min(1).max(64).describe('The today item id: rem_…, drf_… or msg_…'),
    decision: z
      .enum(['approve', 'dismiss', 'snooze'], { error: 'decision must be approve, dismiss or snooze' })
      .describe('approve, dismiss or snooze'),
    until: DateTime.optional().describe('With snooze: until when (a future ISO 8601 date-time)'),
    text: z.string().min(1).max(100_000).optional().describe('With approve on a draft or message: the text to send instead'),
  }),
  output: z.object({
    status: PreviewStatus,
    id: z.string(),
    decision: z.string(),
    state: z.string().describe('What the item is now: completed, dismissed, snoozed, sent, drafted or blocked'),
    reply: z.unknown().optional().describe('With approve of a reply: the execute-reply result'),
  }),
  async handler(ctx, input) {
    const d = await ctx.services.workspace.today.decide(principal(ctx), input, ctx.signal);
    return { status: STATUS, id: input.id, decision: input.decision, state: d.state, ...(d.reply ? { reply: d.reply } : {}) };
  },
});

const CheckView = z.object({ rule: z.string(), passed: z.boolean(), detail: z.string() });

export const draftReviewOp = op({
  name: 'workspace.draft_review',
  summary: 'A draft with each safety rule’s verdict',
  description:
    'A stored draft (drf_… from the today view): recipient, subject, text and status, and for a draft of a stored message every safety rule on it (passed or failed, why) with the outcome under the current mode and under each mode. Stores, sends and logs nothing.',
  access: 'read',
  audit: false,
  http: { method: 'GET', path: '/v1/workspace/drafts/:id' },
  input: z.strictObject({ id: z.string().min(1).max(64).describe('Draft id (drf_…)') }),
  output: z.object({
    status: PreviewStatus,
    draft: z.object({
      draftId: z.string(),
      status: z.string().describe('pending, sent, dismissed or snoozed'),
      inboxId: z.string().nullable(),
      messageId: z.string().nullable(),
      threadId: z.string().nullable(),
      to: z.string().nullable(),
      subject: z.string(),
      text: z.string(),
      reasons: z.array(z.string()),
      createdAt: z.string(),
    }),
    evaluation: z
      .object({
        mode: z.string(),
        outcome: z.enum(['sent', 'drafted', 'blocked']),
        outcomes: z.object({ draft_only: z.string(), auto_send_safe: z.string(), full_auto: z.string() }),
        reasons: z.array(z.string()),
        checks: z.array(CheckView),
      })
      .nullable()
      .describe('null for a draft that answers no stored message'),
  }),
  async handler(ctx, input) {
    const r = await ctx.services.workspace.reviewDraft(principal(ctx), input.id, ctx.signal);
    return { status: STATUS, draft: { ...r.draft, createdAt: iso(r.draft.createdAt) }, evaluation: r.evaluation };
  },
});

export const workspaceTodayOps = [todayOp, decisionOp, draftReviewOp];
