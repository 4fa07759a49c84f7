// The fault rules' queries (FaultService's repository): rule sets per scope, the version row every instance watches,
// the faults that fired (an inbox's timeline, the team's fault log) and their pruning.
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

export interface FaultRuleRow {
  id: string;
  team_id: string;
  scope: 'global' | 'prefix' | 'inbox';
  label_prefix: string | null;
  inbox_id: string | null;
  position: number;
  rule_json: string;
  created_at: number;
  created_by: string | null;
}

export interface FaultEventRow {
  id: string;
  team_id: string | null;
  inbox_id: string | null;
  label: string | null;
  rule_id: string | null;
  source: 'rule' | 'shortcut';
  stage: string;
  action: string;
  code: number | null;
  reply: string | null;
  sender: string | null;
  recipient: string | null;
  client: string | null;
  at: number;
}

type FaultTables = {
  fault_rules: FaultRuleRow;
  fault_events: FaultEventRow;
  fault_state: { id: number; version: number };
};

/** A rule row with the address and label of its inbox (inbox-scoped rules; null for the others or a gone inbox). */
export type FaultRuleWithInbox = FaultRuleRow & { address: string | null; inbox_label: string | null };

export type ScopeKey = { scope: 'global' } | { scope: 'prefix'; labelPrefix: string } | { scope: 'inbox'; inboxId: string };

export class FaultRepo {
  private readonly db: Kysely<Database & FaultTables>;
  private versionQuery: ((values: Record<never, unknown>) => CompiledQuery) | null = null;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<FaultTables>();
  }

  /** Bumped in the same transaction as every change of rules; 0 before the first. */
  /** Read for every SMTP connection on a shared database: precompiled (a named statement on PostgreSQL). */
  async version(): Promise<number> {
    this.versionQuery ??= precompile([], () => this.db.selectFrom('fault_state').select('version').where('id', '=', 1).compile());
    const r = (await this.db.executeQuery<{ version: number | string }>(this.versionQuery({}))).rows[0];
    return r ? Number(r.version) : 0;
  }

  /** Deletes the rules of inboxes that are gone (deleted or expired); answers how many. */
  async deleteOrphans(): Promise<number> {
    const r = await this.db
      .deleteFrom('fault_rules')
      .where('scope', '=', 'inbox')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('inboxes').select('inboxes.id').whereRef('inboxes.id', '=', 'fault_rules.inbox_id'))))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Every rule of every team with its inbox, in scope order; rules of inboxes that are gone are deleted first. */
  async all(): Promise<FaultRuleWithInbox[]> {
    await this.deleteOrphans();
    return this.withInbox().orderBy('fault_rules.team_id').orderBy('fault_rules.position').execute() as Promise<FaultRuleWithInbox[]>;
  }

  /** The team's rules (all scopes), in order. */
  async ofTeam(teamId: string): Promise<FaultRuleWithInbox[]> {
    return this.withInbox()
      .where('fault_rules.team_id', '=', teamId)
      .orderBy('fault_rules.scope')
      .orderBy('fault_rules.label_prefix')
      .orderBy('fault_rules.inbox_id')
      .orderBy('fault_rules.position')
      .execute() as Promise<FaultRuleWithInbox[]>;
  }

  private withInbox() {
    return this.db
      .selectFrom('fault_rules')
      .leftJoin('inboxes', 'inboxes.id', 'fault_rules.inbox_id')
      .selectAll('fault_rules')
      .select(['inboxes.address as address', 'inboxes.label as inbox_label']);
  }

  /** Rules of the team outside the given scope (for the per-team cap). */
  async countOthers(teamId: string, key: ScopeKey): Promise<number> {
    const r = await this.db
      .selectFrom('fault_rules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where((eb) => eb.not(this.scopeWhere(eb, key)))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  // biome-ignore lint/suspicious/noExplicitAny: kysely's expression builder type for this table
  private scopeWhere(eb: any, key: ScopeKey) {
    if (key.scope === 'global') return eb('scope', '=', 'global');
    if (key.scope === 'prefix') return eb.and([eb('scope', '=', 'prefix'), eb('label_prefix', '=', key.labelPrefix)]);
    return eb.and([eb('scope', '=', 'inbox'), eb('inbox_id', '=', key.inboxId)]);
  }

  /** Replaces the rules of one scope of a team and bumps the version, in one transaction. */
  async replace(teamId: string, key: ScopeKey, rows: FaultRuleRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('fault_rules')
        .where('team_id', '=', teamId)
        .where((eb) => this.scopeWhere(eb, key))
        .execute();
      for (let i = 0; i < rows.length; i += 100)
        await trx
          .insertInto('fault_rules')
          .values(rows.slice(i, i + 100))
          .execute();
      await bump(trx);
    });
  }

  /** Deletes the rules of one scope; answers how many there were. */
  async clear(teamId: string, key: ScopeKey): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .deleteFrom('fault_rules')
        .where('team_id', '=', teamId)
        .where((eb) => this.scopeWhere(eb, key))
        .executeTakeFirst();
      await bump(trx);
      return Number(r.numDeletedRows);
    });
  }

  async insertEvents(rows: FaultEventRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100)
      await this.db
        .insertInto('fault_events')
        .values(rows.slice(i, i + 100))
        .execute();
  }

  /** The newest fault events of an inbox at or after `since`, newest first. */
  async ofInbox(inboxId: string, since: number, limit: number): Promise<FaultEventRow[]> {
    return this.db
      .selectFrom('fault_events')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('at', '>=', since)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * The newest fault events of a team at or after `since`, newest first: for an unscoped key also those of no inbox
   * (connect to mail stages, unclaimed addresses); for a scoped key those of inboxes whose label has its prefix.
   */
  async ofTeamEvents(teamId: string, labelPrefix: string | null, since: number, limit: number): Promise<FaultEventRow[]> {
    let q = this.db.selectFrom('fault_events').selectAll().where('at', '>=', since);
    q =
      labelPrefix === null
        ? q.where((eb) => eb.or([eb('team_id', '=', teamId), eb('team_id', 'is', null)]))
        : q.where('team_id', '=', teamId).where(sql<boolean>`substr(label, 1, ${labelPrefix.length}) = ${labelPrefix}`);
    return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** Removes fault events older than `before`; answers how many. */
  async prune(before: number): Promise<number> {
    const r = await this.db.deleteFrom('fault_events').where('at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}

async function bump(trx: Kysely<Database & FaultTables>): Promise<void> {
  const r = await trx.updateTable('fault_state').set({ version: sql`version + 1` }).where('id', '=', 1).executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0)
    await trx
      .insertInto('fault_state')
      .values({ id: 1, version: 1 })
      .onConflict((oc) => oc.column('id').doUpdateSet({ version: sql`fault_state.version + 1` }))
      .execute();
}
