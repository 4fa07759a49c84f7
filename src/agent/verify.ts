// Verify and open: get an address, wait for the mail, extract the code or link, hand back the agent's next step
// (CONTRACT §4). Shared by POST /v1/agent/verify, POST /v1/inboxes/open and the MCP tools built on them.
import { z } from 'zod';
import { type Considered, extractionOf, markOf, pickUsable, setMark } from './pick.ts';
import { waitOwnerOf } from '../inboxes/waiters.ts';
import { encodedFor } from '../inboxes/encoded.ts';
import { primaryActionFor, type Extraction } from '../mail/extract/index.ts';
import { getPreset, type PresetId } from '../mail/presets.ts';
import type { OpContext } from '../ops/op.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRow } from '../store/messages.ts';
import { Address, rawUrlOf } from '../ops/views.ts';

export const STATUSES = ['awaiting_message', 'verified', 'received', 'timeout'] as const;
export const ACTION_TYPES = ['use_address', 'otp', 'link', 'manual', 'retry'] as const;

export const VerifyResult = z.object({
  status: z
    .enum(STATUSES)
    .describe(
      'verified = a code or link was found; received = mail arrived without one; awaiting_message = inbox made, nothing yet; timeout',
    ),
  service: z.string().nullable(),
  email: z.object({ inboxId: z.string(), address: z.string().describe('Type this into the external signup form') }),
  verification: z.object({
    otp: z.string().nullable(),
    primaryLink: z.string().nullable(),
    primaryLinkUnwrapped: z.string().nullable().describe('Target decoded from a click-tracking wrapper, when the wrapper carries it'),
    candidates: z.array(
      z.object({
        kind: z.enum(['otp', 'link']),
        value: z.string(),
        confidence: z.number(),
        source: z.enum(['subject', 'text', 'html']),
        unwrapped: z.string().optional(),
      }),
    ),
  }),
  agent: z.object({
    primaryAction: z.object({ type: z.enum(ACTION_TYPES), value: z.string(), instruction: z.string() }),
  }),
  message: z
    .object({
      messageId: z.string(),
      from: Address.nullable().describe('The sender, the same shape as in messages: {name, address}'),
      subject: z.string(),
      receivedAt: z.string(),
    })
    .nullable(),
  hasRaw: z.boolean(),
  rawUrl: z.string().nullable(),
  hasAttachments: z.boolean(),
  attachmentCount: z.number().int(),
  deleted: z.boolean().describe('The inbox was removed after this call (deleteAfter)'),
  callbackSecret: z
    .string()
    .optional()
    .describe('Only when this call created the inbox with a callbackUrl: the whsec_ secret that signs its callbacks, shown once'),
});
export type VerifyResult = z.infer<typeof VerifyResult>;

/** The result for an inbox with its newest relevant message (or none yet). */
export function verifyResult(
  baseUrl: string,
  inbox: InboxRow,
  m: MessageRow | null,
  opts: {
    service?: PresetId | undefined;
    timedOut?: boolean;
    timeoutSeconds?: number;
    deleted?: boolean;
    /** Already extracted (off the main thread); else extracted here. */
    extraction?: Extraction | undefined;
  },
): VerifyResult {
  const serviceName = opts.service ? getPreset(opts.service).displayName : undefined;
  const email = { inboxId: inbox.id, address: inbox.address };
  const base = { service: opts.service ?? null, email, deleted: opts.deleted ?? false };
  if (!m) {
    const empty = { otp: null, primaryLink: null, primaryLinkUnwrapped: null, candidates: [] };
    if (opts.timedOut) {
      return {
        ...base,
        status: 'timeout',
        verification: empty,
        agent: {
          primaryAction: {
            type: 'retry',
            value: inbox.id,
            instruction: `No mail reached ${inbox.address} within ${opts.timeoutSeconds ?? 0} s. Check that the ${serviceName ? `${serviceName} ` : ''}form was submitted with exactly this address, then call verify again with inboxId ${inbox.id} (if the form was submitted before this inbox existed, add since: the time it was submitted; mail from before the inbox is used only then).`,
          },
        },
        message: null,
        hasRaw: false,
        rawUrl: null,
        hasAttachments: false,
        attachmentCount: 0,
        deleted: opts.deleted ?? false,
      };
    }
    return {
      ...base,
      status: 'awaiting_message',
      verification: empty,
      agent: {
        primaryAction: {
          type: 'use_address',
          value: inbox.address,
          instruction: `Type ${inbox.address} into the e-mail field of the ${serviceName ? `${serviceName} ` : ''}sign-up or sign-in form and submit it; then call verify with inboxId ${inbox.id} to get the code or link.`,
        },
      },
      message: null,
      hasRaw: false,
      rawUrl: null,
      hasAttachments: false,
      attachmentCount: 0,
    };
  }
  const x = opts.extraction ?? extractionOf(m, opts.service, [new URL(baseUrl).hostname]);
  const rawUrl = rawUrlOf(baseUrl, inbox.id, m.id);
  const action = primaryActionFor(x, { rawUrl, ...(serviceName ? { serviceName } : {}) });
  return {
    ...base,
    status: x.otp || x.primaryLink ? 'verified' : 'received',
    verification: { otp: x.otp, primaryLink: x.primaryLink, primaryLinkUnwrapped: x.primaryLinkUnwrapped, candidates: x.candidates },
    agent: { primaryAction: action },
    message: {
      messageId: m.id,
      from: m.from_address === null ? null : { name: m.from_name ?? '', address: m.from_address },
      subject: m.subject,
      receivedAt: new Date(m.received_at).toISOString(),
    },
    hasRaw: true,
    rawUrl,
    hasAttachments: m.attachment_count > 0,
    attachmentCount: m.attachment_count,
  };
}

