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
