// Mail that arrives through a provider's inbound webhook (POST /webhooks/:provider) instead of SMTP: the provider's
// request is read (src/events/webhooks.ts), its recipients are checked as SMTP checks them at RCPT (served domains,
// inbox limits, at most MAX_RECIPIENTS), a signed request's single-use token is claimed against replays, and the
// message goes to ingest exactly like SMTP mail. Also the admission rules the HTTP gate applies before the body is
// read (enabledProvider, webhookRequestLimit). The replay tokens are its own repository (src/store/webhook-tokens.ts).
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';
import type { Delivery, Ingest } from '../ingest/ingest.ts';
import { MAX_RECIPIENTS } from '../ingest/limits.ts';
import type { Clock } from '../lib/clock.ts';
import { didYouMean } from '../lib/suggest.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/schema.ts';
import { WebhookTokenRepo } from '../store/webhook-tokens.ts';
import { headerRecipients, type InboundRequest, isProvider, looksLikeMessage, PROVIDERS, type Provider, readInbound } from './webhooks.ts';

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
    throw new AppError(
      'not_found',
      `no webhook provider ${JSON.stringify(segment)}${didYouMean(provider, PROVIDERS)}; valid providers: ${PROVIDERS.join(', ')}`,
    );
  if (!config.inboundWebhooks.includes(provider))
    throw new AppError(
      'not_configured',
      `the ${provider} webhook is off; the operator turns it on with --inbound-webhooks ${provider} (or INBOXD_INBOUND_WEBHOOKS; now on: ${config.inboundWebhooks.join(', ') || 'none'})`,
    );
  return provider;
}

export interface WebhookOutcome {
  provider: string;
  /** stored: the message went to ingest; ignored: not mail (e.g. an SNS subscription handshake). */
  status: 'stored' | 'ignored';
  detail?: string;
  deliveries: Delivery[];
  rejected: Array<{ rcpt: string; reason: string }>;
}

export interface InboundWebhookDeps {
  db: Kysely<Database>;
  served: Pick<ServedDomains, 'acceptsFresh' | 'describe'>;
  /** Why mail for this address is refused (an inbox limit), or null; `tally` counts across one message's recipients. */
  refusesMail: (address: string, tally: { total?: number }) => Promise<string | null>;
  ingest: Pick<Ingest, 'accept'>;
  settings: Pick<Config, 'inboundWebhooks' | 'maxMessageBytes' | 'mailgunSigningKey'>;
  clock: Clock;
  log: Logger;
}

export class InboundWebhooks {
  private readonly d: InboundWebhookDeps;
  private readonly tokens: WebhookTokenRepo;

  constructor(d: InboundWebhookDeps) {
    this.d = d;
    this.tokens = new WebhookTokenRepo(d.db);
  }

  /** One provider request (`segment` is the path's provider); refusals are AppErrors with the reason. */
  async receive(segment: string, req: Omit<InboundRequest, 'bytes'> & { bytes: Buffer | undefined }): Promise<WebhookOutcome> {
    const { settings, log } = this.d;
    const provider = enabledProvider(segment, settings);
    if (req.to !== undefined && provider !== 'raw')
      throw new AppError('validation_failed', 'to is only for the raw provider', { errors: [{ path: 'to', message: 'raw only' }] });
    if (!req.bytes || req.bytes.length === 0)
      throw new AppError('validation_failed', 'the request body is empty', { errors: [{ path: '(body)', message: 'empty' }] });

    const inbound = await readInbound(
      provider,
      { bytes: req.bytes, contentType: req.contentType, header: req.header, to: req.to },
      { mailgunSigningKey: settings.mailgunSigningKey, now: this.d.clock.now() },
    );
    if (inbound.kind === 'notice') {
      // A subscription handshake needs the operator: warn, so it shows at the default log level and above.
      (inbound.needsOperator ? log.warn : log.info)(`webhook ${provider}: ${inbound.detail}`, inbound.fields);
      return { provider, status: 'ignored', detail: inbound.detail, deliveries: [], rejected: [] };
    }
    const { raw } = inbound;
    const max = settings.maxMessageBytes;
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
    const { rcpts, rejected } = await this.recipients(provider, inbound.envelopeTo ?? headerRecipients(raw));
    const { replay } = inbound;
    if (replay && !(await this.tokens.claim(provider, replay.token, replay.expiresAt, this.d.clock.now())))
      throw new AppError('unauthorized', `${provider}: this signed request was already received (its token was used before): a replay`);
    let deliveries: Delivery[];
    try {
      deliveries = await this.d.ingest.accept({ raw, rcpts, mailFrom: inbound.mailFrom, source: `webhook:${provider}` });
    } catch (e) {
      // Not stored: the provider's retry of this request must not be taken for a replay.
      if (replay) await this.tokens.release(provider, replay.token).catch(() => undefined);
      throw e;
    }
    log.info('webhook message stored', { provider, size: raw.length, deliveries: deliveries.length, rejected: rejected.length });
    return { provider, status: 'stored', deliveries, rejected };
  }

  /** The recipients this inboxd takes the message for, and why the others are refused (none taken: 422). */
  private async recipients(
    provider: Provider,
    named: string[],
  ): Promise<{ rcpts: string[]; rejected: Array<{ rcpt: string; reason: string }> }> {
    const candidates = [...new Set(named.map((a) => a.toLowerCase()))];
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
      if (!(await this.d.served.acceptsFresh(domain))) {
        rejected.push({ rcpt, reason: `relaying denied: inboxd accepts mail only for ${this.d.served.describe()}` });
        continue;
      }
      const refused = await this.d.refusesMail(rcpt, tally);
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
    return { rcpts, rejected };
  }
}
