import type { Kysely } from 'kysely';

// Issue 33: the cluster view (GET /v1/cluster, src/cluster/). Each running instance keeps one row up to date: a
// heartbeat every few seconds with its version, start time, the background jobs it leads, its health and its model
// chain's readiness (a probe runs on one instance; every instance's answer is shown); a row whose
// heartbeat is late is shown as stale, a stopped instance marks its row, and old rows are pruned. On SQLite the table
// holds the one instance of the data dir.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('heartbeat_at', 'integer', (c) => c.notNull())
    .addColumn('stopped_at', 'integer')
    .addColumn('roles_json', 'text', (c) => c.notNull())
    .addColumn('health_json', 'text', (c) => c.notNull())
    .addColumn('models_json', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('instances').execute();
}
