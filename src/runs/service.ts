// Agent runs (CONTRACT §14): start, list, hand out the next step, record reports and patches, plan, the timeline
// and run-scoped access tokens. Every change is one versioned write of the run document together with its timeline
// events. One RunService per server, built by src/server/wire.ts with narrow dependencies; it builds its repository.
import type { Kysely } from 'kysely';
import type { AccessService } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MailWaits } from '../inboxes/wait.ts';
import type { AuditRepo } from '../store/audit.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { KeyRepo } from '../store/keys.ts';
import type { Database } from '../store/schema.ts';
import { type IssuedAccess, issueAccess } from './access.ts';
import { applyPatch, assertActive, concurrent, newRun, type Outcome, type SessionPatch, type StartRequest, touch } from './document.ts';
import { currentStep, isFinished, MAX_STEP_NOTES, type Run, type RunOutcome, type RunServiceEntry, type RunStep } from './model.ts';
import { type Plan, planNext, waitForCodeMail } from './plan.ts';
import { codeMailOf, decodeTimelineCursor, inboxEvent, syncTimeline, type TimelineItem, timelinePage } from './records.ts';
import { type NewEvent, type RunMail, RunRepo } from './repo.ts';

export type { Outcome, SessionPatch, StartRequest } from './document.ts';
export type { RunOutcome } from './model.ts';

/**
 * What svc_next_run shapes: the run, the claimed step (null when the run is finished or every step is), its service
 * and code mail, and the run's outcome when there is no step.
 */
export interface NextStep {
  run: Run;
  step: RunStep | null;
  service: RunServiceEntry | null;
  mail: RunMail | null;
  outcome: RunOutcome | null;
}

export class RunService {
  private readonly repo: RunRepo;
  private readonly inboxes: InboxService;
  private readonly waits: MailWaits;
  private readonly now: () => number;
  private readonly keys: Pick<KeyRepo, 'byId'>;
  private readonly tokens: Pick<AccessService, 'issueTokenForKey'>;
  private readonly audit: Pick<AuditRepo, 'record'>;

  constructor(d: {
    db: Kysely<Database>;
    /** Each service's inbox is made, looked up and (when a start fails) removed here. */
    inboxes: InboxService;
    waits: MailWaits;
    now: () => number;
    /** svc_issue_access: the calling key, its plain tokens, and the audit log. */
    keys: Pick<KeyRepo, 'byId'>;
    tokens: Pick<AccessService, 'issueTokenForKey'>;
    audit: Pick<AuditRepo, 'record'>;
  }) {
    this.repo = new RunRepo(d.db);
    this.inboxes = d.inboxes;
    this.waits = d.waits;
    this.now = d.now;
    this.keys = d.keys;
    this.tokens = d.tokens;
    this.audit = d.audit;
  }

  async start(p: Principal, req: StartRequest): Promise<Run> {
    const now = this.now();
    await this.repo.deleteExpired(now, 100);
    const run = newRun(p, req, now);
    const events: NewEvent[] = [
      { at: now, type: 'run.started', data: { goal: run.goal, services: run.services.map((x) => x.name), label: run.label } },
    ];
    // Inboxes first, the run after: a refused inbox (a plan limit) leaves neither a run nor the inboxes made so far.
    const made: InboxRow[] = [];
    try {
      if (req.createInboxes)
        for (const svc of run.services) {
          const inbox = await this.ensureInbox(p, run, svc);
          if (inbox) made.push(inbox);
        }
      await this.repo.insert(run, p.keyId, [...events, ...made.map((i) => inboxEvent(run, i))]);
    } catch (e) {
      for (const inbox of made) await this.inboxes.delete(inbox).catch(() => undefined);
      throw e;
    }
    return run;
  }

  /** The run as the caller may see it (404 otherwise), with its timeline brought up to date. */
  async load(p: Principal, id: string): Promise<Run> {
    const run = await this.repo.get(id, p.teamId, p.scope.labelPrefix, this.now());
    if (!run)
      throw new AppError('not_found', `no run ${id} (it may have expired, or belong to another key's scope; svc_start_run starts one)`);
    await syncTimeline(this.repo, run);
    return run;
  }

  /** The runs in the key's scope, newest first; `before` continues a page. */
  list(
    p: Principal,
    q: { status?: Run['status'] | undefined; limit: number; before?: { c: number; i: string } | undefined },
  ): Promise<Run[]> {
    return this.repo.list({
      teamId: p.teamId,
      labelPrefix: p.scope.labelPrefix,
      status: q.status,
      now: this.now(),
      limit: q.limit,
      before: q.before,
    });
  }

  /**
   * svc_next_run: loads the run (404 outside the caller's scope), claims the step to work on and answers it with
   * its service and the newest mail of that service with a code or link. A run that is not active (succeeded, failed,
   * abandoned) or has every step finished answers `step: null` with its outcome, never an error, and claims nothing.
   */
  async nextById(p: Principal, id: string): Promise<NextStep> {
    const run = await this.load(p, id);
    const step = run.status === 'active' ? await this.claimNext(p, run) : null;
    if (!step) return { run, step: null, service: null, mail: null, outcome: await this.outcomeOf(run) };
    const service = run.services[step.serviceIndex]!;
    return { run, step, service, mail: (await codeMailOf(this.repo, service)).withCode, outcome: null };
  }

