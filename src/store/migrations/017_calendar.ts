import type { Kysely } from 'kysely';

// The local calendar (CONTRACT §15, src/providers/calendar/local.ts): events fed by the iCalendar invitations that
// arrive in a team's inboxes, plus events created with no calendar account. `calendar_local_events` holds one row per
// (team, inbox, UID) with the event's iCalendar text (all its VEVENTs and VTIMEZONEs), expanded at query time;
// `calendar_sync` is each team's cursor over received mail; `calendar_seen` records every calendar part read (with
// why one was skipped), so a part is read once however many instances sync at the same time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('calendar_local_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('inbox_key', 'text', (c) => c.notNull())
    .addColumn('inbox_id', 'text')
    .addColumn('scope_label', 'text')
    .addColumn('uid', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('ics', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('first_start', 'integer', (c) => c.notNull())
    .addColumn('last_end', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('calendar_local_events_uid')
    .on('calendar_local_events')
    .columns(['team_id', 'inbox_key', 'uid'])
    .unique()
    .execute();
  await db.schema.createIndex('calendar_local_events_span').on('calendar_local_events').columns(['team_id', 'first_start']).execute();
  await db.schema
    .createTable('calendar_sync')
    .addColumn('team_id', 'text', (c) => c.primaryKey())
    .addColumn('cursor_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('calendar_seen')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('inbox_id', 'text')
    .addColumn('scope_label', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_seen_pk', ['team_id', 'message_id', 'idx'])
    .execute();
  await db.schema.createIndex('calendar_seen_at').on('calendar_seen').columns(['team_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('calendar_seen').execute();
  await db.schema.dropTable('calendar_sync').execute();
  await db.schema.dropTable('calendar_local_events').execute();
}
