// Reminders (`rem_…`), the action log (`act_…`) and reminder suggestions, per team (CONTRACT §13); a scoped key sees
// only rows of inboxes in its scope, and a reminder or action without an inbox only with an unscoped key.
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { MailReads } from './mail-reads.ts';
import type { ActionFilter, NewAction, ReminderFilter, WorkspaceRepo } from './repo.ts';
import { fromRow, type SourceInput, type WsMessage } from './source.ts';
import { conversations, suggestFor } from './suggest.ts';
import { type ActionRow, iso, type ReminderRow, wsId } from './tables.ts';

const MAX_DUE_MS = 5 * 366 * 24 * 3600_000;

export function reminderView(r: ReminderRow) {
  return {
    reminderId: r.id,
    kind: r.kind,
    note: r.note,
    dueAt: iso(r.due_at),
    status: r.status,
    source: r.source,
    inboxId: r.inbox_id,
    threadId: r.thread_id,
    messageId: r.message_id,
    snoozedUntil: r.snoozed_until === null ? null : iso(r.snoozed_until),
    createdAt: iso(r.created_at),
    completedAt: r.completed_at === null ? null : iso(r.completed_at),
  };
}

export function actionView(a: ActionRow) {
  return {
    actionId: a.id,
    type: a.type,
    at: iso(a.at),
    inboxId: a.inbox_id,
    threadId: a.thread_id,
    messageId: a.message_id,
    reminderId: a.reminder_id,
    draftId: a.draft_id,
    actorKeyId: a.actor_key_id,
    note: a.note,
    reasons: JSON.parse(a.reasons_json) as string[],
  };
}

/** A time in the future (and not absurdly far): 400 naming `path` otherwise. */
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

export interface NewReminder {
  note: string;
  dueAt: string;
  kind: string;
  inboxId?: string | undefined;
  threadId?: string | undefined;
  messageId?: string | undefined;
  source: string;
}

export interface ReminderDeps {
  repo: WorkspaceRepo;
  mail: MailReads;
  inboxes: Pick<InboxService, 'get'>;
  messages: Pick<MessageRepo, 'get'>;
  now: () => number;
  /** The mail a request names (WorkspaceService.loadSource). */
  load: (p: Principal, input: SourceInput) => Promise<WsMessage[]>;
}

export class Reminders {
  private readonly d: ReminderDeps;

  constructor(d: ReminderDeps) {
    this.d = d;
  }

  /** Candidates, not stored: of the named mail, or (inboxId alone) of the inbox's recent conversations. */
  async suggest(p: Principal, input: SourceInput) {
    const d = this.d;
    const now = d.now();
    let groups: WsMessage[][];
    if (input.inboxId && !input.threadId && !input.messageId && !input.messages) {
      const inbox = await d.inboxes.get(p, input.inboxId);
      const rows = await d.mail.recentOfInbox(inbox.id, 200);
      groups = conversations(rows.map((r) => fromRow(r, inbox.address)));
    } else groups = [await d.load(p, input)];
    return groups
      .flatMap((g) => suggestFor(g, now))
      .slice(0, 100)
      .map((x) => ({ ...x, dueAt: iso(x.dueAt), inboxId: input.inboxId ?? null }));
  }

  async create(p: Principal, input: NewReminder): Promise<ReminderRow> {
    const d = this.d;
    const now = d.now();
    const due = futureTime(input.dueAt, 'dueAt', now);
    if ((input.threadId || input.messageId) && !input.inboxId)
      throw new AppError('validation_failed', 'threadId and messageId need the inboxId they belong to', {
        errors: [{ path: 'inboxId', message: 'required with threadId or messageId' }],
      });
    if (input.inboxId) {
      const inbox = await d.inboxes.get(p, input.inboxId);
      if (input.messageId && !(await d.messages.get(inbox.id, input.messageId)))
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
    await d.repo.insertReminder(row);
    return row;
  }

  list(p: Principal, f: ReminderFilter, limit: number): Promise<ReminderRow[]> {
    return this.d.repo.listReminders(p, f, limit);
  }

  /** Completing it again is harmless (nothing logged twice). */
  async complete(p: Principal, id: string, note: string | undefined): Promise<ReminderRow> {
    const d = this.d;
    const r = await this.visible(p, id);
    if (r.status === 'completed') return r;
    const now = d.now();
    await d.repo.completeReminder(r.id, now);
    await d.repo.logAction(
      p,
      { type: 'completed', reminderId: r.id, inboxId: r.inbox_id, threadId: r.thread_id, messageId: r.message_id, note: note ?? null },
      now,
    );
    return { ...r, status: 'completed', completed_at: now };
  }

  /** The reminder, if it is the team's and in the key's scope; 404 otherwise. */
  async visible(p: Principal, id: string): Promise<ReminderRow> {
    const gone = () => new AppError('not_found', `no reminder ${id} (GET /v1/workspace/reminders lists yours)`);
    const r = await this.d.repo.reminder(p.teamId, id);
    if (!r) throw gone();
    if (r.inbox_id && p.scope.labelPrefix !== null)
      await this.d.inboxes.get(p, r.inbox_id).catch(() => {
        throw gone();
      });
    if (!r.inbox_id && p.scope.labelPrefix !== null) throw gone();
    return r;
  }

  /** An action a caller logs (never `sent`: execute-reply logs its sends). */
  async logAction(p: Principal, a: NewAction & { reminderId?: string | undefined; inboxId?: string | undefined }): Promise<ActionRow> {
    if (a.reminderId) await this.visible(p, a.reminderId);
    if (a.inboxId) await this.d.inboxes.get(p, a.inboxId);
    else if (p.scope.labelPrefix !== null)
      throw new AppError('validation_failed', 'a scoped key logs actions of an inbox: give inboxId', {
        errors: [{ path: 'inboxId', message: 'required' }],
      });
    return this.d.repo.logAction(p, a, this.d.now());
  }

  listActions(p: Principal, f: ActionFilter, limit: number): Promise<ActionRow[]> {
    return this.d.repo.listActions(p, f, limit);
  }
}
