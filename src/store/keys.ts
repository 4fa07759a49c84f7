// Teams and API keys. Secrets arrive here already hashed; this module never sees one in clear.
import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyTable, Database, OAuthClientTable, TeamTable } from './schema.ts';

export type TeamRow = Selectable<TeamTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;

export const DEFAULT_TEAM_ID = 'team_default';

export class KeyRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async ensureDefaultTeam(now: number): Promise<TeamRow> {
    await this.db
      .insertInto('teams')
      .values({ id: DEFAULT_TEAM_ID, name: 'default', plan: 'self-hosted', created_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return this.db.selectFrom('teams').selectAll().where('id', '=', DEFAULT_TEAM_ID).executeTakeFirstOrThrow();
  }

  async team(id: string): Promise<TeamRow | undefined> {
    return this.db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  async byHash(secretHash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
  }

  async byId(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async countActive(): Promise<number> {
    const r = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async listForTeam(teamId: string): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async revoke(id: string, at: number): Promise<void> {
    await this.db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }
}

export type OAuthClientRow = Selectable<OAuthClientTable>;

export class AccessRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async insertClient(row: OAuthClientRow, key: ApiKeyRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('oauth_clients').values(row).execute();
      await trx.insertInto('api_keys').values(key).execute();
    });
  }

  async client(id: string): Promise<{ client: OAuthClientRow; key: ApiKeyRow | undefined } | undefined> {
    const client = await this.db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
    if (!client) return undefined;
    const key = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('client_id', '=', id)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return { client, key };
  }

  async insertToken(row: { id: string; key_id: string; token_hash: string; created_at: number; expires_at: number }): Promise<void> {
    await this.db.insertInto('access_tokens').values(row).execute();
  }

  /**
   * The token's key, if the token exists and has not expired; the caller checks the key's revocation. A token
   * minted for one run carries that run's label as its scope instead of the key's (always inside it).
   */
  async tokenKey(tokenHash: string, now: number): Promise<ApiKeyRow | undefined> {
    const row = await this.db
      .selectFrom('access_tokens')
      .innerJoin('api_keys', 'api_keys.id', 'access_tokens.key_id')
      .selectAll('api_keys')
      .select('access_tokens.label_prefix as token_label_prefix')
      .where('access_tokens.token_hash', '=', tokenHash)
      .where('access_tokens.expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const { token_label_prefix, ...key } = row;
    return token_label_prefix === null ? key : { ...key, scope_label_prefix: token_label_prefix };
  }

  async deleteTokensOfKey(keyId: string): Promise<number> {
    const r = await this.db.deleteFrom('access_tokens').where('key_id', '=', keyId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteExpiredTokens(now: number): Promise<number> {
    const r = await this.db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async countActiveFullAdmins(teamId: string): Promise<number> {
    const r = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('revoked_at', 'is', null)
      .where('role', '=', 'admin')
      .where('scope_label_prefix', 'is', null)
      .where('scope_read_only', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async setBillingCustomer(teamId: string, customerId: string): Promise<void> {
    await this.db.updateTable('teams').set({ billing_customer_id: customerId }).where('id', '=', teamId).execute();
  }
}
