// Reads and writes of the workspace's own tables (policies, actions, drafts, reminders, sends), every query scoped by
// team; a scoped key's listings keep to rows of inboxes in its label scope. The one home of these queries: the
// workspace service and the provider services call this, operations never do. Monitors' tables are in
// monitor-repo.ts, idempotency keys in idempotency.ts, reads of the mail tables in mail-reads.ts.
import { type Kysely, sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { Database } from '../store/schema.ts';
import { DEFAULT_SETTINGS, type PolicySettings } from './rules.ts';
import {
  type ActionRow,
  type DraftRow,
  nextSeq,
  type PolicyMode,
  type ReminderRow,
  type WorkspaceTables,
  type WsDb,
  wsId,
} from './tables.ts';

export interface Policy {
  mode: PolicyMode;
  settings: PolicySettings;
  updatedAt: number | null;
  updatedBy: string | null;
}

export interface NewAction {
  type: string;
  inboxId?: string | null;
  threadId?: string | null;
  messageId?: string | null;
  reminderId?: string | null;
  draftId?: string | null;
  note?: string | null;
  reasons?: string[];
}

export interface NewDraft {
  inboxId: string | null;
  messageId: string | null;
  threadId: string | null;
  to: string | null;
  subject: string;
  text: string;
  reasons: string[];
}

export interface ReminderFilter {
  status?: ReminderRow['status'] | undefined;
  kind?: string | undefined;
  inboxId?: string | undefined;
  threadId?: string | undefined;
  dueBefore?: number | undefined;
  /** Keyset: reminders after this (due, id). */
  after?: { d: number; i: string } | null | undefined;
}

export interface ActionFilter {
  reminderId?: string | undefined;
  threadId?: string | undefined;
  messageId?: string | undefined;
  type?: string | undefined;
  /** Keyset: actions older than this seq. */
  beforeSeq?: number | undefined;
}

/** The inbox ids a scoped key may see, as a subquery; null for an unscoped key (rows without an inbox need no scope). */
export function scopedInboxIds(db: WsDb, p: Principal) {
  const prefix = p.scope.labelPrefix;
  if (prefix === null) return null;
  return db
    .selectFrom('inboxes')
    .select('id')
    .where('team_id', '=', p.teamId)
    .where(sql<boolean>`substr(label, 1, ${prefix.length}) = ${prefix}`);
}

export class WorkspaceRepo {
  private readonly db: WsDb;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<WorkspaceTables>();
  }

  async policy(teamId: string): Promise<Policy> {
    const r = await this.db.selectFrom('workspace_policies').selectAll().where('team_id', '=', teamId).executeTakeFirst();
    if (!r) return { mode: 'draft_only', settings: { ...DEFAULT_SETTINGS }, updatedAt: null, updatedBy: null };
    return {
      mode: r.mode,
      settings: { ...DEFAULT_SETTINGS, ...(JSON.parse(r.settings_json) as Partial<PolicySettings>) },
      updatedAt: r.updated_at,
      updatedBy: r.updated_by,
    };
  }

  async setPolicy(p: Principal, mode: PolicyMode, settings: PolicySettings, now: number): Promise<Policy> {
    const row = { team_id: p.teamId, mode, settings_json: JSON.stringify(settings), updated_at: now, updated_by: p.keyId };
    await this.db
      .insertInto('workspace_policies')
      .values(row)
      .onConflict((oc) =>
        oc.column('team_id').doUpdateSet({ mode, settings_json: row.settings_json, updated_at: now, updated_by: p.keyId }),
      )
      .execute();
    return { mode, settings, updatedAt: now, updatedBy: p.keyId };
  }

  async logAction(p: Principal, a: NewAction, now: number): Promise<ActionRow> {
    const row: ActionRow = {
      id: wsId('act'),
      team_id: p.teamId,
      type: a.type,
      inbox_id: a.inboxId ?? null,
      thread_id: a.threadId ?? null,
      message_id: a.messageId ?? null,
      reminder_id: a.reminderId ?? null,
      draft_id: a.draftId ?? null,
      actor_key_id: p.keyId,
      note: a.note ?? null,
      reasons_json: JSON.stringify(a.reasons ?? []),
      at: now,
      seq: nextSeq(now),
    };
    await this.db.insertInto('workspace_actions').values(row).execute();
    return row;
  }

  /** Newest first, `limit + 1` rows (the extra one says there is a next page). */
  listActions(p: Principal, f: ActionFilter, limit: number): Promise<ActionRow[]> {
    let q = this.db.selectFrom('workspace_actions').selectAll().where('team_id', '=', p.teamId);
    const ids = scopedInboxIds(this.db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    if (f.reminderId) q = q.where('reminder_id', '=', f.reminderId);
    if (f.threadId) q = q.where('thread_id', '=', f.threadId);
    if (f.messageId) q = q.where('message_id', '=', f.messageId);
    if (f.type) q = q.where('type', '=', f.type);
    if (f.beforeSeq !== undefined) q = q.where('seq', '<', f.beforeSeq);
    return q
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute();
  }

  /** How many actions of each of `types` the team logged since `since`. */
  async actionCounts(teamId: string, types: string[], since: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('workspace_actions')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
      .where('team_id', '=', teamId)
      .where('at', '>', since)
      .where('type', 'in', types)
      .groupBy('type')
      .execute();
    return new Map(rows.map((r) => [r.type, Number(r.n)]));
  }

  /** Messages the team has acted on (sent, completed, drafted, blocked, waited) since `since`. */
  async actedOn(teamId: string, since: number): Promise<Set<string | null>> {
    const rows = await this.db
      .selectFrom('workspace_actions')
      .select('message_id')
      .where('team_id', '=', teamId)
      .where('type', 'in', ['sent', 'completed', 'draft', 'blocked', 'wait'])
      .where('at', '>', since)
      .execute();
    return new Set(rows.map((a) => a.message_id));
  }

  /** The hub's counts: open reminders, pending drafts, monitors and actions of the team. */
  async counts(teamId: string) {
    const count = async (t: 'workspace_reminders' | 'workspace_drafts' | 'workspace_monitors' | 'workspace_actions', status?: string) => {
      let q = this.db
        .selectFrom(t)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('team_id', '=', teamId);
      if (status) q = q.where('status' as never, '=', status as never);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    return {
      remindersOpen: await count('workspace_reminders', 'open'),
      draftsPending: await count('workspace_drafts', 'pending'),
      monitors: await count('workspace_monitors'),
      actions: await count('workspace_actions'),
    };
  }

  async storeDraft(p: Principal, d: NewDraft, now: number): Promise<DraftRow> {
    const row: DraftRow = {
      id: wsId('drf'),
      team_id: p.teamId,
      inbox_id: d.inboxId,
      message_id: d.messageId,
      thread_id: d.threadId,
      to_address: d.to,
      subject: d.subject.slice(0, 998),
      text: d.text,
      status: 'pending',
      reasons_json: JSON.stringify(d.reasons),
      snoozed_until: null,
      created_at: now,
      decided_at: null,
    };
    await this.db.insertInto('workspace_drafts').values(row).execute();
    return row;
  }

  draft(teamId: string, id: string): Promise<DraftRow | undefined> {
    return this.db.selectFrom('workspace_drafts').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  }

  async decideDraft(teamId: string, id: string, status: DraftRow['status'], snoozedUntil: number | null, now: number): Promise<void> {
    await this.db
      .updateTable('workspace_drafts')
      .set({ status, ...(status === 'sent' ? {} : { snoozed_until: snoozedUntil }), decided_at: now })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  /** Drafts pending a decision, or whose snooze has ended, oldest first. */
  decidableDrafts(p: Principal, now: number): Promise<DraftRow[]> {
    let q = this.db
      .selectFrom('workspace_drafts')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'snoozed'), eb('snoozed_until', '<=', now)])]));
    const ids = scopedInboxIds(this.db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    return q.orderBy('created_at').limit(200).execute();
  }

  async insertReminder(row: ReminderRow): Promise<void> {
    await this.db.insertInto('workspace_reminders').values(row).execute();
  }

  reminder(teamId: string, id: string): Promise<ReminderRow | undefined> {
    return this.db.selectFrom('workspace_reminders').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  }

  /** Soonest due first, `limit + 1` rows (the extra one says there is a next page). */
  listReminders(p: Principal, f: ReminderFilter, limit: number): Promise<ReminderRow[]> {
    let q = this.db.selectFrom('workspace_reminders').selectAll().where('team_id', '=', p.teamId);
    const ids = scopedInboxIds(this.db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.kind) q = q.where('kind', '=', f.kind);
    if (f.inboxId) q = q.where('inbox_id', '=', f.inboxId);
    if (f.threadId) q = q.where('thread_id', '=', f.threadId);
    if (f.dueBefore !== undefined) q = q.where('due_at', '<', f.dueBefore);
    const after = f.after;
    if (after) q = q.where((eb) => eb.or([eb('due_at', '>', after.d), eb.and([eb('due_at', '=', after.d), eb('id', '>', after.i)])]));
    return q
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute();
  }

  async setReminderStatus(id: string, status: ReminderRow['status'], snoozedUntil: number | null, now: number): Promise<void> {
    await this.db
      .updateTable('workspace_reminders')
      .set({ status, snoozed_until: snoozedUntil, completed_at: status === 'completed' ? now : null })
      .where('id', '=', id)
      .execute();
  }

  async completeReminder(id: string, now: number): Promise<void> {
    await this.db.updateTable('workspace_reminders').set({ status: 'completed', completed_at: now }).where('id', '=', id).execute();
  }

  /** Reminders due within a day, or whose snooze has ended, soonest first. */
  dueReminders(p: Principal, now: number): Promise<ReminderRow[]> {
    let q = this.db
      .selectFrom('workspace_reminders')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'open'), eb('due_at', '<=', now + 24 * 3600_000)]),
          eb.and([eb('status', '=', 'snoozed'), eb('snoozed_until', '<=', now)]),
        ]),
      );
    const ids = scopedInboxIds(this.db, p);
    if (ids) q = q.where('inbox_id', 'in', ids);
    return q.orderBy('due_at').limit(200).execute();
  }

  /** Automatic sends in the last 24 h: for the team, and for one thread (or source message when threads are unknown). */
  async sentCounts(teamId: string, threadKey: { threadId: string | null; messageId: string }, now: number) {
    const since = now - 24 * 3600_000;
    const base = this.db.selectFrom('workspace_sends').where('team_id', '=', teamId).where('state', '=', 'sent').where('at', '>', since);
    const team = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const thread = await (threadKey.threadId
      ? base.where('thread_id', '=', threadKey.threadId)
      : base.where('source_message_id', '=', threadKey.messageId)
    )
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { team: Number(team.n), thread: Number(thread.n) };
  }

  /**
   * Claims the one automatic send of a source message (the natural key), before sending. False when it was claimed
   * before, by any request: then `sendOf` says whether it was sent.
   */
  async claimSend(teamId: string, messageId: string, threadId: string | null, now: number): Promise<boolean> {
    const claimed = await this.db
      .insertInto('workspace_sends')
      .values({ team_id: teamId, source_message_id: messageId, state: 'sending', sent_message_id: null, thread_id: threadId, at: now })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  sendOf(teamId: string, messageId: string) {
    return this.db
      .selectFrom('workspace_sends')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('source_message_id', '=', messageId)
      .executeTakeFirst();
  }

  /** A send that failed gives its claim back, so a retry may send. */
  async releaseSend(teamId: string, messageId: string): Promise<void> {
    await this.db.deleteFrom('workspace_sends').where('team_id', '=', teamId).where('source_message_id', '=', messageId).execute();
  }

  async markSent(teamId: string, messageId: string, sentMessageId: string): Promise<void> {
    await this.db
      .updateTable('workspace_sends')
      .set({ state: 'sent', sent_message_id: sentMessageId })
      .where('team_id', '=', teamId)
      .where('source_message_id', '=', messageId)
      .execute();
  }
}
