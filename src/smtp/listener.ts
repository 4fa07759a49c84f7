// The SMTP listener: protocol policy only (who may send what, how much, how fast); the message itself goes to
// ingest, and 250 is answered only once ingest has stored it durably.

import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions } from 'smtp-server';
import type { Principal } from '../auth/principal.ts';
import type { ServedDomains } from '../domains/served.ts';
import type { Ingest } from '../ingest/ingest.ts';
import { isMailRefused, MAX_RECIPIENTS } from '../ingest/limits.ts';
import { acceptProxied } from '../lib/proxied-connections.ts';
import { TrustedProxies } from '../lib/proxy-protocol.ts';
import type { Logger } from '../log.ts';
import type { SmtpMetrics, SmtpRejection } from '../metrics/metrics.ts';
import { dropSession, patchSmtpConnection, smtpError } from './patches.ts';

export interface SmtpOptions {
  host: string;
  port: number;
  /** The domains mail is accepted for (SMTP answers 550 relaying denied for others). */
  served: ServedDomains;
  maxMessageBytes: number;
  /** STARTTLS material (src/server/tls.ts: --smtp-tls auto or --smtp-tls-cert/key); STARTTLS is off without it. */
  tls?: { key: string | Buffer; cert: string | Buffer } | null;
  /** Refuse AUTH before STARTTLS (--smtp-require-tls). */
  requireTls?: boolean;
  hostname: string;
  /**
   * Open connections at once (default 1000) and per client address (default 200; 0 = no limit). When all places are
   * taken, an idle session of the client holding the most makes room for a newcomer (smtp/patches.ts).
   */
  maxConnections?: number;
  maxConnectionsPerIp?: number;
  /** Message bytes all connections together may hold in memory before DATA streams are slowed down. */
  maxBufferedBytes?: number;
  /** SMTP AUTH: `any` accepts every credential, `required` only an API key as the password, `off` is not offered. */
  auth?: 'any' | 'required' | 'off';
  /** Keep mail for every domain (a sink for test environments); never relayed on. */
  /** Longest a session may last, and the commands it may send (0 = no limit); past either: 421 4.7.0. */
  maxSessionMs?: number;
  maxCommands?: number;
  /** Counters for GET /metrics (connections, stored messages, refusals by reason). */
  metrics?: SmtpMetrics;
  /** Who may deliver what: the per-recipient decisions the listener asks for (absent: every served address). */
  policy?: SmtpPolicy;
  /** Fault rules (src/faults/): asked at each stage; absent or answering null, the session goes on untouched. */
  faults?: SmtpFaults;
  /** --trusted-proxies: connections from these start with a PROXY header naming the client (src/lib/proxied-connections.ts). */
  trustedProxies?: TrustedProxies;
}

export type SmtpStage = 'connect' | 'ehlo' | 'auth' | 'mail' | 'rcpt' | 'data' | 'end-of-data';

/** What the listener asks the fault rules at each stage, and what they may answer. */
export interface SmtpFaults {
  /** Null (synchronously, when no rule can apply) or what to do: wait, then reply, drop the connection or go on. */
  decide(
    stage: SmtpStage,
    s: { id: string; client: string; sender: string | null; recipients: string[]; recipient?: string; tx?: object },
  ): SmtpFaultOutcome | null | Promise<SmtpFaultOutcome | null>;
  /** The session ended. */
  closed(sessionId: string): void;
}

export interface SmtpFaultOutcome {
  delayMs: number;
  reply: { code: number; message: string } | null;
  disconnect: boolean;
  /** At DATA: read the message at most this many bytes per second. */
  throttleBytesPerSecond: number | null;
}

/** The decisions the listener asks of the inboxes and the key store while a session runs. */
export interface SmtpPolicy {
  /** Why an address takes no more mail (a full inbox), or null. */
  refusesMail(address: string, tally: { total?: number }): Promise<string | null>;
  /** `--smtp-auth required`: the key store and the inboxes' sender rule. */
  auth?: SmtpAuthHooks;
}

