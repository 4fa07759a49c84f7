// The POP3 listener (RFC 1939, CAPA of RFC 2449, STLS of RFC 2595): the maildrop is an inbox's received mail, as
// it stood at login. USER is the inbox address, PASS an API key or token whose team and label scope hold it
// (src/inboxes/mail-access.ts). RETR marks a message seen (\Seen, as Dovecot does); DELE marks it, and QUIT deletes
// the marked messages through the message service, as the REST delete does. Bounded: connections in all and per
// client address, line length, a command budget, login and idle timeouts.
import net from 'node:net';
import tls from 'node:tls';
import { LOGIN_REFUSED, type MailAccess, type MailLogin } from '../inboxes/mail-access.ts';
import { acceptProxied, keepPeer } from '../lib/proxied-connections.ts';
import { TrustedProxies } from '../lib/proxy-protocol.ts';
import type { Logger } from '../log.ts';
import { SEEN } from '../mail/flags.ts';
import type { MessageSummaryRow } from '../store/messages.ts';

export interface Pop3Options {
  /** --trusted-proxies: connections from these start with a PROXY header naming the client. */
  trustedProxies?: TrustedProxies;
  host: string;
  port: number;
  tls?: { key: Buffer | string; cert: Buffer | string } | null | undefined;
  maxConnections?: number;
  maxConnectionsPerIp?: number;
  /** Commands one connection may send in all (POP3 sessions are short). */
  maxCommands?: number;
  /** Longest a connection may stay open. */
  maxSessionMs?: number;
  /** Time without a command (RFC 1939 §3: at least 10 minutes; shorter for tests). */
  idleTimeoutMs?: number;
  maxLineBytes?: number;
  maxAuthFailures?: number;
}

export interface Pop3Listener {
  port: number;
  close(): Promise<void>;
  connections(): number;
}

export async function startPop3(opts: Pop3Options, access: MailAccess, log: Logger): Promise<Pop3Listener> {
  const sessions = new Set<Pop3Session>();
  const perIp = new Map<string, number>();
  const secureContext = opts.tls ? tls.createSecureContext({ key: opts.tls.key, cert: opts.tls.cert }) : null;
  const server = net.createServer((socket) => {
    const ip = socket.remoteAddress ?? '?';
    const maxAll = opts.maxConnections ?? 1000;
    const maxIp = opts.maxConnectionsPerIp ?? 200;
    if (sessions.size >= maxAll || (maxIp > 0 && (perIp.get(ip) ?? 0) >= maxIp)) {
      log.info('pop3 connection refused: too many connections', { remote: ip });
      socket.end('-ERR [SYS/TEMP] too many connections; try again later\r\n');
      socket.on('error', () => undefined);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
    const session = new Pop3Session(socket, opts, access, log, secureContext, () => {
      sessions.delete(session);
      const n = (perIp.get(ip) ?? 1) - 1;
      if (n <= 0) perIp.delete(ip);
      else perIp.set(ip, n);
    });
    sessions.add(session);
  });
  acceptProxied(server, { trusted: opts.trustedProxies ?? new TrustedProxies([]), protocol: 'pop3', log });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
  server.on('error', (e) => log.warn('pop3 listener error', { err: e }));
  return {
    port,
    connections: () => sessions.size,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sessions) s.end('-ERR server shutting down');
      await closed;
    },
  };
}

class Pop3Session {
  private sock: net.Socket | tls.TLSSocket;
  private buf = '';
  private readonly lines: string[] = [];
  private busy = false;
  private closed = false;
  private secure = false;
  private user: string | null = null;
  private login: MailLogin | null = null;
  private drop: MessageSummaryRow[] = [];
  private readonly marked = new Set<number>();
  private commands = 0;
  private authFailures = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly lifetime: NodeJS.Timeout;
  private readonly opts: Pop3Options;
  private readonly access: MailAccess;
  private readonly log: Logger;
  private readonly secureContext: tls.SecureContext | null;
  private readonly onClose: () => void;

  constructor(
    socket: net.Socket,
    opts: Pop3Options,
    access: MailAccess,
    log: Logger,
    secureContext: tls.SecureContext | null,
    onClose: () => void,
  ) {
    this.opts = opts;
    this.access = access;
    this.log = log;
    this.secureContext = secureContext;
    this.onClose = onClose;
    this.sock = socket;
    this.attach(socket);
    socket.once('close', () => this.closeDown());
    this.lifetime = setTimeout(() => this.end('-ERR session too long; reconnect'), opts.maxSessionMs ?? 600_000);
    this.lifetime.unref();
    this.touch();
    this.sock.write('+OK inboxd POP3 ready\r\n');
  }

  private attach(s: net.Socket | tls.TLSSocket): void {
    s.setEncoding('latin1');
    s.on('data', (d: string) => this.onData(d));
    s.on('error', () => undefined);
  }

