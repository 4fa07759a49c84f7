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

/** One service (a website) a run signs up to. */
export interface RunServiceEntry {
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
  services: RunServiceEntry[];
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

/** How a run ended (or stands, when every step is finished): what svc_next_run answers instead of a step. */
export interface RunOutcome {
  status: RunStatus;
  /** When the run reached this status (its newest run.finished event); null for an active run. */
  finishedAt: number | null;
  /** Why: "every step is done or skipped", or "set by svc_patch_run_session"; null for an active run. */
  reason: string | null;
  notes: string | null;
  /** Per service: its address and how its use_verification step stands (done = the account was verified). */
  services: Array<{ name: string; inboxId: string | null; address: string | null; verification: StepStatus; messageId: string | null }>;
}

export function runFromRow(r: RunTable): Run {
  return {
    id: r.id,
    teamId: r.team_id,
    label: r.label,
    goal: r.goal,
    status: r.status,
    services: JSON.parse(r.services_json) as RunServiceEntry[],
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

export function planSteps(services: RunServiceEntry[]): RunStep[] {
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

export const MASK = '***';

// What a run document never keeps (README "Driving a signup run from an agent", masking rule). A key is split into
// words at separators and case changes (`x-api-key` → x api key, `verificationCode` → verification code) and
// compared without case or separators; a value is looked at on its own.
/** Secret-like when one of the key's words is one of these. */
const SECRET_WORDS = new Set([
  'auth',
  'authorization',
  'bearer',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'cvc',
  'cvv',
  'hotp',
  'jwt',
  'mfa',
  'otp',
  'pin',
  'pwd',
  'sig',
  'signature',
  'ssn',
  'totp',
  '2fa',
]);
/** `code` and `key` are secret-like alone or next to one of these (`verificationCode`, `x-api-key`; not `countryCode`). */
const CODE_QUALIFIERS = new Set([
  'access',
  'activation',
  'auth',
  'backup',
  'confirm',
  'confirmation',
  'email',
  'encryption',
  'login',
  'magic',
  'mfa',
  'otp',
  'one',
  'onetime',
  'private',
  'recovery',
  'reset',
  'secret',
  'security',
  'session',
  'signin',
  'signing',
  'sms',
  'ssh',
  'api',
  'verification',
  'verify',
]);
/** Secret-like when the key, without separators, contains one of these. */
const SECRET_PARTS = ['pass', 'secret', 'token', 'apikey', 'privatekey', 'accesskey', 'signingkey', 'sessionid', 'credential', 'cookie'];
/** A word of a value (a run of these characters) is looked at on its own; every test below is linear in it. */
const WORD_RE = /[A-Za-z0-9_.~+/=-]+/g;
/** Tokens with a known prefix and shape (inboxd keys and tokens, OpenAI/Stripe, GitHub, Slack, AWS, Google). */
const KNOWN_TOKEN_RE =
  /^(?:ib[xt]_[A-Za-z0-9]{20,}|sk[-_][A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRIVATE_KEY_RE = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/;

function looksLikeToken(w: string, afterBearer: boolean): boolean {
  if (afterBearer && w.length >= 8) return true;
  if (KNOWN_TOKEN_RE.test(w)) return true;
  const parts = w.split('.');
  // A JWT: three base64url parts, the first a JSON object ("eyJ").
  if (parts.length === 3 && w.startsWith('eyJ') && parts.every((x) => x.length >= 8 && /^[A-Za-z0-9_-]+$/.test(x))) return true;
  // Any long opaque run of letters and digits (not a UUID).
  return w.length >= 32 && /[0-9]/.test(w) && /[A-Za-z]/.test(w) && !UUID_RE.test(w);
}

/** A key's words, split at separators and case changes, lower case: `x-api-key` → x api key, `APIKey` → api key. */
export function keyWords(key: string): string[] {
  const words: string[] = [];
  let cur = '';
  const isUpper = (c: string) => c >= 'A' && c <= 'Z';
  const isLower = (c: string) => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    if (!isUpper(c) && !isLower(c)) {
      if (cur) words.push(cur);
      cur = '';
      continue;
    }
    const prev = key[i - 1] ?? '';
    const next = key[i + 1] ?? '';
    if (cur && isUpper(c) && (isLower(prev) || (isUpper(prev) && next >= 'a' && next <= 'z'))) {
      words.push(cur);
      cur = '';
    }
    cur += c;
  }
  if (cur) words.push(cur);
  return words.map((w) => w.toLowerCase());
}

/** Whether values under this key are masked. */
export function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  for (const w of words)
    if ((w === 'code' || w === 'codes' || w === 'key' || w === 'keys') && (words.length === 1 || words.some((x) => CODE_QUALIFIERS.has(x))))
      return true;
  const compact = words.join('');
  return SECRET_PARTS.some((p) => compact.includes(p));
}

/** A string value with every secret-looking token in it masked (the whole value when it holds a private key). */
export function maskValue(v: string): string {
  if (PRIVATE_KEY_RE.test(v)) return MASK;
  return v.replace(WORD_RE, (w, at: number) => (looksLikeToken(w, /bearer\s+$/i.test(v.slice(Math.max(0, at - 12), at))) ? MASK : w));
}

/**
 * Values under keys that look like credentials, and values that look like secrets or tokens, are never stored or
 * shown: a run document is meant to be shared and reviewed.
 */
export function maskSecrets(v: unknown): unknown {
  if (typeof v === 'string') return maskValue(v);
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSecretKey(k) && x !== null ? MASK : maskSecrets(x);
  return out;
}

/** A subject as the timeline shows it: the message's extracted code (and any token) masked wherever it appears. */
export function maskSubject(subject: string, otp: string | null): string {
  let out = maskValue(subject);
  if (otp && otp.length >= 3) out = out.split(otp).join(MASK);
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
export function expectationOf(s: RunServiceEntry): {
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
