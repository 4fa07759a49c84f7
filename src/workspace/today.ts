// The today view (CONTRACT §13, spec "today view"): reminders due, conversations awaiting our reply, drafts
// awaiting a decision; and a decision on one item: approve (a draft or awaiting reply is sent subject to the
// policy, a reminder is completed), dismiss, or snooze until a time.
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { ExecuteResult, ReplyExecutor } from './execute.ts';
import type { MailReads } from './mail-reads.ts';
import { futureTime, type Reminders } from './reminders.ts';
import type { WorkspaceRepo } from './repo.ts';
import { evaluateRules } from './rules.ts';
import { fromRow } from './source.ts';
import { conversations } from './suggest.ts';
import { iso, wsId } from './tables.ts';

/** Conversations of the last this many days are looked at for an awaited reply. */
export const AWAITING_DAYS = 7;
const DAY_MS = 24 * 3600_000;

type Decision = 'approve' | 'dismiss' | 'snooze';
export interface TodayItem {
  id: string;
  kind: 'reminder_due' | 'draft_awaiting_decision' | 'awaiting_reply';
  title: string;
  why: string;
  dueAt: string | null;
  inboxId: string | null;
  threadId: string | null;
  messageId: string | null;
  decisions: Decision[];
}

export interface TodayDecision {
  id: string;
  decision: Decision;
  until?: string | undefined;
  text?: string | undefined;
}

/** What the item is now (completed, dismissed, snoozed, sent, drafted or blocked), with the reply when one was tried. */
export interface Decided {
  state: string;
  reply?: ExecuteResult;
}

/** Hard rules that make a message not worth a reply at all (automated mail, no-reply senders). */
const IGNORE = new Set(['not_automated_mail', 'not_role_or_noreply']);

export interface TodayDeps {
  repo: WorkspaceRepo;
  mail: MailReads;
  inboxes: Pick<InboxService, 'get'>;
  reminders: Reminders;
  replies: ReplyExecutor;
  now: () => number;
}

export class TodayView {
  private readonly d: TodayDeps;

  constructor(d: TodayDeps) {
    this.d = d;
  }

  async items(p: Principal): Promise<{ now: number; items: TodayItem[] }> {
    const { repo } = this.d;
    const now = this.d.now();
    const reminders = await repo.dueReminders(p, now);
    const drafts = await repo.decidableDrafts(p, now);
    const items: TodayItem[] = [
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
    for (const a of await this.awaitingReply(p, now)) if (!drafted.has(a.messageId) && !waitingOn.has(a.messageId)) items.push(a);
    return { now, items };
  }

  /** Conversations whose last message is theirs, nobody has acted on, and that are not automated mail. */
  private async awaitingReply(p: Principal, now: number): Promise<TodayItem[]> {
    const { repo, mail } = this.d;
    const since = now - AWAITING_DAYS * DAY_MS;
    const rows = await mail.recentOfTeam(p, since);
    const byInbox = new Map<string, typeof rows>();
    for (const r of rows) byInbox.set(r.inbox_id!, [...(byInbox.get(r.inbox_id!) ?? []), r]);
    const handled = await repo.actedOn(p.teamId, since);
    const items: TodayItem[] = [];
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
          relayConfigured: true,
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

  async decide(p: Principal, input: TodayDecision, signal: AbortSignal): Promise<Decided> {
    const { repo, mail, inboxes, reminders, replies } = this.d;
    const now = this.d.now();
    const until = input.decision === 'snooze' ? futureTime(input.until ?? '', 'until', now) : null;
    if (input.decision === 'snooze' && input.until === undefined)
      throw new AppError('validation_failed', 'snooze needs until', { errors: [{ path: 'until', message: 'required' }] });
    const reply = async (req: { inboxId: string; messageId: string; draftId?: string }): Promise<Decided> => {
      const full = { ...req, ...(input.text ? { text: input.text } : {}) };
      const r = await replies.execute(p, full, await replies.resolve(p, full, signal), true);
      return { state: r.outcome, reply: r };
    };

    if (input.id.startsWith('rem_')) {
      const r = await reminders.visible(p, input.id);
      const status = input.decision === 'approve' ? 'completed' : input.decision === 'dismiss' ? 'dismissed' : 'snoozed';
      await repo.setReminderStatus(r.id, status, until, now);
      await repo.logAction(
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
      return { state: status };
    }
    if (input.id.startsWith('drf_')) {
      const d = await repo.draft(p.teamId, input.id);
      if (
        !d ||
        (d.inbox_id &&
          (await inboxes.get(p, d.inbox_id).then(
            () => false,
            () => true,
          )))
      )
        throw new AppError('not_found', `no draft ${input.id} (GET /v1/workspace/today lists them)`);
      if (input.decision === 'approve') {
        if (!d.inbox_id || !d.message_id)
          throw new AppError('validation_failed', 'this draft is not about a stored message; it cannot be sent');
        return reply({ inboxId: d.inbox_id, messageId: d.message_id, draftId: d.id });
      }
      const status = input.decision === 'dismiss' ? 'dismissed' : 'snoozed';
      await repo.decideDraft(p.teamId, d.id, status, until, now);
      await repo.logAction(
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
      return { state: status };
    }
    if (input.id.startsWith('msg_')) {
      const inboxId = await mail.inboxOfMessage(p.teamId, input.id);
      if (!inboxId) throw new AppError('not_found', `no message ${input.id} (GET /v1/workspace/today lists the items)`);
      const inbox = await inboxes.get(p, inboxId);
      const ref = { inboxId: inbox.id, messageId: input.id };
      if (input.decision === 'approve') return reply(ref);
      if (input.decision === 'snooze') {
        await repo.insertReminder({
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
        });
        await repo.logAction(p, { type: 'wait', ...ref, note: `today: snoozed until ${iso(until!)}` }, now);
        return { state: 'snoozed' };
      }
      await repo.logAction(p, { type: 'completed', ...ref, note: 'today: dismissed without a reply' }, now);
      return { state: 'dismissed' };
    }
    throw new AppError('not_found', `no today item ${input.id}: ids are rem_…, drf_… or msg_… from GET /v1/workspace/today`);
  }
}
