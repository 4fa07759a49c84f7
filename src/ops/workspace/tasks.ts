// Workspace reminders, the action log and reminder suggestions (CONTRACT §13): the edges of
// src/workspace/reminders.ts. Reminders are stored per team; a scoped key sees only those of inboxes in its scope.
import { z } from 'zod';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { actionView, reminderView } from '../../workspace/reminders.ts';
import { InboxId, MessageId, principal } from '../common.ts';
import { op } from '../op.ts';
import { Cursor, Limit } from '../views.ts';
import { PreviewStatus, Source, STATUS } from './common.ts';

const ReminderId = z.string().min(1).max(64).describe('Reminder id (rem_…)');
const ThreadId = z.string().min(1).max(64).describe('Thread id (thr_…)');
const KINDS = ['follow_up', 'needs_reply', 'deadline', 'custom'] as const;

export const ReminderView = z.object({
  reminderId: z.string(),
  kind: z.string(),
  note: z.string(),
  dueAt: z.string(),
  status: z.enum(['open', 'completed', 'dismissed', 'snoozed']),
  source: z.string().describe('manual or suggested'),
  inboxId: z.string().nullable(),
  threadId: z.string().nullable(),
  messageId: z.string().nullable(),
  snoozedUntil: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export const ActionView = z.object({
  actionId: z.string(),
  type: z.string().describe('draft, wait, completed, blocked or sent'),
  at: z.string(),
  inboxId: z.string().nullable(),
  threadId: z.string().nullable(),
  messageId: z.string().nullable(),
  reminderId: z.string().nullable(),
  draftId: z.string().nullable(),
  actorKeyId: z.string().nullable(),
  note: z.string().nullable(),
  reasons: z.array(z.string()),
});

export const DateTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T09:00:00Z',
});

