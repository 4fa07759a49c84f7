// The Koa application: request logging, problem+json for every error, and the routes generated from the registry.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { AppError, isAppError } from '../errors.ts';
import { forwardedClient, TrustedProxies } from '../lib/proxy-protocol.ts';
import { operationLabel } from '../metrics/metrics.ts';
import type { Operation } from '../ops/op.ts';
import type { Services } from '../services.ts';
import { hostCheck } from './host-check.ts';
import { mountOperations } from './mount.ts';
import { sendProblem } from './problem.ts';
import { webhookGate } from './webhook-gate.ts';

export interface HttpLimits {
  /** A request body that sends nothing for this long is cut off with 408 (default 15 s). */
  bodyIdleMs?: number;
  /** A request body must be complete within this time (default 120 s): no slow-drip bodies. */
  bodyTotalMs?: number;
}

/**
 * Routes for every operation of `operations` with an HTTP binding. `extra` are mounted before them (the MCP endpoint,
 * which speaks JSON-RPC, not REST).
 */
export function createHttpApp(
  services: Services,
  operations: readonly Operation[],
  extra: Koa.Middleware[] = [],
  limits: HttpLimits = {},
): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();
  mountOperations(router, services, operations);
  const bodyIdleMs = limits.bodyIdleMs ?? 15_000;
  const bodyTotalMs = limits.bodyTotalMs ?? 120_000;
  const trusted = new TrustedProxies(services.config.trustedProxies ?? []);

  app.use(async (ctx, next) => {
    const started = performance.now();
    // The client's address (rate limits, the audit log, waits' owners): the socket's peer (the PROXY header's client
    // when a balancer sent one), or, from a trusted proxy, the rightmost untrusted hop of X-Forwarded-For.
    if (!trusted.empty) ctx.request.ip = forwardedClient(ctx.req.socket.remoteAddress ?? '', ctx.req.headers['x-forwarded-for'], trusted);
    const requestId = ctx.get('x-request-id') || crypto.randomUUID();
    ctx.set('X-Request-Id', requestId);
    const stopBodyClock = watchBody(ctx.req, ctx.res, bodyIdleMs, bodyTotalMs);
    let aborted = false;
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
      if (clientWentAway(ctx.req, e)) {
        // Nobody is left to answer; a client that hangs up mid-upload is no server error.
        aborted = true;
        ctx.respond = false;
        services.metrics.httpRequest(operationLabel(ctx.state, ctx.path), ctx.res.headersSent ? ctx.res.statusCode : 499);
        return logAborted(ctx, services, started, requestId);
      }
      // The operation pipeline wraps unexpected errors as `internal` with the original as the cause.
      const storageFailure = isStorageUnavailable(e) || (isAppError(e) && e.code === 'internal' && isStorageUnavailable(e.cause));
      if (isAppError(e) && !storageFailure) {
        // Refused before its body was read (no key, route off, unknown provider, too large, too many uploads): a small
        // body is read and dropped so the connection stays usable, as the answer's keep-alive promises; a large one
        // is not read, and the answer says `Connection: close` (a client reusing the socket would meet a reset).
        if (e.status === 413 || bodyUnread(ctx.req)) {
          const drained = e.status !== 413 && (await discardSmallBody(ctx.req, REFUSED_BODY_READ_BYTES, REFUSED_BODY_READ_MS));
          if (!drained) {
            ctx.set('Connection', 'close');
            lingerClose(ctx.req, ctx.res);
          }
        }
        sendProblem(ctx, e);
      } else if (storageFailure) {
        services.log.error('storage unavailable', { method: ctx.method, path: ctx.path, err: e as Error, requestId });
        sendProblem(
          ctx,
          new AppError('unavailable', 'the data directory cannot be written to right now (disk full or read-only); try again later', {
            headers: { 'Retry-After': '30' },
            cause: e,
          }),
        );
      } else {
        services.log.error('unhandled request error', { method: ctx.method, path: ctx.path, err: e as Error, requestId });
        sendProblem(ctx, new AppError('internal', 'unexpected error; the server log has the details', { cause: e }));
      }
    } finally {
      stopBodyClock();
    }
    if (aborted) return;
    const fields = {
      method: ctx.method,
      path: ctx.path,
      status: ctx.respond === false ? ctx.res.statusCode : ctx.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId,
    };
    services.metrics.httpRequest(operationLabel(ctx.state, ctx.path), fields.status);
    if (ctx.status >= 500 && ctx.status !== 503) services.log.error('request', fields);
    else if (ctx.status === 503) services.log.warn('request', fields);
    else if (ctx.status >= 400) services.log.info('request', fields);
    else services.log.debug('request', fields);
  });
  app.use(webhookGate(services).middleware);
  app.use(hostCheck(services.baseUrl, services.log));
  for (const m of extra) app.use(m);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.on('error', (err: Error) => {
    // A client that goes away mid-request (the parser sees EOF inside a body) is logged once, as an aborted request.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPIPE' || code === 'ECONNRESET' || code === 'HPE_INVALID_EOF_STATE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    services.log.warn('http stream error', { err });
  });
  return app;
}