  private async outcomeOf(run: Run): Promise<RunOutcome> {
    const finished = run.status === 'active' ? undefined : await this.repo.lastFinished(run.id);
    const data = finished ? (JSON.parse(finished.data_json) as { reason?: unknown }) : {};
    return {
      status: run.status,
      finishedAt: finished?.at ?? null,
      reason: typeof data.reason === 'string' ? data.reason : null,
      notes: run.notes,
      services: run.services.map((svc, i) => {
        const use = run.steps.find((x) => x.serviceIndex === i && x.kind === 'use_verification');
        return {
          name: svc.name,
          inboxId: svc.inboxId,
          address: svc.address,
          verification: use?.status ?? 'pending',
          messageId: use?.messageId ?? null,
        };
      }),
    };
  }

  /** svc_report_run: loads the run (404 outside the caller's scope) and records the step's outcome. */
  async reportById(
    p: Principal,
    id: string,
    stepId: string,
    outcome: Outcome,
    note: string | undefined,
  ): Promise<{ run: Run; step: RunStep }> {
    const run = await this.load(p, id);
    assertActive(run, 'reporting a step');
    const step = run.steps.find((x) => x.stepId === stepId);
    if (!step)
      throw new AppError(
        'conflict',
        `run ${run.id} has no step ${JSON.stringify(stepId)}; its steps are ${run.steps.map((x) => x.stepId).join(', ')}`,
      );
    if (isFinished(step))
      throw new AppError('conflict', `step ${stepId} is already ${step.status}; report the next one (svc_next_run names it)`);
    const now = this.now();
    const svc = run.services[step.serviceIndex]!;
    if (step.kind === 'use_verification') {
      const { withCode } = await codeMailOf(this.repo, svc);
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
    if (!(await this.repo.update(touch(run, now), events))) throw concurrent(run.id);
    return { run, step };
  }

  /**
   * svc_patch_run_session: loads the run (404 outside the caller's scope), then changes status, metadata (a JSON
   * Merge Patch) and notes; 409 when `ifVersion` is not the run's version.
   */
  async patchById(p: Principal, id: string, patch: SessionPatch): Promise<Run> {
    const run = await this.load(p, id);
    const now = this.now();
    const events = applyPatch(run, patch, now);
    if (events.length === 0) return run;
    if (!(await this.repo.update(touch(run, now), events))) throw concurrent(run.id);
    return run;
  }

  /**
   * svc_plan_next: loads the run (404 outside the caller's scope) and suggests what to do next (changes nothing).
   * With `waitSeconds` > 0 it first waits that long for the current step's code or link, then reads the run again.
   */
  async planById(
    p: Principal,
    id: string,
    waitSeconds: number,
    signal: AbortSignal,
    onTick?: (ms: number) => void,
  ): Promise<{ run: Run; plan: Plan }> {
    let run = await this.load(p, id);
    if (waitSeconds > 0) {
      await waitForCodeMail({ repo: this.repo, inboxes: this.inboxes, waits: this.waits }, p, run, waitSeconds, signal, onTick);
      run = await this.load(p, id);
    }
    return { run, plan: await planNext(this.repo, run, this.now()) };
  }

  /**
   * svc_get_run_timeline: loads the run (404 outside the caller's scope), then up to `limit` of its events (masked
   * as shown) after the one `cursor` names (timelineCursorOf); a cursor this server did not issue is a 400.
   */
  async timelineById(p: Principal, id: string, limit: number, cursor: string | undefined): Promise<{ run: Run; items: TimelineItem[] }> {
    const run = await this.load(p, id);
    const after = decodeTimelineCursor(cursor);
    return { run, items: await timelinePage(this.repo, run, limit, after && { at: after.a, id: after.i }) };
  }

  /** svc_issue_access: a token with the key's scope, or narrowed to a run's label (src/runs/access.ts). */
  issueAccess(p: Principal, runId: string | undefined, ip: string | null): Promise<IssuedAccess> {
    const d = { repo: this.repo, keys: this.keys, tokens: this.tokens, audit: this.audit, now: this.now };
    return issueAccess({ ...d, loadRun: (q, id) => this.load(q, id) }, p, runId, ip);
  }

  /** Removes up to `limit` runs past their keeping time, with their timelines (the server's expiry sweep). */
  deleteExpired(now: number, limit: number): Promise<number> {
    return this.repo.deleteExpired(now, limit);
  }

  /** Claims the step to work on (marks it active), making the service's inbox first when it has none. */
  private async claimNext(p: Principal, run: Run): Promise<RunStep | null> {
    assertActive(run, 'svc_next_run');
    const step = currentStep(run);
    if (!step) return null;
    const now = this.now();
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
    const made = await this.ensureInbox(p, run, svc);
    // Recorded with the step that asked for it, so the timeline reads "step started, inbox created".
    if (made) events.push(inboxEvent(run, made));
    if (events.length === 0 && !made) return step;
    if (!(await this.repo.update(touch(run, now), events))) {
      if (made) await this.inboxes.delete(made);
      throw concurrent(run.id);
    }
    return step;
  }

  /** Makes the service's inbox if it has none; returns the new inbox, or null when it already had one. */
  private async ensureInbox(p: Principal, run: Run, svc: RunServiceEntry): Promise<InboxRow | null> {
    // An inbox that expired or was deleted while the run goes on is replaced: its address is dead.
    if (svc.inboxId) {
      const current = await this.inboxes.get(p, svc.inboxId).catch(() => null);
      if (current && current.expires_at > this.now()) return null;
    }
    svc.afterSeq = 0;
    const { inbox } = await this.inboxes.create(p, { label: run.label, ttlMinutes: run.ttlMinutes, service: svc.preset ?? undefined });
    svc.inboxId = inbox.id;
    svc.address = inbox.address;
    if (run.retentionMinutes === null) run.expiresAt = Math.max(run.expiresAt, inbox.expires_at);
    return inbox;
  }
}
