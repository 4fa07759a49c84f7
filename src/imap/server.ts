// The IMAP4rev1 listener (RFC 3501, plus IDLE, NAMESPACE, UIDPLUS's UID EXPUNGE, SPECIAL-USE and STARTTLS): one
// mailbox per inbox — INBOX (received mail) and Sent (the sender's copies). Login is the inbox address and an API key
// or token whose team and label scope hold it (src/inboxes/mail-access.ts). UIDs are the inbox's message sequence
// numbers; UIDVALIDITY is the inbox's creation second. Bounded like the SMTP listener: connections in all and per
// client address, line, literal and command sizes (src/imap/parser.ts), a command budget, login and idle timeouts.
import net from 'node:net';
import tls from 'node:tls';
import type { InboxEvent } from '../events/bus.ts';
import { type Folder, LOGIN_REFUSED, type MailAccess, type MailLogin } from '../inboxes/mail-access.ts';
import { acceptProxied, keepPeer } from '../lib/proxied-connections.ts';
import { TrustedProxies } from '../lib/proxy-protocol.ts';
import type { Logger } from '../log.ts';
import { DELETED, flagBit, flagNames, SEEN } from '../mail/flags.ts';
import { type MimePart, parseMime, partAt } from '../mail/mime-tree.ts';
import type { MessageSummaryRow } from '../store/messages.ts';
import { bodyStructure, envelope, internalDate, type Out, parseSearchDate, str } from './format.ts';
import {
  asString,
  CommandReader,
  ParseError,
  parseSequenceSet,
  type RawCommand,
  type ReaderLimits,
  type Token,
  tokenize,
} from './parser.ts';

export interface ImapOptions {
  /** --trusted-proxies: connections from these start with a PROXY header naming the client. */
  trustedProxies?: TrustedProxies;
  host: string;
  port: number;
  /** TLS material for STARTTLS (the SMTP listener's); without it STARTTLS is not offered. */
  tls?: { key: Buffer | string; cert: Buffer | string } | null | undefined;
  maxConnections?: number;
  /** 0 = no limit. */
  maxConnectionsPerIp?: number;
  /** Commands a connection may send in a burst; the budget refills at this many per minute. */
  maxCommandsPerMinute?: number;
  /** Time to log in from connecting (then `* BYE`). */
  loginTimeoutMs?: number;
  /** Time without a command once logged in, IDLE included (RFC 3501 §5.4: at least 30 minutes). */
  idleTimeoutMs?: number;
  /** How often an IDLE session looks for changes the bus does not announce (deletes, flags, sent copies). */
  idlePollMs?: number;
  limits?: Partial<ReaderLimits>;
  /** Failed logins on one connection before it is closed. */
  maxAuthFailures?: number;
}

export interface AccessListener {
  port: number;
  close(): Promise<void>;
  connections(): number;
}

const MAILBOXES: Array<{ name: string; folder: Folder; attrs: string }> = [
  { name: 'INBOX', folder: 'inbox', attrs: '\\HasNoChildren' },
  { name: 'Sent', folder: 'sent', attrs: '\\HasNoChildren \\Sent' },
];
const FLAGS_LIST = '(\\Seen \\Deleted \\Flagged \\Answered \\Draft)';

export async function startImap(opts: ImapOptions, access: MailAccess, log: Logger): Promise<AccessListener> {
  const sessions = new Set<ImapSession>();
  const perIp = new Map<string, number>();
  const secureContext = opts.tls ? tls.createSecureContext({ key: opts.tls.key, cert: opts.tls.cert }) : null;
  const server = net.createServer((socket) => {
    const ip = socket.remoteAddress ?? '?';
    const maxAll = opts.maxConnections ?? 1000;
    const maxIp = opts.maxConnectionsPerIp ?? 200;
    if (sessions.size >= maxAll || (maxIp > 0 && (perIp.get(ip) ?? 0) >= maxIp)) {
      log.info('imap connection refused: too many connections', { remote: ip, limit: sessions.size >= maxAll ? maxAll : maxIp });
      socket.end('* BYE [UNAVAILABLE] too many connections; try again later\r\n');
      socket.on('error', () => undefined);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
    const session = new ImapSession(socket, opts, access, log, secureContext, () => {
      sessions.delete(session);
      const n = (perIp.get(ip) ?? 1) - 1;
      if (n <= 0) perIp.delete(ip);
      else perIp.set(ip, n);
    });
    sessions.add(session);
  });
  server.maxConnections = (opts.maxConnections ?? 1000) + 64;
  acceptProxied(server, { trusted: opts.trustedProxies ?? new TrustedProxies([]), protocol: 'imap', log });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
  server.on('error', (e) => log.warn('imap listener error', { err: e }));
  return {
    port,
    connections: () => sessions.size,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sessions) s.shutdown();
      await closed;
    },
  };
}

interface Entry {
  uid: number;
  id: string;
  flags: number;
  row: MessageSummaryRow;
}

class ImapSession {
  private sock: net.Socket | tls.TLSSocket;
  private readonly reader: CommandReader;
  private readonly queue: RawCommand[] = [];
  private busy = false;
  private closed = false;
  private secure = false;
  private login: MailLogin | null = null;
  private folder: Folder | null = null;
  private readOnly = false;
  private msgs: Entry[] = [];
  private lastUid = 0;
  private authFailures = 0;
  private idle: { tag: string; stop: () => void } | null = null;
  private authenticating: string | null = null;
  private tokens: number;
  private lastRefill = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private readonly loginDeadline: NodeJS.Timeout;
  private cache: { id: string; raw: Buffer; tree: MimePart } | null = null;

