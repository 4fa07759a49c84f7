// Workspace reminders, the action log and reminder suggestions (CONTRACT §13). Reminders are stored per team;
// a scoped key sees only those of inboxes in its scope.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { decodeCursor, pageOf } from '../lib/cursor.ts';
import { getReminder, logAction } from '../workspace/repo.ts';
import { actionView, reminderView, scopedInboxIds } from '../workspace/reminders.ts';
import { conversations, suggestFor } from '../workspace/suggest.ts';
import { iso, type ReminderRow, wsDb, wsId } from '../workspace/tables.ts';
import { InboxId, inboxOf, MessageId, principal } from './common.ts';
import { op } from './op.ts';
import { Cursor, Limit } from './views.ts';
import { loadSource, PreviewStatus, Source, STATUS } from './workspace-common.ts';
import { fromRow, type WsMessage } from '../workspace/source.ts';

const ReminderId = z.string().min(1).max(64).describe('Reminder id (rem_…)');
const ThreadId = z.string().min(1).max(64).describe('Thread id (thr_…)');
const KINDS = ['follow_up', 'needs_reply', 'deadline', 'custom'] as const;
const MAX_DUE_MS = 5 * 366 * 24 * 3600_000;

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

/** A time in the future (and not absurdly far): 400 with what was wrong otherwise. */
export function futureTime(value: string, path: string, now: number): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t))
    throw new AppError('validation_failed', `${path}: not a date-time`, { errors: [{ path, message: 'not a date-time' }] });
  if (t <= now)
    throw new AppError(
      'validation_failed',
      `${path}: ${value} is in the past; give a future time (ISO 8601, e.g. ${iso(now + 3600_000)})`,
      {
        errors: [{ path, message: 'must be in the future' }],
      },
    );
  if (t > now + MAX_DUE_MS)
    throw new AppError('validation_failed', `${path}: more than 5 years ahead`, { errors: [{ path, message: 'too far ahead' }] });
  return t;
}

export const DateTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T09:00:00Z',
});

