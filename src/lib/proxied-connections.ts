// PROXY protocol at the connection level, shared by the SMTP, HTTP, POP3 and IMAP listeners: a connection from an
// address of --trusted-proxies must start with a PROXY header (v1 or v2), read under a time and size bound before the
// socket is handed to the protocol's server, which then sees the client's address as the socket's remoteAddress
// (caps, logs, SMTP session facts, the audit log). A header from any other address is refused: a client must not
// choose its own address.
import type net from 'node:net';
import type { Logger } from '../log.ts';
import { looksLikeProxyHeader, type ProxyHeader, parseProxyHeader, type TrustedProxies } from './proxy-protocol.ts';

export type ProxiedProtocol = 'smtp' | 'http' | 'pop3' | 'imap';

export interface ProxiedOptions {
  trusted: TrustedProxies;
  protocol: ProxiedProtocol;
  log: Logger;
  /** How long a trusted proxy has to deliver the whole header (default 5 s). */
  headerTimeoutMs?: number;
}

const FLAG = '--trusted-proxies';
/** A refusal of each kind is logged at most this often (with the number left out since). */
const LOG_EVERY_MS = 10_000;

/**
 * Puts the PROXY protocol in front of `server`'s 'connection' listeners (call it once they are all attached).
 * Without trusted proxies, connections go straight on (a client that sends a PROXY header anyway is refused).
 */
export function acceptProxied(server: net.Server, opts: ProxiedOptions): void {
  const listeners = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  server.removeAllListeners('connection');
  const handOff = (socket: net.Socket) => {
    for (const l of listeners) l.call(server, socket);
    // A server that reads with 'data' listeners attached at once is resumed; smtp-server pipes a tick later, which
    // resumes the socket itself (resuming it now would lose the bytes read after the header).
    if (socket.isPaused() && socket.listenerCount('data') > 0) socket.resume();
  };
  const refusals = new RefusalLog(opts.log, opts.protocol);
  const timeoutMs = opts.headerTimeoutMs ?? 5_000;
  server.on('connection', (socket: net.Socket) => {
    const peer = socket.remoteAddress ?? '';
    // No peer address: the client reset the connection before it was accepted (a balancer's health check that gave up
    // under load does): nothing to serve, nothing to say.
    if (!peer) {
      socket.on('error', () => undefined);
      socket.destroy();
      return;
    }
    if (!opts.trusted.has(peer)) {
      handOff(socket);
      // HTTP parses from the socket's handle directly: its refusal is in the listener's clientError (refuseUntrusted).
      if (opts.protocol !== 'http' && !socket.destroyed) watchFirstBytes(socket, (first) => refuseUntrusted(socket, first, refusals));
      return;
    }
    readHeader(socket, timeoutMs, (outcome) => {
      if (outcome.kind === 'header') {
        if (outcome.header.command === 'proxy' && outcome.header.source) actAs(socket, outcome.header);
        return handOff(socket);
      }
      // Without a header, HTTP requests from a trusted proxy are its own (health checks) or name their client in
      // X-Forwarded-For; the mail protocols have no such header, so the client would be unknown: refused.
      if (outcome.kind === 'absent' && opts.protocol === 'http') return handOff(socket);
      if (outcome.kind === 'closed') return;
      refusals.note(outcome.kind, {
        remote: peer,
        reason:
          outcome.kind === 'timeout'
            ? `no complete PROXY header within ${timeoutMs} ms`
            : outcome.kind === 'absent'
              ? 'the connection did not start with a PROXY header'
              : outcome.reason,
        hint: `connections from addresses in ${FLAG} must start with a PROXY protocol header (HAProxy: send-proxy or send-proxy-v2); remove the address from ${FLAG} if its clients connect directly`,
      });
      socket.destroy();
    });
  });
}

/**
 * A connection from an untrusted address whose first bytes are a PROXY header is closed and logged (the listener's
 * own HTTP clientError calls this with the bytes the parser refused). True when it refused.
 */
