// Threads (CONTRACT §9): the conversations of an inbox, one conversation with its messages, the MCP tool for both,
// and the console's recent threads across the inboxes a key may see.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { messageText } from '../../mail/inline.ts';
import { participantList, snippetOf } from '../../mail/threads.ts';
import type { ActivityCursor, ConsoleThreadRow, ThreadRow } from '../../threads/service.ts';
import { InboxId, inboxOf, principal } from '../common.ts';
import { type OpContext, op } from '../op.ts';
import { Cursor, Limit, listOf, MessageSummary, messageSummary } from '../views.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const ThreadId = z.string().min(1).max(64).describe('Thread id (thr_…), from a thread list or a message’s threadId');

export const ThreadSummary = z.object({
  threadId: z.string().describe('Identifier of the thread (thr_…)'),
  inboxId: z.string(),
  subject: z.string().describe('Subject of the conversation’s first message'),
  messageCount: z.number().int(),
  participants: z.array(z.string()).describe('Sender and recipient addresses seen in the thread (lower-case, at most 50)'),
  firstMessageAt: z.string(),
  lastMessageAt: z.string().describe('When its newest message arrived (lists are ordered by this, newest first)'),
  lastMessageId: z.string().nullable().describe('The newest message (msg_…)'),
  snippet: z.string().describe('The start of the newest message’s text, quoted lines left out'),
});
export type ThreadSummary = z.infer<typeof ThreadSummary>;

export const ThreadDetail = ThreadSummary.extend({
  messages: z.array(MessageSummary).describe('Its messages, oldest first (a page of them: see nextCursor)'),
  nextCursor: z.string().nullable().describe('Pass as cursor for the thread’s next messages; null when all are shown'),
});

const ConsoleThread = ThreadSummary.extend({
  inbox: z.object({ inboxId: z.string(), address: z.string(), label: z.string().nullable() }),
});

export function threadSummary(r: ThreadRow): ThreadSummary {
  return {
    threadId: r.id,
    inboxId: r.inbox_id,
    subject: r.subject,
    messageCount: r.message_count,
    participants: participantList(r.participants_json),
    firstMessageAt: iso(r.first_message_at),
    lastMessageAt: iso(r.last_message_at),
    lastMessageId: r.last_message_id,
    snippet: snippetOf(messageText(r.last_text, r.last_html).text),
  };
}

type Activity = { t: number; i: string };
const isActivity = (v: unknown): v is Activity =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Activity).t) && typeof (v as Activity).i === 'string';
const activityOf = (cursor: string | undefined): ActivityCursor | undefined => {
  const c = decodeCursor(cursor, isActivity);
  return c && { at: c.t, id: c.i };
};
const isSeqCursor = (v: unknown): v is { s: number } => typeof v === 'object' && v !== null && Number.isInteger((v as { s: unknown }).s);

async function listThreads(ctx: OpContext, inboxId: string, limit: number, cursor: string | undefined) {
  const inbox = await inboxOf(ctx, inboxId);
  const rows = await ctx.services.threads.list(inbox.id, limit + 1, activityOf(cursor));
  return pageOf(rows, limit, threadSummary, (r) => ({ t: r.last_message_at, i: r.id }));
}

async function getThread(ctx: OpContext, inboxId: string, threadId: string, limit: number, cursor: string | undefined) {
  const inbox = await inboxOf(ctx, inboxId);
  const after = decodeCursor(cursor, isSeqCursor);
  const t = await ctx.services.threads.get(inbox.id, threadId);
  if (!t) throw new AppError('not_found', `no thread ${threadId} in inbox ${inbox.id} (GET /v1/inboxes/${inbox.id}/threads lists them)`);
  const rows = await ctx.services.threads.messages(inbox.id, t.id, limit + 1, after?.s);
  const page = pageOf(
    rows,
    limit,
    (r) => messageSummary(r, ctx.services.baseUrl()),
    (r) => ({ s: r.seq }),
  );
  return { ...threadSummary(t), messages: page.items, nextCursor: page.nextCursor };
}

export const listInboxThreads = op({
  name: 'threads.list',
  summary: 'List threads',
  description:
    'Conversations of an inbox, newest activity first: messages grouped by Message-ID / In-Reply-To / References, and replies or forwards without those headers by subject.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/threads' },
  input: z.strictObject({ id: InboxId, limit: Limit, cursor: Cursor }),
  output: listOf(ThreadSummary),
  handler: (ctx, input) => listThreads(ctx, input.id, input.limit, input.cursor),
});

export const getInboxThread = op({
  name: 'threads.get',
  summary: 'Get a thread',
  description: 'One conversation with its messages (summaries), oldest first; `limit` and `cursor` page through the messages.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/threads/:threadId' },
  input: z.strictObject({ id: InboxId, threadId: ThreadId, limit: Limit, cursor: Cursor }),
  output: ThreadDetail,
  handler: (ctx, input) => getThread(ctx, input.id, input.threadId, input.limit, input.cursor),
});

export const threadsTool = op({
  name: 'threads.tool',
  summary: 'List threads or read one',
  access: 'read',
  tool: {
    name: 'svc_list_threads',
    description: "List an inbox's conversations, newest activity first; with threadId, that thread and its messages.",
    args: { inboxId: 'id' },
  },
  input: z.strictObject({
    id: InboxId,
    threadId: ThreadId.optional().describe('Return this thread with its messages instead of the list'),
    limit: Limit.describe('Page size, 1-500 (default 50): threads, or with threadId the thread’s messages'),
    cursor: Cursor.describe('nextCursor of the previous page (of threads, or with threadId of that thread’s messages)'),
  }),
  output: z.object({
    items: z.array(ThreadSummary).describe('Threads, newest activity first (empty when threadId is given)'),
    nextCursor: z.string().nullable().describe('Cursor for the next page of threads'),
    thread: ThreadDetail.optional().describe('With threadId: the thread and its messages, oldest first'),
  }),
  async handler(ctx, input) {
    if (input.threadId === undefined) return listThreads(ctx, input.id, input.limit, input.cursor);
    return { items: [], nextCursor: null, thread: await getThread(ctx, input.id, input.threadId, input.limit, input.cursor) };
  },
});

export const consoleThreads = op({
  name: 'console.threads',
  summary: 'Recent threads',
  description: 'Recent conversations across every inbox the key may see (its label scope), newest activity first, each with its inbox.',
  access: 'read',
  http: { method: 'GET', path: '/v1/console/threads' },
  input: z.strictObject({ limit: Limit, cursor: Cursor }),
  output: listOf(ConsoleThread),
  async handler(ctx, input) {
    const p = principal(ctx);
    const rows = await ctx.services.threads.recent(p.teamId, p.scope.labelPrefix, input.limit + 1, activityOf(input.cursor));
    return pageOf(
      rows,
      input.limit,
      (r: ConsoleThreadRow) => ({ ...threadSummary(r), inbox: { inboxId: r.inbox_id, address: r.address, label: r.label } }),
      (r) => ({ t: r.last_message_at, i: r.id }),
    );
  },
});

export const threadOps = [listInboxThreads, getInboxThread, threadsTool, consoleThreads];
