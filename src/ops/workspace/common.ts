// Pieces the workspace operations share: the preview status, the supplied-message and source inputs, and the
// idempotency key of the execute tools (read from the body or the Idempotency-Key header; the work runs once per
// key through WorkspaceService.once).
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { InboxId, MessageId, principal } from '../common.ts';
import type { OpContext, RawResult } from '../op.ts';

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
 * The key comes from the body or the Idempotency-Key header (both given: they must agree). A replay returns the first
 * answer with `Idempotent-Replayed: true`; the same key with another request is 409; an unexpected failure becomes
 * 503 naming `what`. Keys live in `namespace` (so a key of one tool cannot replay another's answer). Without a key the
 * work runs plainly, unless `required`.
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
  const p = principal(ctx);
  const workspace = ctx.services.workspace;
  if (raw === undefined && !o.required) return (await workspace.once(p, null, o.request, o.what, () => run(null))).body;
  const parsed = IdempotencyKey.safeParse(raw);
  if (!parsed.success)
    throw new AppError(
      'validation_failed',
      raw === undefined
        ? 'an idempotency key is required: send the Idempotency-Key header or idempotencyKey (any unique string, ≤ 255 characters)'
        : 'idempotencyKey: 1-255 printable ASCII characters without spaces',
      { errors: [{ path: 'idempotencyKey', message: raw === undefined ? 'required' : 'invalid' }] },
    );
  const r = await workspace.once(p, o.namespace + parsed.data, o.request, o.what, () => run(parsed.data));
  return jsonAnswer(r.body, r.replayed, r.status);
}
