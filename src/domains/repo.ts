// The custom domains' queries (DomainService's repository): the `domains` rows, the inboxes and unclaimed mail at a
// domain's name, and the SQLite housekeeping run once DKIM keys are sealed (secure_delete, VACUUM, WAL truncation).
import { type Kysely, type Selectable, sql } from 'kysely';
import { dialectOf } from '../store/dialect.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { Database, DomainTable } from '../store/schema.ts';

export type DomainRow = Selectable<DomainTable>;

/** The `domains` columns a verify rewrites. */
export type DomainCheck = Pick<DomainRow, 'status' | 'signing_ready' | 'checks_json' | 'checked_at' | 'verified_at'>;

export class DomainRepo {
  private readonly db: Kysely<Database>;
  /** SQLite's LIKE ignores ASCII case; PostgreSQL's does not (ILIKE does). */
  private readonly like: 'like' | 'ilike';
  /** The store is SQLite (its file keeps freed pages, so sealing keys also rewrites it). */
  readonly sqlite: boolean;

  constructor(db: Kysely<Database>) {
    this.db = db;
    this.sqlite = dialectOf(db as never) === 'sqlite';
    this.like = this.sqlite ? 'like' : 'ilike';
  }

  /** The team and status of the domain named exactly `name`, or undefined. */
  async stateOf(name: string): Promise<Pick<DomainRow, 'team_id' | 'status'> | undefined> {
    return this.db.selectFrom('domains').select(['team_id', 'status']).where('name', '=', name).executeTakeFirst();
  }

  async verifiedNames(): Promise<Array<Pick<DomainRow, 'name' | 'team_id'>>> {
    return this.db.selectFrom('domains').select(['name', 'team_id']).where('status', '=', 'verified').execute();
  }

  async all(): Promise<DomainRow[]> {
    return this.db.selectFrom('domains').selectAll().execute();
  }

  async byName(name: string): Promise<DomainRow | undefined> {
    return this.db.selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst();
  }

  /** The team's domain `id`, or undefined (also when it is another team's). */
  async ofTeam(teamId: string | null, id: string): Promise<DomainRow | undefined> {
    return this.db.selectFrom('domains').selectAll().where('id', '=', id).where('team_id', '=', teamId).executeTakeFirst();
  }

  /** A page of the team's domains, newest first, before the cursor `before` (created_at, id). */
  async page(teamId: string | null, limit: number, before?: { c: number; i: string }): Promise<DomainRow[]> {
    let q = this.db.selectFrom('domains').selectAll().where('team_id', '=', teamId);
    if (before)
      q = q.where((eb) => eb.or([eb('created_at', '<', before.c), eb.and([eb('created_at', '=', before.c), eb('id', '<', before.i)])]));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** The verified domain named `name` whose DKIM and SPF records matched at the last verify, or undefined. */
  async signing(name: string): Promise<DomainRow | undefined> {
    return this.db
      .selectFrom('domains')
      .selectAll()
      .where('name', '=', name)
      .where('status', '=', 'verified')
      .where('signing_ready', '=', 1)
      .executeTakeFirst();
  }

  /** Throws the driver's unique violation on `domains.name` when the name is taken. */
  async insert(row: DomainRow): Promise<void> {
    await this.db.insertInto('domains').values(row).execute();
  }

  async setPrivateKey(id: string, value: string): Promise<void> {
    await this.db.updateTable('domains').set({ dkim_private_key: value }).where('id', '=', id).execute();
  }

  /** Stores a verify's result; false when the row is gone (deleted meanwhile). */
  async saveCheck(id: string, check: DomainCheck): Promise<boolean> {
    const r = await this.db.updateTable('domains').set(check).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) !== 0;
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('domains').where('id', '=', id).execute();
  }

  /** Up to `limit` inboxes at `name` (any case) of team `teamId`. */
  async inboxesOfTeamAt(name: string, teamId: string | null, limit: number): Promise<InboxRow[]> {
    return this.db
      .selectFrom('inboxes')
      .selectAll()
      .where('address', this.like, `%@${name}`)
      .where('team_id', '=', teamId)
      .limit(limit)
      .execute();
  }

  /** Up to `limit` inboxes at `name` (any case) of teams other than `teamId`. */
  async inboxesOfOthersAt(name: string, teamId: string, limit: number): Promise<InboxRow[]> {
    return this.db
      .selectFrom('inboxes')
      .selectAll()
      .where('address', this.like, `%@${name}`)
      .where('team_id', '!=', teamId)
      .limit(limit)
      .execute();
  }

  /** Ids of up to `limit` messages to an address at `name` (any case) that no inbox claimed. */
  async unclaimedMessageIds(name: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('message_rows')
      .select('id')
      .where('inbox_id', 'is', null)
      .where('rcpt', this.like, `%@${name}`)
      .limit(limit)
      .execute();
    return rows.map((m) => m.id);
  }

  /** SQLite only: whether rewritten rows have their old bytes zeroed. */
  async secureDelete(on: boolean): Promise<void> {
    await (on ? sql`PRAGMA secure_delete = ON` : sql`PRAGMA secure_delete = OFF`).execute(this.db);
  }

  /** SQLite only: rewrites the file from the live rows (VACUUM), then empties the WAL. */
  async rewriteFile(): Promise<void> {
    await sql`VACUUM`.execute(this.db);
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(this.db);
  }
}
