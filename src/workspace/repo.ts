// Reads and writes of the workspace tables. Every query is scoped by team.
import type { Principal } from '../auth/principal.ts';
import { DEFAULT_SETTINGS, type PolicySettings } from './rules.ts';
import { type ActionRow, type DraftRow, type PolicyMode, type ReminderRow, nextSeq, type WsDb, wsId } from './tables.ts';

export interface Policy {
  mode: PolicyMode;
  settings: PolicySettings;
  updatedAt: number | null;
  updatedBy: string | null;
}

export async function getPolicy(db: WsDb, teamId: string): Promise<Policy> {
  const r = await db.selectFrom('workspace_policies').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  if (!r) return { mode: 'draft_only', settings: { ...DEFAULT_SETTINGS }, updatedAt: null, updatedBy: null };
  return {
    mode: r.mode,
    settings: { ...DEFAULT_SETTINGS, ...(JSON.parse(r.settings_json) as Partial<PolicySettings>) },
    updatedAt: r.updated_at,
    updatedBy: r.updated_by,
  };
}

export async function setPolicy(db: WsDb, p: Principal, mode: PolicyMode, settings: PolicySettings, now: number): Promise<Policy> {
  const row = { team_id: p.teamId, mode, settings_json: JSON.stringify(settings), updated_at: now, updated_by: p.keyId };
  await db
    .insertInto('workspace_policies')
    .values(row)
    .onConflict((oc) => oc.column('team_id').doUpdateSet({ mode, settings_json: row.settings_json, updated_at: now, updated_by: p.keyId }))
    .execute();
  return { mode, settings, updatedAt: now, updatedBy: p.keyId };
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

export async function logAction(db: WsDb, p: Principal, a: NewAction, now: number): Promise<ActionRow> {
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
  await db.insertInto('workspace_actions').values(row).execute();
  return row;
}

export async function storeDraft(
  db: WsDb,
  p: Principal,
  d: {
    inboxId: string | null;
    messageId: string | null;
    threadId: string | null;
    to: string | null;
    subject: string;
    text: string;
    reasons: string[];
  },
  now: number,
): Promise<DraftRow> {
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
  await db.insertInto('workspace_drafts').values(row).execute();
  return row;
}

export async function getDraft(db: WsDb, teamId: string, id: string): Promise<DraftRow | undefined> {
  return db.selectFrom('workspace_drafts').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

export async function getReminder(db: WsDb, teamId: string, id: string): Promise<ReminderRow | undefined> {
  return db.selectFrom('workspace_reminders').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

/** Automatic sends in the last 24 h: for the team, and for one thread (or source message when threads are unknown). */
export async function sentCounts(db: WsDb, teamId: string, threadKey: { threadId: string | null; messageId: string }, now: number) {
  const since = now - 24 * 3600_000;
  const base = db.selectFrom('workspace_sends').where('team_id', '=', teamId).where('state', '=', 'sent').where('at', '>', since);
  const team = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const thread = await (threadKey.threadId
    ? base.where('thread_id', '=', threadKey.threadId)
    : base.where('source_message_id', '=', threadKey.messageId)
  )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { team: Number(team.n), thread: Number(thread.n) };
}
