import type { Kysely } from 'kysely';

// The retention sweep deletes audit events older than a cut-off across all teams: an index on `at` alone keeps
// that a range scan instead of a pass over the whole table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_events_at').ifNotExists().on('audit_events').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_events_at').ifExists().execute();
}