export function refuseUntrusted(socket: net.Socket, first: Buffer, log: RefusalLog): boolean {
  if (!isFullPrefix(first)) return false;
  if (!socket.remoteAddress) {
    socket.destroy();
    return true;
  }
  log.note('untrusted', {
    remote: socket.remoteAddress,
    reason: 'a PROXY protocol header from an address that is not a trusted proxy',
    hint: `if this address is your load balancer, add it to ${FLAG} (INBOXD_TRUSTED_PROXIES); a client may not choose its own address`,
  });
  socket.destroy();
  return true;
}

/** "PROXY " or the 12-byte v2 signature, whole (an empty line alone is not taken for the start of one). */
function isFullPrefix(b: Buffer): boolean {
  return looksLikeProxyHeader(b) && (b[0] === 0x50 ? b.length >= 6 : b.length >= 12);
}

/**
 * Calls `fn` with the connection's first chunk, before its server reads it. A server that attaches its reader later
 * (smtp-server does, a tick after the connection) finds the chunk still buffered: the socket stays paused until then.
 */
function watchFirstBytes(socket: net.Socket, fn: (first: Buffer) => void): void {
  const consumerAttached = socket.listenerCount('data') > 0;
  socket.prependOnceListener('data', (c: Buffer | string) => fn(typeof c === 'string' ? Buffer.from(c, 'latin1') : c));
  if (!consumerAttached) socket.pause();
}

type HeaderOutcome =
  | { kind: 'header'; header: ProxyHeader }
  | { kind: 'absent' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'timeout' }
  | { kind: 'closed' };

/** Reads the PROXY header; the bytes after it are put back for the protocol's server. */
function readHeader(socket: net.Socket, timeoutMs: number, done: (o: HeaderOutcome) => void): void {
  let buf: Buffer = Buffer.alloc(0);
  let finished = false;
  const finish = (o: HeaderOutcome, rest?: Buffer) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', onClose);
    socket.off('error', onError);
    socket.pause();
    if (rest && rest.length > 0) socket.unshift(rest);
    done(o);
  };
  const onData = (c: Buffer) => {
    buf = buf.length === 0 ? c : Buffer.concat([buf, c]);
    const r = parseProxyHeader(buf);
    if (r.kind === 'incomplete') return;
    if (r.kind === 'header') return finish(r, buf.subarray(r.header.length));
    if (r.kind === 'absent') return finish(r, buf);
    finish(r);
  };
  const onClose = () => finish({ kind: 'closed' });
  const onError = () => finish({ kind: 'closed' });
  const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
  timer.unref();
  socket.on('data', onData);
  socket.once('close', onClose);
  socket.once('error', onError);
}

/** From now on the socket answers with the client's address, as if the client had connected itself. */
function actAs(socket: net.Socket, h: ProxyHeader): void {
  const src = h.source!;
  setPeer(socket, src.address, src.port);
}

function setPeer(socket: net.Socket, address: string, port: number | undefined): void {
  Object.defineProperties(socket, {
    remoteAddress: { value: address, configurable: true },
    remotePort: { value: port, configurable: true },
    remoteFamily: { value: address.includes(':') ? 'IPv6' : 'IPv4', configurable: true },
  });
}

/** A TLS socket made over a proxied one (STLS, STARTTLS) reads its peer from the handle: it keeps the client's. */
export function keepPeer<T extends net.Socket>(plain: net.Socket, secure: T): T {
  if (Object.hasOwn(plain, 'remoteAddress') && plain.remoteAddress) setPeer(secure, plain.remoteAddress, plain.remotePort);
  return secure;
}

/** Refusals logged with the flag to set, at most one line per kind every 10 s (a flood does not fill the log). */
export class RefusalLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();
  private readonly log: Logger;
  private readonly protocol: ProxiedProtocol;
  constructor(log: Logger, protocol: ProxiedProtocol) {
    this.log = log;
    this.protocol = protocol;
  }

  note(kind: string, fields: { remote: string; reason: string; hint: string }): void {
    const now = Date.now();
    const seen = this.last.get(kind);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.suppressed++;
      return;
    }
    this.last.set(kind, { at: now, suppressed: 0 });
    this.log.warn('connection refused: PROXY protocol', {
      protocol: this.protocol,
      ...fields,
      flag: FLAG,
      ...(seen?.suppressed ? { suppressedSinceLast: seen.suppressed } : {}),
    });
  }
}