  private readonly opts: ImapOptions;
  private readonly access: MailAccess;
  private readonly log: Logger;
  private readonly secureContext: tls.SecureContext | null;
  private readonly onClose: () => void;

  constructor(
    socket: net.Socket,
    opts: ImapOptions,
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
    // APPEND is refused before its message is sent (no continuation), so the session goes on (a client saving a copy
    // of sent mail gets NO, not a dropped connection).
    this.reader = new CommandReader(opts.limits, (line) =>
      /^\S+ APPEND /i.test(line) ? '[CANNOT] inboxd folders take no APPEND: mail arrives over SMTP (sent copies by the send API)' : null,
    );
    this.tokens = this.budget();
    this.attach(socket);
    socket.once('close', () => this.closeDown());
    this.loginDeadline = setTimeout(() => {
      if (!this.login) this.bye('login timeout: log in within the first minute');
    }, opts.loginTimeoutMs ?? 60_000);
    this.loginDeadline.unref();
    this.touch();
    this.write(`* OK [CAPABILITY ${this.capabilities()}] inboxd IMAP4rev1 ready\r\n`);
  }

  private budget(): number {
    return this.opts.maxCommandsPerMinute ?? 1000;
  }

  private attach(s: net.Socket | tls.TLSSocket): void {
    s.on('data', (chunk: Buffer) => this.onData(chunk));
    s.on('error', () => undefined);
  }

  shutdown(): void {
    this.bye('server shutting down');
  }

