// POST /webhooks/:provider — mail that arrives through a provider's inbound webhook instead of SMTP. No API key
// (spec); the provider's own signature is checked where it signs and the operator configured the key. The work is
// src/events/inbound.ts (services.inboundWebhooks); this operation hands it the request.
import { z } from 'zod';
import { webhookRequestLimit } from '../../events/inbound.ts';
import { PROVIDERS } from '../../events/webhooks.ts';
import { MAX_RECIPIENTS } from '../../ingest/limits.ts';
import { singleLine } from '../common.ts';
import { op } from '../op.ts';

const WebhookResult = z.object({
  provider: z.string(),
  status: z
    .enum(['stored', 'ignored'])
    .describe('stored: the message went to ingest; ignored: not mail (e.g. an SNS subscription handshake)'),
  detail: z.string().optional(),
  deliveries: z.array(
    z.object({
      rcpt: z.string(),
      messageId: z.string(),
      inboxId: z.string().nullable().describe('null: kept as unclaimed mail until an inbox claims the address'),
    }),
  ),
  rejected: z.array(z.object({ rcpt: z.string(), reason: z.string() })),
});

export const inboundWebhook = op({
  name: 'webhooks.inbound',
  summary: 'Receive mail from a provider webhook',
  description:
    `Mail forwarded by a provider, stored exactly like mail that came over SMTP (catch-all domains, unclaimed mail, size limit, at most ${MAX_RECIPIENTS} recipients). Providers: ${PROVIDERS.join(', ')}, each off (501) until named in --inbound-webhooks. ` +
    'raw: the body is the message (message/rfc822), `to` optional; mailgun (forward to /webhooks/mailgun.mime): form field body-mime, signature required (fresh, single-use); ' +
    'sendgrid: Inbound Parse raw mode, field email; postmark: JSON RawEmail; ses: SNS notification with the message as content.',
  access: 'public',
  http: { method: 'POST', path: '/webhooks/:provider', body: 'raw', bodyLimit: (s) => webhookRequestLimit(s.config) },
  input: z.strictObject({
    provider: z
      .string()
      .min(1)
      .max(64)
      .describe(`One of ${PROVIDERS.join(', ')}`),
    to: singleLine(z.string().min(1).max(8192))
      .optional()
      .describe('raw only: envelope recipients, comma-separated (default: the To and Cc headers)'),
  }),
  output: WebhookResult,
  audit: false,
  async handler(ctx, input) {
    return ctx.services.inboundWebhooks.receive(input.provider, {
      bytes: ctx.body?.bytes,
      contentType: ctx.body?.contentType ?? '',
      header: ctx.request.header,
      to: input.to,
    });
  },
});

export const webhookOps = [inboundWebhook];
