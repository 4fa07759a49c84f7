// POST /webhooks/:provider — mail that arrives through a provider's inbound webhook instead of SMTP. No API key
// (spec); the provider's own signature is checked where it signs and the operator configured the key.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { Config } from '../config.ts';
import { headerRecipients, isProvider, looksLikeMessage, type Provider, PROVIDERS, readInbound } from '../events/webhooks.ts';
import type { Services } from '../services.ts';
import { MAX_RECIPIENTS } from '../smtp/listener.ts';
import { WebhookTokenRepo } from '../store/webhook-tokens.ts';
import { singleLine } from './common.ts';
import { op } from './op.ts';

/** Room for the wrapping around a message (base64 in JSON, form encoding) on top of the message size limit. */
export function webhookBodyLimit(maxMessageBytes: number): number {
  return maxMessageBytes * 2 + 1024 * 1024;
}

/** The largest webhook request body: the wrapped message, but never more than all uploads together may hold. */
export function webhookRequestLimit(config: Pick<Config, 'maxMessageBytes' | 'webhookInflightBytes'>): number {
  return Math.min(webhookBodyLimit(config.maxMessageBytes), config.webhookInflightBytes);
}

/**
 * The provider named by the path segment (Mailgun posts the whole message only to URLs ending in "mime", so
 * `mailgun.mime` is mailgun): 404 for an unknown one, 501 for one the operator has not turned on.
 */
export function enabledProvider(segment: string, config: Pick<Config, 'inboundWebhooks'>): Provider {
  const provider = segment.toLowerCase().replace(/\.mime$/, '');
  if (!isProvider(provider))
    throw new AppError('not_found', `no webhook provider ${JSON.stringify(segment)}; valid providers: ${PROVIDERS.join(', ')}`);
  if (!config.inboundWebhooks.includes(provider))
    throw new AppError(
      'not_configured',
      `the ${provider} webhook is off; the operator turns it on with --inbound-webhooks ${provider} (or INBOXD_INBOUND_WEBHOOKS; now on: ${config.inboundWebhooks.join(', ') || 'none'})`,
    );
  return provider;
}

const tokenRepos = new WeakMap<object, WebhookTokenRepo>();
function tokensOf(s: Services): WebhookTokenRepo {
  let repo = tokenRepos.get(s);
  if (!repo) tokenRepos.set(s, (repo = new WebhookTokenRepo(s.store.db)));
  return repo;
}

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
    const s = ctx.services;
    const provider = enabledProvider(input.provider, s.config);
    if (input.to !== undefined && provider !== 'raw')
      throw new AppError('validation_failed', 'to is only for the raw provider', { errors: [{ path: 'to', message: 'raw only' }] });
    const body = ctx.body;
    if (!body || body.bytes.length === 0)
      throw new AppError('validation_failed', 'the request body is empty', { errors: [{ path: '(body)', message: 'empty' }] });

    const inbound = await readInbound(
      provider,
      { bytes: body.bytes, contentType: body.contentType, header: ctx.request.header, to: input.to },
      { mailgunSigningKey: s.config.mailgunSigningKey, now: s.clock.now() },
    );
    if (inbound.kind === 'notice') {
      // A subscription handshake needs the operator: warn, so it shows at the default log level and above.
      (inbound.needsOperator ? ctx.log.warn : ctx.log.info)(`webhook ${provider}: ${inbound.detail}`, inbound.fields);
      return { provider, status: 'ignored' as const, detail: inbound.detail, deliveries: [], rejected: [] };
    }
    const { raw } = inbound;
    const max = s.config.maxMessageBytes;
    if (raw.length > max)
      throw new AppError('payload_too_large', `the message is ${raw.length} bytes; the limit is ${max} (--max-message-bytes)`);
    if (raw.length === 0)
      throw new AppError('validation_failed', 'the message is empty', { errors: [{ path: '(message)', message: 'empty' }] });
    if (!looksLikeMessage(raw)) {
      throw new AppError(
        'validation_failed',
        `${provider}: the message is not MIME (RFC 5322): it must start with header fields such as From, To and Subject`,
        { errors: [{ path: '(message)', message: 'not a MIME message' }] },
      );
    }

    const candidates = [...new Set((inbound.envelopeTo ?? headerRecipients(raw)).map((a) => a.toLowerCase()))];
    if (candidates.length > MAX_RECIPIENTS)
      throw new AppError(
        'validation_failed',
        `${provider}: ${candidates.length} recipients; at most ${MAX_RECIPIENTS} per message are accepted (as over SMTP)`,
        { errors: [{ path: 'recipients', message: `more than ${MAX_RECIPIENTS}` }] },
      );
    const rcpts: string[] = [];
    const rejected: Array<{ rcpt: string; reason: string }> = [];
    const tally = {};
    for (const rcpt of candidates) {
      const domain = rcpt.slice(rcpt.lastIndexOf('@') + 1);
      if (!(await s.served.acceptsFresh(domain))) {
        rejected.push({ rcpt, reason: `relaying denied: inboxd accepts mail only for ${s.served.describe()}` });
        continue;
      }
      const refused = await s.inboxes.refusesMail(rcpt, tally);
      if (refused) rejected.push({ rcpt, reason: refused });
      else rcpts.push(rcpt);
    }
    if (rcpts.length === 0) {
      const why =
        candidates.length === 0
          ? 'the message names no recipient (no envelope recipients and no To or Cc)'
          : rejected.map((r) => `${r.rcpt}: ${r.reason}`).join('; ');
      throw new AppError('validation_failed', `${provider}: no recipient this inboxd takes mail for: ${why}`, {
        errors: [{ path: 'recipients', message: 'no acceptable recipient' }],
      });
    }
    const { replay } = inbound;
    if (replay && !(await tokensOf(s).claim(provider, replay.token, replay.expiresAt, s.clock.now())))
      throw new AppError('unauthorized', `${provider}: this signed request was already received (its token was used before): a replay`);
    let deliveries: Awaited<ReturnType<typeof s.ingest.accept>>;
    try {
      deliveries = await s.ingest.accept({ raw, rcpts, mailFrom: inbound.mailFrom, source: `webhook:${provider}` });
    } catch (e) {
      // Not stored: the provider's retry of this request must not be taken for a replay.
      if (replay)
        await tokensOf(s)
          .release(provider, replay.token)
          .catch(() => undefined);
      throw e;
    }
    ctx.log.info('webhook message stored', { provider, size: raw.length, deliveries: deliveries.length, rejected: rejected.length });
    return { provider, status: 'stored' as const, deliveries, rejected };
  },
});

export const webhookOps = [inboundWebhook];
