// Agent runs: start, hand out the next step, record reports and patches. Every change is one versioned write of
// the run document together with its timeline events.
import { labelInScope, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { Services } from '../services.ts';
import type { InboxRow } from '../store/inboxes.ts';
import {
  checkStatusChange,
  currentStep,
  isFinished,
  maskSecrets,
  MAX_METADATA_BYTES,
  MAX_STEP_NOTES,
  mergePatch,
  planSteps,
  presetOfName,
  type Run,
  type RunService,
  type RunStatus,
  type RunStep,
} from './model.ts';
import { codeMailOf, inboxEvent, runRepo, syncTimeline } from './records.ts';
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

export async function startRun(s: Services, p: Principal, req: StartRequest): Promise<Run> {
  const repo = runRepo(s);
  const now = s.clock.now();
  await repo.deleteExpired(now, 100);
  const id = newId('run');
  const services: RunService[] = req.services.map((name) => ({
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
  const events: NewEvent[] = [
    { at: now, type: 'run.started', data: { goal: run.goal, services: services.map((x) => x.name), label: run.label } },
  ];
  // Inboxes first, the run after: a refused inbox (a plan limit) leaves neither a run nor the inboxes made so far.
  const made: InboxRow[] = [];
  try {
    if (req.createInboxes)
      for (const svc of run.services) {
        const inbox = await ensureInbox(s, p, run, svc);
        if (inbox) made.push(inbox);
      }
    await repo.insert(run, p.keyId, [...events, ...made.map((i) => inboxEvent(run, i))]);
  } catch (e) {
    for (const inbox of made) await s.inboxes.delete(inbox).catch(() => undefined);
    throw e;
  }
  return run;
}

/** The run as the caller may see it (404 otherwise), with its timeline brought up to date. */
export async function loadRun(s: Services, p: Principal, id: string): Promise<Run> {
  const run = await runRepo(s).get(id, p.teamId, p.scope.labelPrefix, s.clock.now());
  if (!run)
    throw new AppError('not_found', `no run ${id} (it may have expired, or belong to another key's scope; svc_start_run starts one)`);
  await syncTimeline(s, run);
  return run;
}

/** Makes the service's inbox if it has none; returns the new inbox, or null when it already had one. */
async function ensureInbox(s: Services, p: Principal, run: Run, svc: RunService): Promise<InboxRow | null> {
  // An inbox that expired or was deleted while the run goes on is replaced: its address is dead.
  if (svc.inboxId) {
    const current = await s.inboxes.get(p, svc.inboxId).catch(() => null);
    if (current && current.expires_at > s.clock.now()) return null;
  }
  svc.afterSeq = 0;
  const { inbox } = await s.inboxes.create(p, { label: run.label, ttlMinutes: run.ttlMinutes, service: svc.preset ?? undefined });
  svc.inboxId = inbox.id;
  svc.address = inbox.address;
  if (run.retentionMinutes === null) run.expiresAt = Math.max(run.expiresAt, inbox.expires_at);
  return inbox;
}

function touch(run: Run, now: number): Run {
  run.updatedAt = now;
  return run;
}

const concurrent = (id: string) =>
  new AppError('conflict', `run ${id} was changed by another call at the same time; read it again (svc_get_run_session) and retry`);

function assertActive(run: Run, what: string): void {
  if (run.status !== 'active')
    throw new AppError(
      'conflict',
      `run ${run.id} is ${run.status}; ${what} needs an active run (svc_patch_run_session status "active" reopens a failed or abandoned one)`,
    );
}

/** Claims the step to work on (marks it active), making the service's inbox first when it has none. */
export async function nextStep(s: Services, p: Principal, run: Run): Promise<RunStep | null> {
  assertActive(run, 'svc_next_run');
  const step = currentStep(run);
  if (!step) return null;
  const now = s.clock.now();
  const svc = run.services[step.serviceIndex]!;
  const events: NewEvent[] = [];
  if (step.status !== 'active') {
    step.status = 'active';
    step.attempts += 1;
    step.startedAt = now;
    step.finishedAt = null;
    events.push({
      at: now,
      type: 'step.started',
      stepId: step.stepId,
      data: { service: step.service, kind: step.kind, attempt: step.attempts },
    });
  }
  const made = await ensureInbox(s, p, run, svc);
  // Recorded with the step that asked for it, so the timeline reads "step started, inbox created".
  if (made) events.push(inboxEvent(run, made));
  if (events.length === 0 && !made) return step;
  if (!(await runRepo(s).update(touch(run, now), events))) {
    if (made) await s.inboxes.delete(made);
    throw concurrent(run.id);
  }
  return step;
}

export type Outcome = 'done' | 'failed' | 'skipped';

export async function reportStep(s: Services, run: Run, stepId: string, outcome: Outcome, note: string | undefined): Promise<RunStep> {
  assertActive(run, 'reporting a step');
  const step = run.steps.find((x) => x.stepId === stepId);
  if (!step)
    throw new AppError(
      'conflict',
      `run ${run.id} has no step ${JSON.stringify(stepId)}; its steps are ${run.steps.map((x) => x.stepId).join(', ')}`,
    );
  if (isFinished(step))
    throw new AppError('conflict', `step ${stepId} is already ${step.status}; report the next one (svc_next_run names it)`);
  const now = s.clock.now();
  const svc = run.services[step.serviceIndex]!;
  if (step.kind === 'use_verification') {
    const { withCode } = await codeMailOf(s, svc);
    step.messageId = withCode?.id ?? null;
    // A rejected code is not offered again: the planner waits for mail newer than it.
    if (outcome === 'failed' && withCode) svc.afterSeq = withCode.seq;
  }
  step.status = outcome;
  step.finishedAt = now;
  if (step.startedAt === null) step.startedAt = now;
  if (note !== undefined) step.notes = [...step.notes, note].slice(-MAX_STEP_NOTES);
  const events: NewEvent[] = [
    {
      at: now,
      type: `step.${outcome}`,
      stepId,
      data: { service: step.service, kind: step.kind, note: note ?? null, messageId: step.messageId },
    },
  ];
  if (run.steps.every(isFinished)) {
    run.status = 'succeeded';
    events.push({ at: now, type: 'run.finished', data: { status: 'succeeded', reason: 'every step is done or skipped' } });
  }
  if (!(await runRepo(s).update(touch(run, now), events))) throw concurrent(run.id);
  return step;
}

export interface SessionPatch {
  status?: RunStatus | undefined;
  metadata?: Record<string, unknown> | undefined;
  notes?: string | null | undefined;
  ifVersion?: number | undefined;
}

export async function patchRun(s: Services, run: Run, patch: SessionPatch): Promise<Run> {
  if (patch.ifVersion !== undefined && patch.ifVersion !== run.version)
    throw new AppError(
      'conflict',
      `run ${run.id} is at version ${run.version}, not ${patch.ifVersion}; read it again and reapply your change`,
    );
  const now = s.clock.now();
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
  if (changed.length === 0) return run;
  events.push({ at: now, type: 'session.patched', data: { changed, ...data } });
  if (changed.includes('status') && run.status !== 'active')
    events.push({ at: now, type: 'run.finished', data: { status: run.status, reason: 'set by svc_patch_run_session' } });
  if (!(await runRepo(s).update(touch(run, now), events))) throw concurrent(run.id);
  return run;
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
