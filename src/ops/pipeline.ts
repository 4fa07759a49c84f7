// The one path every operation call takes, whichever edge it came from: validate → authorise → run → audit.
import type { z } from 'zod';
import { isFullAdmin, type Principal } from '../auth/principal.ts';
import { AppError, type FieldError, isAppError } from '../errors.ts';
import { redactCallbackUrls } from '../events/targets.ts';
import { didYouMean } from '../lib/suggest.ts';
import type { OpContext, Operation, RawResult } from './op.ts';
import { isMutation, isRawResult } from './op.ts';

/**
 * Where an operation's input came from, so an error names it as the caller wrote it: a JSON body's fields, a URL's
 * query parameters (GET/DELETE and raw-body routes), or an MCP tool's arguments.
 */
export type InputSource = 'body' | 'query' | 'arguments';

const UNKNOWN: Record<InputSource, string> = { body: 'field', query: 'query parameter', arguments: 'argument' };

export function zodErrors(err: z.ZodError, schema?: z.ZodType, source: InputSource = 'body'): FieldError[] {
  return err.issues.map((i) => ({
    path: i.path.map(String).join('.') || `(${source})`,
    message: describeIssue(i, schema, i.path.length === 0 ? source : 'body'),
  }));
}

function describeIssue(i: z.core.$ZodIssue, schema: z.ZodType | undefined, source: InputSource): string {
  if (i.code !== 'unrecognized_keys') return i.message;
  const known = schema ? knownKeys(schema, i.path) : [];
  const what = `unknown ${UNKNOWN[source]}${i.keys.length > 1 ? 's' : ''}`;
  return `${what}: ${i.keys.map((k) => k + didYouMean(k, known)).join(', ')}`;
}

/** The field names a strict object schema knows at `path` (through optional, default, pipe, array and union). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions differ per schema kind
  const def = (schema as any)?._zod?.def;
  if (!def) return [];
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  if (inner) return knownKeys(inner, path);
  if (def.type === 'union') return [...new Set(def.options.flatMap((o: z.ZodType) => knownKeys(o, path)))] as string[];
  if (def.type === 'array') return path.length > 0 ? knownKeys(def.element, path.slice(1)) : [];
  if (def.type !== 'object') return [];
  if (path.length === 0) return Object.keys(def.shape);
  const next = def.shape[String(path[0])];
  return next ? knownKeys(next, path.slice(1)) : [];
}

export function parseInput<T>(schema: z.ZodType<T>, raw: unknown, source: InputSource = 'body'): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const errors = zodErrors(r.error, schema, source);
  const first = errors[0];
  throw new AppError('validation_failed', first ? `${first.path}: ${first.message}` : 'invalid input', { errors });
}

export function authorise(o: Operation, principal: Principal | null): void {
  if (o.access === 'public') return;
  if (!principal) throw new AppError('unauthorized', 'this operation needs an API key or access token: send "Authorization: Bearer <key>"');
  if (o.access === 'admin' && !isFullAdmin(principal)) throw new AppError('forbidden', `${o.name} needs an unscoped admin key`);
  if (isMutation(o) && principal.scope.readOnly)
    throw new AppError('forbidden', `this key is read-only and cannot ${o.summary.toLowerCase()}`);
}

/**
 * The checks before a handler runs: access, rate limit, input. Split from `invokeOperation` so a streaming edge
 * can answer a refusal as an ordinary error before it commits to a stream.
 */
export async function prepareOperation(o: Operation, ctx: OpContext, rawInput: unknown, source: InputSource = 'body'): Promise<unknown> {
  try {
    authorise(o, ctx.principal);
    if (ctx.principal) await ctx.services.rateLimiter.hit(ctx.principal.keyId);
    return parseInput(o.input, rawInput, source);
  } catch (e) {
    throw await failure(o, ctx, e);
  }
}

/** Runs the handler on prepared input, audits a successful mutation, and maps unexpected errors to 500. */
export async function invokeOperation(o: Operation, ctx: OpContext, input: unknown): Promise<unknown | RawResult> {
  const { services, principal } = ctx;
  try {
    const result = await o.handler(ctx, input);
    // Callback URLs may carry credentials: shown in full only to admin keys that are not read-only.
    const output = (!principal || !seesCallbackSecrets(principal)) && !isRawResult(result) ? redactCallbackUrls(result) : result;
    if (o.audit !== false && isMutation(o) && principal) {
      await services.auditLog.record({
        teamId: principal.teamId,
        at: services.clock.now(),
        actorKeyId: principal.keyId,
        action: o.audit?.action ?? o.name,
        target: o.audit?.target ? o.audit.target(input, output) : null,
        outcome: 'ok',
        sourceIp: ctx.request.ip,
      });
    }
    return output;
  } catch (e) {
    throw await failure(o, ctx, e);
  }
}

export async function runOperation(
  o: Operation,
  ctx: OpContext,
  rawInput: unknown,
  source: InputSource = 'body',
): Promise<unknown | RawResult> {
  return invokeOperation(o, ctx, await prepareOperation(o, ctx, rawInput, source));
}

async function failure(o: Operation, ctx: OpContext, e: unknown): Promise<AppError> {
  const { services, principal } = ctx;
  if (isAppError(e)) {
    if (e.code === 'forbidden' && principal) {
      await services.auditLog
        .record({
          teamId: principal.teamId,
          at: services.clock.now(),
          actorKeyId: principal.keyId,
          action: o.audit ? o.audit.action : o.name,
          target: null,
          outcome: 'denied',
          sourceIp: ctx.request.ip,
          detail: { reason: e.detail },
        })
        .catch(() => undefined);
    }
    return e;
  }
  ctx.log.error('operation failed', { op: o.name, err: e as Error });
  return new AppError('internal', `${o.name} failed unexpectedly; the server log has the details`, { cause: e });
}

export function seesCallbackSecrets(p: Principal): boolean {
  return p.role === 'admin' && !p.scope.readOnly;
}
