// Keys, OAuth clients and access tokens: minting, listing, revoking (CONTRACT §6). Secrets are returned once
// and stored only as hashes.
import { AppError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { AccessRepo, ApiKeyRow, KeyRepo, OAuthClientRow } from '../store/keys.ts';
import type { AuditLog } from './audit-log.ts';
import { keyRow } from './keys.ts';
import { isFullAdmin, type Principal, type Role, type Scope } from './principal.ts';
import { hashSecret, newKeySecret, newTokenSecret } from './secrets.ts';

export const TOKEN_TTL_SECONDS = 3600;

export interface ScopeInput {
  labelPrefix?: string | undefined;
  readOnly?: boolean | undefined;
}

/** The OAuth `scope` string of a key: inboxes:read, inboxes:write unless read-only, admin, label:<prefix>. */
export function scopeString(role: Role, scope: Scope): string {
  const parts = ['inboxes:read'];
  if (!scope.readOnly) parts.push('inboxes:write');
  if (role === 'admin' && scope.labelPrefix === null && !scope.readOnly) parts.push('admin');
  if (scope.labelPrefix !== null) parts.push(`label:${scope.labelPrefix}`);
  return parts.join(' ');
}

export function scopeOf(row: ApiKeyRow): Scope {
  return { labelPrefix: row.scope_label_prefix, readOnly: row.scope_read_only === 1 };
}

export class AccessService {
  private readonly keys: KeyRepo;
  private readonly repo: AccessRepo;
  private readonly clock: Clock;
  private readonly audit: Pick<AuditLog, 'record'>;

  constructor(d: { keys: KeyRepo; repo: AccessRepo; clock: Clock; audit: Pick<AuditLog, 'record'> }) {
    this.keys = d.keys;
    this.repo = d.repo;
    this.clock = d.clock;
    this.audit = d.audit;
  }

  /** A new key of the caller's team; never broader than the caller (no escalation). */
  async createKey(
    p: Principal,
    req: { label: string; role?: Role | undefined; scope?: ScopeInput | undefined },
  ): Promise<{ row: ApiKeyRow; secret: string }> {
    assertManager(p);
    const secret = newKeySecret();
    const row = keyRow({
      label: req.label,
      hash: hashSecret(secret),
      prefix: secret.slice(0, 8),
      now: this.clock.now(),
      teamId: p.teamId,
      role: req.role ?? 'member',
      labelPrefix: req.scope?.labelPrefix ?? null,
      readOnly: req.scope?.readOnly ?? false,
    });
    row.id = newId('key');
    await this.keys.insertKey(row);
    return { row, secret };
  }

  async revokeKey(p: Principal, keyId: string): Promise<ApiKeyRow> {
    const row = await this.keys.byId(keyId);
    if (!row || row.team_id !== p.teamId) throw new AppError('not_found', `no key ${keyId} in this team (GET /v1/team lists them)`);
    if (row.revoked_at !== null) return row;
    const fullAdmin = row.role === 'admin' && row.scope_label_prefix === null && row.scope_read_only === 0;
    if (fullAdmin && (await this.repo.countActiveFullAdmins(p.teamId)) <= 1) {
      throw new AppError('conflict', `${keyId} is the team's last unscoped admin key; create another admin key before revoking it`);
    }
    await this.keys.revoke(keyId, this.clock.now());
    await this.repo.deleteTokensOfKey(keyId);
    return (await this.keys.byId(keyId))!;
  }

  async registerClient(
    p: Principal,
    req: { name: string; scope?: ScopeInput | undefined },
  ): Promise<{ client: OAuthClientRow; key: ApiKeyRow; secret: string }> {
    assertManager(p);
    const now = this.clock.now();
    const client: OAuthClientRow = { id: newId('cli'), team_id: p.teamId, name: req.name, created_at: now, created_by_key: p.keyId };
    const secret = newKeySecret();
    const key = keyRow({
      label: `oauth client ${req.name}`,
      hash: hashSecret(secret),
      prefix: secret.slice(0, 8),
      now,
      teamId: p.teamId,
      role: 'member',
      labelPrefix: req.scope?.labelPrefix ?? null,
      readOnly: req.scope?.readOnly ?? false,
      clientId: client.id,
    });
    key.id = newId('key');
    await this.repo.insertClient(client, key);
    return { client, key, secret };
  }

  async client(p: Principal, id: string): Promise<{ client: OAuthClientRow; key: ApiKeyRow | undefined }> {
    const found = await this.repo.client(id);
    if (!found || found.client.team_id !== p.teamId) throw new AppError('not_found', `no OAuth client ${id} in this team`);
    return found;
  }

  /**
   * client_credentials: the secret is an API key (of a registered client or any key of the team). When the key
   * belongs to a registered client, a given client_id must name that client. The issue is audited (`token.issue`).
   */
  async issueToken(
    secret: string,
    clientId: string | undefined,
    sourceIp: string | null,
  ): Promise<{ token: string; key: ApiKeyRow; expiresIn: number }> {
    const key = await this.keys.byHash(hashSecret(secret));
    if (!key || key.revoked_at !== null)
      throw oauthError('invalid_client', 'the client secret is not a valid API key (unknown or revoked)');
    if (clientId !== undefined && key.client_id !== null && clientId !== key.client_id)
      throw oauthError('invalid_client', 'client_id does not match the client secret');
    const issued = await this.issueTokenForKey(key);
    await this.audit.record({
      teamId: key.team_id,
      at: this.clock.now(),
      actorKeyId: key.id,
      action: 'token.issue',
      target: key.client_id ?? key.id,
      outcome: 'ok',
      sourceIp,
    });
    return issued;
  }

  /** A token for a key already authenticated (the MCP svc_issue_access tool); same scope as the key. */
  async issueTokenForKey(key: ApiKeyRow): Promise<{ token: string; key: ApiKeyRow; expiresIn: number }> {
    const now = this.clock.now();
    await this.repo.deleteExpiredTokens(now);
    const token = newTokenSecret();
    await this.repo.insertToken({
      id: newId('tok'),
      key_id: key.id,
      token_hash: hashSecret(token),
      created_at: now,
      expires_at: now + TOKEN_TTL_SECONDS * 1000,
    });
    return { token, key, expiresIn: TOKEN_TTL_SECONDS };
  }
}

/**
 * Only an unscoped admin key mints keys and clients (CONTRACT §6), so nothing it mints can be broader than the
 * minter. The operations already require `admin` access; this guards the service for any other caller.
 */
function assertManager(p: Principal): void {
  if (!isFullAdmin(p)) throw new AppError('forbidden', 'only an unscoped admin key manages keys and clients');
}

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_response_type';

/** An RFC 6749 §5.2 error, for operations whose `http.errors` is `oauth`. */
export function oauthError(error: OAuthErrorCode, description: string): AppError {
  const e = new AppError(error === 'invalid_client' ? 'unauthorized' : 'validation_failed', description);
  (e as AppError & { oauthError?: string }).oauthError = error;
  return e;
}
