// The API shapes of a run: the session document, its steps and services, and the mail a step refers to.
import { z } from 'zod';
import {
  maskSecrets,
  RUN_STATUSES,
  type Run,
  type RunOutcome,
  type RunServiceEntry,
  type RunStep,
  STEP_KINDS,
  STEP_STATUSES,
} from './model.ts';

export const RunId = z.string().min(1).max(64).describe('Run id (run_…)');
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const StepView = z.object({
  stepId: z.string(),
  service: z.string(),
  kind: z.enum(STEP_KINDS),
  status: z.enum(STEP_STATUSES),
  attempts: z.number().int(),
  notes: z.array(z.string()),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  messageId: z.string().nullable().describe('use_verification: the message whose code or link was reported on'),
});
export const stepView = (s: RunStep): z.infer<typeof StepView> => ({
  stepId: s.stepId,
  service: s.service,
  kind: s.kind,
  status: s.status,
  attempts: s.attempts,
  notes: s.notes,
  startedAt: iso(s.startedAt),
  finishedAt: iso(s.finishedAt),
  messageId: s.messageId,
});

export const ServiceView = z.object({
  name: z.string(),
  preset: z.string().nullable(),
  inboxId: z.string().nullable(),
  address: z.string().nullable().describe('The address to type into this service’s form'),
});
export const serviceView = (s: RunServiceEntry): z.infer<typeof ServiceView> => ({
  name: s.name,
  preset: s.preset,
  inboxId: s.inboxId,
  address: s.address,
});

export const RunView = z.object({
  runId: z.string(),
  label: z.string().describe('Every inbox of the run carries it (GET /v1/inboxes?label=…)'),
  goal: z.string(),
  status: z.enum(RUN_STATUSES),
  services: z.array(ServiceView),
  steps: z.array(StepView),
  metadata: z.record(z.string(), z.unknown()),
  notes: z.string().nullable(),
  version: z.number().int().describe('Pass as ifVersion to svc_patch_run_session to detect concurrent changes'),
  createdAt: z.string(),
  updatedAt: z.string(),
  expiresAt: z.string(),
});
export const runView = (r: Run): z.infer<typeof RunView> => ({
  runId: r.id,
  label: r.label,
  goal: r.goal,
  status: r.status,
  services: r.services.map(serviceView),
  steps: r.steps.map(stepView),
  // Masked again when shown: a document stored before the masking rule grew keeps what it was stored with.
  metadata: maskSecrets(r.metadata) as Record<string, unknown>,
  notes: r.notes,
  version: r.version,
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
  expiresAt: iso(r.expiresAt)!,
});

export const ServiceName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\x20-\x7e]+$/, 'printable ASCII only')
  .describe('A preset (github, slack, …) or any service name');
export const Metadata = z
  .record(z.string(), z.unknown())
  .describe(
    'Free JSON; values under secret-like keys (password, token, privateKey, pin, verificationCode, authorization, x-api-key, …) and values that look like tokens are stored as ***',
  );

export const MailView = z.object({
  messageId: z.string(),
  inboxId: z.string(),
  from: z.string().nullable(),
  subject: z.string(),
  receivedAt: z.string(),
  otp: z.string().nullable(),
  link: z.string().nullable(),
});

export const RunOutcomeView = z.object({
  status: z.enum(RUN_STATUSES),
  finishedAt: z.string().nullable().describe('When the run reached this status; null for an active run'),
  reason: z.string().nullable().describe('"every step is done or skipped", or "set by svc_patch_run_session"'),
  notes: z.string().nullable(),
  services: z.array(
    z.object({
      name: z.string(),
      inboxId: z.string().nullable(),
      address: z.string().nullable(),
      verification: z.enum(STEP_STATUSES).describe('How the service’s use_verification step stands: done = verified'),
      messageId: z.string().nullable(),
    }),
  ),
});
export const runOutcomeView = (o: RunOutcome): z.infer<typeof RunOutcomeView> => ({ ...o, finishedAt: iso(o.finishedAt) });
