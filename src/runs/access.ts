// svc_issue_access with runId: an access token narrowed to one run's label, for a sub-agent or browser worker.
import { scopeString } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import type { OpContext } from '../ops/op.ts';
import type { ApiKeyRow } from '../store/keys.ts';
import { issueNarrowToken, recordAccessIssued } from './records.ts';
import { loadRun } from './service.ts';

/**
 * svc_issue_access with runId: a token narrowed to the run's label, recorded in the run's timeline. Also used
 * without runId when the caller is itself a narrowed token, so a run's token never mints a broader one.
 */
export async function issueRunAccess(
  ctx: OpContext,
  p: Principal,
  key: ApiKeyRow,
  runId: string | undefined,
): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
  const run = runId === undefined ? null : await loadRun(ctx.services, p, runId);
  const labelPrefix = run ? run.label : p.scope.labelPrefix!;
  const issued = await issueNarrowToken(ctx.services, p, labelPrefix);
  if (run) await recordAccessIssued(ctx.services, p, run, issued.expiresIn);
  await ctx.services.audit.record({
    teamId: p.teamId,
    at: ctx.services.clock.now(),
    actorKeyId: p.keyId,
    action: 'token.issue',
    target: run ? `${key.id} run ${run.id}` : `${key.id} label ${labelPrefix}`,
    outcome: 'ok',
    sourceIp: ctx.request.ip,
  });
  return {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    scope: scopeString(key.role, { labelPrefix, readOnly: p.scope.readOnly }),
  };
}
