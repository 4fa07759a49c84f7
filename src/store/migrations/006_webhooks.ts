import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Tokens of signed provider webhooks (Mailgun) already used, kept for the replay window so that a captured request
  // cannot be posted again, also not across a restart.
  await db.schema
    .createTable('webhook_tokens')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_tokens_pk', ['provider', 'token'])
    .execute();
  await db.schema.createIndex('webhook_tokens_expiry').on('webhook_tokens').column('expires_at').execute();
}
