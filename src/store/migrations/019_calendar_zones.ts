import type { Kysely } from 'kysely';

// Issue #25: an invitation's VTIMEZONEs are stored once (calendar_local_zones, keyed by team and the SHA-256 of the
// set), not copied into each of its events' rows: a 275 KB invitation of many events cost its time-zone block once per
// event (+430 MB). Rows written before keep their VTIMEZONEs inside `ics` (zones_id null) and are read as they are;
// an update of such an event writes it the new way. `skip_reason` remembers an event whose recurrence cannot be
// expanded for any range (a rule that never matches, malformed data), so later reads skip it without trying again.
// Plain ALTER TABLE … ADD COLUMN (one column per statement) works the same on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('calendar_local_zones')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('ics', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_local_zones_pk', ['team_id', 'id'])
    .execute();
  await db.schema.alterTable('calendar_local_events').addColumn('zones_id', 'text').execute();
  await db.schema.alterTable('calendar_local_events').addColumn('skip_reason', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calendar_local_events').dropColumn('skip_reason').execute();
  await db.schema.alterTable('calendar_local_events').dropColumn('zones_id').execute();
  await db.schema.dropTable('calendar_local_zones').execute();
}
