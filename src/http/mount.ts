// Mounts every operation that has an HTTP binding on the router: the only place REST routes come from.

import { PassThrough } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { authenticateHeader, authFailureDetail } from '../auth/authenticate.ts';
import { AppError, isAppError, toProblem } from '../errors.ts';
import type { OpContext, Operation, RawBody } from '../ops/op.ts';
import { isRawResult, isSharedJson } from '../ops/op.ts';
import { invokeOperation, prepareOperation, runOperation } from '../ops/pipeline.ts';
import type { Services } from '../services.ts';
import { readBody, readFormOrJsonBody, readJsonBody } from './body.ts';

const JSON_BODY_LIMIT = 1024 * 1024;

export function mountOperations(router: Router, services: Services, operations: readonly Operation[]): void {
  for (const o of operations) {
    if (!o.http) continue;
    const method = o.http.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](o.http.path, async (ctx: Context) => {
      ctx.state.operation = o.name; // the metrics label: the operation, never the raw path
      for (const [k, v] of Object.entries(o.http!.headers ?? {})) ctx.set(k, v);
      if (o.http!.errors !== 'oauth') return handle(ctx, o, services, operations);
      try {
        await handle(ctx, o, services, operations);
      } catch (e) {
        if (!isAppError(e)) throw e;
        sendOAuthError(ctx, e);
      }
    });
  }
}

/** RFC 6749 §5.2: `{error, error_description}`; 401 + WWW-Authenticate for invalid_client. */
function sendOAuthError(ctx: Context, e: AppError): void {
  const explicit = (e as AppError & { oauthError?: string }).oauthError;
  const error = explicit ?? (e.code === 'unauthorized' ? 'invalid_client' : e.status >= 500 ? 'server_error' : 'invalid_request');
  ctx.status = error === 'invalid_client' ? 401 : e.status >= 500 ? e.status : 400;
  if (error === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="inboxd"');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({ error, error_description: e.detail });
}

async function handle(ctx: Context, o: Operation, services: Services, operations: readonly Operation[]): Promise<void> {
  const auth = await authenticateHeader(services, ctx.get('authorization') || undefined);
  if (!auth.ok && o.access !== 'public') {
    const header = auth.reason === 'missing' ? 'Bearer realm="inboxd"' : 'Bearer realm="inboxd", error="invalid_token"';
    throw new AppError('unauthorized', authFailureDetail(auth.reason), { headers: { 'WWW-Authenticate': header } });
  }
  const http = o.http!;
  const input: Record<string, unknown> = {};
  // Which names the caller wrote: query parameters (GET, DELETE, raw bodies) or the fields of a JSON/form body.
  const source = http.method === 'GET' || http.method === 'DELETE' || http.body === 'raw' ? 'query' : 'body';
  let rawBody: RawBody | undefined;
  const limit = http.bodyLimit ? http.bodyLimit(services) : JSON_BODY_LIMIT;
  if (http.method === 'GET' || http.method === 'DELETE') Object.assign(input, ctx.query);
  else if (http.body === 'raw') {
    Object.assign(input, ctx.query);
    rawBody = { bytes: await readBody(ctx.req, limit), contentType: ctx.get('content-type') };
  } else {
    const body = http.body === 'form' ? await readFormOrJsonBody(ctx.req, limit) : await readJsonBody(ctx.req, limit);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new AppError('validation_failed', 'the body must be a JSON object', {
        errors: [{ path: '(body)', message: 'expected an object' }],
      });
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
    operations,
    log: services.log,
    request: {
      ip: ctx.ip || null,
      accept: ctx.get('accept'),
      userAgent: ctx.get('user-agent') || null,
      header: (name) => ctx.get(name) || undefined,
    },
    ...(rawBody ? { body: rawBody } : {}),
    signal: AbortSignal.any([abort.signal, services.shutdown]),
  };
  if (o.streams && /text\/event-stream/i.test(ctx.get('accept'))) {
    // Refusals (auth, validation) still answer as problem+json; only then does the answer become a stream.
    const prepared = await prepareOperation(o, opCtx, input, source);
    const out = new PassThrough();
    const send = (event: string, data: unknown) => {
      if (!out.writableEnded) out.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = out;
    opCtx.emit = send;
    void invokeOperation(o, opCtx, prepared)
      .then(
        (result) => {
          // An answer shared by many waiters goes out as its one encoding, not serialised again per stream.
          if (isRawResult(result) && isSharedJson(result)) {
            if (!out.writableEnded) out.write('event: result\ndata: '), out.write(result.body), out.write('\n\n');
          } else send('result', result);
        },
        (e: unknown) =>
          send('error', toProblem(isAppError(e) ? e : new AppError('internal', 'unexpected error; the server log has the details'))),
      )
      .finally(() => {
        out.end();
        ctx.res.off('close', onClose);
      });
    return;
  }
  let streaming = false;
  try {
    const result = await runOperation(o, opCtx, input, source);
    ctx.status = http.status ?? 200;
    if (isRawResult(result)) {
      if (result.status !== undefined) ctx.status = result.status;
      ctx.type = result.contentType;
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      if (result.size !== undefined) ctx.length = result.size;
      ctx.body = result.body;
      // A streamed body outlives this function: the operation's signal must still fire if the client leaves mid-stream.
      streaming = !Buffer.isBuffer(result.body);
    } else if (ctx.status === 204) {
      ctx.body = null;
    } else {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify(result);
    }
  } finally {
    if (!streaming) ctx.res.off('close', onClose);
  }
}
