// Teams and API keys. Secrets arrive here already hashed; this module never sees one in clear.
import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyTable, Database, TeamTable } from './schema.ts';

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
