// Inboxes: create, list, get, delete, and wait for a message.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { TTL_MAX_MINUTES } from '../inboxes/service.ts';
import { resolveSince, waitForMessage } from '../inboxes/wait.ts';
import { answerCache, waiterGate } from '../inboxes/waiters.ts';
import { type Encoded, encode } from '../inboxes/encoded.ts';
import { waitOwner } from '../agent/verify.ts';
import type { MessageRow } from '../store/messages.ts';
import type { Services } from '../services.ts';
import { decodeCursor, pageOf } from '../lib/cursor.ts';
import { InboxId, inboxOf, principal, singleLine } from './common.ts';
import { op, rawJson } from './op.ts';
import { Cursor, InboxView, inboxView, Limit, listOf, MessageView, messageView } from './views.ts';

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
    description:
      'Create a disposable e-mail inbox and get its address. Use it when you need an address for a signup form and will wait for the mail yourself (svc_wait_for_message or svc_wait_and_extract). For the usual signup flow, svc_verify_signup does create + wait + extract for you. Returns inboxId and address.',
  },
  input: z.strictObject({
    label: Label.optional(),
    ttlMinutes: TtlMinutes.optional(),
    localPart: LocalPart.optional(),
    address: FullAddress.optional(),
    callbackUrl: CallbackUrl.optional(),
  }),
  output: InboxView.extend({
    callbackSecret: z
      .string()
      .optional()
      .describe('With callbackUrl: the whsec_ secret that signs every callback (Standard Webhooks). Shown only here, once'),
  }),
  audit: false,
  async handler(ctx, input) {
    const { inbox } = await ctx.services.inboxes.create(principal(ctx), input);
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
    description:
      'List your inboxes, newest first, optionally only those with an exact label (e.g. agent-<runId>). Returns items and nextCursor for the next page.',
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
    description: 'Get one inbox: address, label, expiry and how many messages it received.',
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
    description: 'Delete an inbox with all its messages and attachments. Use it when a signup flow is finished.',
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
    description:
      'Wait until a message arrives in the inbox (or return the newest matching one at once if it is already there) and return it in full: from, subject, text, html, and the extracted verification code and link. Filter with subjectContains / from; pass since=<last messageId> to wait for the next one. Fails with wait_timeout when nothing arrives in timeoutSeconds (max 120). Very long bodies come back cut (truncated: true; read rawUrl for all); includeBody=false leaves them out. Streams progress when you send a progress token.',
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
    const s = ctx.services;
    const inbox = await inboxOf(ctx, input.id);
    const since = await resolveSince(s.messages, inbox.id, input.since);
    const total = input.timeoutSeconds;
    const hit = await waitForMessage(
      { messages: s.messages, bus: s.bus, gate: { gate: waiterGate(s.config), owner: waitOwner(ctx) } },
      inbox,
      { subjectContains: input.subjectContains, from: input.from, since },
      total * 1000,
      ctx.signal,
      (ms) => ctx.emit?.('progress', { elapsedSeconds: Math.round(ms / 1000), timeoutSeconds: total }),
    );
    if (!hit) {
      if (s.shutdown.aborted)
        throw new AppError('unavailable', 'inboxd is shutting down; retry the wait against the restarted server', {
          headers: { 'Retry-After': '1' },
        });
      if (ctx.signal.aborted) throw new AppError('wait_timeout', 'the client went away');
      throw new AppError(
        'wait_timeout',
        `no matching message arrived in inbox ${inbox.id} within ${input.timeoutSeconds} s; send the mail, then call again (pass since= to skip older mail)`,
      );
    }
    // Every waiter woken by this message shares one read and one JSON (a thousand waiters, one large message), and
    // every edge writes those bytes: the body, the SSE `result` data, the MCP tool result.
    const answer = await answerCache<Encoded<WaitAnswer> | null>(s.config).get(`${hit.id}:${input.includeBody}`, () =>
      buildAnswer(s, inbox.id, hit.id, input.includeBody),
    );
    if (!answer) throw new AppError('not_found', `message ${hit.id} was deleted meanwhile`);
    return rawJson(answer);
  },
});

async function buildAnswer(s: Services, inboxId: string, id: string, includeBody: boolean): Promise<Encoded<WaitAnswer> | null> {
  const row = await s.messages.get(inboxId, id);
  if (!row) return null;
  return encode(waitAnswer(row, await s.messages.attachments(row.id), s.baseUrl(), includeBody ? s.config.waitMaxBodyChars : 0));
}

/** The full message with text, html and headers bounded by `limit` characters each (0: left out). */
// The limit counts characters as the answer's JSON writes them: a control character is six (\u0001), a quote or a
// backslash two. Counted in plain characters, a body of control characters came out six times the limit, for every
// waiter's socket.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

function encodedSize(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2;
  if (code < 0x20) return 6;
  return 1;
}

/** Characters of `t` whose JSON encoding fits in `limit` (surrogates count one each: an unpaired one is rare). */
function encodedCut(t: string, limit: number): number {
  if (t.length * 6 <= limit || (t.length <= limit && !ESCAPED.test(t))) return t.length;
  let used = 0;
  for (let i = 0; i < t.length; i++) {
    used += encodedSize(t.charCodeAt(i));
    if (used > limit) return i;
  }
  return t.length;
}

function encodedLength(t: string): number {
  if (!ESCAPED.test(t)) return t.length;
  let n = 0;
  for (let i = 0; i < t.length; i++) n += encodedSize(t.charCodeAt(i));
  return n;
}

export function waitAnswer(row: MessageRow, atts: Parameters<typeof messageView>[1], baseUrl: string, limit: number): WaitAnswer {
  const v = messageView(row, atts, baseUrl);
  let truncated = false;
  const cut = (t: string | null): string | null => {
    if (t === null) return null;
    if (limit === 0) {
      truncated = true;
      return null;
    }
    const end = encodedCut(t, limit);
    if (end === t.length) return t;
    truncated = true;
    return t.slice(0, end);
  };
  const headers: WaitAnswer['headers'] = [];
  let used = 0;
  for (const h of v.headers) {
    used += encodedLength(h.name) + encodedLength(h.value);
    if (used > limit) {
      truncated = true;
      break;
    }
    headers.push(h);
  }
  return { ...v, text: cut(v.text), html: cut(v.html), headers, truncated };
}

export const inboxOps = [createInbox, listInboxes, getInbox, deleteInbox, waitForMessageOp];
