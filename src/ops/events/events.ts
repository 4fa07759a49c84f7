// Events of an inbox: the SSE stream (services.eventStreams) and the callback delivery log (services.callbacks).
// The body every callback carries is src/events/callback-body.ts.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { redactUrl } from '../../events/targets.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { AttemptLogRow } from '../../store/deliveries.ts';
import { InboxId, inboxOf, MessageId } from '../common.ts';
import { op } from '../op.ts';
import { seesCallbackSecrets } from '../pipeline.ts';
import { Cursor, Limit, listOf, MessageSummary, messageSummary } from '../views.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const LastEventId = z.coerce.number().int('lastEventId must be a whole number').min(0);

export const inboxEvents = op({
  name: 'inboxes.events',
  summary: 'Stream events of an inbox (SSE)',
  description:
    'A text/event-stream of the inbox: `message.received` events (id = the per-inbox message sequence, data = the message summary), ' +
    'a comment heartbeat every 15 s, `message.checked` (no id, not replayed) when the on-arrival checks of an inbox created with `checks` finish, ' +
    'and `inbox.deleted` before the stream ends when the inbox is deleted. ' +
    'Send `Last-Event-ID` (or `lastEventId=`) to first receive every message after that id; 0 replays them all.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/events', raw: ['text/event-stream'] },
  input: z.strictObject({
    id: InboxId,
    lastEventId: LastEventId.optional().describe('Resume after this event id (same as the Last-Event-ID header, which wins)'),
  }),
  output: z.object({ id: z.string(), event: z.literal('message.received'), data: MessageSummary }).describe('One event of the stream'),
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const header = ctx.request.header('last-event-id');
    let lastEventId = input.lastEventId ?? null;
    if (header !== undefined && header.trim() !== '') {
      const r = LastEventId.safeParse(header.trim());
      if (!r.success)
        throw new AppError(
          'validation_failed',
          `Last-Event-ID must be an event id of this stream (a whole number); got ${JSON.stringify(header)}`,
          { errors: [{ path: 'Last-Event-ID', message: 'not a whole number' }] },
        );
      lastEventId = r.data;
    }
    const baseUrl = ctx.services.baseUrl();
    const body = ctx.services.eventStreams.stream({
      inboxId: inbox.id,
      lastEventId,
      render: (m) => messageSummary(m, baseUrl),
      signal: ctx.signal,
    });
    return {
      kind: 'raw' as const,
      contentType: 'text/event-stream',
      body,
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
    };
  },
});

export const CallbackAttemptView = z.object({
  deliveryId: z.string().describe('Same for every attempt of one delivery; sent as the webhook-id header'),
  messageId: z.string(),
  event: z.string(),
  url: z.string(),
  attempt: z.number().int().describe('1 for the first try, up to 6'),
  statusCode: z.number().int().nullable().describe('HTTP status of the answer; null when none came (timeout, refused, network error)'),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  at: z.string(),
  nextRetryAt: z.string().nullable().describe('When the next attempt is due; null when this was the last one'),
  delivered: z.boolean(),
});

export function attemptView(r: AttemptLogRow): z.infer<typeof CallbackAttemptView> {
  return {
    deliveryId: r.delivery_id,
    messageId: r.message_id,
    event: r.event,
    url: r.url,
    attempt: r.attempt,
    statusCode: r.status_code,
    error: r.error,
    durationMs: r.duration_ms,
    at: iso(r.at),
    nextRetryAt: r.next_retry_at === null ? null : iso(r.next_retry_at),
    delivered: r.delivered === 1,
  };
}

const isAttemptCursor = (v: unknown): v is { a: number } =>
  typeof v === 'object' && v !== null && Number.isInteger((v as { a: unknown }).a);

export const listCallbacks = op({
  name: 'inboxes.callbacks',
  summary: 'List callback deliveries',
  description: 'Every callback attempt for this inbox, newest first: status, error, duration, and when the next retry is due.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/callbacks' },
  input: z.strictObject({
    id: InboxId,
    messageId: MessageId.optional().describe('Only attempts for this message'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: listOf(CallbackAttemptView),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const c = decodeCursor(input.cursor, isAttemptCursor);
    const rows = await ctx.services.callbacks.attempts(inbox.id, { limit: input.limit + 1, beforeId: c?.a, messageId: input.messageId });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const full = ctx.principal !== null && seesCallbackSecrets(ctx.principal);
    const items = page.map(attemptView).map((a) => (full ? a : { ...a, url: redactUrl(a.url) }));
    return { items, nextCursor: rows.length > input.limit && last ? encodeCursor({ a: last.id }) : null };
  },
});

export const eventOps = [inboxEvents, listCallbacks];