  private closeDown(): void {
    if (this.closed) return;
    this.closed = true;
    this.idle?.stop();
    this.idle = null;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.loginDeadline);
    this.onClose();
  }

  private bye(why: string): void {
    if (this.closed) return;
    this.write(`* BYE ${why}\r\n`);
    this.sock.end();
    const s = this.sock;
    setTimeout(() => s.destroy(), 2000).unref();
    this.closeDown();
  }

  private touch(): void {
    if (this.timer) clearTimeout(this.timer);
    const ms = this.login ? (this.opts.idleTimeoutMs ?? 30 * 60_000) : (this.opts.loginTimeoutMs ?? 60_000);
    this.timer = setTimeout(() => this.bye('autologout; idle for too long'), ms);
    this.timer.unref();
  }

  private write(s: Out): boolean {
    if (this.closed && !this.sock.writable) return false;
    return this.sock.write(s);
  }

  private async send(parts: Out[]): Promise<void> {
    for (const p of parts) {
      if (this.sock.destroyed) return;
      if (!this.sock.write(p))
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

  private capabilities(): string {
    const caps = ['IMAP4rev1', 'IDLE', 'NAMESPACE', 'UIDPLUS', 'SPECIAL-USE', 'ID', 'UNSELECT'];
    if (this.secureContext && !this.secure) caps.push('STARTTLS');
    if (!this.login) caps.push('AUTH=PLAIN', 'SASL-IR');
    return caps.join(' ');
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.touch();
    for (const ev of this.reader.push(chunk)) {
      if (ev.kind === 'continue') this.write('+ Ready for literal data\r\n');
      else if (ev.kind === 'refused') this.queue.push({ parts: [ev.tag], refusal: ev.message });
      else if (ev.kind === 'overflow') {
        this.log.info('imap input over its limit', { remote: this.sock.remoteAddress, reason: ev.message });
        if (ev.tag) this.write(`${ev.tag} BAD [TOOBIG] ${ev.message}\r\n`);
        this.bye(`[TOOBIG] ${ev.message}`);
        return;
      } else {
        this.queue.push(ev.command);
      }
    }
    if (this.queue.length > 32) this.sock.pause();
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const cmd = this.queue.shift()!;
        try {
          await this.handle(cmd);
        } catch (e) {
          // A failure outside a command's own handling (a login lookup during AUTHENTICATE): the session cannot go on.
          this.log.error('imap session failed', { err: e as Error });
          this.bye('[SERVERBUG] internal error; reconnect');
        }
        if (this.queue.length <= 8 && this.sock.isPaused()) this.sock.resume();
      }
    } finally {
      this.busy = false;
    }
  }

  private spend(): boolean {
    const now = Date.now();
    const max = this.budget();
    this.tokens = Math.min(max, this.tokens + ((now - this.lastRefill) * max) / 60_000);
    this.lastRefill = now;
    this.tokens -= 1;
    return this.tokens >= 0;
  }

  private async handle(cmd: RawCommand): Promise<void> {
    const first = typeof cmd.parts[0] === 'string' ? cmd.parts[0] : '';
    if (this.idle) {
      const idle = this.idle;
      this.idle = null;
      idle.stop();
      if (cmd.parts.length === 1 && first.trim().toUpperCase() === 'DONE') await this.send([`${idle.tag} OK IDLE terminated\r\n`]);
      else await this.send([`${idle.tag} BAD expected DONE\r\n`]);
      return;
    }
    if (this.authenticating !== null) {
      const tag = this.authenticating;
      this.authenticating = null;
      if (first.trim() === '*') return void (await this.send([`${tag} BAD authentication cancelled\r\n`]));
      return this.plainLogin(tag, first.trim());
    }
    if (cmd.refusal !== undefined) {
      if (!this.spend()) return this.bye(`too many commands (more than ${this.budget()} a minute); reconnect later`);
      return void (await this.send([`${first} NO ${cmd.refusal}\r\n`]));
    }
    if (!this.spend()) {
      this.log.info('imap session closed at its command budget', { remote: this.sock.remoteAddress });
      return this.bye(`too many commands (more than ${this.budget()} a minute); reconnect later`);
    }
    let tokens: Token[];
    try {
      tokens = tokenize(cmd);
    } catch (e) {
      const tag = /^(\S+)/.exec(first)?.[1] ?? '*';
      return void (await this.send([`${tag} BAD ${(e as Error).message}\r\n`]));
    }
    const tag = tokens[0]?.t === 'atom' ? tokens[0].v : null;
    if (!tag || tag === '*' || tag === '+' || !/^[\x21-\x7e]{1,64}$/.test(tag))
      return void (await this.send(['* BAD missing or invalid tag\r\n']));
    let name = (asString(tokens[1]) ?? '').toUpperCase();
    let args = tokens.slice(2);
    let uid = false;
    if (name === 'UID') {
      uid = true;
      name = (asString(tokens[2]) ?? '').toUpperCase();
      args = tokens.slice(3);
    }
    try {
      await this.dispatch(tag, name, args, uid);
    } catch (e) {
      if (e instanceof ParseError) await this.send([`${tag} BAD ${e.message}\r\n`]);
      else {
        this.log.error('imap command failed', { err: e as Error, command: name });
        await this.send([`${tag} NO [SERVERBUG] the command failed; try again\r\n`]);
      }
    }
  }

  private async dispatch(tag: string, name: string, args: Token[], uid: boolean): Promise<void> {
    const ok = (text = `${name} completed`) => this.send([`${tag} OK ${text}\r\n`]);
    const no = (text: string) => this.send([`${tag} NO ${text}\r\n`]);
    if (uid && !['FETCH', 'STORE', 'SEARCH', 'EXPUNGE', 'COPY', 'MOVE'].includes(name))
      return this.send([`${tag} BAD UID ${name} is not a command\r\n`]);
    switch (name) {
      case 'CAPABILITY':
        await this.send([`* CAPABILITY ${this.capabilities()}\r\n`]);
        return ok();
      case 'NOOP':
      case 'CHECK':
        if (this.folder) await this.sync(true);
        return ok();
      case 'LOGOUT':
        await this.send(['* BYE inboxd logging out\r\n', `${tag} OK LOGOUT completed\r\n`]);
        this.sock.end();
        this.closeDown();
        return;
      case 'ID':
        await this.send(['* ID ("name" "inboxd")\r\n']);
        return ok();
      case 'ENABLE':
        await this.send(['* ENABLED\r\n']);
        return ok();
      case 'STARTTLS':
        return this.startTls(tag);
      case 'LOGIN': {
        if (this.login) return this.send([`${tag} BAD already logged in\r\n`]);
        const user = asString(args[0]);
        const pass = asString(args[1]);
        if (user === null || pass === null) throw new ParseError('LOGIN needs a user (the inbox address) and a password (an API key)');
        return this.doLogin(tag, user, pass);
      }
      case 'AUTHENTICATE': {
        if (this.login) return this.send([`${tag} BAD already logged in\r\n`]);
        const mech = (asString(args[0]) ?? '').toUpperCase();
        if (mech !== 'PLAIN') return no('[CANNOT] only AUTHENTICATE PLAIN is supported');
        const initial = asString(args[1]);
        if (initial !== null) return this.plainLogin(tag, initial);
        this.authenticating = tag;
        return this.send(['+ \r\n']);
      }
    }
    if (!this.login)
      return this.send([`${tag} BAD ${name || 'command'} is not valid before login (LOGIN or AUTHENTICATE PLAIN first)\r\n`]);
    switch (name) {
      case 'NAMESPACE':
        await this.send(['* NAMESPACE (("" "/")) NIL NIL\r\n']);
        return ok();
      case 'LIST':
      case 'LSUB':
        return this.list(tag, name, args);
      case 'STATUS':
        return this.status(tag, args);
      case 'SELECT':
      case 'EXAMINE':
        return this.select(tag, name, args);
      case 'SUBSCRIBE':
      case 'UNSUBSCRIBE':
        return ok();
      case 'CREATE':
      case 'DELETE':
      case 'RENAME':
      case 'APPEND':
        return no(`[CANNOT] inboxd has two fixed folders per inbox (INBOX and Sent); ${name} is not supported`);
    }
    if (!this.folder) return this.send([`${tag} BAD ${name || 'command'} needs a selected mailbox (SELECT INBOX first)\r\n`]);
    switch (name) {
      case 'FETCH':
        return this.fetch(tag, args, uid);
      case 'STORE':
        return this.store(tag, args, uid);
      case 'SEARCH':
        return this.search(tag, args, uid);
      case 'EXPUNGE':
        if (uid) {
          const set = asString(args[0]);
          if (set === null) throw new ParseError('UID EXPUNGE needs a UID set');
          return this.expunge(tag, set);
        }
        return this.expunge(tag, null);
      case 'CLOSE':
      case 'UNSELECT':
        if (name === 'CLOSE' && !this.readOnly) await this.removeDeleted(null, false);
        this.folder = null;
        this.msgs = [];
        return ok();
      case 'IDLE':
        return this.startIdle(tag);
      case 'COPY':
      case 'MOVE':
        return no('[CANNOT] inboxd folders are fixed; messages cannot be copied or moved');
    }
    return this.send([`${tag} BAD unknown command ${name.slice(0, 32)}\r\n`]);
  }

  private async startTls(tag: string): Promise<void> {
    if (!this.secureContext) return this.send([`${tag} NO STARTTLS is not available (the server has no TLS certificate)\r\n`]);
    if (this.secure) return this.send([`${tag} BAD TLS is already active\r\n`]);
    if (this.login) return this.send([`${tag} BAD STARTTLS only before login\r\n`]);
    await this.send([`${tag} OK Begin TLS negotiation now\r\n`]);
    // Whatever the client sent after STARTTLS in plain text is dropped (RFC 3501 §6.2.1).
    this.reader.reset();
    this.queue.length = 0;
    const plain = this.sock as net.Socket;
    plain.removeAllListeners('data');
    const secure = keepPeer(plain, new tls.TLSSocket(plain, { isServer: true, secureContext: this.secureContext }));
    this.secure = true;
    this.sock = secure;
    this.attach(secure);
  }

  private async plainLogin(tag: string, b64: string): Promise<void> {
    const decoded = Buffer.from(b64, 'base64').toString('utf8').split('\0');
    if (decoded.length !== 3) return this.send([`${tag} BAD AUTHENTICATE PLAIN needs base64 of authzid NUL user NUL password\r\n`]);
    const [authz, authc, pass] = decoded as [string, string, string];
    if (authz && authc && authz.toLowerCase() !== authc.toLowerCase())
      return this.send([`${tag} NO [AUTHORIZATIONFAILED] the authorization identity must be the inbox address itself\r\n`]);
    return this.doLogin(tag, authc || authz, pass);
  }

  private async doLogin(tag: string, user: string, pass: string): Promise<void> {
    const login = await this.access.login(user, pass);
    if (!login) {
      this.authFailures++;
      this.log.info('imap login refused', { remote: this.sock.remoteAddress });
      await this.send([`${tag} NO [AUTHENTICATIONFAILED] ${LOGIN_REFUSED}\r\n`]);
      if (this.authFailures >= (this.opts.maxAuthFailures ?? 3)) this.bye('too many failed logins');
      return;
    }
    this.login = login;
    clearTimeout(this.loginDeadline);
    this.touch();
    this.log.debug('imap login', { remote: this.sock.remoteAddress, inboxId: login.inbox.id, keyId: login.principal.keyId });
    await this.send([`${tag} OK [CAPABILITY ${this.capabilities()}] logged in to ${login.inbox.address}\r\n`]);
  }

  private async list(tag: string, name: string, args: Token[]): Promise<void> {
    // Selection options `LIST (…) ref pattern` and `RETURN (…)` are accepted and ignored.
    const a = args[0]?.t === 'list' ? args.slice(1) : args;
    const ref = asString(a[0]);
    const pattern = asString(a[1]);
    if (ref === null || pattern === null) throw new ParseError(`${name} needs a reference and a mailbox pattern`);
    const out: string[] = [];
    if (pattern === '') out.push(`* ${name} (\\Noselect) "/" ""\r\n`);
    else {
      const re = globToRegExp(ref + pattern);
      for (const m of MAILBOXES)
        if (re.test(m.name) || (m.name === 'INBOX' && re.test('inbox')) || (m.name === 'INBOX' && /^inbox$/i.test(ref + pattern)))
          out.push(`* ${name} (${m.attrs}) "/" ${str(m.name)}\r\n`);
    }
    await this.send([...out, `${tag} OK ${name} completed\r\n`]);
  }

  private mailbox(name: string | null): (typeof MAILBOXES)[number] | null {
    if (name === null) return null;
    if (name.toUpperCase() === 'INBOX') return MAILBOXES[0]!;
    return MAILBOXES.find((m) => m.name === name) ?? null;
  }

  private uidValidity(): number {
    return Math.max(1, Math.floor(this.login!.inbox.created_at / 1000) % 0xffffffff);
  }

  private async status(tag: string, args: Token[]): Promise<void> {
    const mb = this.mailbox(asString(args[0]));
    const items = args[1]?.t === 'list' ? args[1].v.map((t) => (asString(t) ?? '').toUpperCase()) : null;
    if (!items) throw new ParseError('STATUS needs a mailbox and a list of items');
    if (!mb) return this.send([`${tag} NO [NONEXISTENT] no such mailbox (INBOX and Sent exist)\r\n`]);
    const inbox = await this.access.current(this.login!.inbox);
    if (!inbox) return this.bye('the inbox was deleted');
    const rows = await this.access.folder(inbox, mb.folder);
    const vals: string[] = [];
    for (const it of items) {
      if (it === 'MESSAGES') vals.push(`MESSAGES ${rows.length}`);
      else if (it === 'RECENT') vals.push('RECENT 0');
      else if (it === 'UIDNEXT') vals.push(`UIDNEXT ${inbox.message_seq + 1}`);
      else if (it === 'UIDVALIDITY') vals.push(`UIDVALIDITY ${this.uidValidity()}`);
      else if (it === 'UNSEEN') vals.push(`UNSEEN ${rows.filter((r) => (r.flags & SEEN) === 0).length}`);
    }
    await this.send([`* STATUS ${str(mb.name)} (${vals.join(' ')})\r\n`, `${tag} OK STATUS completed\r\n`]);
  }

  private async select(tag: string, name: string, args: Token[]): Promise<void> {
    const mb = this.mailbox(asString(args[0]));
    this.folder = null;
    this.msgs = [];
    if (!mb) return this.send([`${tag} NO [NONEXISTENT] no such mailbox (INBOX and Sent exist)\r\n`]);
    const inbox = await this.access.current(this.login!.inbox);
    if (!inbox) return this.bye('the inbox was deleted');
    const rows = await this.access.folder(inbox, mb.folder);
    this.folder = mb.folder;
    this.readOnly = name === 'EXAMINE' || this.login!.readOnly;
    this.msgs = rows.map((r) => ({ uid: r.seq, id: r.id, flags: r.flags, row: r }));
    this.lastUid = this.msgs.at(-1)?.uid ?? 0;
    const firstUnseen = this.msgs.findIndex((m) => (m.flags & SEEN) === 0);
    const out = [
      `* FLAGS ${FLAGS_LIST}\r\n`,
      `* OK [PERMANENTFLAGS ${this.readOnly ? '()' : FLAGS_LIST}] flags kept per message\r\n`,
      `* ${this.msgs.length} EXISTS\r\n`,
      '* 0 RECENT\r\n',
      ...(firstUnseen >= 0 ? [`* OK [UNSEEN ${firstUnseen + 1}] first unseen\r\n`] : []),
      `* OK [UIDVALIDITY ${this.uidValidity()}] UIDs valid\r\n`,
      `* OK [UIDNEXT ${inbox.message_seq + 1}] predicted next UID\r\n`,
      `${tag} OK [${this.readOnly ? 'READ-ONLY' : 'READ-WRITE'}] ${name} completed\r\n`,
    ];
    await this.send(out);
  }

  /**
   * Brings the session's view of the folder up to date: messages deleted elsewhere are announced with EXPUNGE (only
   * where RFC 3501 §7.4.1 allows it), flag changes with FETCH, new mail with EXISTS.
   */
  private async sync(expunges: boolean): Promise<void> {
    if (!this.login || !this.folder) return;
    const inbox = await this.access.current(this.login.inbox);
    if (!inbox) return this.bye('the inbox was deleted or expired');
    const rows = await this.access.folder(inbox, this.folder);
    const byUid = new Map(rows.map((r) => [r.seq, r]));
    const out: string[] = [];
    if (expunges)
      for (let i = this.msgs.length - 1; i >= 0; i--) {
        if (!byUid.has(this.msgs[i]!.uid)) {
          out.push(`* ${i + 1} EXPUNGE\r\n`);
          this.msgs.splice(i, 1);
        }
      }
    this.msgs.forEach((m, i) => {
      const r = byUid.get(m.uid);
      if (r && r.flags !== m.flags) {
        m.flags = r.flags;
        out.push(`* ${i + 1} FETCH (FLAGS (${flagNames(m.flags).join(' ')}))\r\n`);
      }
    });
    const before = this.msgs.length;
    for (const r of rows) if (r.seq > this.lastUid) this.msgs.push({ uid: r.seq, id: r.id, flags: r.flags, row: r });
    this.lastUid = Math.max(this.lastUid, this.msgs.at(-1)?.uid ?? 0);
    if (this.msgs.length !== before || out.some((l) => l.includes('EXPUNGE'))) out.push(`* ${this.msgs.length} EXISTS\r\n`);
    if (out.length > 0) await this.send(out);
  }

  private async startIdle(tag: string): Promise<void> {
    const login = this.login!;
    let waking = false;
    let again = false;
    const wake = async () => {
      if (waking) {
        again = true;
        return;
      }
      waking = true;
      try {
        do {
          again = false;
          if (this.idle) await this.sync(true);
        } while (again);
      } catch (e) {
        this.log.error('imap idle update failed', { err: e as Error });
      } finally {
        waking = false;
      }
    };
    const unsubscribe = this.access.watch(login.inbox.id, (e: InboxEvent) => {
      if (e.type === 'inbox.deleted') return this.bye('the inbox was deleted');
      if (this.folder === 'inbox') void wake();
    });
    const poll = setInterval(() => void wake(), this.opts.idlePollMs ?? 15_000);
    poll.unref();
    this.idle = {
      tag,
      stop: () => {
        unsubscribe();
        clearInterval(poll);
      },
    };
    await this.send(['+ idling\r\n']);
  }

  /** The entries a sequence set (or UID set) names, with their sequence numbers. */
  private select_(set: string, uid: boolean): Array<{ seq: number; e: Entry }> {
    const max = uid ? (this.msgs.at(-1)?.uid ?? 0) : this.msgs.length;
    const test = parseSequenceSet(set, max);
    if (!test) throw new ParseError(`invalid ${uid ? 'UID' : 'sequence'} set ${set.slice(0, 64)}`);
    const out: Array<{ seq: number; e: Entry }> = [];
    this.msgs.forEach((e, i) => {
      if (test(uid ? e.uid : i + 1)) out.push({ seq: i + 1, e });
    });
    return out;
  }

  private async message(e: Entry): Promise<{ raw: Buffer; tree: MimePart } | null> {
    if (this.cache?.id === e.id) return this.cache;
    const raw = await this.access.raw(this.login!.inbox, e.id);
    if (!raw) return null;
    this.cache = { id: e.id, raw, tree: parseMime(raw) };
    return this.cache;
  }

  private async fetch(tag: string, args: Token[], uid: boolean): Promise<void> {
    const set = asString(args[0]);
    if (set === null || !args[1]) throw new ParseError('FETCH needs a sequence set and data items');
    let items: string[] = args[1].t === 'list' ? args[1].v.map((t) => asString(t) ?? '') : [asString(args[1]) ?? ''];
    const macro = items.length === 1 ? items[0]!.toUpperCase() : '';
    if (macro === 'ALL') items = ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE'];
    else if (macro === 'FAST') items = ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE'];
    else if (macro === 'FULL') items = ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE', 'BODY'];
    const wanted = items.map((i) => parseItem(i));
    if (uid && !wanted.some((w) => w.kind === 'UID')) wanted.unshift({ kind: 'UID' });
    const needsRaw = wanted.some((w) => ['ENVELOPE', 'BODY', 'BODYSTRUCTURE', 'SECTION'].includes(w.kind));
    const marks = !this.readOnly && wanted.some((w) => w.kind === 'SECTION' && !w.peek);
    const picked = this.select_(set, uid);
    const seen: string[] = [];
    for (const { seq, e } of picked) {
      const msg = needsRaw ? await this.message(e) : null;
      if (needsRaw && !msg) continue;
      if (marks && (e.flags & SEEN) === 0) {
        e.flags |= SEEN;
        seen.push(e.id);
      }
      const parts: Out[] = [];
      const push = (s: string) => parts.push(s);
      let first = true;
      const sep = () => {
        if (!first) push(' ');
        first = false;
      };
      push(`* ${seq} FETCH (`);
      let flagsSent = false;
      for (const w of wanted) {
        sep();
        switch (w.kind) {
          case 'UID':
            push(`UID ${e.uid}`);
            break;
          case 'FLAGS':
            flagsSent = true;
            push(`FLAGS (${flagNames(e.flags).join(' ')})`);
            break;
          case 'INTERNALDATE':
            push(`INTERNALDATE ${internalDate(e.row.received_at)}`);
            break;
          case 'RFC822.SIZE':
            push(`RFC822.SIZE ${e.row.size}`);
            break;
          case 'ENVELOPE':
            push(`ENVELOPE ${envelope(msg!.raw, msg!.tree)}`);
            break;
          case 'BODY':
            push(`BODY ${bodyStructure(msg!.raw, msg!.tree, false)}`);
            break;
          case 'BODYSTRUCTURE':
            push(`BODYSTRUCTURE ${bodyStructure(msg!.raw, msg!.tree, true)}`);
            break;
          case 'SECTION': {
            let bytes = sectionBytes(msg!.raw, msg!.tree, w.section);
            let label = w.name.startsWith('RFC822') ? w.name : `${w.name}[${w.section}]`;
            if (w.origin !== undefined) {
              bytes = bytes.subarray(
                Math.min(w.origin, bytes.length),
                w.length === undefined ? undefined : Math.min(bytes.length, w.origin + w.length),
              );
              label += `<${w.origin}>`;
            }
            push(`${label} {${bytes.length}}\r\n`);
            parts.push(bytes);
            break;
          }
        }
      }
      if (marks && !flagsSent && seen.includes(e.id)) {
        sep();
        push(`FLAGS (${flagNames(e.flags).join(' ')})`);
      }
      push(')\r\n');
      await this.send(parts);
    }
    if (seen.length > 0) await this.access.setFlags(this.login!, seen, SEEN, 0);
    await this.send([`${tag} OK ${uid ? 'UID ' : ''}FETCH completed\r\n`]);
  }

  private async store(tag: string, args: Token[], uid: boolean): Promise<void> {
    const set = asString(args[0]);
    const op = (asString(args[1]) ?? '').toUpperCase();
    const m = /^([+-]?)FLAGS(\.SILENT)?$/.exec(op);
    if (set === null || !m || !args[2]) throw new ParseError('STORE needs a set, FLAGS/+FLAGS/-FLAGS[.SILENT] and flags');
    if (this.readOnly) return this.send([`${tag} NO [READ-ONLY] the mailbox is read-only (EXAMINE, or a read-only key)\r\n`]);
    const names = args.slice(2).flatMap((t) => (t.t === 'list' ? t.v.map((x) => asString(x) ?? '') : [asString(t) ?? '']));
    let bits = 0;
    for (const n of names) bits |= flagBit(n) ?? 0;
    const picked = this.select_(set, uid);
    const ids = picked.map((p) => p.e.id);
    let add = 0;
    let remove = 0;
    if (m[1] === '+') add = bits;
    else if (m[1] === '-') remove = bits;
    else {
      add = bits;
      remove = 31 & ~bits;
    }
    await this.access.setFlags(this.login!, ids, add, remove);
    const out: string[] = [];
    for (const { seq, e } of picked) {
      e.flags = (e.flags | add) & ~remove;
      if (!m[2]) out.push(`* ${seq} FETCH (${uid ? `UID ${e.uid} ` : ''}FLAGS (${flagNames(e.flags).join(' ')}))\r\n`);
    }
    await this.send([...out, `${tag} OK ${uid ? 'UID ' : ''}STORE completed\r\n`]);
  }

  private async removeDeleted(uidSet: string | null, announce: boolean): Promise<string[]> {
    const test = uidSet === null ? () => true : parseSequenceSet(uidSet, this.msgs.at(-1)?.uid ?? 0);
    if (!test) throw new ParseError('invalid UID set');
    const doomed = this.msgs.filter((e) => (e.flags & DELETED) !== 0 && test(e.uid));
    if (doomed.length === 0) return [];
    await this.access.delete(
      this.login!,
      doomed.map((e) => e.id),
    );
    const out: string[] = [];
    const gone = new Set(doomed.map((e) => e.id));
    for (let i = this.msgs.length - 1; i >= 0; i--)
      if (gone.has(this.msgs[i]!.id)) {
        if (announce) out.push(`* ${i + 1} EXPUNGE\r\n`);
        this.msgs.splice(i, 1);
      }
    return out;
  }

  private async expunge(tag: string, uidSet: string | null): Promise<void> {
    if (this.readOnly) return this.send([`${tag} NO [READ-ONLY] the mailbox is read-only (EXAMINE, or a read-only key)\r\n`]);
    const out = await this.removeDeleted(uidSet, true);
    await this.send([...out, `${tag} OK EXPUNGE completed\r\n`]);
  }

  private async search(tag: string, args: Token[], uid: boolean): Promise<void> {
    let a = args;
    if ((asString(a[0]) ?? '').toUpperCase() === 'CHARSET') a = a.slice(2);
    if ((asString(a[0]) ?? '').toUpperCase() === 'RETURN') a = a.slice(2);
    const keys = parseSearch(a, this.msgs.at(-1)?.uid ?? 0, this.msgs.length);
    const hits: number[] = [];
    let bodyReads = 0;
    for (let i = 0; i < this.msgs.length; i++) {
      const e = this.msgs[i]!;
      const ctx: SearchCtx = {
        e,
        seq: i + 1,
        body: async () => {
          if (++bodyReads > 5000) throw new ParseError('BODY/TEXT search over more than 5000 messages; narrow it with a UID range');
          return (await this.access.bodies(this.login!.inbox, e.id)) ?? { text: '', headers: '[]' };
        },
      };
      if (await matchAll(keys, ctx)) hits.push(uid ? e.uid : i + 1);
    }
    await this.send([`* SEARCH${hits.map((h) => ` ${h}`).join('')}\r\n`, `${tag} OK ${uid ? 'UID ' : ''}SEARCH completed\r\n`]);
  }
}