export const suggestRemindersOp = op({
  name: 'workspace.suggest_reminders',
  summary: 'Suggest reminders and follow-ups',
  description:
    'Candidates, not stored: follow_up (we wrote last, nobody answered), needs_reply (questions to us left open) and deadline (dates mentioned). From supplied messages, a stored thread or message, or (inboxId alone) the inbox’s recent conversations.',
  access: 'read',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/reminders/suggest' },
  tool: {
    name: 'svc_workspace_suggest_reminders',
    description:
      'Suggest reminders for mail that waits on someone: follow-ups where we wrote last, open questions to us, deadlines in the text. Give messages, inboxId + threadId/messageId, or just inboxId (recent conversations). Nothing is stored; save one with svc_workspace_create_reminder.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject(Source),
  output: z.object({
    status: PreviewStatus,
    items: z.array(
      z.object({
        kind: z.enum(['follow_up', 'needs_reply', 'deadline']),
        dueAt: z.string(),
        note: z.string(),
        why: z.string(),
        messageId: z.string().nullable(),
        threadId: z.string().nullable(),
        inboxId: z.string().nullable(),
      }),
    ),
  }),
  async handler(ctx, input) {
    const now = ctx.services.clock.now();
    let groups: WsMessage[][];
    if (input.inboxId && !input.threadId && !input.messageId && !input.messages) {
      const inbox = await inboxOf(ctx, input.inboxId);
      const rows = await ctx.services.store.db
        .selectFrom('messages')
        .selectAll()
        .where('inbox_id', '=', inbox.id)
        .orderBy('received_at', 'desc')
        .limit(200)
        .execute();
      groups = conversations(rows.reverse().map((r) => fromRow(r, inbox.address)));
    } else groups = [await loadSource(ctx, input)];
    const items = groups
      .flatMap((g) => suggestFor(g, now))
      .slice(0, 100)
      .map((x) => ({ ...x, dueAt: iso(x.dueAt), inboxId: input.inboxId ?? null }));
    return { status: STATUS, items };
  },
});

export const createReminderOp = op({
  name: 'workspace.create_reminder',
  summary: 'Save a reminder',
  access: 'write',
  http: { method: 'POST', path: '/v1/workspace/reminders', status: 201 },
  tool: {
    name: 'svc_workspace_create_reminder',
    description:
      'Save a reminder or follow-up (rem_…): a note and a future dueAt (ISO 8601), optionally tied to an inbox, thread or message. It shows in the today view when due.',
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
    const p = principal(ctx);
    const now = ctx.services.clock.now();
    const due = futureTime(input.dueAt, 'dueAt', now);
    if ((input.threadId || input.messageId) && !input.inboxId)
      throw new AppError('validation_failed', 'threadId and messageId need the inboxId they belong to', {
        errors: [{ path: 'inboxId', message: 'required with threadId or messageId' }],
      });
    if (input.inboxId) {
      const inbox = await inboxOf(ctx, input.inboxId);
      if (input.messageId && !(await ctx.services.messages.get(inbox.id, input.messageId)))
        throw new AppError('not_found', `no message ${input.messageId} in inbox ${inbox.id}`);
    }
    const row: ReminderRow = {
      id: wsId('rem'),
      team_id: p.teamId,
      kind: input.kind,
      inbox_id: input.inboxId ?? null,
      thread_id: input.threadId ?? null,
      message_id: input.messageId ?? null,
      note: input.note,
      due_at: due,
      status: 'open',
      source: input.source,
      snoozed_until: null,
      created_at: now,
      completed_at: null,
    };
    await wsDb(ctx.services).insertInto('workspace_reminders').values(row).execute();
    return reminderView(row);
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
    description:
      'List saved reminders, soonest due first. Filters: status (open, completed, dismissed, snoozed), kind, inboxId, threadId, dueBefore.',
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
    const p = principal(ctx);
    const db = wsDb(ctx.services);
    const after = decodeCursor(input.cursor, (v): v is { d: number; i: string } => {
      const o = v as { d?: unknown; i?: unknown };
      return typeof v === 'object' && v !== null && typeof o.d === 'number' && typeof o.i === 'string';
    });
    let q = db.selectFrom('workspace_reminders').selectAll().where('team_id', '=', p.teamId);
    const ids = scopedInboxIds(db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    if (input.status) q = q.where('status', '=', input.status);
    if (input.kind) q = q.where('kind', '=', input.kind);
    if (input.inboxId) q = q.where('inbox_id', '=', input.inboxId);
    if (input.threadId) q = q.where('thread_id', '=', input.threadId);
    if (input.dueBefore) q = q.where('due_at', '<', Date.parse(input.dueBefore));
    if (after) q = q.where((eb) => eb.or([eb('due_at', '>', after.d), eb.and([eb('due_at', '=', after.d), eb('id', '>', after.i)])]));
    const rows = await q
      .orderBy('due_at')
      .orderBy('id')
      .limit(input.limit + 1)
      .execute();
    return pageOf(rows, input.limit, reminderView, (r) => ({ d: r.due_at, i: r.id }));
  },
});

export const completeReminderOp = op({
  name: 'workspace.complete_reminder',
  summary: 'Complete a reminder',
  access: 'write',
  http: { method: 'PATCH', path: '/v1/workspace/reminders/:id/complete' },
  tool: {
    name: 'svc_workspace_complete_reminder',
    description: 'Mark a reminder done (logs a completed action). Completing it again is harmless; an unknown id is not_found.',
    args: { reminderId: 'id' },
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({ id: ReminderId, note: z.string().max(2000).optional().describe('Why or how it was done') }),
  output: ReminderView,
  audit: { action: 'workspace.reminder.complete', target: (i) => i.id },
  async handler(ctx, input) {
    const p = principal(ctx);
    const db = wsDb(ctx.services);
    const r = await visibleReminder(ctx, input.id);
    if (r.status === 'completed') return reminderView(r);
    const now = ctx.services.clock.now();
    await db.updateTable('workspace_reminders').set({ status: 'completed', completed_at: now }).where('id', '=', r.id).execute();
    await logAction(
      db,
      p,
      {
        type: 'completed',
        reminderId: r.id,
        inboxId: r.inbox_id,
        threadId: r.thread_id,
        messageId: r.message_id,
        note: input.note ?? null,
      },
      now,
    );
    return reminderView({ ...r, status: 'completed', completed_at: now });
  },
});

/** The reminder, if it is the team's and in the key's scope; 404 otherwise. */
export async function visibleReminder(ctx: Parameters<typeof principal>[0], id: string): Promise<ReminderRow> {
  const p = principal(ctx);
  const r = await getReminder(wsDb(ctx.services), p.teamId, id);
  if (!r) throw new AppError('not_found', `no reminder ${id} (GET /v1/workspace/reminders lists yours)`);
  if (r.inbox_id && p.scope.labelPrefix !== null)
    await inboxOf(ctx, r.inbox_id).catch(() => {
      throw new AppError('not_found', `no reminder ${id} (GET /v1/workspace/reminders lists yours)`);
    });
  if (!r.inbox_id && p.scope.labelPrefix !== null)
    throw new AppError('not_found', `no reminder ${id} (GET /v1/workspace/reminders lists yours)`);
  return r;
}

export const logActionOp = op({
  name: 'workspace.log_action',
  summary: 'Log an action',
  description: 'Types draft, wait, completed, blocked. `sent` is logged only by execute-reply, which really sends.',
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/actions', status: 201 },
  tool: {
    name: 'svc_workspace_log_action',
    description:
      'Record what you did or decided about a thread or reminder: type draft, wait, completed or blocked, with a note. Sends are logged by svc_workspace_execute_reply itself.',
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
    const p = principal(ctx);
    if (input.reminderId) await visibleReminder(ctx, input.reminderId);
    if (input.inboxId) await inboxOf(ctx, input.inboxId);
    else if (p.scope.labelPrefix !== null)
      throw new AppError('validation_failed', 'a scoped key logs actions of an inbox: give inboxId', {
        errors: [{ path: 'inboxId', message: 'required' }],
      });
    const a = await logAction(wsDb(ctx.services), p, { ...input, reasons: input.reasons ?? [] }, ctx.services.clock.now());
    return actionView(a);
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
    description:
      'List the action log (draft, wait, completed, blocked, sent — each with its reasons), newest first, by reminderId or threadId, or messageId or type.',
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
    const p = principal(ctx);
    const db = wsDb(ctx.services);
    const before = decodeCursor(input.cursor, (v): v is { s: number } => typeof (v as { s?: unknown })?.s === 'number');
    let q = db.selectFrom('workspace_actions').selectAll().where('team_id', '=', p.teamId);
    const ids = scopedInboxIds(db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    if (input.reminderId) q = q.where('reminder_id', '=', input.reminderId);
    if (input.threadId) q = q.where('thread_id', '=', input.threadId);
    if (input.messageId) q = q.where('message_id', '=', input.messageId);
    if (input.type) q = q.where('type', '=', input.type);
    if (before) q = q.where('seq', '<', before.s);
    const rows = await q
      .orderBy('seq', 'desc')
      .limit(input.limit + 1)
      .execute();
    return pageOf(rows, input.limit, actionView, (r) => ({ s: r.seq }));
  },
});

export const workspaceTaskOps = [suggestRemindersOp, createReminderOp, listRemindersOp, completeReminderOp, logActionOp, listActionsOp];
