// The cluster view's queries (ClusterService's repository): each instance's heartbeat row (migration 029).
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

export interface InstanceRow {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
  roles_json: string;
  health_json: string;
  models_json: string;
}

type ClusterTables = { instances: InstanceRow };

export class InstanceRepo {
  private readonly db: Kysely<ClusterTables>;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<ClusterTables>();
  }

  /** Writes this instance's row (one statement: insert, or update on a later beat). */
  async beat(row: InstanceRow): Promise<void> {
    await this.db
      .insertInto('instances')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          heartbeat_at: row.heartbeat_at,
          stopped_at: row.stopped_at,
          roles_json: row.roles_json,
          health_json: row.health_json,
          models_json: row.models_json,
        }),
      )
      .execute();
  }

  /** Every instance row, newest start first. */
  list(): Promise<InstanceRow[]> {
    return this.db.selectFrom('instances').selectAll().orderBy('started_at', 'desc').orderBy('id').execute();
  }

  /** Rows whose last heartbeat is older than `before` (instances gone long ago). */
  async prune(before: number): Promise<number> {
    const r = await this.db.deleteFrom('instances').where('heartbeat_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