/** The client closed the connection before its request was received in full (an abandoned upload). */
function clientWentAway(req: IncomingMessage, e: unknown): boolean {
  if (isAppError(e) && e.code !== 'internal') return false;
  return !req.complete && (req.destroyed || req.socket?.destroyed === true);
}

function bodyUnread(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  const hasBody = (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined;
  return hasBody && !req.complete;
}

/**
 * One info line, no stack and no 5xx: status 499 ("client closed request"), or 408 when the body clock cut the
 * request off (its answer has gone out already).
 */
function logAborted(ctx: Koa.Context, services: Services, started: number, requestId: string): void {
  services.log.info(ctx.res.headersSent ? 'request body too slow: cut off' : 'request aborted by the client', {
    method: ctx.method,
    path: ctx.path,
    status: ctx.res.headersSent ? ctx.res.statusCode : 499,
    aborted: true,
    receivedBytes: ctx.req.socket?.bytesRead ?? null,
    ms: Math.round((performance.now() - started) * 10) / 10,
    requestId,
  });
}

/** Disk full, read-only or failing storage under SQLite or the blob folder: a temporary condition (503). */
export function isStorageUnavailable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  if (['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_CANTOPEN'].includes(code))
    return true;
  return code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY');
}

/**
 * Cuts off request bodies that stall (nothing for `idleMs`) or drip (not complete within `totalMs`) with 408 and a
 * closed connection, so a slow client cannot hold a request open. Progress is read from the socket's byte count, so
 * the body stream itself is left alone for the handler. Requests without a body are not watched.
 */
function watchBody(req: IncomingMessage, res: ServerResponse, idleMs: number, totalMs: number): () => void {
  const hasBody =
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
    req.headers['transfer-encoding'] !== undefined;
  if (!hasBody || req.complete) return () => undefined;
  const socket = req.socket;
  const started = Date.now();
  let lastBytes = socket.bytesRead;
  let lastProgress = started;
  const timer = setInterval(
    () => {
      if (req.complete || socket.destroyed) return stop();
      const now = Date.now();
      if (socket.bytesRead !== lastBytes) {
        lastBytes = socket.bytesRead;
        lastProgress = now;
      }
      if (now - lastProgress < idleMs && now - started < totalMs) return;
      stop();
      if (!res.headersSent) {
        const detail =
          now - lastProgress >= idleMs ? `the request body stalled for ${idleMs} ms` : `the request body took longer than ${totalMs} ms`;
        res.writeHead(408, { 'content-type': 'application/problem+json; charset=utf-8', connection: 'close' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Request Timeout', status: 408, detail }));
      }
      res.once('finish', () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
    },
    Math.max(10, Math.min(1000, Math.floor(idleMs / 4))),
  );
  timer.unref();
  req.once('end', () => stop());
  function stop() {
    clearInterval(timer);
  }
  return stop;
}

/** A refused request's body up to this size is read and dropped, so its keep-alive connection can be reused. */
const REFUSED_BODY_READ_BYTES = 64 * 1024;
/** … if it arrives within this time; else the connection is closed. */
const REFUSED_BODY_READ_MS = 2000;

/**
 * Reads and drops a body declared (Content-Length) at most `maxBytes` long; true once it has ended, false for a larger
 * or chunked body, or one that does not end within `maxMs` (its reading is then left to lingerClose).
 */
function discardSmallBody(req: IncomingMessage, maxBytes: number, maxMs: number): Promise<boolean> {
  const declared = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] !== undefined || !Number.isFinite(declared) || declared > maxBytes) return Promise.resolve(false);
  if (req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('data', onData);
      resolve(ok);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    const onData = () => undefined;
    const timer = setTimeout(() => done(false), maxMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

/**
 * The answer to a request whose body is not wanted says `Connection: close`; but closing a socket with unread input
 * makes the kernel send a reset, which can destroy the answer before the client has read it. So: answer,
 * half-close, read and discard at most 1 MiB more for at most 2 s, then close. Node closes a `Connection: close`
 * socket with destroySoon() once the answer is written; here that becomes the half-close.
 */
function lingerClose(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket ?? res.socket;
  if (!socket) return;
  let drained = 0;
  req.on('data', (c: Buffer) => {
    drained += c.length;
    if (drained > 1024 * 1024) socket.destroy();
  });
  req.resume();
  socket.destroySoon = () => {
    socket.end();
  };
  res.once('finish', () => {
    socket.end();
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}
