import type { Kysely } from 'kysely';

// Issue 33: MCP sessions every instance can serve. On PostgreSQL a session's state (id, owner, the protocol version,
// client info and capabilities given at initialize, subscriptions, tool sets, json-only answers) is a row here, and
// any instance that receives a request of the session rebuilds its transport from the row (src/mcp/endpoint.ts).
// `last_seen` drives the cluster-wide idle sweep; `busy` counts calls in flight (a session with one is not reclaimed
// when the table is full). On SQLite (one instance) the sessions stay in memory and this table stays empty.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('protocol_version', 'text', (c) => c.notNull())
    .addColumn('client_json', 'text', (c) => c.notNull())
    .addColumn('capabilities_json', 'text', (c) => c.notNull())
    .addColumn('subscriptions_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('toolsets_json', 'text')
    .addColumn('json_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('busy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_seen', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_sessions_key').on('mcp_sessions').column('key_id').execute();
  await db.schema.createIndex('mcp_sessions_team').on('mcp_sessions').column('team_id').execute();
  await db.schema.createIndex('mcp_sessions_last_seen').on('mcp_sessions').column('last_seen').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mcp_sessions').execute();
}
