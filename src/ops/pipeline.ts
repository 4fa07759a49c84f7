// The one path every operation call takes, whichever edge it came from: validate → authorise → run → audit.
import { z } from 'zod';
import { isFullAdmin, type Principal } from '../auth/principal.ts';
import { AppError, isAppError, type FieldError } from '../errors.ts';
import type { OpContext, Operation, RawResult } from './op.ts';
import { isMutation } from './op.ts';

export function zodErrors(err: z.ZodError): FieldError[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: describeIssue(i) }));
}

function describeIssue(i: z.core.$ZodIssue): string {
  if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length > 1 ? 's' : ''}: ${i.keys.join(', ')}`;
  return i.message;
}

export function parseInput<T>(schema: z.ZodType<T>, raw: unknown): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const errors = zodErrors(r.error);
  const first = errors[0];
  throw new AppError('validation_failed', first ? `${first.path}: ${first.message}` : 'invalid input', { errors });
}

export function authorise(o: Operation, principal: Principal | null): void {
  if (o.access === 'public') return;
  if (!principal) throw new AppError('unauthorized', 'this operation needs an API key or access token: send "Authorization: Bearer <key>"');
  if (o.access === 'admin' && !isFullAdmin(principal)) throw new AppError('forbidden', `${o.name} needs an unscoped admin key`);
  if (isMutation(o) && principal.scope.readOnly) throw new AppError('forbidden', `this key is read-only and cannot ${o.summary.toLowerCase()}`);
}

export async function runOperation(o: Operation, ctx: OpContext, rawInput: unknown): Promise<unknown | RawResult> {
  const { services, principal } = ctx;
  let input: unknown;
  try {
    authorise(o, principal);
    if (principal) services.rateLimiter.hit(principal.keyId);
    input = parseInput(o.input, rawInput);
    const output = await o.handler(ctx, input);
    if (o.audit !== false && isMutation(o) && principal) {
      await services.audit.record({
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
    if (isAppError(e)) {
      if (e.code === 'forbidden' && principal) {
        await services.audit
          .record({ teamId: principal.teamId, at: services.clock.now(), actorKeyId: principal.keyId, action: o.audit ? o.audit.action : o.name, target: null, outcome: 'denied', sourceIp: ctx.request.ip, detail: { reason: e.detail } })
          .catch(() => undefined);
      }
      throw e;
    }
    ctx.log.error('operation failed', { op: o.name, err: e as Error });
    throw new AppError('internal', `${o.name} failed unexpectedly; the server log has the details`, { cause: e });
  }
}