// ── FETCH items and sections ─────────────────────────────────────────────────────────────────────────────────────
type Item =
  | { kind: 'UID' | 'FLAGS' | 'INTERNALDATE' | 'RFC822.SIZE' | 'ENVELOPE' | 'BODY' | 'BODYSTRUCTURE' }
  | { kind: 'SECTION'; name: string; section: string; peek: boolean; origin?: number; length?: number };

function parseItem(s: string): Item {
  const up = s.toUpperCase();
  if (['UID', 'FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE', 'BODY', 'BODYSTRUCTURE'].includes(up)) return { kind: up as 'UID' };
  if (up === 'RFC822') return { kind: 'SECTION', name: 'RFC822', section: '', peek: false };
  if (up === 'RFC822.HEADER') return { kind: 'SECTION', name: 'RFC822.HEADER', section: 'HEADER', peek: true };
  if (up === 'RFC822.TEXT') return { kind: 'SECTION', name: 'RFC822.TEXT', section: 'TEXT', peek: false };
  const m = /^(BODY(?:\.PEEK)?|BINARY(?:\.PEEK)?)\[([^\]]*)\](?:<(\d{1,10})(?:\.(\d{1,10}))?>)?$/i.exec(s);
  if (!m) throw new ParseError(`unknown FETCH item ${s.slice(0, 64)}`);
  const peek = /\.PEEK$/i.test(m[1]!);
  const item: Item = { kind: 'SECTION', name: 'BODY', section: m[2]!, peek };
  if (m[3] !== undefined) {
    item.origin = Number(m[3]);
    if (m[4] !== undefined) item.length = Number(m[4]);
  }
  return item;
}

