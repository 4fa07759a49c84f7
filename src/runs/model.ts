// The run document (CONTRACT §14): its services, the steps planned for each, status rules, and what a run stores
// of the free metadata an agent patches in. Pure: no I/O, so the rules are testable on their own.
import { AppError } from '../errors.ts';
import { getPreset, isPresetId, type PresetId } from '../mail/presets.ts';
import type { RunTable } from '../store/schema.ts';

export const RUN_STATUSES = ['active', 'succeeded', 'failed', 'abandoned'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const STEP_STATUSES = ['pending', 'active', 'done', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
/** Per service, in order: get address → submit form → wait for mail → use code or link. */
export const STEP_KINDS = ['get_address', 'submit_form', 'wait_for_mail', 'use_verification'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const MAX_SERVICES = 50;
export const MAX_STEP_NOTES = 20;
export const MAX_METADATA_BYTES = 64 * 1024;

export interface RunService {
  name: string;
  /** The preset this service matched, when its name is one of the 25. */
  preset: PresetId | null;
  inboxId: string | null;
  address: string | null;
  /** Mail at or before this inbox sequence is not considered any more (a code the service rejected). */
  afterSeq: number;
}

export interface RunStep {
  stepId: string;
  service: string;
  serviceIndex: number;
  kind: StepKind;
  status: StepStatus;
  attempts: number;
  notes: string[];
  startedAt: number | null;
  finishedAt: number | null;
  /** For use_verification: the message whose code or link the agent reported on. */
  messageId: string | null;
}

export interface Run {
  id: string;
  teamId: string;
  label: string;
  goal: string;
  status: RunStatus;
  services: RunService[];
  steps: RunStep[];
  metadata: Record<string, unknown>;
  notes: string | null;
  ttlMinutes: number;
  retentionMinutes: number | null;
  version: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

export function runFromRow(r: RunTable): Run {
  return {
    id: r.id,
    teamId: r.team_id,
    label: r.label,
    goal: r.goal,
    status: r.status,
    services: JSON.parse(r.services_json) as RunService[],
    steps: JSON.parse(r.steps_json) as RunStep[],
    metadata: JSON.parse(r.metadata_json) as Record<string, unknown>,
    notes: r.notes,
    ttlMinutes: r.ttl_minutes,
    retentionMinutes: r.retention_minutes,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    expiresAt: r.expires_at,
  };
}

export function presetOfName(name: string): PresetId | null {
  const id = name.trim().toLowerCase();
  return isPresetId(id) ? id : null;
}

export function planSteps(services: RunService[]): RunStep[] {
  return services.flatMap((s, i) =>
    STEP_KINDS.map((kind) => ({
      stepId: `${i + 1}.${kind}`,
      service: s.name,
      serviceIndex: i,
      kind,
      status: 'pending' as StepStatus,
      attempts: 0,
      notes: [],
      startedAt: null,
      finishedAt: null,
      messageId: null,
    })),
  );
}

export const isFinished = (s: RunStep): boolean => s.status === 'done' || s.status === 'skipped';

/** The step to work on: the first one not finished, in plan order (a failed step comes back for a retry). */
export function currentStep(run: Run): RunStep | null {
  return run.steps.find((s) => !isFinished(s)) ?? null;
}

/**
 * Status changes allowed by a patch. `succeeded` is final; a failed or abandoned run may be reopened. An
 * unchanged status is not a change.
 */
export function checkStatusChange(from: RunStatus, to: RunStatus): void {
  if (from === to) return;
  if (from === 'succeeded')
    throw new AppError('conflict', `the run already succeeded; its status cannot go back to ${to} (start a new run instead)`);
}

const SECRET_KEY = /pass(word)?|secret|token|otp|api[_-]?key|credential|cookie/i;
export const MASK = '***';

/** Values under keys that look like credentials are never stored: a run document is meant to be shared and reviewed. */
export function maskSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = SECRET_KEY.test(k) && x !== null ? MASK : maskSecrets(x);
  return out;
}

/** RFC 7396 JSON Merge Patch: objects merge key by key, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}

/** What the agent is told to expect in the mail of a service. */
export function expectationOf(s: RunService): {
  sends: 'code' | 'link' | 'both' | 'unknown';
  senderDomains: string[];
  codeShape: string | null;
} {
  if (!s.preset) return { sends: 'unknown', senderDomains: [], codeShape: null };
  const p = getPreset(s.preset);
  const shape = p.code
    ? `${p.code.lengths.join(' or ')} ${p.code.alphabet === 'digits' ? 'digits' : 'letters and digits'}${p.code.prefix ? ` (shown after ${p.code.prefix}, which is not typed)` : ''}`
    : null;
  return { sends: p.sends, senderDomains: p.senderDomains, codeShape: shape };
}