  private touch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.end('-ERR idle for too long'), this.opts.idleTimeoutMs ?? 600_000);
    this.timer.unref();
  }

  end(line: string): void {
    if (this.closed) return;
    this.sock.write(`${line}\r\n`);
    this.sock.end();
    const s = this.sock;
    setTimeout(() => s.destroy(), 2000).unref();
    this.closeDown();
  }

  private closeDown(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.lifetime);
    this.onClose();
  }

  private onData(d: string): void {
    if (this.closed) return;
    this.touch();
    this.buf += d;
    const max = this.opts.maxLineBytes ?? 1024;
    let nl = this.buf.indexOf('\n');
    while (nl >= 0) {
      if (nl > max) {
        this.end(`-ERR line longer than ${max} bytes`);
        return;
      }
      this.lines.push(this.buf.slice(0, nl).replace(/\r$/, ''));
      this.buf = this.buf.slice(nl + 1);
      nl = this.buf.indexOf('\n');
    }
    if (this.buf.length > max) {
      this.end(`-ERR line longer than ${max} bytes`);
      return;
    }
    if (this.lines.length > 32) this.sock.pause();
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.lines.length > 0 && !this.closed) {
        const line = this.lines.shift()!;
        try {
          await this.handle(line);
        } catch (e) {
          this.log.error('pop3 command failed', { err: e as Error });
          await this.send('-ERR [SYS/TEMP] the command failed; try again');
        }
        if (this.lines.length <= 8 && this.sock.isPaused()) this.sock.resume();
      }
    } finally {
      this.busy = false;
    }
  }

  private async send(...parts: Array<string | Buffer>): Promise<void> {
    for (const p of parts) {
      if (this.sock.destroyed) return;
      const chunk = typeof p === 'string' ? `${p}\r\n` : p;
      if (!this.sock.write(chunk))
        await new Promise<void>((r) => {
          const done = () => {
            this.sock.off('drain', done);
            this.sock.off('close', done);
            r();
          };
          this.sock.once('drain', done);
          this.sock.once('close', done);
        });
    }
  }

  private async handle(line: string): Promise<void> {
    if (++this.commands > (this.opts.maxCommands ?? 1000)) {
      this.log.info('pop3 session closed at its command limit', { remote: this.sock.remoteAddress });
      return this.end(`-ERR [SYS/TEMP] more than ${this.opts.maxCommands ?? 1000} commands; reconnect`);
    }
    const sp = line.indexOf(' ');
    const cmd = (sp < 0 ? line : line.slice(0, sp)).toUpperCase();
    const arg = sp < 0 ? '' : line.slice(sp + 1);
    const args = arg.split(' ').filter(Boolean);
    if (cmd === 'QUIT') return this.quit();
    if (cmd === 'CAPA') {
      const caps = ['TOP', 'UIDL', 'USER', 'RESP-CODES', 'AUTH-RESP-CODE', 'PIPELINING', 'IMPLEMENTATION inboxd'];
      if (this.secureContext && !this.secure && !this.login) caps.push('STLS');
      if (!this.login) caps.push('SASL PLAIN');
      return this.send('+OK capability list follows', ...caps, '.');
    }
    if (cmd === 'NOOP') return this.send('+OK');
    if (!this.login) {
      switch (cmd) {
        case 'STLS':
          return this.stls();
        case 'USER':
          if (!arg) return this.send('-ERR USER needs the inbox address');
          this.user = arg.trim();
          return this.send('+OK now PASS with an inboxd API key');
        case 'PASS':
          if (this.user === null) return this.send('-ERR USER first');
          return this.doLogin(this.user, arg);
        case 'AUTH': {
          if ((args[0] ?? '').toUpperCase() !== 'PLAIN' || !args[1]) return this.send('-ERR only AUTH PLAIN <base64> is supported');
          const parts = Buffer.from(args[1], 'base64').toString('utf8').split('\0');
          if (parts.length !== 3) return this.send('-ERR AUTH PLAIN needs base64 of authzid NUL user NUL password');
          return this.doLogin(parts[1] || parts[0]!, parts[2]!);
        }
        default:
          return this.send(`-ERR ${cmd.slice(0, 16) || 'command'} is not valid before login (USER and PASS first)`);
      }
    }
    const num = (s: string | undefined): MessageSummaryRow | null | 'bad' => {
      if (s === undefined || !/^[1-9]\d{0,9}$/.test(s)) return 'bad';
      const n = Number(s);
      if (n > this.drop.length || this.marked.has(n)) return null;
      return this.drop[n - 1]!;
    };
    switch (cmd) {
      case 'STAT': {
        const live = this.drop.filter((_, i) => !this.marked.has(i + 1));
        return this.send(`+OK ${live.length} ${live.reduce((a, m) => a + m.size, 0)}`);
      }
      case 'LIST':
      case 'UIDL': {
        const show = (m: MessageSummaryRow, i: number) => `${i + 1} ${cmd === 'LIST' ? m.size : m.id}`;
        if (args[0] !== undefined) {
          const m = num(args[0]);
          if (m === 'bad') return this.send(`-ERR ${cmd} takes a message number`);
          if (!m) return this.send('-ERR no such message');
          return this.send(`+OK ${show(m, Number(args[0]) - 1)}`);
        }
        const out = this.drop.flatMap((m, i) => (this.marked.has(i + 1) ? [] : [show(m, i)]));
        return this.send(`+OK ${out.length} messages`, ...out, '.');
      }
      case 'RETR':
      case 'TOP': {
        const m = num(args[0]);
        if (m === 'bad') return this.send(`-ERR ${cmd} takes a message number`);
        if (!m) return this.send('-ERR no such message');
        let lines: number | null = null;
        if (cmd === 'TOP') {
          if (!/^\d{1,9}$/.test(args[1] ?? '')) return this.send('-ERR TOP takes a message number and a line count');
          lines = Number(args[1]);
        }
        const raw = await this.access.raw(this.login.inbox, m.id);
        if (!raw) return this.send('-ERR the message was deleted meanwhile');
        if (cmd === 'RETR' && (m.flags & SEEN) === 0) {
          await this.access.setFlags(this.login, [m.id], SEEN, 0);
          m.flags |= SEEN;
        }
        return this.send(`+OK ${raw.length} octets`, dotStuff(raw, lines), '.');
      }
      case 'DELE': {
        const m = num(args[0]);
        if (m === 'bad') return this.send('-ERR DELE takes a message number');
        if (!m) return this.send('-ERR no such message');
        if (this.login.readOnly) return this.send('-ERR this key is read-only; it cannot delete mail');
        this.marked.add(Number(args[0]));
        return this.send(`+OK message ${args[0]} marked; deleted at QUIT`);
      }
      case 'RSET':
        this.marked.clear();
        return this.send(`+OK ${this.drop.length} messages`);
      case 'STLS':
        return this.send('-ERR STLS only before login');
      default:
        return this.send(`-ERR unknown command ${cmd.slice(0, 16)}`);
    }
  }

  private async stls(): Promise<void> {
    if (!this.secureContext) return this.send('-ERR STLS is not available (the server has no TLS certificate)');
    if (this.secure) return this.send('-ERR TLS is already active');
    await this.send('+OK begin TLS negotiation');
    this.buf = '';
    this.lines.length = 0;
    const plain = this.sock as net.Socket;
    plain.removeAllListeners('data');
    const secure = keepPeer(plain, new tls.TLSSocket(plain, { isServer: true, secureContext: this.secureContext }));
    this.secure = true;
    this.sock = secure;
    this.attach(secure);
  }

  private async doLogin(user: string, pass: string): Promise<void> {
    const login = await this.access.login(user, pass);
    if (!login) {
      this.user = null;
      this.log.info('pop3 login refused', { remote: this.sock.remoteAddress });
      await this.send(`-ERR [AUTH] ${LOGIN_REFUSED}`);
      if (++this.authFailures >= (this.opts.maxAuthFailures ?? 3)) this.end('-ERR too many failed logins');
      return;
    }
    this.login = login;
    this.drop = await this.access.folder(login.inbox, 'inbox');
    this.log.debug('pop3 login', { remote: this.sock.remoteAddress, inboxId: login.inbox.id, keyId: login.principal.keyId });
    await this.send(`+OK ${login.inbox.address} has ${this.drop.length} messages`);
  }

  private async quit(): Promise<void> {
    if (this.login && this.marked.size > 0) {
      const ids = [...this.marked].map((n) => this.drop[n - 1]!.id);
      const n = await this.access.delete(this.login, ids);
      return this.end(`+OK ${n} messages deleted; bye`);
    }
    this.end('+OK bye');
  }
}

/**
 * The message for RETR/TOP: CRLF line ends, lines starting with "." doubled (RFC 1939 §3), and for TOP the header
 * plus the first `lines` lines of the body; the terminating "." line is sent after it.
 */
export function dotStuff(raw: Buffer, lines: number | null): Buffer {
  const text = raw.toString('latin1');
  const all = text.split(/\r?\n/);
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  let out: string[] = all;
  if (lines !== null) {
    const blank = all.indexOf('');
    out = blank < 0 ? all : all.slice(0, blank + 1 + lines);
  }
  return Buffer.from(out.map((l) => (l.startsWith('.') ? `.${l}` : l)).join('\r\n') + '\r\n', 'latin1');
}
