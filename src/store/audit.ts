import type { Kysely, Selectable } from 'kysely';
import type { AuditEventTable, Database } from './schema.ts';

export type AuditRow = Selectable<AuditEventTable>;

export interface AuditEntry {
  teamId: string | null;
  at: number;
  actorKeyId: string | null;
  action: string;
  target: string | null;
  outcome: 'ok' | 'denied' | 'failed';
  sourceIp: string | null;
  detail?: Record<string, unknown>;
}

/** How long audit events are kept: 0 in either field means no limit of that kind. */
export interface AuditRetention {
  days: number;
  maxRows: number;
}

/** Deleted per statement, so a large first prune never holds the write lock for long. */
const PRUNE_BATCH = 5_000;

export class AuditRepo {
  private readonly db: Kysely<Database>;
  private readonly retention: AuditRetention;
  constructor(db: Kysely<Database>, retention: AuditRetention = { days: 0, maxRows: 0 }) {
    this.db = db;
    this.retention = retention;
  }

  /**
   * Deletes audit events older than the retention period, then the oldest beyond the row limit (all teams
   * together: the limit bounds the disk, not a team's share). Returns how many were deleted.
   */
  async prune(now: number): Promise<number> {
    let deleted = 0;
    const { days, maxRows } = this.retention;
    if (days > 0) {
      const cutoff = now - days * 86_400_000;
      for (;;) {
        const r = await this.db
          .deleteFrom('audit_events')
          .where('id', 'in', (eb) => eb.selectFrom('audit_events').select('id').where('at', '<', cutoff).limit(PRUNE_BATCH))
          .executeTakeFirst();
        const n = Number(r.numDeletedRows);
        deleted += n;
        if (n < PRUNE_BATCH) break;
      }
    }
    if (maxRows > 0) {
      // Ids only grow, so "all but the newest maxRows" is everything up to one id: a primary-key range.
      const edge = await this.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').offset(maxRows).limit(1).executeTakeFirst();
      if (edge) {
        const r = await this.db.deleteFrom('audit_events').where('id', '<=', edge.id).executeTakeFirst();
        deleted += Number(r.numDeletedRows);
      }
    }
    return deleted;
  }

  async record(e: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({
        team_id: e.teamId,
        at: e.at,
        actor_key_id: e.actorKeyId,
        action: e.action,
        target: e.target,
        outcome: e.outcome,
        source_ip: e.sourceIp,
        detail: e.detail ? JSON.stringify(e.detail) : null,
      })
      .execute();
  }
}

export interface AuditQuery {
  teamId: string;
  actorKeyId?: string | undefined;
  action?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  beforeId?: number | undefined;
  limit: number;
}

export async function listAudit(db: Kysely<Database>, q: AuditQuery): Promise<AuditRow[]> {
  let sel = db.selectFrom('audit_events').selectAll().where('team_id', '=', q.teamId);
  if (q.actorKeyId) sel = sel.where('actor_key_id', '=', q.actorKeyId);
  if (q.action?.endsWith('*')) {
    const prefix = q.action.slice(0, -1);
    sel = sel.where('action', '>=', prefix).where('action', '<', prefix + '\u{10FFFF}');
  } else if (q.action) sel = sel.where('action', '=', q.action);
  if (q.since !== undefined) sel = sel.where('at', '>=', q.since);
  if (q.until !== undefined) sel = sel.where('at', '<', q.until);
  if (q.beforeId !== undefined) sel = sel.where('id', '<', q.beforeId);
  return sel.orderBy('id', 'desc').limit(q.limit).execute();
}
