// GET /metrics: the Prometheus text exposition. Not an API operation (it is not JSON, not in /v1/openapi.json and
// not an MCP tool), so it is its own middleware; its refusals are the API's problem+json all the same.
// It needs an unscoped admin key (the numbers are server-wide) unless the operator opened it with --metrics-open.
import type { Middleware } from 'koa';
import { authenticateHeader, authFailureDetail } from '../auth/authenticate.ts';
import type { KeyAuth } from '../auth/keys.ts';
import { isFullAdmin } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from './metrics.ts';

export function metricsMiddleware(services: {
  config: Pick<Config, 'metricsOpen'>;
  keyAuth: Pick<KeyAuth, 'authenticate'>;
  metrics: Pick<Metrics, 'render' | 'contentType'>;
}): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/metrics') return next();
    ctx.state.operation = 'metrics';
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      throw new AppError('method_not_allowed', `${ctx.method} is not allowed on /metrics; allowed: GET, HEAD`, {
        headers: { Allow: 'GET, HEAD' },
      });
    if (!services.config.metricsOpen) {
      const auth = await authenticateHeader(services, ctx.get('authorization') || undefined);
      if (!auth.ok) {
        const header = auth.reason === 'missing' ? 'Bearer realm="inboxd"' : 'Bearer realm="inboxd", error="invalid_token"';
        throw new AppError('unauthorized', authFailureDetail(auth.reason), { headers: { 'WWW-Authenticate': header } });
      }
      if (!isFullAdmin(auth.principal))
        throw new AppError(
          'forbidden',
          'GET /metrics needs an unscoped admin key (the numbers cover the whole server); or start inboxd with --metrics-open for a scraper without a key',
        );
    }
    const body = await services.metrics.render();
    ctx.status = 200;
    ctx.type = services.metrics.contentType();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  };
}
