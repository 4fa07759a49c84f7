import type { Kysely } from 'kysely';

// Fault rules (issue 29, src/faults/): the rules of each scope (global, a label prefix, an inbox) in their order,
// the faults that fired (an inbox's timeline, the team's fault log), and one version row every instance watches so
// a rule set on one instance is applied by all (src/faults/service.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('fault_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('label_prefix', 'text')
    .addColumn('inbox_id', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('rule_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .execute();
  await db.schema.createIndex('fault_rules_team').on('fault_rules').columns(['team_id', 'scope']).execute();
  await db.schema
    .createTable('fault_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('inbox_id', 'text')
    .addColumn('label', 'text')
    .addColumn('rule_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('code', 'integer')
    .addColumn('reply', 'text')
    .addColumn('sender', 'text')
    .addColumn('recipient', 'text')
    .addColumn('client', 'text')
    .addColumn('at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fault_events_inbox').on('fault_events').columns(['inbox_id', 'at']).execute();
  await db.schema.createIndex('fault_events_team').on('fault_events').columns(['team_id', 'at']).execute();
  await db.schema
    .createTable('fault_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('fault_state').execute();
  await db.schema.dropTable('fault_events').execute();
  await db.schema.dropTable('fault_rules').execute();
}
