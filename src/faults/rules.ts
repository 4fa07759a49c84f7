// Fault rules: what a rule is (its schema), the checks that need more than one field, glob matching without regular
// expressions, the seeded coin of `probability` mode, and the local-part shortcuts (`fail-452+x@…`). Pure: no I/O.
import { z } from 'zod';
import type { FieldError } from '../errors.ts';

export const STAGES = ['connect', 'ehlo', 'auth', 'mail', 'rcpt', 'data', 'end-of-data'] as const;
export type FaultStage = (typeof STAGES)[number];
/** Stages before any recipient is known: only global rules (an unscoped admin's) may act there. */
export const EARLY_STAGES: readonly FaultStage[] = ['connect', 'ehlo', 'auth', 'mail'];

/** Caps (README "Fault rules"): rules per scope and per team, the longest delay, the slowest throttle. */
export const MAX_RULES_PER_SCOPE = 100;
export const MAX_RULES_PER_TEAM = 1000;
export const MAX_DELAY_MS = 30_000;
export const MIN_THROTTLE_BPS = 100;
export const MAX_GLOB = 256;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !CONTROL.test(v), { error: 'must not contain control characters (NUL, tab, CR, LF, …)' });
const Glob = text(MAX_GLOB)
  .min(1)
  .describe('A glob, case-insensitive: * matches any run of characters, ? one character; e.g. *@example.com, signup-*');

export const FaultMatch = z
  .strictObject({
    recipient: Glob.optional().describe('Recipient address glob (stages rcpt, data, end-of-data)'),
    sender: Glob.optional().describe('Envelope sender (MAIL FROM) glob (stages mail and later)'),
    label: Glob.optional().describe("Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data)"),
  })
  .describe('All given fields must match; none = every session or recipient the scope covers');

const ReplyText = text(200).describe('Reply text after the code (printable, at most 200 characters)');
const Enhanced = z
  .string()
  .regex(/^[45]\.\d{1,3}\.\d{1,3}$/, 'must be an RFC 3463 enhanced status code such as 4.7.0')
  .describe('Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code');

