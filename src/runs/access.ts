// svc_issue_access: a short-lived access token for the calling key, with its own scope, or narrowed to one run's
// label (runId) for a sub-agent or browser worker. Recorded in the audit log and, for a run, in its timeline.
import { type AccessService, scopeOf, scopeString } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { AuditRepo } from '../store/audit.ts';
import type { KeyRepo } from '../store/keys.ts';
import type { Run } from './model.ts';
import { issueNarrowToken, recordAccessIssued } from './records.ts';
import type { RunRepo } from './repo.ts';

export interface IssuedAccess {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface AccessDeps {
  repo: RunRepo;
  keys: Pick<KeyRepo, 'byId'>;
  tokens: Pick<AccessService, 'issueTokenForKey'>;
  audit: Pick<AuditRepo, 'record'>;
  now: () => number;
  /** The run as the caller may see it (404 otherwise). */
  loadRun: (p: Principal, id: string) => Promise<Run>;
}

/**
 * Only keys mint: a token minting tokens could renew itself forever and outlive its key's intent (and the 3600 s
 * bound); a token holder can hand on the token it has. With runId, or when the caller is itself a narrowed token,
 * the token is narrowed to a label, so a run's token never mints a broader one.
 */
export async function issueAccess(d: AccessDeps, p: Principal, runId: string | undefined, ip: string | null): Promise<IssuedAccess> {
  if (p.via === 'token')
    throw new AppError(
      'forbidden',
      'access tokens cannot mint access tokens; call svc_issue_access with an API key, or hand on the token you already have',
    );
  const key = await d.keys.byId(p.keyId);
  if (!key) throw new AppError('unauthorized', 'the calling key no longer exists');
  const audit = (target: string) =>
    d.audit.record({ teamId: p.teamId, at: d.now(), actorKeyId: p.keyId, action: 'token.issue', target, outcome: 'ok', sourceIp: ip });
  // A token narrowed to a run's label (scope differs from its key's) may only mint tokens as narrow as itself.
  if (runId === undefined && p.scope.labelPrefix === key.scope_label_prefix) {
    const issued = await d.tokens.issueTokenForKey(key);
    await audit(key.id);
    return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn, scope: scopeString(key.role, scopeOf(key)) };
  }
  const run = runId === undefined ? null : await d.loadRun(p, runId);
  const labelPrefix = run ? run.label : p.scope.labelPrefix!;
  const issued = await issueNarrowToken(d.repo, p, labelPrefix, d.now());
  if (run) await recordAccessIssued(d.repo, p, run, issued.expiresIn, d.now());
  await audit(run ? `${key.id} run ${run.id}` : `${key.id} label ${labelPrefix}`);
  return {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    scope: scopeString(key.role, { labelPrefix, readOnly: p.scope.readOnly }),
  };
}
