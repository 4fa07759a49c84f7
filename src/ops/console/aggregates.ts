// The console's aggregates (CONTRACT §16): what the browser console at / shows on its dashboard and inbox pages,
// in one request each instead of dozens. Read-only, any key; everything is bounded to the key's team and label scope.
// The rows and counts come from src/console/service.ts (services.console); these operations shape them.
// GET /v1/console/threads belongs to the threads module (src/ops/threads/threads.ts), not here.

import { z } from 'zod';
import { redactUrl } from '../../events/targets.ts';
import { InboxId, principal } from '../common.ts';
import { attemptView, CallbackAttemptView } from '../events/events.ts';
import { op } from '../op.ts';
import { seesCallbackSecrets } from '../pipeline.ts';
import { ThreadSummary, threadSummary } from '../threads/threads.ts';
import { InboxView, inboxView, MessageSummary, messageSummary } from '../views.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const MessageCounts = z.object({
  received: z.number().int().describe('Messages received'),
  receivedToday: z.number().int().describe('Messages received since dayStartedAt'),
  verified: z.number().int().describe('Messages in which a code or a verification link was found'),
  verifiedToday: z.number().int(),
});

const CallbackCounts = z.object({
  delivered: z.number().int(),
  pending: z.number().int().describe('Not tried yet'),
  retrying: z.number().int().describe('Failed at least once; another attempt is due'),
  failed: z.number().int().describe('Given up (failed, gone or refused)'),
  failing: z.number().int().describe('retrying + failed'),
});

const withFailing = (c: { delivered: number; pending: number; retrying: number; failed: number }) => ({
  ...c,
  failing: c.retrying + c.failed,
});

export const consoleSummary = op({
  name: 'console.summary',
  summary: 'Console dashboard: counts, top labels and recent mail',
  description:
    "Inboxes, messages received (today and in total) and how many had a code or link, callback deliveries that are failing, the labels with the most mail, and the newest messages — all within the key's team and label scope. Today starts at 00:00 UTC.",
  access: 'read',
  http: { method: 'GET', path: '/v1/console/summary' },
  input: z.strictObject({
    recent: z.coerce.number().int().min(1).max(100).default(10).describe('How many recent messages (1-100, default 10)'),
    labels: z.coerce.number().int().min(1).max(100).default(10).describe('How many top labels (1-100, default 10)'),
  }),
  output: z.object({
    generatedAt: z.string(),
    dayStartedAt: z.string().describe('Start of "today" for the *Today counts: 00:00 UTC'),
    scope: z.object({ labelPrefix: z.string().nullable().describe("The key's label prefix; null: every inbox of the team") }),
    inboxes: z.object({ total: z.number().int(), withCallback: z.number().int() }),
    messages: MessageCounts,
    callbacks: CallbackCounts,
    topLabels: z.array(z.object({ label: z.string(), inboxes: z.number().int(), messages: z.number().int() })),
    recentActivity: z.array(MessageSummary.extend({ address: z.string(), label: z.string().nullable() })),
  }),
  audit: false,
  async handler(ctx, input) {
    const p = principal(ctx);
    const sum = await ctx.services.console.summary(p, { recent: input.recent, labels: input.labels });
    const base = ctx.services.baseUrl();
    return {
      generatedAt: iso(sum.now),
      dayStartedAt: iso(sum.dayStart),
      scope: { labelPrefix: p.scope.labelPrefix },
      inboxes: sum.inboxes,
      messages: sum.messages,
      callbacks: withFailing(sum.callbacks),
      topLabels: sum.topLabels,
      recentActivity: sum.recent.map((r) => ({ ...messageSummary(r, base), address: r.address, label: r.label })),
    };
  },
});

export const consoleInbox = op({
  name: 'console.inbox',
  summary: 'Console inbox page: the inbox, its recent mail and its callback deliveries',
  description:
    'One inbox (404 outside the key scope) with its newest messages and counts, and its callback: deliveries by state and the latest attempts (URL secrets redacted unless the key is an admin that may write).',
  access: 'read',
  http: { method: 'GET', path: '/v1/console/inboxes/:id' },
  input: z.strictObject({
    id: InboxId,
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many messages and callback attempts (1-100, default 20)'),
  }),
  output: z.object({
    inbox: InboxView,
    messages: z.object({ counts: MessageCounts, recent: z.array(MessageSummary) }),
    callbacks: z.object({
      callbackUrl: z.string().nullable(),
      deliveries: CallbackCounts,
      recentAttempts: z.array(CallbackAttemptView).describe('Newest first'),
    }),
    threads: z.array(ThreadSummary).describe('Its newest threads, by last activity (GET /v1/inboxes/:id/threads pages them all)'),
  }),
  audit: false,
  async handler(ctx, input) {
    const p = principal(ctx);
    const { inbox, counts, recent, deliveries, attempts, threads } = await ctx.services.console.inbox(p, input.id, input.limit);
    const full = seesCallbackSecrets(p);
    const base = ctx.services.baseUrl();
    return {
      inbox: inboxView(inbox),
      messages: { counts, recent: recent.map((r) => messageSummary(r, base)) },
      callbacks: {
        callbackUrl: inbox.callback_url,
        deliveries: withFailing(deliveries),
        recentAttempts: attempts.map(attemptView).map((a) => (full ? a : { ...a, url: redactUrl(a.url) })),
      },
      threads: threads.map(threadSummary),
    };
  },
});

export const consoleOps = [consoleSummary, consoleInbox];
