// Reminders (`rem_…`) and the action log (`act_…`), per team; a scoped key sees only rows of inboxes in its scope.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { type ActionRow, iso, type ReminderRow, type WsDb } from './tables.ts';

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
