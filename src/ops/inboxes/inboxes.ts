// Inboxes: create, list, get, delete, and wait for a message (the wait itself is src/inboxes/wait.ts).
import { z } from 'zod';
import { TTL_MAX_MINUTES } from '../../inboxes/service.ts';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { InboxId, inboxOf, principal, singleLine, waitCall } from '../common.ts';
import { op, rawJson } from '../op.ts';
import { Cursor, InboxView, inboxView, Limit, listOf, MessageView, messageView } from '../views.ts';

export const Label = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x20-\x7e]+$/, 'printable ASCII only')
  .describe('CI run id or other grouping label; a scoped key may only use labels with its prefix');
export const TtlMinutes = z
  .number()
  .int('ttlMinutes must be a whole number')
  .min(1)
  .max(TTL_MAX_MINUTES)
  .describe(`Minutes until the inbox and its mail are removed (1-${TTL_MAX_MINUTES}, default 60)`);
export const LocalPart = singleLine(z.string().min(1).max(64)).describe('Choose the part before @ (default: random)');
export const FullAddress = singleLine(z.string().min(3).max(320)).describe(
  'Choose the whole address; its domain must be one this inboxd serves',
);
export const CallbackUrl = z
  .url({ protocol: /^https?$/, error: 'callbackUrl must be an http(s) URL' })
  .max(2048)
  .describe('Receives a signed POST for every message (message.received)');

export const createInbox = op({
  name: 'inboxes.create',
  summary: 'Create an inbox',
  description:
    'Creates a disposable inbox with its own address. Mail that already arrived for a chosen address (unclaimed mail) is handed to it.',
  access: 'write',
  http: { method: 'POST', path: '/v1/inboxes', status: 201 },
  tool: {
    name: 'svc_create_inbox',
    description: 'Create a disposable inbox (inboxId, address). For signups, svc_verify_signup also waits and extracts.',
  },
  input: z.strictObject({
    label: Label.optional(),
    ttlMinutes: TtlMinutes.optional(),
    localPart: LocalPart.optional(),
    address: FullAddress.optional(),
    callbackUrl: CallbackUrl.optional(),
    checks: z
      .array(z.string().min(1).max(64))
      .max(32)
      .optional()
      .describe(
        'Checks to run on every message that arrives (e.g. ["html","a11y"]; GET /v1/checks lists them), reported as message.checked on SSE and callbacks',
      ),
  }),
  output: InboxView.extend({
    callbackSecret: z
      .string()
      .optional()
      .describe('With callbackUrl: the whsec_ secret that signs every callback (Standard Webhooks). Shown only here, once'),
  }),
  audit: false,
  async handler(ctx, input) {
    // Check names are validated against this server's checks first (a 400 naming the nearest for a typo).
    const checks = input.checks && input.checks.length > 0 ? ctx.services.checks.namesOf(input.checks) : undefined;
    const { inbox } = await ctx.services.inboxes.create(principal(ctx), { ...input, checks });
    return { ...inboxView(inbox), ...(inbox.callback_secret ? { callbackSecret: inbox.callback_secret } : {}) };
  },
});

type InboxCursor = { c: number; i: string };
const isInboxCursor = (v: unknown): v is InboxCursor =>
  typeof v === 'object' && v !== null && typeof (v as InboxCursor).c === 'number' && typeof (v as InboxCursor).i === 'string';

