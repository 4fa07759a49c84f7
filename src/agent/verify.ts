// Verify and open: get an address, wait for the mail, extract the code or link, hand back the agent's next step
// (CONTRACT §4). Shared by POST /v1/agent/verify, POST /v1/inboxes/open and the MCP tools built on them.
import { z } from 'zod';
import { waitForMessage } from '../inboxes/wait.ts';
import { extractVerification, primaryActionFor, type Extraction } from '../mail/extract/index.ts';
import { getPreset, type PresetId } from '../mail/presets.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { OpContext } from '../ops/op.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRow } from '../store/messages.ts';
import { rawUrlOf } from '../ops/views.ts';

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
  message: z.object({ messageId: z.string(), from: z.string().nullable(), subject: z.string(), receivedAt: z.string() }).nullable(),
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

/** The stored parse of a message, enough to extract again (e.g. with a service preset) without the raw bytes. */
export function parsedFromRow(m: MessageRow): ParsedMessage {
  return {
    messageId: m.message_id_header,
    subject: m.subject,
    from: m.from_address === null ? null : { name: m.from_name ?? '', address: m.from_address },
    to: JSON.parse(m.to_json) as ParsedMessage['to'],
    cc: JSON.parse(m.cc_json) as ParsedMessage['cc'],
    replyTo: [],
    date: m.date === null ? null : new Date(m.date),
    inReplyTo: m.in_reply_to,
    references: JSON.parse(m.references_json) as string[],
    headers: JSON.parse(m.headers_json) as Array<[string, string]>,
    text: m.text_body,
    html: m.html_body,
    attachments: [],
  };
}

export function extractionOf(m: MessageRow, service: PresetId | undefined, trustedHosts: readonly string[] = []): Extraction {
  if (!service) return JSON.parse(m.extraction_json) as Extraction;
  return extractVerification(parsedFromRow(m), { service, trustedHosts });
}

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
            instruction: `No mail reached ${inbox.address} within ${opts.timeoutSeconds ?? 0} s. Check that the ${serviceName ? `${serviceName} ` : ''}form was submitted with exactly this address, then call verify again with inboxId ${inbox.id}.`,
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
    message: { messageId: m.id, from: m.from_address, subject: m.subject, receivedAt: new Date(m.received_at).toISOString() },
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
  deleteAfter: boolean;
}

/** Waits for the newest matching message, extracts, optionally deletes the inbox; streams progress via ctx.emit. */
export async function waitAndExtract(ctx: OpContext, w: WaitAndExtract): Promise<VerifyResult> {
  const s = ctx.services;
  ctx.emit?.('progress', { elapsedSeconds: 0, timeoutSeconds: w.timeoutSeconds });
  const hit = await waitForMessage(
    { messages: s.messages, bus: s.bus },
    w.inbox,
    { subjectContains: w.subjectContains, from: w.expectFrom },
    w.timeoutSeconds * 1000,
    ctx.signal,
    (ms) => ctx.emit?.('progress', { elapsedSeconds: Math.round(ms / 1000), timeoutSeconds: w.timeoutSeconds }),
  );
  const row = hit ? ((await s.messages.get(w.inbox.id, hit.id)) ?? null) : null;
  // The result is built before the inbox goes, so its rawUrl names what was there (CONTRACT: result first).
  const result = verifyResult(s.baseUrl(), w.inbox, row, { service: w.service, timedOut: !row, timeoutSeconds: w.timeoutSeconds });
  // deleteAfter removes the inbox only when the result stands on its own; a `received` result points the agent at
  // the raw message, so that inbox stays (until its TTL) for rawUrl to keep working.
  if (w.deleteAfter && result.status !== 'received') {
    await s.inboxes.delete(w.inbox);
    result.deleted = true;
  }
  return result;
}
