// Reads and writes of monitors (`workspace_monitors`) and their runs (`workspace_monitor_runs`), and the bounded reads
// of mail a run makes: only the columns stored before the bodies, and the start of a few texts at a time. The one
// home of the monitors' queries (src/workspace/monitor-service.ts calls it).
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import type { MonitorRow, MonitorRunRow, WorkspaceTables, WsDb } from './tables.ts';

/** The small columns of a message a run looks at (never a body, headers or the extraction). */
export interface MailHeadRow {
  id: string;
  thread_id: string | null;
  direction: 'inbound' | 'outbound';
  received_at: number;
  from_address: string | null;
  subject: string;
  date: number | null;
  size: number;
}

export class MonitorRepo {
  private readonly db: WsDb;
  private readonly dialect: Dialect;

  constructor(db: Kysely<Database>, dialect: Dialect) {
    this.db = db.withTables<WorkspaceTables>();
    this.dialect = dialect;
  }

  /** The watched inbox, if it is still the team's. */
  inbox(teamId: string, inboxId: string): Promise<{ id: string; address: string } | undefined> {
    return this.db
      .selectFrom('inboxes')
      .select(['id', 'address'])
      .where('id', '=', inboxId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
  }

  /** The inbox's newest `limit` messages received since `since`, newest first (SQLite never walks a large body). */
  recentMail(inboxId: string, since: number, limit: number): Promise<MailHeadRow[]> {
    return this.db
      .selectFrom('messages')
      .select(['id', 'thread_id', 'direction', 'received_at', 'from_address', 'subject', 'date', 'size'])
      .where('inbox_id', '=', inboxId)
      .where('received_at', '>=', since)
      .orderBy('received_at', 'desc')
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }

  /** The start of each message's text, `t…`, or of its HTML, `h…`: one query, `chars` characters at most each. */
  async textStarts(ids: string[], chars: number): Promise<Array<{ id: string; t: string | null }>> {
    const { rows } = await sql<{
      id: string;
      t: string | null;
    }>`select id, coalesce('t' || substr(text_body, 1, ${chars}), 'h' || substr(html_body, 1, ${chars})) as t from messages where id in (${sql.join(ids)})`.execute(
      this.db,
    );
    return rows;
  }

  /**
   * Stores a new monitor unless its team already has `cap`: counted and stored in one transaction, so parallel
   * creates cannot pass the cap together. False when the team is at its cap (nothing stored).
   */
  insertUnderCap(row: MonitorRow, cap: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // SQLite runs one transaction at a time; PostgreSQL serialises a team's creates on a lock of its own.
      if (this.dialect === 'postgres')
        await sql`select pg_advisory_xact_lock(hashtext('inboxd.monitors'), hashtext(${row.team_id}))`.execute(tx);
      const { n } = await tx
        .selectFrom('workspace_monitors')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('team_id', '=', row.team_id)
        .executeTakeFirstOrThrow();
      if (Number(n) >= cap) return false;
      await tx.insertInto('workspace_monitors').values(row).execute();
      return true;
    });
  }

  get(teamId: string, id: string): Promise<MonitorRow | undefined> {
    return this.db.selectFrom('workspace_monitors').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  }

  /** The team's monitors, oldest first, at most `limit`. */
  list(teamId: string, limit: number): Promise<MonitorRow[]> {
    return this.db.selectFrom('workspace_monitors').selectAll().where('team_id', '=', teamId).orderBy('created_at').limit(limit).execute();
  }

  /** The monitor and all of its runs. */
  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('workspace_monitor_runs').where('monitor_id', '=', id).execute();
    await this.db.deleteFrom('workspace_monitors').where('id', '=', id).execute();
  }

  /** Enabled monitors due at `now` (id and team only), oldest due first. */
  due(now: number, limit: number): Promise<Array<{ id: string; team_id: string }>> {
    return this.db
      .selectFrom('workspace_monitors')
      .select(['id', 'team_id'])
      .where('enabled', '=', 1)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** The monitor if it is still enabled and due (it may have been deleted, disabled or run meanwhile). */
  stillDue(id: string, now: number): Promise<MonitorRow | undefined> {
    return this.db
      .selectFrom('workspace_monitors')
      .selectAll()
      .where('id', '=', id)
      .where('enabled', '=', 1)
      .where('next_run_at', '<=', now)
      .executeTakeFirst();
  }

  /** Stores a run and its outcome on the monitor; a scheduled run also moves the schedule. */
  async recordRun(run: MonitorRunRow, nextRunAt: number | null): Promise<void> {
    await this.db.insertInto('workspace_monitor_runs').values(run).execute();
    await this.db
      .updateTable('workspace_monitors')
      .set({ last_run_at: run.at, last_status: run.status, ...(nextRunAt !== null ? { next_run_at: nextRunAt } : {}) })
      .where('id', '=', run.monitor_id)
      .execute();
  }

  /** A monitor's runs, newest first, older than `beforeSeq` when given; `limit + 1` rows (the extra: a next page). */
  runs(monitorId: string, beforeSeq: number | undefined, limit: number): Promise<MonitorRunRow[]> {
    let q = this.db.selectFrom('workspace_monitor_runs').selectAll().where('monitor_id', '=', monitorId);
    if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
    return q
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute();
  }
}
