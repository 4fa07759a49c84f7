// The run document changed in memory (CONTRACT §14): a new run with its label and planned steps, and a patch of
// its status, metadata and notes. Pure: the service writes the result with its events in one versioned update.
import { labelInScope, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import {
  checkStatusChange,
  MAX_METADATA_BYTES,
  maskSecrets,
  mergePatch,
  planSteps,
  presetOfName,
  type Run,
  type RunServiceEntry,
  type RunStatus,
} from './model.ts';
import type { NewEvent } from './repo.ts';

export interface StartRequest {
  goal: string;
  services: string[];
  ttlMinutes: number;
  retentionMinutes?: number | undefined;
  metadata?: Record<string, unknown> | undefined;
  createInboxes: boolean;
}

/** A scoped key's runs stay inside its prefix: the label is agent-<runId>, prefixed when the scope needs it. */
export function runLabel(p: Principal, runId: string): string {
  const label = `agent-${runId}`;
  return labelInScope(p.scope, label) ? label : `${p.scope.labelPrefix}${label}`;
}
/** A new active run for `req`, its steps planned, its metadata masked and bounded; no inbox yet. */
export function newRun(p: Principal, req: StartRequest, now: number): Run {
  const id = newId('run');
  const services: RunServiceEntry[] = req.services.map((name) => ({
    name,
    preset: presetOfName(name),
    inboxId: null,
    address: null,
    afterSeq: 0,
  }));
  const metadata = checkedMetadata(maskSecrets(req.metadata ?? {}));
  const run: Run = {
    id,
    teamId: p.teamId,
    label: runLabel(p, id),
    goal: req.goal,
    status: 'active',
    services,
    steps: planSteps(services),
    metadata,
    notes: null,
    ttlMinutes: req.ttlMinutes,
    retentionMinutes: req.retentionMinutes ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + (req.retentionMinutes ?? req.ttlMinutes) * 60_000,
  };
  return run;
}

export type Outcome = 'done' | 'failed' | 'skipped';

export interface SessionPatch {
  status?: RunStatus | undefined;
  metadata?: Record<string, unknown> | undefined;
  notes?: string | null | undefined;
  ifVersion?: number | undefined;
}

export function touch(run: Run, now: number): Run {
  run.updatedAt = now;
  return run;
}

export const concurrent = (id: string) =>
  new AppError('conflict', `run ${id} was changed by another call at the same time; read it again (svc_get_run_session) and retry`);

export function assertActive(run: Run, what: string): void {
  if (run.status !== 'active')
    throw new AppError(
      'conflict',
      `run ${run.id} is ${run.status}; ${what} needs an active run (svc_patch_run_session status "active" reopens a failed or abandoned one)`,
    );
}

function checkedMetadata(v: unknown): Record<string, unknown> {
  const size = Buffer.byteLength(JSON.stringify(v));
  if (size > MAX_METADATA_BYTES)
    throw new AppError(
      'validation_failed',
      `metadata would be ${size} bytes; a run keeps at most ${MAX_METADATA_BYTES} bytes of metadata`,
      {
        errors: [{ path: 'metadata', message: `at most ${MAX_METADATA_BYTES} bytes` }],
      },
    );
  return v as Record<string, unknown>;
}

/** Applies `patch` to the run; the events to record with it (none when nothing changed). */
export function applyPatch(run: Run, patch: SessionPatch, now: number): NewEvent[] {
  if (patch.ifVersion !== undefined && patch.ifVersion !== run.version)
    throw new AppError(
      'conflict',
      `run ${run.id} is at version ${run.version}, not ${patch.ifVersion}; read it again and reapply your change`,
    );
  const changed: string[] = [];
  const events: NewEvent[] = [];
  const data: Record<string, unknown> = {};
  if (patch.status !== undefined && patch.status !== run.status) {
    checkStatusChange(run.status, patch.status);
    data.status = { from: run.status, to: patch.status };
    run.status = patch.status;
    changed.push('status');
  }
  if (patch.metadata !== undefined) {
    const masked = maskSecrets(patch.metadata) as Record<string, unknown>;
    run.metadata = checkedMetadata(mergePatch(run.metadata, masked));
    data.metadata = masked;
    changed.push('metadata');
  }
  if (patch.notes !== undefined) {
    run.notes = patch.notes;
    changed.push('notes');
  }
  if (changed.length === 0) return [];
  events.push({ at: now, type: 'session.patched', data: { changed, ...data } });
  if (changed.includes('status') && run.status !== 'active')
    events.push({ at: now, type: 'run.finished', data: { status: run.status, reason: 'set by svc_patch_run_session' } });
  return events;
}
