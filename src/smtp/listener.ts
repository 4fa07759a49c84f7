// The SMTP listener: protocol policy only (who may send what, how much, how fast); the message itself goes to
// ingest, and 250 is answered only once ingest has stored it durably.

import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions } from 'smtp-server';
import type { Principal } from '../auth/principal.ts';
import type { ServedDomains } from '../domains/served.ts';
import type { Ingest } from '../ingest/ingest.ts';
import { isMailRefused, MAX_RECIPIENTS } from '../ingest/limits.ts';
import type { Logger } from '../log.ts';
import type { SmtpMetrics, SmtpRejection } from '../metrics/metrics.ts';
import { patchSmtpConnection, smtpError } from './patches.ts';

export interface SmtpOptions {
  host: string;
  port: number;
  /** The domains mail is accepted for (SMTP answers 550 relaying denied for others). */
  served: ServedDomains;
  maxMessageBytes: number;
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
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
  const tls = opts.tlsCert && opts.tlsKey ? { cert: fs.readFileSync(opts.tlsCert), key: fs.readFileSync(opts.tlsKey) } : null;
  const inFlight = new Set<Promise<unknown>>();
  const budget = new MemoryBudget(opts.maxBufferedBytes ?? Math.max(256 * 1024 * 1024, 2 * opts.maxMessageBytes));
  /** What each session's message in progress holds of the budget, released when it is stored or the client leaves. */
  const held = new Map<string, () => void>();
  const m = opts.metrics;
  let lastReclaimLog = 0;

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
    // password must deliver unchanged, TLS or not (the credentials are test credentials or a revocable key).
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
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
      log.debug('smtp connection', { session: session.id, remote: session.remoteAddress });
      callback();
    },
    onAuth(auth, session, callback) {
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
            callback();
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
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size > opts.maxMessageBytes) return;
        chunks.push(c);
        if (size > FREE_BYTES_PER_MESSAGE) {
          counted += c.length;
          budget.take(c.length);
          if (budget.full() && !released) {
            stream.pause();
            budget.whenRoom(() => stream.resume());
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
      });
    },
  };
  const server = new SMTPServer(options);
  server.on('error', (e: Error) => log.warn('smtp error', { err: e }));

  const port = await new Promise<number>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => reject(e);
    server.server.once('error', onError);
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
