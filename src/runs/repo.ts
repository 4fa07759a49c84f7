// Run rows and their timeline. Scope (team, label prefix) is applied in the queries, like inboxes.
import type { Kysely, Selectable } from 'kysely';
import type { Database, RunEventTable } from '../store/schema.ts';
import { type Run, runFromRow } from './model.ts';

export type RunEventRow = Selectable<RunEventTable>;

export interface NewEvent {
  at: number;
  type: string;
  stepId?: string | null;
  ref?: string | null;
  data: Record<string, unknown>;
}

/** The columns of the mail of a run that the timeline and the planner use: the stored extraction, no bodies. */
export interface RunMail {
  id: string;
  inbox_id: string;
  seq: number;
  received_at: number;
  from_address: string | null;
  subject: string;
  otp: string | null;
  primary_link: string | null;
}

export interface RunInbox {
  id: string;
  address: string;
  service: string | null;
  created_at: number;
  expires_at: number;
}

export class RunRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async insert(run: Run, createdByKey: string, events: NewEvent[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('runs')
        .values({
          id: run.id,
          team_id: run.teamId,
          created_by_key: createdByKey,
          label: run.label,
          goal: run.goal,
          status: run.status,
          services_json: JSON.stringify(run.services),
          steps_json: JSON.stringify(run.steps),
          metadata_json: JSON.stringify(run.metadata),
          notes: run.notes,
          ttl_minutes: run.ttlMinutes,
          retention_minutes: run.retentionMinutes,
          version: run.version,
          created_at: run.createdAt,
          updated_at: run.updatedAt,
          expires_at: run.expiresAt,
        })
        .execute();
      for (const e of events) await trx.insertInto('run_events').values(eventRow(run.id, e)).execute();
    });
  }

  /** The run, if it belongs to the team, lies inside the label prefix and has not expired. */
  async get(id: string, teamId: string, labelPrefix: string | null, now: number): Promise<Run | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', id)
      .where('team_id', '=', teamId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row || (labelPrefix !== null && !row.label.startsWith(labelPrefix))) return undefined;
    return runFromRow(row);
  }

  async list(q: {
    teamId: string;
    labelPrefix: string | null;
    status?: string | undefined;
    now: number;
    limit: number;
    before?: { c: number; i: string } | undefined;
  }): Promise<Run[]> {
    let sel = this.db.selectFrom('runs').selectAll().where('team_id', '=', q.teamId).where('expires_at', '>', q.now);
    if (q.labelPrefix) sel = sel.where('label', '>=', q.labelPrefix).where('label', '<', q.labelPrefix + '\u{10FFFF}');
    if (q.status) sel = sel.where('status', '=', q.status as Run['status']);
    if (q.before) {
      const b = q.before;
      sel = sel.where((eb) => eb.or([eb('created_at', '<', b.c), eb.and([eb('created_at', '=', b.c), eb('id', '<', b.i)])]));
    }
    const rows = await sel.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(runFromRow);
  }

  /**
   * Writes the run's document if nobody changed it since `run.version` was read, with its events, in one
   * transaction. False when another writer came first (the caller answers 409).
   */
  async update(run: Run, events: NewEvent[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('runs')
        .set({
          status: run.status,
          services_json: JSON.stringify(run.services),
          steps_json: JSON.stringify(run.steps),
          metadata_json: JSON.stringify(run.metadata),
          notes: run.notes,
          version: run.version + 1,
          updated_at: run.updatedAt,
          expires_at: run.expiresAt,
        })
        .where('id', '=', run.id)
        .where('version', '=', run.version)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      for (const e of events)
        await trx
          .insertInto('run_events')
          .values(eventRow(run.id, e))
          .onConflict((oc) => oc.columns(['run_id', 'ref']).doNothing())
          .execute();
      run.version += 1;
      return true;
    });
  }

  /** Events with a `ref` are recorded once however often they are offered. */
  async record(runId: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.db
      .insertInto('run_events')
      .values(events.map((e) => eventRow(runId, e)))
      .onConflict((oc) => oc.columns(['run_id', 'ref']).doNothing())
      .execute();
  }

  async knownRefs(runId: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom('run_events').select('ref').where('run_id', '=', runId).where('ref', 'is not', null).execute();
    return new Set(rows.map((r) => r.ref!));
  }

  async events(runId: string, limit: number, after?: { at: number; id: number }): Promise<RunEventRow[]> {
    let sel = this.db.selectFrom('run_events').selectAll().where('run_id', '=', runId);
    if (after) sel = sel.where((eb) => eb.or([eb('at', '>', after.at), eb.and([eb('at', '=', after.at), eb('id', '>', after.id)])]));
    return sel.orderBy('at').orderBy('id').limit(limit).execute();
  }

  /** The run's newest run.finished event (when and why it ended), if it has one. */
  async lastFinished(runId: string): Promise<RunEventRow | undefined> {
    return this.db
      .selectFrom('run_events')
      .selectAll()
      .where('run_id', '=', runId)
      .where('type', '=', 'run.finished')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The inboxes that carry the run's label (those it made, and any the agent made with svc_verify_signup runId). */
  async inboxes(teamId: string, label: string): Promise<RunInbox[]> {
    return this.db
      .selectFrom('inboxes')
      .select(['id', 'address', 'service', 'created_at', 'expires_at'])
      .where('team_id', '=', teamId)
      .where('label', '=', label)
      .orderBy('created_at')
      .orderBy('id')
      .limit(500)
      .execute();
  }

  async mail(inboxIds: string[], limit: number): Promise<RunMail[]> {
    if (inboxIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'inbox_id', 'seq', 'received_at', 'from_address', 'subject', 'otp', 'primary_link'])
      .where('inbox_id', 'in', inboxIds)
      .where('direction', '=', 'inbound')
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, inbox_id: r.inbox_id! }));
  }

  /** The extracted code of each of these messages (null when it has none). */
  async codesOf(ids: string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'otp'])
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((r) => [r.id, r.otp]));
  }

  /** Newest first: the mail of one inbox received after `afterSeq`. */
  async inboxMail(inboxId: string, afterSeq: number, limit: number): Promise<RunMail[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'inbox_id', 'seq', 'received_at', 'from_address', 'subject', 'otp', 'primary_link'])
      .where('inbox_id', '=', inboxId)
      .where('direction', '=', 'inbound')
      .where('seq', '>', afterSeq)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, inbox_id: r.inbox_id! }));
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    const ids = await this.db.selectFrom('runs').select('id').where('expires_at', '<=', now).limit(limit).execute();
    if (ids.length === 0) return 0;
    await this.db
      .deleteFrom('runs')
      .where(
        'id',
        'in',
        ids.map((r) => r.id),
      )
      .execute();
    return ids.length;
  }

  async insertToken(row: {
    id: string;
    key_id: string;
    token_hash: string;
    created_at: number;
    expires_at: number;
    label_prefix: string;
  }): Promise<void> {
    await this.db.insertInto('access_tokens').values(row).execute();
  }
}

function eventRow(runId: string, e: NewEvent) {
  return { run_id: runId, at: e.at, type: e.type, step_id: e.stepId ?? null, ref: e.ref ?? null, data_json: JSON.stringify(e.data) };
}
