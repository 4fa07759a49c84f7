import { sql, type Kysely } from 'kysely';

// The workspace preview (CONTRACT §13): per-team policy, reminders, the append-only action log, drafts awaiting a
// decision, execute-reply idempotency keys and the one-send-per-source-message guard, monitors and their runs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace_policies')
    .addColumn('team_id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('draft_only','auto_send_safe','full_auto')`))
    .addColumn('settings_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .execute();

  await db.schema
    .createTable('workspace_reminders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('inbox_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('due_at', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open','completed','dismissed','snoozed')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('snoozed_until', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('completed_at', 'integer')
    .execute();
  await db.schema.createIndex('workspace_reminders_team_due').on('workspace_reminders').columns(['team_id', 'due_at', 'id']).execute();

  await db.schema
    .createTable('workspace_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('inbox_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('reminder_id', 'text')
    .addColumn('draft_id', 'text')
    .addColumn('actor_key_id', 'text')
    .addColumn('note', 'text')
    .addColumn('reasons_json', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workspace_actions_team_seq').on('workspace_actions').columns(['team_id', 'seq']).execute();
  await db.schema.createIndex('workspace_actions_reminder').on('workspace_actions').columns(['team_id', 'reminder_id']).execute();
  await db.schema.createIndex('workspace_actions_thread').on('workspace_actions').columns(['team_id', 'thread_id']).execute();

  await db.schema
    .createTable('workspace_drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('inbox_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('to_address', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','sent','dismissed','snoozed')`))
    .addColumn('reasons_json', 'text', (c) => c.notNull())
    .addColumn('snoozed_until', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('decided_at', 'integer')
    .execute();
  await db.schema.createIndex('workspace_drafts_team_status').on('workspace_drafts').columns(['team_id', 'status', 'created_at']).execute();

  // Stripe semantics: the row is inserted before any work, so a concurrent replay finds it (in flight → 409).
  await db.schema
    .createTable('workspace_idempotency')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('running','done')`))
    .addColumn('status', 'integer')
    .addColumn('response_json', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_idempotency_pk', ['team_id', 'key'])
    .execute();
  await db.schema.createIndex('workspace_idempotency_expires').on('workspace_idempotency').column('expires_at').execute();

  // The natural key: at most one reply is ever sent for one source message, whatever keys the callers use.
  await db.schema
    .createTable('workspace_sends')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('source_message_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('sent_message_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_sends_pk', ['team_id', 'source_message_id'])
    .execute();

  await db.schema
    .createTable('workspace_monitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('params_json', 'text', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('next_run_at', 'integer', (c) => c.notNull())
    .addColumn('last_run_at', 'integer')
    .addColumn('last_status', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .execute();
  await db.schema.createIndex('workspace_monitors_due').on('workspace_monitors').columns(['enabled', 'next_run_at']).execute();

  await db.schema
    .createTable('workspace_monitor_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('workspace_monitors.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('findings_json', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workspace_monitor_runs_order').on('workspace_monitor_runs').columns(['monitor_id', 'seq']).execute();
}
