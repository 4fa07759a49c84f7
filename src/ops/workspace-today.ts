// The today view (CONTRACT §13, spec "today view"): reminders due, conversations awaiting our reply, drafts
// awaiting a decision; and a decision on one item: approve (a draft or awaiting reply is sent subject to the
// policy, a reminder is completed), dismiss, or snooze until a time.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { executeReply, resolveReply } from '../workspace/execute.ts';
import { getDraft, logAction } from '../workspace/repo.ts';
import { scopedInboxIds } from '../workspace/reminders.ts';
import { evaluateRules } from '../workspace/rules.ts';
import { fromRow } from '../workspace/source.ts';
import { conversations } from '../workspace/suggest.ts';
import { iso, wsDb, wsId } from '../workspace/tables.ts';
import { inboxOf, principal } from './common.ts';
import { op, type OpContext } from './op.ts';
import { engineConfig, PreviewStatus, STATUS } from './workspace-common.ts';
import { DateTime, futureTime, visibleReminder } from './workspace-tasks.ts';

const AWAITING_DAYS = 7;
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
type Item = z.infer<typeof Item>;

/** Hard rules that make a message not worth a reply at all (automated mail, no-reply senders). */
const IGNORE = new Set(['not_automated_mail', 'not_role_or_noreply']);

async function awaitingReply(ctx: OpContext, now: number): Promise<Item[]> {
  const p = principal(ctx);
  const s = ctx.services;
  const db = wsDb(s);
  let q = db
    .selectFrom('messages')
    .innerJoin('inboxes', 'inboxes.id', 'messages.inbox_id')
    .selectAll('messages')
    .select('inboxes.address as inbox_address')
    .where('inboxes.team_id', '=', p.teamId)
    .where('messages.received_at', '>', now - AWAITING_DAYS * 24 * 3600_000);
  const ids = scopedInboxIds(db, p);
  if (ids) q = q.where('messages.inbox_id', 'in', ids);
  const rows = await q.orderBy('messages.received_at', 'desc').limit(500).execute();
  const byInbox = new Map<string, typeof rows>();
  for (const r of rows.reverse()) byInbox.set(r.inbox_id!, [...(byInbox.get(r.inbox_id!) ?? []), r]);
  const handled = new Set(
    (
      await db
        .selectFrom('workspace_actions')
        .select('message_id')
        .where('team_id', '=', p.teamId)
        .where('type', 'in', ['sent', 'completed', 'draft', 'blocked', 'wait'])
        .where('at', '>', now - AWAITING_DAYS * 24 * 3600_000)
        .execute()
    ).map((a) => a.message_id),
  );
  const items: Item[] = [];
  for (const [inboxId, list] of byInbox) {
    for (const conv of conversations(list.map((r) => fromRow(r, r.inbox_address)))) {
      const last = conv.at(-1)!;
      if (last.direction !== 'inbound' || handled.has(last.id)) continue;
      const checks = evaluateRules({
        source: last,
        thread: conv,
        reply: { to: last.from, text: '-', attachmentCount: 0 },
        knownDomains: null,
        isServedDomain: () => false,
        sentToday: { team: 0, thread: 0 },
        settings: { maxPerThreadPerDay: 1, maxPerDay: 1, maxLength: 1, allowRecipientDomains: [] },
      });
      if (checks.some((c) => IGNORE.has(c.rule) && !c.passed)) continue;
      items.push({
        id: last.id!,
        kind: 'awaiting_reply',
        title: `Reply to ${last.fromName || last.from}: ${last.subject || '(no subject)'}`,
        why: 'the last message of this conversation is theirs and nobody has answered',
        dueAt: null,
        inboxId,
        threadId: last.threadId,
        messageId: last.id,
        decisions: ['approve', 'dismiss', 'snooze'],
      });
    }
  }
  return items;
}

