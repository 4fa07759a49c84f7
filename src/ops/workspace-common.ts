// Pieces the workspace operations share: the supplied-message shape, loading mail from a stored thread, a stored
// message or the request, and the engine configuration (the AI service's model chain).
import { z } from 'zod';
import { AppError, isAppError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { EngineConfig } from '../workspace/engine.ts';
import { claimKey, completeKey, releaseKey, requestHash } from '../workspace/idempotency.ts';
import { fromRow, loadThread, type WsMessage } from '../workspace/source.ts';
import { wsDb } from '../workspace/tables.ts';
import { aiOf } from './ai.ts';
import { InboxId, inboxOf, MessageId, principal } from './common.ts';
import type { OpContext, RawResult } from './op.ts';

export const STATUS = 'autonomy_preview' as const;
export const PreviewStatus = z.literal(STATUS).describe('The workspace is a preview: autonomy_preview');

/** Supplied threads are bounded: longer ones go by threadId (stored) or in parts. */
export const MAX_SUPPLIED = 200;
const MAX_TEXT = 100_000;

const Email = z.string().trim().max(320).describe('An e-mail address');
export const SuppliedMessage = z.strictObject({
  from: Email.describe('Sender address'),
  to: z
    .union([Email, z.array(Email).max(100)])
    .optional()
    .describe('Recipient address or addresses'),
  subject: z.string().max(998).optional().describe('Subject line'),
  text: z.string().max(MAX_TEXT, `text must be at most ${MAX_TEXT} characters`).describe('Plain-text body'),
  date: z.iso.datetime({ offset: true }).optional().describe('When it was sent (ISO 8601)'),
});

export const Source = {
  inboxId: InboxId.optional().describe('Inbox of a stored thread or message (inb_…)'),
  threadId: z.string().min(1).max(64).optional().describe('A stored thread of that inbox (thr_…)'),
  messageId: MessageId.optional().describe('A stored message of that inbox (msg_…), instead of a thread'),
  messages: z
    .array(SuppliedMessage)
    .min(1)
    .max(MAX_SUPPLIED, `at most ${MAX_SUPPLIED} messages may be supplied; give a stored thread (inboxId + threadId) or split it`)
    .optional()
    .describe(`The thread itself, oldest first (at most ${MAX_SUPPLIED}), instead of inboxId + threadId`),
  me: Email.optional().describe('With supplied messages: your own address, so mail from it counts as written by you'),
};

export interface SourceInput {
  inboxId?: string | undefined;
  threadId?: string | undefined;
  messageId?: string | undefined;
  messages?: Array<z.infer<typeof SuppliedMessage>> | undefined;
  me?: string | undefined;
}

export function engineConfig(s: Services): EngineConfig {
  const c = s.config;
  return {
    chain: {
      links: aiOf(s).links,
      timeoutMs: c.modelTimeoutMs ?? 30_000,
      maxResponseBytes: 256 * 1024,
      keys: { ...(c.openaiApiKey ? { openai: c.openaiApiKey } : {}), ...(c.anthropicApiKey ? { anthropic: c.anthropicApiKey } : {}) },
    },
    maxInputChars: c.modelMaxInputChars ?? 20_000,
  };
}

/** The mail a request names, oldest first: supplied, a stored thread, or one stored message. */
export async function loadSource(ctx: OpContext, input: SourceInput): Promise<WsMessage[]> {
  const stored = input.inboxId !== undefined;
  if (stored === (input.messages !== undefined))
    throw new AppError('validation_failed', 'give either messages (the thread itself) or inboxId with threadId or messageId', {
      errors: [{ path: 'messages', message: 'give messages or inboxId' }],
    });
  if (input.messages) {
    const me = input.me?.toLowerCase();
    return input.messages.map((m) => {
      const from = m.from.toLowerCase();
      return {
        id: null,
        threadId: null,
        from,
        fromName: '',
        to: (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).map((a) => a.toLowerCase()),
        subject: m.subject ?? '',
        text: m.text,
        date: m.date ? Date.parse(m.date) : null,
        headers: [],
        attachmentCount: 0,
        direction: me && from === me ? 'outbound' : 'inbound',
        messageIdHeader: null,
      } satisfies WsMessage;
    });
  }
  const inbox = await inboxOf(ctx, input.inboxId!);
  if ((input.threadId === undefined) === (input.messageId === undefined))
    throw new AppError('validation_failed', 'with inboxId, give exactly one of threadId or messageId', {
      errors: [{ path: 'threadId', message: 'give threadId or messageId' }],
    });
  if (input.messageId) {
    const row = await ctx.services.messages.get(inbox.id, input.messageId);
    if (!row) throw new AppError('not_found', `no message ${input.messageId} in inbox ${inbox.id}`);
    return [fromRow(row, inbox.address)];
  }
  let rows: Awaited<ReturnType<typeof loadThread>>;
  try {
    rows = await loadThread(ctx.services.store.db, inbox.id, input.threadId!);
  } catch (e) {
    if (/thread_id/.test((e as Error).message))
      throw new AppError(
        'not_configured',
        'stored threads are not available in this build (messages have no thread_id); supply the messages or use messageId',
      );
    throw e;
  }
  if (!rows.length) throw new AppError('not_found', `no thread ${input.threadId} in inbox ${inbox.id}`);
  return rows.map((r) => fromRow(r, inbox.address));
}

/** The idempotency key of the execute tools (execute-reply, gmail draft, calendar event). */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .describe('Idempotency key (or the Idempotency-Key header): the same key returns the first result for 24 hours');

/** A JSON answer of an execute tool, with Idempotent-Replayed (and the first answer's status on a replay). */
export function jsonAnswer(body: unknown, replayed: boolean, status?: number): RawResult {
  return {
    kind: 'raw',
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(JSON.stringify(body)),
    json: body,
    headers: { 'Idempotent-Replayed': String(replayed) },
    ...(status ? { status } : {}),
  };
}

/**
 * Runs an execute tool's work at most once per idempotency key (Stripe's semantics, src/workspace/idempotency.ts).
 * The key comes from the body or the Idempotency-Key header (both given: they must agree). It is claimed before any
 * work, so a concurrent replay finds it in flight (409) and cannot act twice; a replay returns the first answer with
 * `Idempotent-Replayed: true`; the same key with another request is 409. Failures are not remembered (the key is
 * released, a retry runs again) and an unexpected one becomes 503 naming `what`. Keys live in `namespace` (so a key
 * of one tool cannot replay another's answer). Without a key the work runs plainly, unless `required`.
 */
export async function idempotent<T extends object>(
  ctx: OpContext,
  o: { bodyKey: string | undefined; required: boolean; namespace: string; request: unknown; what: string },
  run: (key: string | null) => Promise<T>,
): Promise<T | RawResult> {
  const header = ctx.request.header('idempotency-key');
  if (header !== undefined && o.bodyKey !== undefined && header !== o.bodyKey)
    throw new AppError('validation_failed', 'the Idempotency-Key header and idempotencyKey differ; give one', {
      errors: [{ path: 'idempotencyKey', message: 'differs from the header' }],
    });
  const raw = o.bodyKey ?? header;
  const unexpected = (e: unknown): never => {
    if (isAppError(e)) throw e;
    throw new AppError('unavailable', `${o.what}: ${(e as Error).message.slice(0, 300)}; retry with the same key`);
  };
  if (raw === undefined && !o.required) return run(null).catch(unexpected);
  const parsed = IdempotencyKey.safeParse(raw);
  if (!parsed.success)
    throw new AppError(
      'validation_failed',
      raw === undefined
        ? 'an idempotency key is required: send the Idempotency-Key header or idempotencyKey (any unique string, ≤ 255 characters)'
        : 'idempotencyKey: 1-255 printable ASCII characters without spaces',
      { errors: [{ path: 'idempotencyKey', message: raw === undefined ? 'required' : 'invalid' }] },
    );
  const s = ctx.services;
  const teamId = principal(ctx).teamId;
  const db = wsDb(s);
  const stored = o.namespace + parsed.data;
  const claim = await claimKey<T>(db, teamId, stored, requestHash(o.request), s.clock.now());
  if (claim.kind === 'replay') return jsonAnswer(claim.body, true, claim.status);
  try {
    const body = await run(parsed.data);
    await completeKey(db, teamId, stored, 200, body);
    return jsonAnswer(body, false);
  } catch (e) {
    await releaseKey(db, teamId, stored);
    return unexpected(e);
  }
}