/** What `--smtp-auth required` needs from the key store and the inboxes. */
export interface SmtpAuthHooks {
  /** The principal of an API key or access token, or null when unknown or revoked. */
  authenticate(secret: string): Promise<Principal | null>;
  /** Why this principal may not deliver to this address, or null when it may. */
  refusesSender(p: Principal, address: string): Promise<string | null>;
}

/** Bytes of DATA each message may hold in memory without asking the shared budget. */
const FREE_BYTES_PER_MESSAGE = 256 * 1024;

export interface SmtpListener {
  port: number;
  /** Stop accepting: new connections and commands get 421; in-flight DATA is finished first. */
  close(): Promise<void>;
  connections(): number;
}

export async function startSmtp(opts: SmtpOptions, ingest: Ingest, log: Logger): Promise<SmtpListener> {
  const refusesMail = opts.policy?.refusesMail ?? (async () => null);
  const hooks = opts.policy?.auth;
  patchSmtpConnection();
  const authMode = opts.auth ?? 'any';
  if (authMode === 'required' && !hooks) throw new Error('--smtp-auth required needs the key store');
  const served = opts.served;
  /** Per SMTP transaction (smtp-server makes a new envelope at each MAIL FROM): unclaimed recipients accepted so far. */
  const unclaimedTallies = new WeakMap<object, { total?: number }>();
  const tls = opts.tls ?? null;
  const inFlight = new Set<Promise<unknown>>();
  const budget = new MemoryBudget(opts.maxBufferedBytes ?? Math.max(256 * 1024 * 1024, 2 * opts.maxMessageBytes));
  /** What each session's message in progress holds of the budget, released when it is stored or the client leaves. */
  const held = new Map<string, () => void>();
  const m = opts.metrics;
  let lastReclaimLog = 0;
  const faults = opts.faults;
  /** Sessions whose DATA a fault rule throttles: bytes per second. */
  const throttles = new Map<string, number>();
  let server: SMTPServer | undefined;
  type Session = Parameters<NonNullable<SMTPServerOptions['onConnect']>>[0];
  /**
   * Asks the fault rules about this stage and goes on with `next(null)` (untouched), `next(error)` (the fault's
   * reply), or never (the connection was dropped). Cheap when no rule exists: one synchronous call answering null.
   */
  const faultAt = (
    stage: SmtpStage,
    session: Session,
    extra: { sender?: string | null; recipient?: string },
    next: (err: (Error & { responseCode: number }) | null) => void,
  ) => {
    if (!faults) return next(null);
    const env = session.envelope as Session['envelope'] | undefined;
    let d: ReturnType<SmtpFaults['decide']>;
    try {
      d = faults.decide(stage, {
        id: session.id,
        client: session.remoteAddress,
        sender: extra.sender !== undefined ? extra.sender : env?.mailFrom ? env.mailFrom.address : null,
        recipients: env ? env.rcptTo.map((r) => r.address.toLowerCase()) : [],
        ...(extra.recipient !== undefined ? { recipient: extra.recipient } : {}),
        ...(env ? { tx: env } : {}),
      });
    } catch (e) {
      log.error('fault rules failed; going on without them', { err: e as Error, stage });
      return next(null);
    }
    const act = (o: SmtpFaultOutcome | null) => {
      if (!o) return next(null);
      const go = () => {
        if (o.disconnect) {
          log.info('smtp fault: connection dropped', { remote: session.remoteAddress, stage });
          if (server) dropSession(server as never, session.id);
          return;
        }
        if (o.reply) {
          log.info('smtp fault: reply', { remote: session.remoteAddress, stage, code: o.reply.code });
          return next(smtpError(o.reply.code, o.reply.message));
        }
        if (o.throttleBytesPerSecond) throttles.set(session.id, o.throttleBytesPerSecond);
        next(null);
      };
      if (o.delayMs > 0) setTimeout(go, o.delayMs).unref();
      else go();
    };
    if (d && typeof (d as Promise<unknown>).then === 'function')
      (d as Promise<SmtpFaultOutcome | null>).then(act, (e: Error) => {
        log.error('fault rules failed; going on without them', { err: e, stage });
        next(null);
      });
    else act(d as SmtpFaultOutcome | null);
  };

  type AuthArgs = Parameters<NonNullable<SMTPServerOptions['onAuth']>>;
  const authenticate = (auth: AuthArgs[0], session: AuthArgs[1], callback: AuthArgs[2]) => {
    if (authMode !== 'required') return callback(null, { user: auth.username ?? '' });
    const refuse = (why: string) => {
      m?.rejected('auth_failed');
      log.info('smtp auth refused', { remote: session.remoteAddress, method: auth.method, reason: why });
      callback(smtpError(535, `5.7.8 authentication failed: ${why}`));
    };
    const secret = auth.password ?? '';
    if (!secret) return refuse('the password must be an inboxd API key (ibx_…)');
    hooks!.authenticate(secret).then(
      (p) => {
        if (!p) return refuse('the password is not a valid inboxd API key (unknown or revoked)');
        if (p.scope.readOnly) return refuse(`key ${p.keyId} is read-only; delivering mail needs a key that may write`);
        log.debug('smtp auth accepted', { remote: session.remoteAddress, keyId: p.keyId });
        callback(null, { user: p as never });
      },
      (e: Error) => {
        log.error('smtp auth check failed', { err: e });
        callback(smtpError(454, '4.7.0 temporary authentication failure; try again'));
      },
    );
  };

  const options: SMTPServerOptions = {
    name: opts.hostname,
    banner: 'inboxd ready',
    size: opts.maxMessageBytes,
    hideSize: false,
    hideENHANCEDSTATUSCODES: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    hidePIPELINING: false,
    // AUTH over plain text is allowed: a test sink on a private network is where apps configured with a user and
    // password must deliver unchanged, TLS or not (the credentials are test credentials or a revocable key) — unless
    // the operator asks for TLS first (--smtp-require-tls: AUTH before STARTTLS gets 538).
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: !(opts.requireTls && tls),
    authOptional: authMode !== 'required',
    authRequiredMessage: '5.7.0 authentication required: AUTH PLAIN or LOGIN with an inboxd API key as the password (--smtp-auth required)',
    disabledCommands: [...(authMode === 'off' ? ['AUTH'] : []), ...(tls ? [] : ['STARTTLS'])],
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    disableReverseLookup: true,
    maxRecipients: MAX_RECIPIENTS,
    maxClients: opts.maxConnections ?? 1000,
    ...({ maxClientsPerAddress: opts.maxConnectionsPerIp ?? 200 } as object),
    socketTimeout: 60_000,
    closeTimeout: 8_000,
    logger: false,
    ...({
      maxSessionMs: opts.maxSessionMs ?? 600_000,
      maxCommands: opts.maxCommands ?? 1000,
      onReclaim: (closed: { remoteAddress: string; holds: number; idleMs: number }, admitted: string) => {
        const now = Date.now();
        if (now - lastReclaimLog < 10_000) return;
        lastReclaimLog = now;
        log.info('smtp idle session closed to admit another client', {
          remote: admitted,
          closedFrom: closed.remoteAddress,
          closedHolds: closed.holds,
          idleMs: closed.idleMs,
          limit: opts.maxConnections ?? 1000,
        });
      },
      onSessionLimit: (remote: string, why: string) => {
        m?.rejected('session_limit');
        log.info('smtp session closed at its limit', { remote, limit: why === 'lifetime' ? 'lifetime' : 'commands' });
      },
    } as object),
    onConnect(session, callback) {
      m?.connected();
      ingest.warm();
      log.debug('smtp connection', { session: session.id, remote: session.remoteAddress });
      faultAt('connect', session, {}, (err) => callback(err));
    },
    ...({
      onInboxdCommand: (stage: 'ehlo' | 'data', session: Session, done: (err: Error | null) => void) => faultAt(stage, session, {}, done),
    } as object),
    onMailFrom(address, session, callback) {
      faultAt('mail', session, { sender: address.address }, (err) => callback(err ?? undefined));
    },
    onAuth(auth, session, callback) {
      faultAt('auth', session, {}, (err) => (err ? callback(err) : authenticate(auth, session, callback)));
    },
    onRcptTo(address, session, callback) {
      const addr = address.address.toLowerCase();
      const at = addr.lastIndexOf('@');
      const domain = at > 0 ? addr.slice(at + 1) : '';
      const refuse = (code: number, reply: string, reason: string, metric: SmtpRejection) => {
        m?.rejected(metric);
        log.info('smtp recipient refused', { remote: session.remoteAddress, rcpt: addr, code, reason });
        callback(smtpError(code, reply));
      };
      const check = () => {
        const principal = authMode === 'required' ? (session.user as unknown as Principal | undefined) : undefined;
        let tally = unclaimedTallies.get(session.envelope);
        if (!tally) unclaimedTallies.set(session.envelope, (tally = {}));
        Promise.all([refusesMail(addr, tally), principal ? hooks!.refusesSender(principal, addr) : null]).then(
          ([full, outOfScope]) => {
            if (outOfScope) return refuse(550, `5.7.1 ${outOfScope}`, 'outside the key scope', 'out_of_scope');
            if (full) return refuse(452, `4.2.2 ${full}`, 'mailbox full', 'limit_reached');
            faultAt('rcpt', session, { recipient: addr }, (err) => callback(err ?? undefined));
          },
          (e: Error) => {
            log.error('recipient check failed', { err: e });
            callback(smtpError(451, '4.3.0 temporary failure; try again'));
          },
        );
      };
      if (served.accepts(domain) && (!served.shared || served.acceptAny || served.isConfigured(domain))) return check();
      // A custom domain on a shared store (PostgreSQL): its row decides (verified or deleted on another instance).
      void served
        .acceptsFresh(domain)
        .then((ok) =>
          ok
            ? check()
            : refuse(
                550,
                `5.7.1 relaying denied: inboxd accepts mail only for ${served.describe()}`,
                'relaying denied: domain not served',
                'relay_denied',
              ),
        );
    },
    onClose(session) {
      held.get(session.id)?.();
      throttles.delete(session.id);
      faults?.closed(session.id);
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      // Memory: a message keeps its first bytes freely; beyond that, its bytes count against a budget shared by all
      // connections, and when the budget is spent the stream is paused (TCP backpressure) until stored messages free it.
      let counted = 0;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(session.id);
        budget.release(counted);
      };
      held.set(session.id, release);
      // A fault rule's throttle: DATA is read at most this fast (paused for at most a second at a time, so the
      // socket never looks idle); the session's lifetime limit still ends a transfer that would take too long.
      const bps = throttles.get(session.id);
      throttles.delete(session.id);
      const t0 = performance.now();
      let throttledUntil = 0;
      /** Paused because the shared memory budget is spent: only room in it resumes the stream. */
      let budgetPaused = false;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (bps) {
          const pace = () => {
            const due = (size / bps) * 1000 - (performance.now() - t0);
            if (due <= 1) {
              throttledUntil = 0;
              if (!budgetPaused) stream.resume();
              return;
            }
            stream.pause();
            throttledUntil = performance.now() + Math.min(due, 1000);
            setTimeout(pace, Math.min(due, 1000));
          };
          if (!throttledUntil) pace();
        }
        if (size > opts.maxMessageBytes) return;
        chunks.push(c);
        if (size > FREE_BYTES_PER_MESSAGE) {
          counted += c.length;
          budget.take(c.length);
          if (budget.full() && !released) {
            stream.pause();
            budgetPaused = true;
            budget.whenRoom(() => {
              budgetPaused = false;
              if (!throttledUntil) stream.resume();
            });
          }
        }
      });
      stream.on('end', () => {
        if (stream.sizeExceeded || size > opts.maxMessageBytes) {
          release();
          m?.rejected('too_large');
          log.info('smtp message refused', { remote: session.remoteAddress, reason: 'too large', size, limit: opts.maxMessageBytes });
          return callback(smtpError(552, `5.3.4 message is ${size} bytes; the limit is ${opts.maxMessageBytes}`));
        }
        faultAt('end-of-data', session, {}, (err) => {
          if (!err) return store();
          release();
          callback(err);
        });
      });
      const store = () => {
        const rcpts = session.envelope.rcptTo.map((r) => r.address);
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : null;
        const t0 = performance.now();
        const facts = {
          clientIp: session.remoteAddress,
          helo: session.hostNameAppearsAs || null,
          tls: session.secure,
          authUser: authUserOf(session.user),
        };
        const work = ingest.accept({ raw: Buffer.concat(chunks, size), rcpts, mailFrom, source: 'smtp', session: facts }).then(
          (deliveries) => {
            m?.stored(size, (performance.now() - t0) / 1000);
            log.info('smtp message stored', {
              messageIds: deliveries.map((d) => d.messageId),
              inboxIds: deliveries.map((d) => d.inboxId ?? 'unclaimed'),
              size,
              senderDomain: domainOf(mailFrom),
              remote: session.remoteAddress,
            });
            callback(null, `stored as ${deliveries.map((d) => d.messageId).join(',')}`);
          },
          (e: Error) => {
            // A limit reached while committing (parallel sessions raced for the last slot): temporary, like at RCPT.
            m?.rejected(isMailRefused(e) ? 'limit_reached' : isOutOfSpace(e) ? 'storage_full' : 'storage_error');
            if (isMailRefused(e)) return callback(smtpError(452, e.smtpReply));
            log.error('could not store message', { err: e, size, remote: session.remoteAddress });
            if (isOutOfSpace(e)) callback(smtpError(452, '4.3.1 insufficient system storage; try again later'));
            else callback(smtpError(451, '4.3.0 temporary failure storing the message; try again'));
          },
        );
        inFlight.add(work);
        void work.finally(() => {
          inFlight.delete(work);
          release();
        });
      };
    },
  };
  server = new SMTPServer(options);
  acceptProxied(server.server, { trusted: opts.trustedProxies ?? new TrustedProxies([]), protocol: 'smtp', log });
  server.on('error', (e: Error) => log.warn('smtp error', { err: e }));

  const srv = server;
  const port = await new Promise<number>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => reject(e);
    srv.server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.server.off('error', onError);
      resolve((server.server.address() as AddressInfo).port);
    });
  });

  return {
    port,
    connections: () => server.connections.size,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** The AUTH user of a session: the name given (`--smtp-auth any`), or the API key's id (`required`), or null. */
function authUserOf(user: unknown): string | null {
  if (typeof user === 'string') return user || null;
  const keyId = (user as { keyId?: unknown } | undefined)?.keyId;
  return typeof keyId === 'string' ? `key:${keyId}` : null;
}

function domainOf(address: string | null): string | null {
  const at = address ? address.lastIndexOf('@') : -1;
  return at > 0 ? address!.slice(at + 1).toLowerCase() : null;
}

/** Disk full (or over quota) in the blob folder or SQLite: the temporary 452 of RFC 5321 §4.5.3.1.10. */
export function isOutOfSpace(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  return (
    code === 'ENOSPC' ||
    code === 'EDQUOT' ||
    code === 'SQLITE_FULL' ||
    (typeof err?.message === 'string' && /database or disk is full/i.test(err.message))
  );
}

/** Bytes held by messages in progress across all connections, and the streams paused until there is room again. */
class MemoryBudget {
  private used = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  take(n: number): void {
    this.used += n;
  }
  release(n: number): void {
    this.used -= n;
    while (this.used < this.limit && this.waiting.length > 0) this.waiting.shift()!();
  }
  full(): boolean {
    return this.used >= this.limit;
  }
  whenRoom(fn: () => void): void {
    this.waiting.push(fn);
  }
}
