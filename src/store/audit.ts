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

export class AuditRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
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