export const FaultAction = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('reply'),
      code: z.number().int().min(400, 'must be 400-599').max(599, 'must be 400-599').describe('SMTP reply code'),
      enhanced: Enhanced.optional(),
      text: ReplyText.optional(),
    }),
    z.strictObject({ type: z.literal('disconnect').describe('Close the connection without a reply') }),
    z.strictObject({
      type: z.literal('delay'),
      ms: z.number().int().min(1).max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS} (30 s)`).describe('Hold the reply this long'),
    }),
    z.strictObject({
      type: z.literal('throttle'),
      bytesPerSecond: z
        .number()
        .int()
        .min(MIN_THROTTLE_BPS, `must be at least ${MIN_THROTTLE_BPS}`)
        .max(1_000_000_000)
        .describe('Read DATA at most this fast (stage data)'),
    }),
    z.strictObject({
      type: z.literal('rate-limit'),
      per: z.enum(['client', 'recipient']).default('client').describe('One token bucket per client address, or per recipient'),
      limit: z.number().int().min(1).max(1_000_000).describe('Messages let through per window'),
      windowSeconds: z.number().int().min(1).max(86_400).describe('The window; the bucket refills continuously'),
      code: z.union([z.literal(421), z.literal(450), z.literal(451), z.literal(452)]).default(421),
      text: ReplyText.optional(),
    }),
    z.strictObject({
      type: z.literal('greylist'),
      retryAfterSeconds: z
        .number()
        .int()
        .min(0)
        .max(3600)
        .default(60)
        .describe('A retry of the same sender/recipient/client triple is accepted this long after the first try'),
    }),
    z.strictObject({
      type: z.literal('mailbox-full'),
      permanent: z.boolean().default(false).describe('false: 452 4.2.2 (temporary) · true: 552 5.2.2'),
    }),
  ])
  .describe('What happens when the rule fires');

export const FaultMode = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('always') }),
    z.strictObject({ type: z.literal('first'), n: z.number().int().min(1).max(1_000_000).describe('Fire on the first n matches only') }),
    z.strictObject({ type: z.literal('every'), n: z.number().int().min(1).max(1_000_000).describe('Fire on match n, 2n, 3n, …') }),
    z.strictObject({
      type: z.literal('probability'),
      p: z.number().min(0).max(1).describe('Chance of firing, 0-1'),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .describe('The same seed gives the same sequence of fired/not fired'),
    }),
  ])
  .describe('When a matching rule fires (default always); counted per rule from its creation');

export const FaultRuleInput = z.strictObject({
  name: text(100).optional().describe('Your name for the rule (shown in events)'),
  stage: z
    .enum(STAGES)
    .optional()
    .describe('SMTP stage; default rcpt for rate-limit, greylist and mailbox-full, data for throttle; required otherwise'),
  match: FaultMatch.optional(),
  action: FaultAction,
  mode: FaultMode.optional(),
});
export type FaultRuleInput = z.infer<typeof FaultRuleInput>;
export type FaultAction = z.infer<typeof FaultAction>;
export type FaultMode = z.infer<typeof FaultMode>;

/** A rule as stored: the input with its stage and mode filled in. */
export interface FaultRule {
  name: string | null;
  stage: FaultStage;
  match: { recipient?: string; sender?: string; label?: string };
  action: FaultAction;
  mode: FaultMode;
}

export type FaultScope = { kind: 'global' } | { kind: 'prefix'; labelPrefix: string } | { kind: 'inbox'; inboxId: string };

/** Fills defaults and checks what one field's schema cannot: the stage fits the action, the match and the scope. */
export function normalizeRules(inputs: FaultRuleInput[], scope: FaultScope): { rules: FaultRule[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const rules: FaultRule[] = [];
  inputs.forEach((r, i) => {
    const at = (p: string, message: string) => errors.push({ path: `rules.${i}${p}`, message });
    const a = r.action;
    const stage: FaultStage | undefined =
      r.stage ??
      (a.type === 'rate-limit' || a.type === 'greylist' || a.type === 'mailbox-full' ? 'rcpt' : a.type === 'throttle' ? 'data' : undefined);
    if (!stage) {
      at('.stage', `a ${a.type} rule needs a stage: one of ${STAGES.join(', ')}`);
      return;
    }
    const early = EARLY_STAGES.includes(stage);
    const match = r.match ?? {};
    if (early && scope.kind !== 'global')
      at(
        '.stage',
        `stage ${stage} comes before any recipient is known; a rule for a label prefix or an inbox acts at rcpt, data or end-of-data`,
      );
    if (early && (match.recipient || match.label))
      at(
        '.match',
        `stage ${stage} comes before any recipient is known; match.recipient and match.label work at rcpt, data and end-of-data`,
      );
    if (match.sender && (stage === 'connect' || stage === 'ehlo' || stage === 'auth'))
      at('.match.sender', `the sender is known from stage mail on; stage ${stage} cannot match it`);
    if (a.type === 'throttle' && stage !== 'data') at('.stage', 'throttle slows the DATA transfer: use stage data');
    if ((a.type === 'rate-limit' || a.type === 'greylist') && stage !== 'rcpt')
      at('.stage', `${a.type} acts per recipient: use stage rcpt`);
    if (a.type === 'mailbox-full' && stage !== 'rcpt' && stage !== 'end-of-data') at('.stage', 'mailbox-full acts at rcpt or end-of-data');
    if (a.type === 'reply' && a.enhanced && a.enhanced[0] !== String(a.code)[0])
      at('.action.enhanced', `the class of ${a.enhanced} does not match reply code ${a.code}`);
    const mode = r.mode ?? { type: 'always' as const };
    if ((a.type === 'rate-limit' || a.type === 'greylist') && mode.type !== 'always')
      at('.mode', `${a.type} keeps its own state; its mode must be always`);
    rules.push({ name: r.name ?? null, stage, match, action: a, mode });
  });
  return { rules, errors };
}

/** Matching work left for one SMTP command; a glob that runs out of steps does not match (README "Fault rules"). */
export interface GlobBudget {
  steps: number;
  exhausted: boolean;
}

/** Glob steps one SMTP command may spend on all rules together (well under a millisecond). */
export const MATCH_BUDGET_STEPS = 100_000;

/**
 * A glob matcher: `*` any run, `?` one character, everything else literal, case-insensitive. No regular expression
 * is built from the pattern; the pattern and the subject are bounded (256 and 512 characters) and the classic
 * backtrack-to-the-last-star walk does at most |pattern| × |subject| steps — and at most what the command's budget
 * has left: past it the glob does not match.
 */
export function compileGlob(pattern: string): (s: string, budget?: GlobBudget) => boolean {
  const lower = pattern.toLowerCase();
  if (!lower.includes('*') && !lower.includes('?')) return (s) => s.toLowerCase() === lower;
  // The pattern as character codes, with -1 for * and -2 for ?.
  const p = Int32Array.from(lower, (c) => (c === '*' ? -1 : c === '?' ? -2 : c.charCodeAt(0)));
  const n = p.length;
  return (subject, budget) => {
    if (budget?.exhausted) return false;
    const s = (subject.length > 512 ? subject.slice(0, 512) : subject).toLowerCase();
    const len = s.length;
    let i = 0;
    let j = 0;
    let star = -1;
    let mark = 0;
    let steps = 0;
    const limit = budget ? budget.steps : Number.POSITIVE_INFINITY;
    while (i < len) {
      if (++steps > limit) {
        budget!.steps = 0;
        budget!.exhausted = true;
        return false;
      }
      const pc = j < n ? p[j]! : 0;
      if (j < n && (pc === -2 || pc === s.charCodeAt(i))) {
        i++;
        j++;
      } else if (pc === -1) {
        star = j++;
        mark = i;
      } else if (star >= 0) {
        j = star + 1;
        i = ++mark;
      } else return false;
    }
    if (budget) budget.steps -= steps;
    while (j < n && p[j] === -1) j++;
    return j === n;
  };
}

/** The seeded coin of `probability` mode: the k-th match of a rule fires when this is below p (a hash, not a stream). */
export function seededUnit(seed: number, k: number): number {
  let h = (seed ^ Math.imul(k, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Whether the k-th match (1-based) of a rule fires under its mode. */
export function modeFires(mode: FaultMode, k: number): boolean {
  switch (mode.type) {
    case 'always':
      return true;
    case 'first':
      return k <= mode.n;
    case 'every':
      return k % mode.n === 0;
    case 'probability':
      return seededUnit(mode.seed, k) < mode.p;
  }
}

/** A local-part shortcut: what a recipient like `fail-452+x@…` asks for, and at which stage. */
export interface Shortcut {
  stage: 'rcpt' | 'data' | 'end-of-data';
  action: FaultAction;
}

const SHORTCUT = /^(fail-([45]\d\d)|disconnect|delay-(\d{1,5})|greylist(?:-(\d{1,4}))?|mailbox-full)(?:-(rcpt|data|eod))?(?:\+.*)?$/;

/** `fail-452`, `fail-550-data`, `disconnect-eod`, `delay-2000`, `greylist-5`, `mailbox-full` (each optionally `+anything`). */
export function shortcutOf(address: string): Shortcut | null {
  const at = address.lastIndexOf('@');
  const local = (at > 0 ? address.slice(0, at) : address).toLowerCase();
  if (local.length > 64) return null;
  const m = SHORTCUT.exec(local);
  if (!m) return null;
  const stage = m[5] === 'data' ? 'data' : m[5] === 'eod' ? 'end-of-data' : 'rcpt';
  let action: FaultAction;
  if (m[2]) action = { type: 'reply', code: Number(m[2]) };
  else if (m[1] === 'disconnect') action = { type: 'disconnect' };
  else if (m[3]) action = { type: 'delay', ms: Math.min(Number(m[3]), MAX_DELAY_MS) };
  else if (m[1]!.startsWith('greylist')) {
    if (stage !== 'rcpt') return null;
    action = { type: 'greylist', retryAfterSeconds: Math.min(Number(m[4] ?? 60), 3600) };
  } else {
    if (stage === 'data') return null;
    action = { type: 'mailbox-full', permanent: false };
  }
  if (action.type === 'delay' && action.ms < 1) return null;
  return { stage, action };
}

const DEFAULT_ENHANCED: Record<number, string> = {
  421: '4.7.0',
  450: '4.2.1',
  451: '4.3.0',
  452: '4.2.2',
  550: '5.7.1',
  552: '5.2.2',
  553: '5.1.3',
  554: '5.6.0',
};

/** The reply line of a reply action: `<enhanced> <text>`, the enhanced code defaulting by reply code. */
export function replyOf(code: number, enhanced: string | undefined, text: string | undefined, why: string): string {
  const e = enhanced ?? DEFAULT_ENHANCED[code] ?? `${String(code)[0]}.0.0`;
  return `${e} ${text ?? why}`;
}