export interface WaitAndExtract {
  inbox: InboxRow;
  service?: PresetId | undefined;
  timeoutSeconds: number;
  subjectContains?: string | undefined;
  expectFrom?: string | undefined;
  /**
   * ISO time or msg_…; overrides the default (mail that arrived after the inbox was created and is newer than what
   * verify last handed out on this inbox). An ISO time before the inbox's creation opts in to mail it claimed.
   */
  since?: string | undefined;
  deleteAfter: boolean;
}

/** The filters and options of a verify-like call's input, as waitAndExtract takes them. */
export function waitFields(i: Pick<WaitAndExtract, 'subjectContains' | 'expectFrom' | 'since' | 'deleteAfter'>) {
  return { subjectContains: i.subjectContains, expectFrom: i.expectFrom, since: i.since, deleteAfter: i.deleteAfter };
}

/**
 * Waits for the newest matching message that carries a code or a link, extracts it, remembers it as handed out,
 * and optionally deletes the inbox; streams progress via ctx.emit (CONTRACT §4).
 */
export async function waitAndExtract(ctx: OpContext, w: WaitAndExtract): Promise<VerifyResult> {
  const s = ctx.services;
  const started = Date.now();
  const progress = () =>
    ctx.emit?.('progress', { elapsedSeconds: Math.round((Date.now() - started) / 1000), timeoutSeconds: w.timeoutSeconds });
  ctx.emit?.('progress', { elapsedSeconds: 0, timeoutSeconds: w.timeoutSeconds });
  // By default only mail that arrived once the inbox existed: mail claimed at its creation (sent to the address
  // before, possibly planted by whoever guessed it) is handed out only to a caller who asks for it with `since`.
  const since =
    w.since !== undefined
      ? await s.waits.resolveSince(w.inbox.id, w.since)
      : { ...(await markOf(s, w.inbox.id)), time: w.inbox.created_at - 1 };
  const filter = { subjectContains: w.subjectContains, from: w.expectFrom };
  let bound = since;
  // The newest considered message without a code: the `received` answer if nothing better comes in time.
  let fallback: Considered | null = null;
  // One waiter slot for the whole call, taken only once it has to wait (a code already there costs none), so a
  // codeless mail in between cannot lose the slot to someone else.
  let release: (() => void) | undefined;
  try {
    for (;;) {
      const found = await pickUsable(s, w.inbox.id, { ...filter, since: bound }, w.service);
      if (found.usable) return await finish(ctx, w, found.usable);
      // Each look starts after the last, so what it finds without a code is newer than the fallback so far.
      if (found.newestPlain) fallback = found.newestPlain;
      if (found.newestSeen !== null) bound = { ...bound, seq: found.newestSeen };
      const left = w.timeoutSeconds * 1000 - (Date.now() - started);
      if (left <= 0 || ctx.signal.aborted) break;
      release ??= s.waits.gate.acquire(waitOwnerOf(ctx.principal, ctx.request.ip));
      const hit = await s.waits.forMessage(w.inbox, { ...filter, since: bound }, left, ctx.signal, progress);
      if (!hit) break;
    }
  } finally {
    release?.();
  }
  return finish(ctx, w, fallback);
}

async function finish(ctx: OpContext, w: WaitAndExtract, c: Considered | null): Promise<VerifyResult> {
  const s = ctx.services;
  // The result is built before the inbox goes, so its rawUrl names what was there (CONTRACT: result first).
  const result = resultOf(s.baseUrl(), w.inbox, c, { service: w.service, timedOut: !c, timeoutSeconds: w.timeoutSeconds });
  // timeout: the inbox stays (even with deleteAfter) so the retry action's inboxId works
  if (!c) return result;
  // A caller that went away gets nothing, so nothing is handed out.
  if (ctx.signal.aborted && !s.shutdown.aborted) return result;
  await setMark(s, w.inbox.id, c.row);
  // deleteAfter removes the inbox only when the result stands on its own; a `received` result points the agent at
  // the raw message, so that inbox stays (until its TTL) for rawUrl to keep working.
  if (w.deleteAfter && result.status === 'verified') {
    await s.inboxes.delete(w.inbox);
    result.deleted = true;
  }
  // Every call woken by this message on this inbox answers the same: one encoding for all of them (encodingOf).
  return encodedFor(c, `${w.inbox.id}|${w.service ?? ''}|${result.deleted}`, () => result).view;
}

/** The verify result of a considered message (or of none). */
export function resultOf(
  baseUrl: string,
  inbox: InboxRow,
  c: Considered | null,
  opts: { service?: PresetId | undefined; timedOut?: boolean; timeoutSeconds?: number },
): VerifyResult {
  return verifyResult(baseUrl, inbox, c?.row ?? null, { ...opts, ...(c ? { extraction: c.x } : {}) });
}

export { type Considered, extractionOf, parsedFromRow, pickUsable } from './pick.ts';