export const todayOp = op({
  name: 'workspace.today',
  summary: 'Today view',
  description: `Reminders due within a day (and snoozes that ended), drafts awaiting a decision, and conversations of the last ${AWAITING_DAYS} days awaiting our reply.`,
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/today' },
  input: z.strictObject({}),
  output: z.object({ status: PreviewStatus, now: z.string(), items: z.array(Item) }),
  async handler(ctx) {
    const p = principal(ctx);
    const now = ctx.services.clock.now();
    const db = wsDb(ctx.services);
    const ids = scopedInboxIds(db, p);
    let rq = db
      .selectFrom('workspace_reminders')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'open'), eb('due_at', '<=', now + 24 * 3600_000)]),
          eb.and([eb('status', '=', 'snoozed'), eb('snoozed_until', '<=', now)]),
        ]),
      );
    if (ids) rq = rq.where('inbox_id', 'in', ids);
    const reminders = await rq.orderBy('due_at').limit(200).execute();
    let dq = db
      .selectFrom('workspace_drafts')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'snoozed'), eb('snoozed_until', '<=', now)])]));
    if (ids) dq = dq.where('inbox_id', 'in', ids);
    const drafts = await dq.orderBy('created_at').limit(200).execute();
    const items: Item[] = [
      ...reminders.map((r) => ({
        id: r.id,
        kind: 'reminder_due' as const,
        title: r.note,
        why: r.status === 'snoozed' ? 'snoozed until now' : r.due_at <= now ? 'overdue' : 'due within a day',
        dueAt: iso(r.due_at),
        inboxId: r.inbox_id,
        threadId: r.thread_id,
        messageId: r.message_id,
        decisions: ['approve' as const, 'dismiss' as const, 'snooze' as const],
      })),
      ...drafts.map((d) => ({
        id: d.id,
        kind: 'draft_awaiting_decision' as const,
        title: `${d.subject} → ${d.to_address ?? '(no recipient)'}`,
        why: (JSON.parse(d.reasons_json) as string[])[0] ?? 'a draft waits for a decision',
        dueAt: null,
        inboxId: d.inbox_id,
        threadId: d.thread_id,
        messageId: d.message_id,
        decisions: d.message_id ? ['approve' as const, 'dismiss' as const, 'snooze' as const] : ['dismiss' as const, 'snooze' as const],
      })),
    ];
    const drafted = new Set(drafts.map((d) => d.message_id));
    const waitingOn = new Set(reminders.map((r) => r.message_id));
    for (const a of await awaitingReply(ctx, now)) if (!drafted.has(a.messageId) && !waitingOn.has(a.messageId)) items.push(a);
    return { status: STATUS, now: iso(now), items };
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
    const p = principal(ctx);
    const s = ctx.services;
    const db = wsDb(s);
    const now = s.clock.now();
    const until = input.decision === 'snooze' ? futureTime(input.until ?? '', 'until', now) : null;
    if (input.decision === 'snooze' && input.until === undefined)
      throw new AppError('validation_failed', 'snooze needs until', { errors: [{ path: 'until', message: 'required' }] });
    const done = (state: string, reply?: unknown) => ({
      status: STATUS,
      id: input.id,
      decision: input.decision,
      state,
      ...(reply ? { reply } : {}),
    });

    if (input.id.startsWith('rem_')) {
      const r = await visibleReminder(ctx, input.id);
      const status = input.decision === 'approve' ? 'completed' : input.decision === 'dismiss' ? 'dismissed' : 'snoozed';
      await db
        .updateTable('workspace_reminders')
        .set({ status, snoozed_until: until, completed_at: status === 'completed' ? now : null })
        .where('id', '=', r.id)
        .execute();
      await logAction(
        db,
        p,
        {
          type: status === 'snoozed' ? 'wait' : 'completed',
          reminderId: r.id,
          inboxId: r.inbox_id,
          threadId: r.thread_id,
          messageId: r.message_id,
          note: `today: ${input.decision}`,
        },
        now,
      );
      return done(status);
    }
    if (input.id.startsWith('drf_')) {
      const d = await getDraft(db, p.teamId, input.id);
      if (
        !d ||
        (d.inbox_id &&
          (await inboxOf(ctx, d.inbox_id).then(
            () => false,
            () => true,
          )))
      )
        throw new AppError('not_found', `no draft ${input.id} (GET /v1/workspace/today lists them)`);
      if (input.decision === 'approve') {
        if (!d.inbox_id || !d.message_id)
          throw new AppError('validation_failed', 'this draft is not about a stored message; it cannot be sent');
        const req = { inboxId: d.inbox_id, messageId: d.message_id, draftId: d.id, ...(input.text ? { text: input.text } : {}) };
        const r = await executeReply(s, p, req, await resolveReply(s, p, req, engineConfig(s), ctx.signal), true);
        return done(r.outcome, r);
      }
      const status = input.decision === 'dismiss' ? 'dismissed' : 'snoozed';
      await db.updateTable('workspace_drafts').set({ status, snoozed_until: until, decided_at: now }).where('id', '=', d.id).execute();
      await logAction(
        db,
        p,
        {
          type: status === 'snoozed' ? 'wait' : 'completed',
          draftId: d.id,
          inboxId: d.inbox_id,
          threadId: d.thread_id,
          messageId: d.message_id,
          note: `today: ${input.decision}`,
        },
        now,
      );
      return done(status);
    }
    if (input.id.startsWith('msg_')) {
      const row = await db
        .selectFrom('messages')
        .innerJoin('inboxes', 'inboxes.id', 'messages.inbox_id')
        .select(['messages.inbox_id'])
        .where('messages.id', '=', input.id)
        .where('inboxes.team_id', '=', p.teamId)
        .executeTakeFirst();
      if (!row?.inbox_id) throw new AppError('not_found', `no message ${input.id} (GET /v1/workspace/today lists the items)`);
      const inbox = await inboxOf(ctx, row.inbox_id);
      const ref = { inboxId: inbox.id, messageId: input.id };
      if (input.decision === 'approve') {
        const req = { ...ref, ...(input.text ? { text: input.text } : {}) };
        const r = await executeReply(s, p, req, await resolveReply(s, p, req, engineConfig(s), ctx.signal), true);
        return done(r.outcome, r);
      }
      if (input.decision === 'snooze') {
        await db
          .insertInto('workspace_reminders')
          .values({
            id: wsId('rem'),
            team_id: p.teamId,
            kind: 'needs_reply',
            inbox_id: inbox.id,
            thread_id: null,
            message_id: input.id,
            note: `Reply to ${input.id} (snoozed)`,
            due_at: until!,
            status: 'open',
            source: 'manual',
            snoozed_until: null,
            created_at: now,
            completed_at: null,
          })
          .execute();
        await logAction(db, p, { type: 'wait', ...ref, note: `today: snoozed until ${iso(until!)}` }, now);
        return done('snoozed');
      }
      await logAction(db, p, { type: 'completed', ...ref, note: 'today: dismissed without a reply' }, now);
      return done('dismissed');
    }
    throw new AppError('not_found', `no today item ${input.id}: ids are rem_…, drf_… or msg_… from GET /v1/workspace/today`);
  },
});

export const workspaceTodayOps = [todayOp, decisionOp];
