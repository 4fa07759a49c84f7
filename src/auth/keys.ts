// API key authentication and the bootstrap admin key (CONTRACT §1, §6).

import fs from 'node:fs';
import path from 'node:path';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { type AccessRepo, type ApiKeyRow, DEFAULT_TEAM_ID, type KeyRepo } from '../store/keys.ts';
import type { Principal } from './principal.ts';
import { hashSecret, newKeySecret, TOKEN_PREFIX } from './secrets.ts';

/** lastUsedAt is written at most this often per key, so authentication stays a read on the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export class KeyAuth {
  private readonly repo: KeyRepo;
  private readonly access: AccessRepo;
  private readonly now: () => number;
  private readonly touched = new Map<string, number>();

  constructor(repo: KeyRepo, access: AccessRepo, now: () => number) {
    this.repo = repo;
    this.access = access;
    this.now = now;
  }

  /**
   * Resolves a bearer secret — an API key or an access token — to a principal, or null when it is unknown,
   * revoked or expired. A token carries exactly its key's team, role and scope, and dies with the key.
   */
  async authenticate(secret: string): Promise<Principal | null> {
    const now = this.now();
    const isToken = secret.startsWith(TOKEN_PREFIX);
    const row = isToken ? await this.access.tokenKey(hashSecret(secret), now) : await this.repo.byHash(hashSecret(secret));
    if (!row || row.revoked_at !== null) return null;
    if ((this.touched.get(row.id) ?? 0) + TOUCH_INTERVAL_MS <= now) {
      this.touched.set(row.id, now);
      await this.repo.touch(row.id, now);
    }
    return principalOf(row, isToken ? 'token' : 'key');
  }
}

export function principalOf(row: ApiKeyRow, via: 'key' | 'token'): Principal {
  return {
    teamId: row.team_id,
    keyId: row.id,
    role: row.role,
    scope: { labelPrefix: row.scope_label_prefix, readOnly: row.scope_read_only === 1 },
    via,
    clientId: row.client_id,
  };
}

export interface BootstrapResult {
  /** Set only when a key was generated now: the caller prints it once. */
  generated: string | null;
  keyFile: string | null;
}

/**
 * INBOXD_ADMIN_KEY set: that exact string is an admin key of the default team (idempotent).
 * Unset and no key in the store: generate one, write it to <data-dir>/admin.key (0600) and return it.
 */
export async function bootstrapAdminKey(
  repo: KeyRepo,
  opts: { adminKey: string | undefined; dataDir: string; now: number; log: Logger },
): Promise<BootstrapResult> {
  await repo.ensureDefaultTeam(opts.now);
  if (opts.adminKey) {
    const hash = hashSecret(opts.adminKey);
    const existing = await repo.byHash(hash);
    if (!existing) {
      try {
        await repo.insertKey(keyRow({ label: 'bootstrap (INBOXD_ADMIN_KEY)', hash, prefix: opts.adminKey.slice(0, 8), now: opts.now }));
        opts.log.info('admin key from INBOXD_ADMIN_KEY registered');
      } catch (e) {
        // Another instance on the same PostgreSQL registered the same key a moment ago: nothing left to do.
        if (!isUniqueViolation(e, 'api_keys.secret_hash')) throw e;
      }
    } else if (existing.revoked_at !== null) {
      opts.log.warn('INBOXD_ADMIN_KEY names a revoked key; it stays revoked', { keyId: existing.id });
    }
    return { generated: null, keyFile: null };
  }
  if ((await repo.countActive()) > 0) return { generated: null, keyFile: null };
  const secret = newKeySecret();
  await repo.insertKey(keyRow({ label: 'bootstrap (generated)', hash: hashSecret(secret), prefix: secret.slice(0, 8), now: opts.now }));
  const keyFile = path.join(opts.dataDir, 'admin.key');
  fs.writeFileSync(keyFile, secret + '\n', { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  return { generated: secret, keyFile };
}

export function keyRow(o: {
  label: string;
  hash: string;
  prefix: string;
  now: number;
  teamId?: string;
  role?: 'admin' | 'member';
  labelPrefix?: string | null;
  readOnly?: boolean;
  clientId?: string | null;
}): ApiKeyRow {
  return {
    id: newId('key'),
    team_id: o.teamId ?? DEFAULT_TEAM_ID,
    label: o.label,
    role: o.role ?? 'admin',
    secret_hash: o.hash,
    secret_prefix: o.prefix,
    scope_label_prefix: o.labelPrefix ?? null,
    scope_read_only: o.readOnly ? 1 : 0,
    client_id: o.clientId ?? null,
    created_at: o.now,
    last_used_at: null,
    revoked_at: null,
  };
}
