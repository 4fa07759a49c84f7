// The team's audit log (CONTRACT §6): who changed keys, clients, tokens, policy and domains, and every refusal of a
// mutation. The operation pipeline records each audited call here; GET /v1/audit reads it; the expiry sweep prunes it
// to --audit-retention-days and --audit-max-rows. Its queries are src/store/audit.ts.
import type { Kysely } from 'kysely';
import { type AuditEntry, type AuditQuery, AuditRepo, type AuditRetention, type AuditRow, listAudit } from '../store/audit.ts';
import type { Database } from '../store/schema.ts';
import type { Principal } from './principal.ts';

export class AuditLog {
  private readonly db: Kysely<Database>;
  private readonly repo: AuditRepo;

  constructor(d: { db: Kysely<Database>; retention: AuditRetention }) {
    this.db = d.db;
    this.repo = new AuditRepo(d.db, d.retention);
  }

  record(e: AuditEntry): Promise<void> {
    return this.repo.record(e);
  }

  /** Events of the caller's team, newest first. */
  list(p: Principal, q: Omit<AuditQuery, 'teamId'>): Promise<AuditRow[]> {
    return listAudit(this.db, { ...q, teamId: p.teamId });
  }

  /** Deletes what the retention settings no longer keep; returns how many events went. */
  prune(now: number): Promise<number> {
    return this.repo.prune(now);
  }
}
