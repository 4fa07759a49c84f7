// The label rules' queries (table label_rules, migration 024). The rules of every team are read at start and after a
// change into the service's memory; arriving mail never queries them.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

export type LabelRuleRow = {
  id: string;
  team_id: string;
  /** The label prefix of the key that made it: it applies only to inboxes inside that scope (null: every inbox). */
  label_prefix: string | null;
  name: string;
  query: string;
  labels_json: string;
  created_at: number;
  updated_at: number;
};

export type LabelTables = {
  label_rules: LabelRuleRow;
};

export class LabelRuleRepo {
  private readonly db: Kysely<LabelTables>;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<LabelTables>();
  }

  all(): Promise<LabelRuleRow[]> {
    return this.db.selectFrom('label_rules').selectAll().orderBy('team_id').orderBy('created_at').orderBy('id').execute();
  }

  ofTeam(teamId: string): Promise<LabelRuleRow[]> {
    return this.db.selectFrom('label_rules').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
  }

  byId(teamId: string, id: string): Promise<LabelRuleRow | undefined> {
    return this.db.selectFrom('label_rules').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  }

  /** Inserts the rule unless the team already has `max`; false when it has. One transaction, so two racing creates cannot pass the cap. */
  async insertCapped(row: LabelRuleRow, max: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const n = await trx
        .selectFrom('label_rules')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('team_id', '=', row.team_id)
        .executeTakeFirstOrThrow();
      if (Number(n.n) >= max) return false;
      await trx.insertInto('label_rules').values(row).execute();
      return true;
    });
  }

  async update(teamId: string, id: string, set: Pick<LabelRuleRow, 'name' | 'query' | 'labels_json' | 'updated_at'>): Promise<void> {
    await this.db.updateTable('label_rules').set(set).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  async delete(teamId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('label_rules').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
