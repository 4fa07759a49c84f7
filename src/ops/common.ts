// Small pieces every inbox-scoped operation shares: field schemas, the caller, its inbox, and a long wait's call.
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { WaitCall } from '../inboxes/wait.ts';
import { waitOwnerOf } from '../inboxes/waiters.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { OpContext } from './op.ts';

/** C0 and C1 control characters (NUL, tab, CR, LF, ESC, …), DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Refuses control characters in a free-text field that is stored, matched or logged (labels, prefixes, local parts,
 * filters, names): they forge log lines, break header and CSV output, and NUL truncates in C consumers. The error
 * names the field through its path.
 */
export function singleLine<T extends z.ZodString>(schema: T): T {
  return schema.refine((v) => !CONTROL.test(v), {
    error: 'must not contain control characters (NUL, tab, CR, LF, …)',
    abort: true,
  }) as T;
}

export const InboxId = z.string().min(1).max(64).describe('Inbox id (inb_…)');
export const MessageId = z.string().min(1).max(64).describe('Message id (msg_…)');
export const AttachmentId = z.string().min(1).max(64).describe('Attachment id (att_…)');

/** The caller; only `public` operations run without one, and they never call this. */
export function principal(ctx: OpContext): Principal {
  if (!ctx.principal) throw new Error('operation ran without a principal');
  return ctx.principal;
}

/** The inbox, scoped to the caller's team and label prefix (404 otherwise). */
export function inboxOf(ctx: OpContext, id: string): Promise<InboxRow> {
  return ctx.services.inboxes.get(principal(ctx), id);
}

/** A long wait for this call: counted against the caller's key and team, ended when it goes away, streaming progress. */
export function waitCall(ctx: OpContext): WaitCall {
  return { owner: waitOwnerOf(ctx.principal, ctx.request.ip), signal: ctx.signal, emit: ctx.emit };
}
