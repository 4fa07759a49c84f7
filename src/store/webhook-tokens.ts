// Replay protection for signed provider webhooks: a token may be used once while its signature is still fresh.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export class WebhookTokenRepo {
  private readonly db: Kysely<Database>;
  private lastPrune = 0;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Records the token; false when it was already used (a replay). Expired tokens are pruned now and then. */
  async claim(provider: string, token: string, expiresAt: number, now: number): Promise<boolean> {
    if (now - this.lastPrune > 60_000) {
      this.lastPrune = now;
      await this.db.deleteFrom('webhook_tokens').where('expires_at', '<', now).execute();
    }
    const r = await this.db
      .insertInto('webhook_tokens')
      .values({ provider, token, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(['provider', 'token']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Gives a claimed token back when its request could not be stored, so the provider's retry is accepted. */
  async release(provider: string, token: string): Promise<void> {
    await this.db.deleteFrom('webhook_tokens').where('provider', '=', provider).where('token', '=', token).execute();
  }
}