/** RFC822 and its relatives answer under their own name, not BODY[…]. */
function sectionBytes(raw: Buffer, root: MimePart, section: string): Buffer {
  const m = /^((?:\d+\.)*\d+)?\.?(HEADER\.FIELDS\.NOT|HEADER\.FIELDS|HEADER|TEXT|MIME)?\s*(\(.*\))?$/i.exec(section.trim());
  if (!m) throw new ParseError(`invalid section ${section.slice(0, 64)}`);
  const path = m[1] ? m[1].split('.').map(Number) : [];
  const what = (m[2] ?? '').toUpperCase();
  const target = path.length > 0 ? partAt(root, path) : root;
  if (!target) return Buffer.alloc(0);
  if (what === '' && path.length === 0) return raw;
  if (what === '') return raw.subarray(target.bodyStart, target.bodyEnd);
  if (what === 'MIME') return path.length > 0 ? raw.subarray(target.headerStart, target.bodyStart) : Buffer.alloc(0);
  // HEADER and TEXT of a part address its encapsulated message.
  const msg = path.length === 0 ? root : target.message;
  if (!msg) return Buffer.alloc(0);
  if (what === 'TEXT') return raw.subarray(msg.bodyStart, msg.bodyEnd);
  const block = raw.subarray(msg.headerStart, msg.bodyStart);
  if (what === 'HEADER') return block;
  const names = new Set(
    (m[3] ?? '')
      .replace(/[()]/g, ' ')
      .split(/\s+/)
      .filter(Boolean)
      .map((n) => n.replace(/^"|"$/g, '').toLowerCase()),
  );
  const keepIfNamed = what === 'HEADER.FIELDS';
  const fields = block.toString('latin1').split(/(?=\r?\n[^ \t])/);
  let out = '';
  for (const f of fields) {
    const line = f.replace(/^\r?\n/, '');
    if (!line.trim()) continue;
    const name = line.slice(0, line.indexOf(':')).trim().toLowerCase();
    if (names.has(name) === keepIfNamed) out += line.replace(/\r?\n$/, '').replace(/\r?\n/g, '\r\n') + '\r\n';
  }
  return Buffer.from(out + '\r\n', 'latin1');
}

