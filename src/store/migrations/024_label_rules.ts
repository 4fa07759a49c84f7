import { type Kysely, sql } from 'kysely';

// Labels on messages (README "Labels by rule"): a message row's labels, from its plus address, its X-Tags header or a
// saved rule of its team; and the rules, written in the search query language, that add labels to arriving mail.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_labels')
    .addColumn('message_id', 'text', (c) => c.notNull().references('message_rows.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('plus','header','rule')`))
    .addColumn('rule_id', 'text')
    .addPrimaryKeyConstraint('message_labels_pk', ['message_id', 'label'])
    .execute();
  await db.schema
    .createTable('label_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('label_prefix', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('labels_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('label_rules_team').on('label_rules').columns(['team_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('label_rules').execute();
  await db.schema.dropTable('message_labels').execute();
}
