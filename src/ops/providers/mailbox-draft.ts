// svc_workspace_execute_gmail_draft (CONTRACT §13, §15): puts a draft into the mailbox — IMAP APPEND with \Draft to
// the Drafts folder, the Gmail drafts API, or an inboxd workspace draft for the local mailbox. Drafts only: nothing
// is ever sent, so every workspace policy mode allows it. Logged as a workspace action (type draft); an idempotency
// key (body or Idempotency-Key header) returns the first result again without a second draft.
import { z } from 'zod';
import { principal } from '../common.ts';
import { op } from '../op.ts';
import { IdempotencyKey, idempotent, PreviewStatus, STATUS } from '../workspace/common.ts';
import { AccountId } from './mailbox-read.ts';

const Address = z.string().min(3).max(320).describe('An e-mail address');

export const executeGmailDraftOp = op({
  name: 'workspace.execute_gmail_draft',
  summary: 'Create a draft in a mailbox',
  description:
    'Creates a draft (never sends) in the mailbox: IMAP APPEND with \\Draft to the Drafts folder (created when missing), the Gmail drafts API, or an inboxd workspace draft (drf_…) for the local mailbox. Allowed in every policy mode; logged as a workspace action of type draft. With an idempotency key the same request returns the first result (Idempotent-Replayed: true); the same key with another request is 409.',
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/execute-gmail-draft' },
  tool: {
    name: 'svc_workspace_execute_gmail_draft',
    description: 'Put a draft into a mailbox for a person to review; never sends. In a thread (threadId) or new mail (to, subject).',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    threadId: z.string().min(1).max(2048).optional().describe('The thread to reply in (from svc_gmail_list_threads of the same account)'),
    to: z.array(Address).max(50).optional().describe('Recipients; default the thread’s last sender'),
    cc: z.array(Address).max(50).optional().describe('Cc recipients'),
    subject: z.string().max(998).optional().describe('Subject; default "Re: " + the thread’s subject'),
    text: z.string().min(1).max(100_000).describe('The draft’s text (the mailbox signature from its settings is appended)'),
    html: z.string().max(200_000).optional().describe('Optional HTML version (IMAP and Gmail drafts)'),
    inReplyTo: z.string().max(998).optional().describe('Message-ID the draft answers, when not given by threadId'),
    idempotencyKey: IdempotencyKey.optional(),
  }),
  output: z.object({
    status: PreviewStatus,
    draftId: z.string().describe('The draft in the mailbox: IMAP "folder:uid", a Gmail draft id, or drf_… locally'),
    accountId: z.string(),
    provider: z.enum(['local', 'imap', 'gmail']),
    threadId: z.string().nullable(),
    to: z.array(z.string()),
    subject: z.string(),
    location: z.string().describe('Where the draft is: the IMAP folder, gmail:drafts, or inboxd:workspace_drafts'),
    mode: z.enum(['draft_only', 'auto_send_safe', 'full_auto']).describe('The workspace policy; a draft is allowed in every mode'),
    actionId: z.string().describe('The workspace action (type draft) that logged it'),
    idempotencyKey: z.string().nullable(),
  }),
  async handler(ctx, input) {
    const p = principal(ctx);
    const { idempotencyKey: _k, ...req } = input;
    return idempotent(
      ctx,
      {
        bodyKey: input.idempotencyKey,
        required: false,
        namespace: '',
        request: { op: 'gmail_draft', ...req },
        what: 'the draft could not be created',
      },
      async (key) => ({ status: STATUS, ...(await ctx.services.mailbox.createDraft(p, req)), idempotencyKey: key }),
    );
  },
});

export const gmailDraftOps = [executeGmailDraftOp];