// ── SEARCH ───────────────────────────────────────────────────────────────────────────────────────────────────────
interface SearchCtx {
  e: Entry;
  seq: number;
  body(): Promise<{ text: string; headers: string }>;
}
type Key = (c: SearchCtx) => boolean | Promise<boolean>;

async function matchAll(keys: Key[], c: SearchCtx): Promise<boolean> {
  for (const k of keys) if (!(await k(c))) return false;
  return true;
}

const has = (hay: string | null | undefined, needle: string) => (hay ?? '').toLowerCase().includes(needle.toLowerCase());
const dayOf = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

function parseSearch(tokens: Token[], maxUid: number, count: number): Key[] {
  let i = 0;
  const next = (): Token => {
    const t = tokens[i++];
    if (!t) throw new ParseError('SEARCH: a key needs an argument');
    return t;
  };
  const arg = (): string => {
    const s = asString(next());
    if (s === null) throw new ParseError('SEARCH: expected a string');
    return s;
  };
  const date = (): number => {
    const s = arg();
    const d = parseSearchDate(s);
    if (d === null) throw new ParseError(`SEARCH: invalid date ${s.slice(0, 32)} (e.g. 1-Feb-2026)`);
    return d;
  };
  const flag =
    (bit: number, set: boolean): Key =>
    (c) =>
      ((c.e.flags & bit) !== 0) === set;
  const addrs = (json: string) =>
    (JSON.parse(json) as Array<{ name: string; address: string }>).map((a) => `${a.name} <${a.address}>`).join(', ');
  const one = (): Key => {
    const t = next();
    if (t.t === 'list') {
      const inner = parseSearch(t.v, maxUid, count);
      return (c) => matchAll(inner, c);
    }
    const k = t.v.toUpperCase();
    switch (k) {
      case 'ALL':
        return () => true;
      case 'SEEN':
      case 'UNSEEN':
        return flag(SEEN, k === 'SEEN');
      case 'DELETED':
      case 'UNDELETED':
        return flag(DELETED, k === 'DELETED');
      case 'FLAGGED':
      case 'UNFLAGGED':
        return flag(4, k === 'FLAGGED');
      case 'ANSWERED':
      case 'UNANSWERED':
        return flag(8, k === 'ANSWERED');
      case 'DRAFT':
      case 'UNDRAFT':
        return flag(16, k === 'DRAFT');
      case 'NEW':
      case 'RECENT':
        return () => false;
      case 'OLD':
        return () => true;
      case 'KEYWORD':
        arg();
        return () => false;
      case 'UNKEYWORD':
        arg();
        return () => true;
      case 'FROM': {
        const s = arg();
        return (c) => has(`${c.e.row.from_name ?? ''} <${c.e.row.from_address ?? ''}> ${c.e.row.mail_from ?? ''}`, s);
      }
      case 'TO': {
        const s = arg();
        return (c) => has(addrs(c.e.row.to_json), s);
      }
      case 'CC': {
        const s = arg();
        return (c) => has(addrs(c.e.row.cc_json), s);
      }
      case 'BCC':
        arg();
        return () => false;
      case 'SUBJECT': {
        const s = arg();
        return (c) => has(c.e.row.subject, s);
      }
      case 'BODY':
      case 'TEXT': {
        const s = arg();
        return async (c) => {
          const b = await c.body();
          return has(b.text, s) || (k === 'TEXT' && (has(b.headers, s) || has(c.e.row.subject, s)));
        };
      }
      case 'HEADER': {
        const name = arg().toLowerCase();
        const s = arg();
        return async (c) => {
          const headers = JSON.parse((await c.body()).headers) as Array<[string, string]>;
          return headers.some(([hn, hv]) => hn.toLowerCase() === name && has(hv, s));
        };
      }
      case 'SINCE': {
        const d = date();
        return (c) => dayOf(c.e.row.received_at) >= d;
      }
      case 'BEFORE': {
        const d = date();
        return (c) => dayOf(c.e.row.received_at) < d;
      }
      case 'ON': {
        const d = date();
        return (c) => dayOf(c.e.row.received_at) === d;
      }
      case 'SENTSINCE': {
        const d = date();
        return (c) => dayOf(c.e.row.date ?? c.e.row.received_at) >= d;
      }
      case 'SENTBEFORE': {
        const d = date();
        return (c) => dayOf(c.e.row.date ?? c.e.row.received_at) < d;
      }
      case 'SENTON': {
        const d = date();
        return (c) => dayOf(c.e.row.date ?? c.e.row.received_at) === d;
      }
      case 'LARGER': {
        const n = Number(arg());
        return (c) => c.e.row.size > n;
      }
      case 'SMALLER': {
        const n = Number(arg());
        return (c) => c.e.row.size < n;
      }
      case 'UID': {
        const test = parseSequenceSet(arg(), maxUid);
        if (!test) throw new ParseError('SEARCH UID: invalid UID set');
        return (c) => test(c.e.uid);
      }
      case 'NOT': {
        const inner = one();
        return async (c) => !(await inner(c));
      }
      case 'OR': {
        const a = one();
        const b = one();
        return async (c) => (await a(c)) || (await b(c));
      }
      default: {
        const test = parseSequenceSet(t.v, count);
        if (!test) throw new ParseError(`SEARCH: unknown key ${t.v.slice(0, 32)}`);
        return (c) => test(c.seq);
      }
    }
  };
  const keys: Key[] = [];
  while (i < tokens.length) keys.push(one());
  if (keys.length === 0) throw new ParseError('SEARCH needs a key (ALL, UNSEEN, FROM x, …)');
  return keys;
}

function globToRegExp(glob: string): RegExp {
  const re = glob
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/%/g, '[^/]*');
  return new RegExp(`^${re}$`);
}
