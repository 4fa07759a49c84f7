// Small pieces every inbox-scoped operation shares.
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { OpContext } from './op.ts';

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
