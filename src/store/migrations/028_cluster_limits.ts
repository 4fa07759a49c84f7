import type { Kysely } from 'kysely';

// Issue 33: limits that hold across the instances of a cluster (README "Scaling out"). `limit_windows` counts events
// per scope ('rate': requests per key, 'send': sends per team, 'rehearsal': rehearsal-page attempts) and key in
// one-minute windows: one upsert per event (batched: the events of one tick go in one statement), exact within a
// window. `limit_holds` counts what is held open (waits) per scope, key and instance: an instance adds and removes
// its own holds, the others' are summed in the same statement, and the rows of an instance that stopped refreshing
// `seen_at` (it died) stop counting. `rehearsal_sessions` holds the rehearsal page's signups (code, link, wrong codes
// typed), so a signup on one instance is confirmed on another and its lock-out counts both. On SQLite (one instance)
// the three stay empty: the limits and rehearsals are kept in memory.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('limit_windows')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('limit_windows_pk', ['scope', 'key', 'window'])
    .execute();
  await db.schema.createIndex('limit_windows_window').on('limit_windows').column('window').execute();
  await db.schema
    .createTable('limit_holds')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('seen_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('limit_holds_pk', ['scope', 'key', 'instance'])
    .execute();
  await db.schema
    .createTable('rehearsal_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('link_token', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wrong_codes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('rehearsal_sessions_expires').on('rehearsal_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rehearsal_sessions').execute();
  await db.schema.dropTable('limit_holds').execute();
  await db.schema.dropTable('limit_windows').execute();
}
