// The HTTP server itself: connection caps (in total and per client address) and short header timeouts, so that idle
// or half-open connections cannot use up the file descriptors that SMTP and the store need too.
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { AppError, toProblem } from '../errors.ts';
import { shareKey } from '../lib/client-address.ts';
import { acceptProxied, RefusalLog, refuseUntrusted } from '../lib/proxied-connections.ts';
import type { TrustedProxies } from '../lib/proxy-protocol.ts';
import type { Logger } from '../log.ts';

export interface HttpListenerOptions {
  maxConnections: number;
  /** 0 = no limit. */
  maxConnectionsPerIp: number;
  headerTimeoutMs: number;
  /** Open SMTP connections the SMTP listener may hold; with the store's files, they share the open-file limit. */
  smtpMaxConnections: number;
  /** --trusted-proxies: PROXY protocol headers (and X-Forwarded-For, in app.ts) are believed from these only. */
  trustedProxies?: TrustedProxies;
}

/** Descriptors kept free of both listeners: SQLite, WAL, blob files, worker threads, logs. */
const RESERVED_FDS = 256;
/** Refused connections that are still being answered 503; beyond this they are closed without an answer. */
const MAX_REFUSING = 256;

const REFUSAL_BODY = (detail: string) => JSON.stringify(toProblem(new AppError('unavailable', detail)));

/**
 * Creates the HTTP server. When the server is full, a newcomer takes the place of an idle connection (no request in
 * flight: kept alive between requests, or not yet sent a complete header) of the client address holding the most
 * connections, longest idle first, if that address holds more than the newcomer's would; a request in flight (a wait,
 * an event stream) is never cut. Connections beyond the caps with nothing to reclaim get a 503 problem
 * (Retry-After: 1) written at once and are closed without their request being read or handled; under a flood (more than MAX_REFUSING being refused at once)
 * they are closed without an answer. A connection must deliver its request header within `headerTimeoutMs`
 * (from connect, or from the start of the next request on a kept-alive connection) or it gets 408 and is closed.
 * Answers may take as long as they need: waits and event streams are not affected.
 */
