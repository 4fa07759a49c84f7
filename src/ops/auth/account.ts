// The caller's own view: plan and limits, usage, the audit log, and billing entry points. The team, usage and
// billing come from src/auth/account.ts (services.account), the audit log from src/auth/audit-log.ts.
import { z } from 'zod';
import { scopeString } from '../../auth/access.ts';
import { AppError } from '../../errors.ts';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { principal, singleLine } from '../common.ts';
import { op } from '../op.ts';
import { Cursor, Limit, listOf } from '../views.ts';
import { ScopeView } from './team.ts';

const limitOrNull = (n: number) => (n > 0 ? n : null);

export const me = op({
  name: 'account.me',
  summary: 'Plan and limits of the calling key',
  access: 'read',
  http: { method: 'GET', path: '/v1/me' },
  input: z.strictObject({}),
  output: z.object({
    team: z.object({ teamId: z.string(), name: z.string() }),
    keyId: z.string(),
    role: z.enum(['admin', 'member']),
    via: z.enum(['key', 'token']),
    clientId: z.string().nullable(),
    scope: ScopeView,
    oauthScope: z.string(),
    plan: z.object({
      name: z.string(),
      limits: z.object({
        maxInboxes: z.number().int().nullable(),
        maxMessagesPerInbox: z.number().int().nullable(),
        maxMessageBytes: z.number().int(),
        requestsPerMinute: z.number().int().nullable(),
        ttlMinutesMax: z.number().int(),
        waitSecondsMax: z.number().int(),
      }),
    }),
  }),
  async handler(ctx) {
    const p = principal(ctx);
    const c = ctx.services.config;
    const team = await ctx.services.account.team(p);
    return {
      team: { teamId: team.id, name: team.name },
      keyId: p.keyId,
      role: p.role,
      via: p.via,
      clientId: p.clientId,
      scope: p.scope,
      oauthScope: scopeString(p.role, p.scope),
      plan: {
        name: team.plan,
        limits: {
          maxInboxes: limitOrNull(c.maxInboxes),
          maxMessagesPerInbox: limitOrNull(c.maxMessagesPerInbox),
          maxMessageBytes: c.maxMessageBytes,
          requestsPerMinute: limitOrNull(c.rateLimit),
          ttlMinutesMax: 10080,
          waitSecondsMax: 120,
        },
      },
    };
  },
});

export const stats = op({
  name: 'account.stats',
  summary: 'Usage counters',
  description: 'Live counts within the key’s label scope; lifetime totals of the team for unscoped keys (null for scoped keys).',
  access: 'read',
  http: { method: 'GET', path: '/v1/stats' },
  input: z.strictObject({}),
  output: z.object({
    scope: ScopeView,
    activeInboxes: z.number().int(),
    storedMessages: z.number().int(),
    storedBytes: z.number().int(),
    totals: z
      .object({
        inboxesCreated: z.number().int(),
        messagesReceived: z.number().int(),
        bytesReceived: z.number().int(),
        messagesSent: z.number().int().describe('Messages sent or replied from the team’s inboxes'),
      })
      .nullable(),
  }),
  async handler(ctx) {
    const p = principal(ctx);
    return { scope: p.scope, ...(await ctx.services.account.usage(p)) };
  },
});

const AuditItem = z.object({
  id: z.number().int(),
  at: z.string(),
  actorKeyId: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  outcome: z.string(),
  sourceIp: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});

const isAuditCursor = (v: unknown): v is { b: number } => typeof v === 'object' && v !== null && Number.isInteger((v as { b: unknown }).b);
const isoTime = (field: string) =>
  z
    .string()
    .max(40)
    .refine((s) => !Number.isNaN(Date.parse(s)), `${field} must be an ISO 8601 time`)
    .optional();

export const audit = op({
  name: 'account.audit',
  summary: 'Audit log of the team',
  description: 'Key, client, token, policy and domain changes and inbox deletions, newest first. Secrets never appear.',
  access: 'admin',
  http: { method: 'GET', path: '/v1/audit' },
  input: z.strictObject({
    keyId: singleLine(z.string().max(64)).optional().describe('Only events by this key'),
    action: singleLine(z.string().max(100)).optional().describe('Only this action; a trailing * matches a prefix (key.*)'),
    since: isoTime('since').describe('From this time (inclusive)'),
    until: isoTime('until').describe('Before this time'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: listOf(AuditItem),
  async handler(ctx, input) {
    const p = principal(ctx);
    const c = decodeCursor(input.cursor, isAuditCursor);
    const rows = await ctx.services.auditLog.list(p, {
      actorKeyId: input.keyId,
      action: input.action,
      since: input.since ? Date.parse(input.since) : undefined,
      until: input.until ? Date.parse(input.until) : undefined,
      beforeId: c?.b,
      limit: input.limit + 1,
    });
    return pageOf(
      rows,
      input.limit,
      (r) => ({
        id: r.id,
        at: new Date(r.at).toISOString(),
        actorKeyId: r.actor_key_id,
        action: r.action,
        target: r.target,
        outcome: r.outcome,
        sourceIp: r.source_ip,
        detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
      }),
      (r) => ({ b: r.id }),
    );
  },
});

const BillingUrl = z.object({ url: z.string(), sessionId: z.string() });

export const checkout = op({
  name: 'billing.checkout',
  summary: 'Start a paid-plan checkout',
  description: 'Returns the checkout URL of the configured billing provider. 501 not_configured when billing is not set up.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/billing/checkout' },
  input: z.strictObject({ successUrl: z.url().optional(), cancelUrl: z.url().optional() }),
  output: BillingUrl,
  audit: { action: 'billing.checkout' },
  async handler(ctx, input) {
    const base = ctx.services.baseUrl();
    const s = await ctx.services.account.checkout(principal(ctx), input.successUrl ?? `${base}/v1/me`, input.cancelUrl ?? `${base}/v1/me`);
    return { url: s.url, sessionId: s.id };
  },
});

export const portal = op({
  name: 'billing.portal',
  summary: 'Open the customer portal',
  description: 'Returns the customer-portal URL of the configured billing provider. 501 not_configured when billing is not set up.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/billing/portal' },
  input: z.strictObject({ returnUrl: z.url().optional() }),
  output: BillingUrl,
  audit: { action: 'billing.portal' },
  async handler(ctx, input) {
    const s = await ctx.services.account.portal(principal(ctx), input.returnUrl ?? `${ctx.services.baseUrl()}/v1/me`);
    if (!s.url) throw new AppError('unavailable', 'no portal URL');
    return { url: s.url, sessionId: s.id };
  },
});

export const accountOps = [me, stats, audit, checkout, portal];