export const suggestRemindersOp = op({
  name: 'workspace.suggest_reminders',
  summary: 'Suggest reminders and follow-ups',
  description:
    'Candidates, not stored: follow_up (we wrote last, nobody answered; a promise of theirs to check), needs_reply (questions to us left open anywhere in the thread) and deadline (dates mentioned, a promise of ours); a date that has passed is `overdue`. From supplied messages, a stored thread or message, or (inboxId alone) the inbox’s recent conversations.',
  access: 'read',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/reminders/suggest' },
  tool: {
    name: 'svc_workspace_suggest_reminders',
    description: 'Suggest follow-ups, open questions, promises and deadlines from mail. Stores nothing.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject(Source),
  output: z.object({
    status: PreviewStatus,
    items: z.array(
      z.object({
        kind: z.enum(['follow_up', 'needs_reply', 'deadline']),
        dueAt: z.string().describe('When to be reminded; never in the past (an overdue item is due now)'),
        note: z.string(),
        why: z.string(),
        overdue: z.boolean().describe('The date or the answer time has passed without the thread showing it was met'),
        date: z.string().nullable().describe('YYYY-MM-DD the mail named (a deadline or a promise), resolved against its date'),
        promise: z.enum(['ours', 'theirs']).nullable().describe('A promise made by us (we owe it) or by them (check it came)'),
        messageId: z.string().nullable(),
        threadId: z.string().nullable(),
        inboxId: z.string().nullable(),
      }),
    ),
  }),
  async handler(ctx, input) {
    return { status: STATUS, items: await ctx.services.workspace.reminders.suggest(principal(ctx), input) };
  },
});

export const createReminderOp = op({
  name: 'workspace.create_reminder',
  summary: 'Save a reminder',
  access: 'write',
  http: { method: 'POST', path: '/v1/workspace/reminders', status: 201 },
  tool: {
    name: 'svc_workspace_create_reminder',
    description: 'Save a reminder with a note and a future dueAt, optionally tied to an inbox, thread or message.',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({
    note: z.string().trim().min(1).max(2000).describe('What to do'),
    dueAt: DateTime.describe('When it is due: a future ISO 8601 date-time, e.g. 2026-12-01T09:00:00Z'),
    kind: z.enum(KINDS).default('custom').describe('follow_up, needs_reply, deadline or custom'),
    inboxId: InboxId.optional(),
    threadId: ThreadId.optional(),
    messageId: MessageId.optional().describe('A message of inboxId this reminder is about'),
    source: z
      .enum(['manual', 'suggested'])
      .default('manual')
      .describe('manual, or suggested when saved from svc_workspace_suggest_reminders'),
  }),
  output: ReminderView,
  audit: { action: 'workspace.reminder.create', target: (_i, o) => o.reminderId },
  async handler(ctx, input) {
    return reminderView(await ctx.services.workspace.reminders.create(principal(ctx), input));
  },
});

export const listRemindersOp = op({
  name: 'workspace.list_reminders',
  summary: 'List saved reminders',
  description: 'Soonest due first; filter by status, kind, inboxId, threadId or dueBefore.',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/reminders' },
  tool: {
    name: 'svc_workspace_list_reminders',
    description: 'List saved reminders, soonest due first, filtered by status, kind, inbox, thread or due time.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    status: z.enum(['open', 'completed', 'dismissed', 'snoozed']).optional().describe('Only reminders in this state'),
    kind: z.enum(KINDS).optional().describe('Only this kind'),
    inboxId: InboxId.optional().describe('Only reminders of this inbox'),
    threadId: ThreadId.optional().describe('Only reminders of this thread'),
    dueBefore: DateTime.optional().describe('Only reminders due before this time'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({ items: z.array(ReminderView), nextCursor: z.string().nullable() }),
  async handler(ctx, input) {
    const after = decodeCursor(input.cursor, (v): v is { d: number; i: string } => {
      const o = v as { d?: unknown; i?: unknown };
      return typeof v === 'object' && v !== null && typeof o.d === 'number' && typeof o.i === 'string';
    });
    const { limit, cursor: _c, dueBefore, ...filter } = input;
    const rows = await ctx.services.workspace.reminders.list(
      principal(ctx),
      { ...filter, dueBefore: dueBefore ? Date.parse(dueBefore) : undefined, after },
      limit,
    );
    return pageOf(rows, limit, reminderView, (r) => ({ d: r.due_at, i: r.id }));
  },
});

export const completeReminderOp = op({
  name: 'workspace.complete_reminder',
  summary: 'Complete a reminder',
  access: 'write',
  http: { method: 'PATCH', path: '/v1/workspace/reminders/:id/complete' },
  tool: {
    name: 'svc_workspace_complete_reminder',
    description: 'Mark a reminder done (and log a completed action); completing twice is harmless.',
    args: { reminderId: 'id' },
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({ id: ReminderId, note: z.string().max(2000).optional().describe('Why or how it was done') }),
  output: ReminderView,
  audit: { action: 'workspace.reminder.complete', target: (i) => i.id },
  async handler(ctx, input) {
    return reminderView(await ctx.services.workspace.reminders.complete(principal(ctx), input.id, input.note));
  },
});

export const logActionOp = op({
  name: 'workspace.log_action',
  summary: 'Log an action',
  description: 'Types draft, wait, completed, blocked. `sent` is logged only by execute-reply, which really sends.',
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/actions', status: 201 },
  tool: {
    name: 'svc_workspace_log_action',
    description: 'Log what you did about a thread or reminder: draft, wait, completed or blocked, with a note.',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({
    type: z
      .enum(['draft', 'wait', 'completed', 'blocked'], {
        error: 'type must be one of draft, wait, completed, blocked (sent is logged by execute-reply)',
      })
      .describe('draft, wait, completed or blocked'),
    reminderId: ReminderId.optional().describe('The reminder this is about'),
    inboxId: InboxId.optional().describe('The inbox this is about'),
    threadId: ThreadId.optional().describe('The thread this is about'),
    messageId: MessageId.optional().describe('The message this is about'),
    note: z.string().max(2000).optional().describe('What happened'),
    reasons: z.array(z.string().max(500)).max(20).optional().describe('Why (e.g. for blocked)'),
  }),
  output: ActionView,
  async handler(ctx, input) {
    return actionView(await ctx.services.workspace.reminders.logAction(principal(ctx), { ...input, reasons: input.reasons ?? [] }));
  },
});

export const listActionsOp = op({
  name: 'workspace.list_actions',
  summary: 'List actions',
  description: 'Newest first; by reminderId or threadId (or messageId, type).',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/actions' },
  tool: {
    name: 'svc_workspace_list_actions',
    description: 'List the action log (draft, wait, completed, blocked, sent), newest first, by reminder, thread or message.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    reminderId: ReminderId.optional().describe('Actions of this reminder'),
    threadId: ThreadId.optional().describe('Actions of this thread'),
    messageId: MessageId.optional().describe('Actions about this message'),
    type: z.enum(['draft', 'wait', 'completed', 'blocked', 'sent']).optional().describe('Only this type'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({ items: z.array(ActionView), nextCursor: z.string().nullable() }),
  async handler(ctx, input) {
    const before = decodeCursor(input.cursor, (v): v is { s: number } => typeof (v as { s?: unknown })?.s === 'number');
    const { limit, cursor: _c, ...filter } = input;
    const rows = await ctx.services.workspace.reminders.listActions(principal(ctx), { ...filter, beforeSeq: before?.s }, limit);
    return pageOf(rows, limit, actionView, (r) => ({ s: r.seq }));
  },
});

export const workspaceTaskOps = [suggestRemindersOp, createReminderOp, listRemindersOp, completeReminderOp, logActionOp, listActionsOp];
