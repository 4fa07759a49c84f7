// The team and its API keys (admin only). Secrets are in the create response and nowhere else. Reads go through
// services.account (src/auth/account.ts), minting and revoking through services.access (src/auth/access.ts).
import { z } from 'zod';
import { scopeOf } from '../../auth/access.ts';
import type { ApiKeyRow } from '../../store/keys.ts';
import { principal, singleLine } from '../common.ts';
import { op } from '../op.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const ScopeSchema = z.strictObject({
  labelPrefix: singleLine(z.string().min(1).max(200)).optional().describe('The key may only touch inboxes whose label starts with this'),
  readOnly: z.boolean().optional().describe('When true, the key cannot create, delete, send, simulate or execute'),
});

export const ScopeView = z.object({ labelPrefix: z.string().nullable(), readOnly: z.boolean() });

export const KeyView = z.object({
  keyId: z.string(),
  label: z.string(),
  role: z.enum(['admin', 'member']),
  scope: ScopeView,
  prefix: z.string().describe('First characters of the secret, to tell keys apart'),
  clientId: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export function keyView(r: ApiKeyRow): z.infer<typeof KeyView> {
  return {
    keyId: r.id,
    label: r.label,
    role: r.role,
    scope: scopeOf(r),
    prefix: r.secret_prefix,
    clientId: r.client_id,
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at),
    revokedAt: iso(r.revoked_at),
  };
}

export const getTeam = op({
  name: 'team.get',
  summary: 'Get the team and its API keys',
  access: 'admin',
  http: { method: 'GET', path: '/v1/team' },
  input: z.strictObject({}),
  output: z.object({
    team: z.object({ teamId: z.string(), name: z.string(), plan: z.string(), createdAt: z.string() }),
    keys: z.array(KeyView),
  }),
  async handler(ctx) {
    const p = principal(ctx);
    const { team, keys } = await ctx.services.account.teamAndKeys(p);
    return { team: { teamId: team.id, name: team.name, plan: team.plan, createdAt: iso(team.created_at)! }, keys: keys.map(keyView) };
  },
});

export const createKey = op({
  name: 'team.keys.create',
  summary: 'Create an API key',
  description: 'Mints a key of the team. The secret (`key`) is in this response only; store it now.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/team/keys', status: 201 },
  input: z.strictObject({
    label: singleLine(z.string().min(1).max(200)).describe('Name of the key'),
    role: z.enum(['admin', 'member']).default('member').describe('admin keys (unscoped) manage keys, clients and policy'),
    scope: ScopeSchema.optional(),
  }),
  output: KeyView.extend({ key: z.string().describe('The secret, shown once') }),
  audit: { action: 'key.create', target: (_i, o) => o.keyId },
  async handler(ctx, input) {
    const { row, secret } = await ctx.services.access.createKey(principal(ctx), input);
    return { ...keyView(row), key: secret };
  },
});

export const revokeKey = op({
  name: 'team.keys.revoke',
  summary: 'Revoke an API key',
  description: 'The key and every access token minted from it stop working at once.',
  access: 'admin',
  http: { method: 'DELETE', path: '/v1/team/keys/:id' },
  input: z.strictObject({ id: z.string().min(1).max(64).describe('Key id (key_…)') }),
  output: KeyView,
  audit: { action: 'key.revoke', target: (i) => i.id },
  async handler(ctx, input) {
    return keyView(await ctx.services.access.revokeKey(principal(ctx), input.id));
  },
});

export const teamOps = [getTeam, createKey, revokeKey];
