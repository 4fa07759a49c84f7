// Admission for POST /webhooks/<provider>, before a byte of the body is read: the route is unauthenticated and its
// bodies are large (up to twice --max-message-bytes), so a provider that is off, a body declared too large, or more
// concurrent upload bytes than --webhook-inflight-bytes are refused up front instead of buffered.
import type Koa from 'koa';
import { AppError } from '../errors.ts';
import { enabledProvider, webhookRequestLimit } from '../events/inbound.ts';
import type { Services } from '../services.ts';

const WEBHOOK_PATH = /^\/webhooks\/([^/]+)\/?$/;

export interface WebhookGate {
  middleware: Koa.Middleware;
  /** Body bytes reserved by uploads in progress (for tests and stats). */
  inflight(): number;
}

export function webhookGate(services: Pick<Services, 'config'>): WebhookGate {
  const budget = services.config.webhookInflightBytes;
  let inflight = 0;
  const middleware: Koa.Middleware = async (ctx, next) => {
    const m = ctx.method === 'POST' ? WEBHOOK_PATH.exec(ctx.path) : null;
    if (!m) return next();
    let segment: string;
    try {
      segment = decodeURIComponent(m[1]!);
    } catch {
      return next();
    }
    enabledProvider(segment, services.config);
    const limit = webhookRequestLimit(services.config);
    const header = ctx.get('content-length');
    const declared = header === '' ? null : Number(header);
    if (declared !== null && declared > limit)
      throw new AppError(
        'payload_too_large',
        `the request body is ${declared} bytes; webhook requests are limited to ${limit} (twice --max-message-bytes plus 1 MiB, at most --webhook-inflight-bytes)`,
      );
    // Without a Content-Length (chunked), the upload may grow to the limit: that much is reserved.
    const reserve = declared !== null && Number.isFinite(declared) ? declared : limit;
    if (inflight + reserve > budget)
      throw new AppError(
        'unavailable',
        `too many webhook uploads in progress (${inflight} of ${budget} bytes, --webhook-inflight-bytes); retry in a few seconds`,
        { headers: { 'Retry-After': '5' } },
      );
    inflight += reserve;
    try {
      await next();
    } finally {
      inflight -= reserve;
    }
  };
  return { middleware, inflight: () => inflight };
}
