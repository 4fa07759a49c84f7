// execute-reply (CONTRACT §13): policy-gated and idempotent with Stripe's semantics. The Gmail-draft and calendar-event
// tools share its idempotency key and answer shape; they live in gmail-draft.ts and calendar-exec.ts (CONTRACT §15).
import { z } from 'zod';
import { InboxId, MessageId, principal } from '../common.ts';
import { op } from '../op.ts';
import { IdempotencyKey, idempotent, PreviewStatus, STATUS } from './common.ts';

const ExecuteView = z.object({
  status: PreviewStatus,
  outcome: z.enum(['sent', 'drafted', 'blocked']).describe('sent; drafted (draft_only); blocked (a rule failed: kept as a draft)'),
  mode: z.enum(['draft_only', 'auto_send_safe', 'full_auto']),
  reasons: z.array(z.string()),
  checks: z.array(z.object({ rule: z.string(), passed: z.boolean(), detail: z.string() })),
  inboxId: z.string(),
  messageId: z.string(),
  threadId: z.string().nullable(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  draftId: z.string().nullable(),
  sentMessageId: z.string().nullable(),
  deliveries: z.array(z.object({ rcpt: z.string(), state: z.string() })),
  actionId: z.string(),
  engine: z.enum(['request', 'draft', 'builtin', 'model']).describe('Where the text came from'),
  idempotencyKey: z.string(),
});

export const executeReplyOp = op({
  name: 'workspace.execute_reply',
  summary: 'Execute a policy-gated, idempotent reply',
  description: [
    'Replies to a stored inbound message with `text`, a stored `draftId`, or (neither) a built-in/model draft. The team policy decides:',
    'draft_only stores a draft and sends nothing; auto_send_safe sends only when every safety rule passes (else the draft is kept',
    'and the action logged as blocked with the reasons); full_auto sends unless a hard rule fails. Needs an idempotency key (body',
    '`idempotencyKey` or header `Idempotency-Key`): the same key returns the stored result (`Idempotent-Replayed: true`) and sends and',
    'logs nothing again; the same key with another request is 409; a replay while the first runs is 409 with Retry-After. At most one',
    'reply is ever sent per source message.',
  ].join(' '),
  access: 'write',
  http: { method: 'POST', path: '/v1/workspace/execute-reply' },
  tool: {
    name: 'svc_workspace_execute_reply',
    description: 'Reply to a received message under the workspace policy: sent, drafted or blocked, with every check.',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    inboxId: InboxId,
    messageId: MessageId.describe('The received message to answer (msg_…)'),
    text: z.string().min(1).max(100_000).optional().describe('The reply text; omit to use draftId or a generated draft'),
    html: z.string().max(200_000).optional().describe('Optional HTML version of the reply'),
    draftId: z.string().min(1).max(64).optional().describe('A stored draft (drf_…) of this message to send instead of text'),
    idempotencyKey: IdempotencyKey.optional(),
  }),
  output: ExecuteView,
  audit: { action: 'workspace.execute_reply', target: (i) => i.messageId },
  async handler(ctx, input) {
    const p = principal(ctx);
    const req = { inboxId: input.inboxId, messageId: input.messageId, text: input.text, html: input.html, draftId: input.draftId };
    // Errors are not remembered (Stripe keeps neither validation failures nor, here, 5xx/not_configured): a retry runs
    // again, and the natural key still allows at most one send per message.
    return idempotent(
      ctx,
      { bodyKey: input.idempotencyKey, required: true, namespace: '', request: req, what: 'the reply could not be sent' },
      async (key) => ({
        status: STATUS,
        ...(await ctx.services.workspace.executeReply(p, req, ctx.signal)),
        idempotencyKey: key as string,
      }),
    );
  },
});

export const workspaceExecOps = [executeReplyOp];
