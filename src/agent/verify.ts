// The verify result (CONTRACT §4): status, the code or link, the agent's next step and the message it came from.
// Shared by POST /v1/agent/verify, POST /v1/inboxes/open, the extract and check operations and the MCP tools built
// on them; made here, in the agent capability, because the waits that share one answer build it (src/agent/service.ts).

import { z } from 'zod';
import { rawUrlOf } from '../lib/links.ts';
import { type Extraction, primaryActionFor } from '../mail/extract/index.ts';
import { getPreset, type PresetId } from '../mail/presets.ts';
import { senderOf } from '../mail/summary.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRow } from '../store/messages.ts';
import { extractionOf } from './extraction.ts';
import type { Considered } from './pick.ts';

export { extractionOf, parsedFromRow } from './extraction.ts';

/** A sender as messages show it (src/ops/views.ts Address). */
const Sender = z.object({ name: z.string(), address: z.string() });

/** The message an earlier verify handed out on this inbox (CONTRACT §4: each result is handed out once). */
export const HandedOut = z.object({
  messageId: z.string(),
  subject: z.string(),
  receivedAt: z.string(),
  handedOutAt: z.string().describe('When an earlier verify call handed out its code or link'),
  since: z.string().describe('Pass this as since to get that result again'),
});
export type HandedOut = z.infer<typeof HandedOut>;

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
      from: Sender.nullable().describe('The sender, the same shape as in messages: {name, address}'),
      subject: z.string(),
      receivedAt: z.string(),
    })
    .nullable(),
  hasRaw: z.boolean(),
  rawUrl: z.string().nullable(),
  hasAttachments: z.boolean(),
  attachmentCount: z.number().int(),
  deleted: z.boolean().describe('The inbox was removed after this call (deleteAfter)'),
  alreadyHandedOut: HandedOut.optional().describe(
    'Only on timeout: the mail did arrive, and its result was handed out by an earlier call; verify again with this since to get it again',
  ),
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
    /** On timeout: the message an earlier call handed out (the mail did arrive). */
    handedOut?: HandedOut | undefined;
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
      const h = opts.handedOut;
      const form = `${serviceName ? `${serviceName} ` : ''}form`;
      return {
        ...base,
        status: 'timeout',
        verification: empty,
        agent: {
          primaryAction: {
            type: 'retry',
            value: inbox.id,
            instruction: h
              ? `No new mail reached ${inbox.address} within ${opts.timeoutSeconds ?? 0} s. The mail that did arrive (${h.messageId}, "${h.subject}", received ${h.receivedAt}) was already handed out by an earlier verify call at ${h.handedOutAt}: each result is handed out once, and a later call waits for newer mail (a resent code). To get that result again, call verify with inboxId ${inbox.id} and since: "${h.since}". If you asked for a new code, check that the ${form} was submitted with exactly this address, then call verify again with inboxId ${inbox.id}.`
              : `No mail reached ${inbox.address} within ${opts.timeoutSeconds ?? 0} s. Check that the ${form} was submitted with exactly this address, then call verify again with inboxId ${inbox.id} (if the form was submitted before this inbox existed, add since: the time it was submitted; mail from before the inbox is used only then).`,
          },
        },
        message: null,
        hasRaw: false,
        rawUrl: null,
        hasAttachments: false,
        attachmentCount: 0,
        deleted: opts.deleted ?? false,
        ...(h ? { alreadyHandedOut: h } : {}),
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
      from: senderOf(m),
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

/** The verify result of a considered message (or of none). */
export function resultOf(
  baseUrl: string,
  inbox: InboxRow,
  c: Considered | null,
  opts: { service?: PresetId | undefined; timedOut?: boolean; timeoutSeconds?: number; handedOut?: HandedOut | undefined },
): VerifyResult {
  return verifyResult(baseUrl, inbox, c?.row ?? null, { ...opts, ...(c ? { extraction: c.x } : {}) });
}
