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

export const workspaceTodayOps = [todayOp, decisionOp];
