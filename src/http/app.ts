// The Koa application: request logging, problem+json for every error, and the routes generated from the registry.
import crypto from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { AppError, isAppError } from '../errors.ts';
import type { Services } from '../services.ts';
import { mountOperations } from './mount.ts';
import { sendProblem } from './problem.ts';

/** `extra` are mounted before the generated routes (the MCP endpoint, which speaks JSON-RPC, not REST). */
export function createHttpApp(services: Services, extra: Koa.Middleware[] = []): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();
  mountOperations(router, services);

  app.use(async (ctx, next) => {
    const started = performance.now();
    const requestId = ctx.get('x-request-id') || crypto.randomUUID();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      // ctx.respond === false: the MCP transport answered on the raw response itself.
      if (ctx.respond !== false && ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('not_found', `no such endpoint: ${ctx.method} ${ctx.path} (GET /v1 lists every endpoint)`);
      }
      if (ctx.respond !== false && ctx.status === 405 && ctx.body === undefined) {
        throw new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`);
      }
    } catch (e) {
      if (isAppError(e)) sendProblem(ctx, e);
      else {
        services.log.error('unhandled request error', { method: ctx.method, path: ctx.path, err: e as Error, requestId });
        sendProblem(ctx, new AppError('internal', 'unexpected error; the server log has the details', { cause: e }));
      }
    }
    const fields = { method: ctx.method, path: ctx.path, status: ctx.respond === false ? ctx.res.statusCode : ctx.status, ms: Math.round((performance.now() - started) * 10) / 10, requestId };
    if (ctx.status >= 500 && ctx.status !== 503) services.log.error('request', fields);
    else if (ctx.status === 503) services.log.warn('request', fields);
    else if (ctx.status >= 400) services.log.info('request', fields);
    else services.log.debug('request', fields);
  });
  for (const m of extra) app.use(m);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.on('error', (err: Error) => {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET') return;
    services.log.warn('http stream error', { err });
  });
  return app;
}