export const listInboxes = op({
  name: 'inboxes.list',
  summary: 'List inboxes',
  description: 'Inboxes of the caller (within its label scope), newest first; filter by exact label.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes' },
  tool: {
    name: 'svc_list_inboxes',
    description: 'List your inboxes, newest first, optionally only those with exactly this label (e.g. agent-<runId>).',
  },
  input: z.strictObject({
    label: singleLine(z.string().max(200)).optional().describe('Only inboxes with exactly this label'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: listOf(InboxView),
  async handler(ctx, input) {
    const c = decodeCursor(input.cursor, isInboxCursor);
    const rows = await ctx.services.inboxes.list(principal(ctx), {
      label: input.label,
      limit: input.limit + 1,
      before: c && { createdAt: c.c, id: c.i },
    });
    return pageOf(rows, input.limit, inboxView, (r) => ({ c: r.created_at, i: r.id }));
  },
});

export const getInbox = op({
  name: 'inboxes.get',
  summary: 'Get an inbox',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id' },
  tool: {
    name: 'svc_get_inbox',
    description: 'Get one inbox: its address, label, expiry and how many messages it received.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({ id: InboxId }),
  output: InboxView,
  async handler(ctx, input) {
    return inboxView(await inboxOf(ctx, input.id));
  },
});

export const deleteInbox = op({
  name: 'inboxes.delete',
  summary: 'Delete an inbox',
  description: 'Removes the inbox, its messages and their raw files and attachments.',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/inboxes/:id' },
  tool: {
    name: 'svc_delete_inbox',
    description: 'Delete an inbox with all its mail. Use it when a signup flow is finished.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({ id: InboxId }),
  output: z.object({ deleted: z.literal(true), inboxId: z.string() }),
  audit: { action: 'inbox.delete', target: (i) => i.id },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    await ctx.services.inboxes.delete(inbox);
    return { deleted: true as const, inboxId: inbox.id };
  },
});

export const WAIT_DEFAULT_SECONDS = 30;
export const WAIT_MAX_SECONDS = 120;

export const WaitAnswer = MessageView.extend({
  truncated: z
    .boolean()
    .describe(
      'text, html or headers were cut (longer than the server limit) or left out (includeBody=false) in this answer; GET the message or its rawUrl for all of it',
    ),
});
export type WaitAnswer = z.infer<typeof WaitAnswer>;

export const waitForMessageOp = op({
  name: 'inboxes.wait',
  summary: 'Wait for a message',
  description:
    'Returns the newest message matching the filters that arrived after `since` — at once if there is one, else as soon as one arrives. 408 wait_timeout when none arrives in time. Text, html and headers above the server limit (--wait-max-body-chars) are cut, with `truncated: true`; `includeBody=false` leaves them out. Open waits are capped per key and per server (429 rate_limited with Retry-After).',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/wait' },
  tool: {
    name: 'svc_wait_for_message',
    description: 'Wait for the next message matching the filters (or return a matching one already there), in full with its code and link.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({
    id: InboxId,
    timeoutSeconds: z.coerce
      .number()
      .int('timeoutSeconds must be a whole number')
      .min(0)
      .max(WAIT_MAX_SECONDS)
      .default(WAIT_DEFAULT_SECONDS)
      .describe(`Seconds to wait (0-${WAIT_MAX_SECONDS}, default ${WAIT_DEFAULT_SECONDS})`),
    subjectContains: singleLine(z.string().min(1).max(500))
      .optional()
      .describe('Only messages whose subject contains this (case-insensitive)'),
    from: singleLine(z.string().min(1).max(320)).optional().describe('Only messages whose sender contains this, e.g. github.com'),
    since: z.string().min(1).max(64).optional().describe('Only messages after this ISO 8601 time or this message id'),
    includeBody: z
      .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
      .default(true)
      .describe('false: leave text, html and headers out of the answer (the summary, code and link stay); default true'),
  }),
  output: WaitAnswer,
  streams: true,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    // The wait, its caps and its body limit are the inbox capability's (src/inboxes/wait.ts); the shape is ours.
    const baseUrl = ctx.services.baseUrl();
    return rawJson(await ctx.services.waits.next(waitCall(ctx), inbox, input, (row, atts) => messageView(row, atts, baseUrl)));
  },
});

export const inboxOps = [createInbox, listInboxes, getInbox, deleteInbox, waitForMessageOp];
