// Mounts every operation that has an HTTP binding on the router: the only place REST routes come from.
import type { Context } from 'koa';
import Router from '@koa/router';
import { authenticateHeader, authFailureDetail } from '../auth/authenticate.ts';
import { AppError } from '../errors.ts';
import type { Operation, OpContext } from '../ops/op.ts';
import { isRawResult } from '../ops/op.ts';
import { runOperation } from '../ops/pipeline.ts';
import type { Services } from '../services.ts';
import { readJsonBody } from './body.ts';

const JSON_BODY_LIMIT = 1024 * 1024;

export function mountOperations(router: Router, services: Services): void {
  for (const o of services.registry) {
    if (!o.http) continue;
    const method = o.http.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](o.http.path, (ctx: Context) => handle(ctx, o, services));
  }
}

async function handle(ctx: Context, o: Operation, services: Services): Promise<void> {
  const auth = await authenticateHeader(services, ctx.get('authorization') || undefined);
  if (!auth.ok && o.access !== 'public') {
    const header = auth.reason === 'missing' ? 'Bearer realm="inboxd"' : 'Bearer realm="inboxd", error="invalid_token"';
    throw new AppError('unauthorized', authFailureDetail(auth.reason), { headers: { 'WWW-Authenticate': header } });
  }
  const http = o.http!;
  const input: Record<string, unknown> = {};
  if (http.method === 'GET' || http.method === 'DELETE') Object.assign(input, ctx.query);
  else {
    const body = await readJsonBody(ctx.req, JSON_BODY_LIMIT);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new AppError('validation_failed', 'the body must be a JSON object', { errors: [{ path: '(body)', message: 'expected an object' }] });
    }
    Object.assign(input, body);
  }
  Object.assign(input, (ctx as Context & { params: Record<string, string> }).params);

  const abort = new AbortController();
  const onClose = () => {
    if (!ctx.res.writableFinished) abort.abort();
  };
  ctx.res.once('close', onClose);
  const opCtx: OpContext = {
    principal: auth.ok ? auth.principal : null,
    services,
    log: services.log,
    request: { ip: ctx.ip || null, accept: ctx.get('accept'), userAgent: ctx.get('user-agent') || null },
    signal: AbortSignal.any([abort.signal, services.shutdown]),
  };
  try {
    const result = await runOperation(o, opCtx, input);
    ctx.status = http.status ?? 200;
    if (isRawResult(result)) {
      ctx.type = result.contentType;
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      if (result.size !== undefined) ctx.length = result.size;
      ctx.body = result.body;
    } else if (ctx.status === 204) {
      ctx.body = null;
    } else {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify(result);
    }
  } finally {
    ctx.res.off('close', onClose);
  }
}
