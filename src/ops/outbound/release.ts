// Release (README "Release"): POST /v1/inboxes/:id/messages/:messageId/release and the MCP tool svc_release_message
// send a captured message on to real addresses through the operator's relay, only to addresses --release-allow names.
import { z } from 'zod';
import { parseMailbox } from '../../mail/compose.ts';
import { MAX_RECIPIENTS } from '../../outbound/service.ts';
import { InboxId, inboxOf, MessageId, principal } from '../common.ts';
import { op } from '../op.ts';
import { DeliveryView } from '../views.ts';

const Target = z
  .string()
  .max(320)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v) && parseMailbox(v) !== null, {
    error: 'each target must be an e-mail address (user@example.com)',
  })
  .transform((v) => parseMailbox(v)!.address);

const ReleaseInput = {
  to: z
    .union([Target, z.array(Target)])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .refine((v) => v.length >= 1 && v.length <= MAX_RECIPIENTS, { error: `1 to ${MAX_RECIPIENTS} addresses` })
    .describe('Where to send it: an address or a list, each allowed by the operator (--release-allow)'),
};

const ReleaseOutput = z.object({
  messageId: z.string(),
  inboxId: z.string(),
  recipients: z.array(DeliveryView).describe('Each target, queued for the relay (GET the message later: deliveries shows sent or failed)'),
});

const description =
  "Sends a captured message on to real addresses through the operator's SMTP relay, its bytes unchanged (only the envelope is new: the sender is the inbox's address). Every target must be allowed by the operator's --release-allow globs (403 otherwise, nothing sent); without a relay 501. Answers 202 with each target queued; the message's deliveries show sent or failed later.";

export const releaseMessage = op({
  name: 'messages.release',
  summary: 'Release a captured message to real addresses',
  description,
  access: 'write',
  http: { method: 'POST', path: '/v1/inboxes/:id/messages/:messageId/release', status: 202 },
  tool: {
    name: 'svc_release_message',
    description: 'Forward a captured message unchanged to real addresses the operator allowed (--release-allow), via its relay.',
    args: { inboxId: 'id' },
    annotations: { openWorldHint: true },
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId, ...ReleaseInput }),
  output: ReleaseOutput,
  audit: { action: 'message.release', target: (i) => i.messageId },
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const recipients = await ctx.services.outbound.release({
      inbox,
      messageId: input.messageId,
      to: input.to,
      keyId: principal(ctx).keyId,
    });
    return { messageId: input.messageId, inboxId: inbox.id, recipients };
  },
});