export function createHttpServer(handler: http.RequestListener, opts: HttpListenerOptions, log: Logger): http.Server {
  const cap = effectiveCap(opts, log);
  const server = http.createServer(
    {
      keepAliveTimeout: 65_000,
      // Receiving one request (header and body) may not take longer; the body has tighter limits in app.ts.
      requestTimeout: 300_000,
      headersTimeout: opts.headerTimeoutMs,
      // How often the two timeouts above are checked (Node's default, 30 s, would let idle sockets pile up).
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(opts.headerTimeoutMs / 4))),
    },
    handler,
  );
  // http.Server attaches its request parser in its own 'connection' listener. It is taken out and called only for
  // admitted sockets, so a refused socket never has a request parsed or handled.
  const parsers = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  server.removeAllListeners('connection');
  const shares = new ConnectionShares();
  let refusing = 0;
  let lastWarn = 0;
  let lastReclaim = 0;
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => shares.busy(req.socket, res));
  server.on('connection', (socket: net.Socket) => {
    const key = shareKey(socket.remoteAddress);
    const fromIp = shares.count(key);
    const overIp = opts.maxConnectionsPerIp > 0 && fromIp >= opts.maxConnectionsPerIp;
    let full = !overIp && shares.open >= cap;
    if (full) {
      // Full: an idle connection (no request in flight) of the address holding the most makes room, if that
      // address holds more than this one would.
      const victim = shares.reclaimable(key, fromIp + 1);
      if (victim) {
        const now = Date.now();
        if (now - lastReclaim > 10_000) {
          lastReclaim = now;
          log.info('http idle connection closed to admit another client', {
            ip: socket.remoteAddress ?? '',
            closedFrom: victim.key,
            closedHolds: shares.count(victim.key),
            open: shares.open,
            limit: cap,
          });
        }
        shares.release(victim);
        victim.socket.destroy();
        full = false;
      }
    }
    if (full || overIp) {
      const now = Date.now();
      if (now - lastWarn > 10_000) {
        lastWarn = now;
        log.warn('http connection refused', {
          ip: socket.remoteAddress ?? '',
          reason: overIp ? 'per-address limit' : 'connection limit',
          open: shares.open,
          fromIp,
          limit: overIp ? opts.maxConnectionsPerIp : cap,
          flag: overIp ? '--max-http-connections-per-ip' : '--max-http-connections',
        });
      }
      refuse(
        socket,
        overIp
          ? `too many open connections from your address (limit ${opts.maxConnectionsPerIp}); close idle ones and retry`
          : `the server has too many open connections (limit ${cap}), all busy or held by addresses with no more than yours; retry shortly`,
      );
      return;
    }
    const conn = shares.admit(socket, key);
    socket.once('close', () => shares.release(conn));
    for (const parse of parsers) parse.call(server, socket);
  });
  if (opts.trustedProxies) {
    // The PROXY header is read before the caps above count the connection, so they count the client, not the balancer.
    acceptProxied(server, { trusted: opts.trustedProxies, protocol: 'http', log, headerTimeoutMs: opts.headerTimeoutMs });
    const refusals = new RefusalLog(log, 'http');
    server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: net.Socket) => {
      if (err.rawPacket && refuseUntrusted(socket, err.rawPacket, refusals)) return;
      answerClientError(err, socket);
    });
  }

  function refuse(socket: net.Socket, detail: string): void {
    socket.on('error', () => undefined);
    if (refusing >= MAX_REFUSING) {
      socket.destroy();
      return;
    }
    refusing++;
    socket.once('close', () => refusing--);
    const body = REFUSAL_BODY(detail);
    socket.end(
      'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json; charset=utf-8\r\n' +
        `Retry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Whatever request the client sends is read and dropped (closing with unread input would reset the connection
    // before the client reads the answer), for at most a second.
    socket.resume();
    setTimeout(() => socket.destroy(), 1000).unref();
  }
  return server;
}

/** What node's HTTP server answers a request it cannot parse when nobody listens to 'clientError'. */
function answerClientError(err: NodeJS.ErrnoException, socket: net.Socket): void {
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? '413 Payload Too Large'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? '408 Request Timeout'
          : '400 Bad Request';
  const s = socket as net.Socket & { _httpMessage?: { _headerSent?: boolean } };
  if (socket.writable && !s._httpMessage?._headerSent) socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  socket.destroy(err);
}

/** The connection cap, lowered when the open-file limit could not hold it next to SMTP and the store. */
function effectiveCap(opts: HttpListenerOptions, log: Logger): number {
  const limit = openFileLimit();
  if (limit === null) return opts.maxConnections;
  const room = limit - opts.smtpMaxConnections - RESERVED_FDS;
  if (opts.maxConnections <= room) return opts.maxConnections;
  const cap = Math.max(32, room);
  log.warn('--max-http-connections lowered to fit the open-file limit', {
    requested: opts.maxConnections,
    effective: cap,
    openFileLimit: limit,
    smtpMaxConnections: opts.smtpMaxConnections,
    hint: 'raise the limit (ulimit -n, LimitNOFILE= in systemd, --ulimit nofile= in docker) or lower --smtp-max-connections',
  });
  return cap;
}

/** The soft RLIMIT_NOFILE on Linux; null elsewhere or when unknown. */
function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

interface Conn {
  socket: net.Socket;
  key: string;
  /** Requests being handled (pipelined requests are handled one after the other). */
  active: number;
  /** Since when no request has been in flight (connect, or the end of the last answer). */
  idleSince: number;
  released: boolean;
}

/** Open connections by client (shareKey), with what each is doing, so the cap can be shared and idle ones reclaimed. */
class ConnectionShares {
  open = 0;
  private readonly byKey = new Map<string, Set<Conn>>();
  private readonly bySocket = new WeakMap<net.Socket, Conn>();

  count(key: string): number {
    return this.byKey.get(key)?.size ?? 0;
  }

  admit(socket: net.Socket, key: string): Conn {
    const conn: Conn = { socket, key, active: 0, idleSince: performance.now(), released: false };
    this.open++;
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(conn);
    this.bySocket.set(socket, conn);
    return conn;
  }

  release(conn: Conn): void {
    if (conn.released) return;
    conn.released = true;
    this.open--;
    const set = this.byKey.get(conn.key);
    set?.delete(conn);
    if (set?.size === 0) this.byKey.delete(conn.key);
  }

  /** A request is in flight on `socket` until its answer is finished or abandoned. */
  busy(socket: net.Socket, res: http.ServerResponse): void {
    const conn = this.bySocket.get(socket);
    if (!conn) return;
    conn.active++;
    res.once('close', () => {
      conn.active--;
      conn.idleSince = performance.now();
    });
  }

  /**
   * The connection to close for a newcomer from `key` that would then hold `wouldHold`: the longest-idle one of the
   * address holding the most among those holding more than `wouldHold` and having an idle one; null if none.
   */
  reclaimable(key: string, wouldHold: number): Conn | null {
    const larger: Array<Set<Conn>> = [];
    for (const [k, set] of this.byKey) if (k !== key && set.size > wouldHold) larger.push(set);
    larger.sort((a, b) => b.size - a.size);
    for (const set of larger) {
      let best: Conn | null = null;
      for (const c of set) if (c.active === 0 && (!best || c.idleSince < best.idleSince)) best = c;
      if (best) return best;
    }
    return null;
  }
}
