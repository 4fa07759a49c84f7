import type { Kysely } from 'kysely';

// Mailbox provider settings (CONTRACT §15, src/providers/mailbox/settings.ts): per team and mailbox account (`local`
// or a provider_accounts id) the triage rules, digest window, signature and time zone, as validated JSON.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mailbox_settings')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('settings_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .addPrimaryKeyConstraint('mailbox_settings_pk', ['team_id', 'account_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mailbox_settings').execute();
}
