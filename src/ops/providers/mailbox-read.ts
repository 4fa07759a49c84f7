// Mailbox provider reads (CONTRACT §15): svc_gmail_list_threads, svc_gmail_read_thread, svc_gmail_triage and
// svc_gmail_digest, on the local mailbox or a connected IMAP / Gmail account (src/providers/mailbox/).
import { z } from 'zod';
import { CATEGORIES } from '../../providers/mailbox/settings.ts';
import type { ThreadDetail } from '../../providers/mailbox/types.ts';
import { principal, singleLine } from '../common.ts';
import { op } from '../op.ts';

export const AccountId = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local',
  );

const Folder = singleLine(z.string().min(1).max(256)).describe(
  'IMAP folder (default INBOX), Gmail label id (INBOX, UNREAD, Label_…), or for the local mailbox an inbox id (inb_…) or a label prefix',
);
const Query = z
  .string()
  .min(1)
  .max(500)
  .describe('Search: Gmail search syntax on Gmail (and Gmail over IMAP), IMAP TEXT search elsewhere, inboxd’s search language locally');
const ThreadIdIn = z.string().min(1).max(2048).describe('A threadId from svc_gmail_list_threads of the same account');

const Addr = z.object({ name: z.string(), address: z.string() });
const ThreadSummary = z.object({
  threadId: z.string().describe('Pass to svc_gmail_read_thread or svc_workspace_execute_gmail_draft'),
  subject: z.string(),
  snippet: z.string(),
  messageCount: z.number().int().describe('Messages in the thread (IMAP lists: within the page)'),
  participants: z.array(z.string()),
  lastMessageAt: z.string().nullable(),
  unread: z.boolean(),
  folder: z.string().nullable(),
});
const Message = z.object({
  id: z.string(),
  from: Addr.nullable(),
  to: z.array(Addr),
  cc: z.array(Addr),
  subject: z.string(),
  date: z.string().nullable(),
  text: z.string().describe('The body as text (HTML converted)'),
  fromMe: z.boolean().describe('Written by the mailbox owner'),
  unread: z.boolean(),
  attachments: z.array(z.object({ filename: z.string().nullable(), contentType: z.string(), size: z.number().int() })),
});
const Mailbox = { accountId: z.string().describe('"local" or the account id used'), provider: z.enum(['local', 'imap', 'gmail']) };

export const gmailListThreads = op({
  name: 'mailbox.list_threads',
  summary: 'List mailbox threads',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/threads' },
  tool: {
    name: 'svc_gmail_list_threads',
    description: "List a mailbox's conversations, newest first, with query and folder filters; read one with svc_gmail_read_thread.",
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    query: Query.optional(),
    folder: Folder.optional(),
    cursor: z.string().min(1).max(4096).optional().describe('nextCursor of the previous page'),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe('Threads per page, 1-100 (default 25)'),
  }),
  output: z.object({ ...Mailbox, items: z.array(ThreadSummary), nextCursor: z.string().nullable() }),
  handler: (ctx, i) =>
    ctx.services.mailbox.listThreads(principal(ctx), i.accountId, { query: i.query, folder: i.folder, cursor: i.cursor, limit: i.limit }),
});

const view = <T extends ThreadDetail>(t: T) => ({
  ...t,
  messages: t.messages.map(({ html: _h, headers: _x, threadId: _t, messageIdHeader: _m, inReplyTo: _r, references: _f, ...m }) => m),
});

export const gmailReadThread = op({
  name: 'mailbox.read_thread',
  summary: 'Read a mailbox thread',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/threads/:threadId' },
  tool: {
    name: 'svc_gmail_read_thread',
    description: 'Read one conversation of a mailbox: messages oldest first, bodies as text, attachments by name.',
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    threadId: ThreadIdIn,
    maxMessages: z.coerce.number().int().min(1).max(100).default(50).describe('Newest messages returned, 1-100 (default 50)'),
  }),
  output: ThreadSummary.extend({ ...Mailbox, messages: z.array(Message), truncated: z.boolean().describe('Older messages were left out') }),
  handler: async (ctx, i) => view(await ctx.services.mailbox.readThread(principal(ctx), i.accountId, i.threadId, i.maxMessages)),
});

const Category = z.enum(CATEGORIES);
const TriagedView = z.object({
  threadId: z.string(),
  subject: z.string(),
  from: z.string().nullable().describe('Sender of the newest received message'),
  lastMessageAt: z.string().nullable(),
  messageCount: z.number().int(),
  unread: z.boolean(),
  category: Category.describe('needs_reply · waiting (you wrote last) · fyi · newsletter · verification · receipt · notification'),
  reason: z.string().describe('Why, in a sentence'),
  evidence: z
    .object({
      from: z.string().nullable(),
      subject: z.string(),
      rule: z.number().int().optional().describe('The settings rule (1-based) that decided'),
      header: z.string().optional().describe('The header that decided (List-Unsubscribe, Auto-Submitted, …)'),
      code: z.string().nullable().optional().describe('verification: the one-time code'),
      link: z.string().nullable().optional().describe('verification: the verification link'),
      matched: z.string().optional().describe('The words that decided'),
    })
    .describe('What the category rests on'),
});

export const gmailTriage = op({
  name: 'mailbox.triage',
  summary: 'Triage mailbox threads',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/triage' },
  tool: {
    name: 'svc_gmail_triage',
    description: "Classify a mailbox's newest threads: needs_reply, waiting, fyi, newsletter, verification, receipt, notification.",
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    folder: Folder.optional(),
    query: Query.optional(),
    limit: z.coerce.number().int().min(1).max(50).default(20).describe('Threads classified, newest first, 1-50 (default 20)'),
  }),
  output: z.object({
    ...Mailbox,
    items: z.array(TriagedView),
    counts: z.record(z.string(), z.number().int()).describe('Threads per category'),
  }),
  handler: (ctx, i) => ctx.services.mailbox.triage(principal(ctx), i.accountId, i),
});

export const gmailDigest = op({
  name: 'mailbox.digest',
  summary: 'Mailbox digest',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/digest' },
  tool: {
    name: 'svc_gmail_digest',
    description: 'What happened in a mailbox since a time: active threads triaged and grouped, needs_reply first.',
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    since: z.iso.datetime({ offset: true }).optional().describe('Start of the period (ISO 8601); default now minus the digest window'),
    folder: Folder.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(100).describe('Most threads looked at, newest first, 1-200 (default 100)'),
    top: z.coerce.number().int().min(1).max(20).default(5).describe('Threads shown per category, 1-20 (default 5)'),
  }),
  output: z.object({
    ...Mailbox,
    since: z.string(),
    until: z.string(),
    timezone: z.string().describe('The time zone of the mailbox settings'),
    total: z.number().int().describe('Threads with activity in the period (up to limit)'),
    groups: z.array(z.object({ category: Category, count: z.number().int(), top: z.array(TriagedView) })),
  }),
  handler: (ctx, i) => ctx.services.mailbox.digest(principal(ctx), i.accountId, i),
});

export const gmailReadOps = [gmailListThreads, gmailReadThread, gmailTriage, gmailDigest];
