// Narrow adjustments to smtp-server's connection, applied once at start:
// 1. Enhanced status codes: smtp-server derives the RFC 3463 code from the reply code alone for errors raised by
//    our handlers (550 → 5.1.1), but relay denial must read "550 5.7.1". Handlers put their enhanced code at the
//    start of the message, and such messages are sent as they are instead of gaining a second code.
// 2. Greeting delay: smtp-server holds every greeting for 100 ms to catch spam bots that talk first. inboxd is a
//    sink for test traffic, where that delay is pure latency on every connection, so the greeting goes out at once
//    (a client that talks early is still answered in order; it is not rejected).
// 3. Connections per client (an IPv4 address, an IPv6 /64: lib/client-address.ts): `maxClientsPerAddress` (our
//    option) caps how many connections one client may hold open; the surplus gets 421 and is closed. When all
//    `maxClients` places are taken, a newcomer takes the place of an idle session (between commands: not in DATA, no
//    handler deciding, no TLS handshake) of the client holding the most, longest idle first, if that client holds
//    more than the newcomer's would; that session gets `421 4.7.0` and is closed. Only when none qualifies is the
//    newcomer refused with 421.
// 4. Session limits: a client that sends NOOP/RSET forever (each command resets the idle timeout) would hold its
//    connection slot forever. `maxSessionMs` and `maxCommands` (our options) bound a session's lifetime and the
//    commands it sends without delivering a message (the count starts again at each message accepted with 250, so
//    an MTA that keeps its connection for a long batch is not cut); past either the client gets `421 4.7.0` and the
//    connection is closed. A message whose DATA is complete and being stored is never cut: the limit then applies at
//    the next command.
// 5. Fault hooks (issue 29): `onInboxdCommand` (our option) is asked before EHLO/HELO and DATA are handled, the two
//    stages smtp-server has no handler for; it may answer with an error of its own (then the command is not run), or
//    let it run. `dropSession` closes a session's socket without a reply (the fault action `disconnect`).
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { shareKey } from '../lib/client-address.ts';

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
let patched = false;

interface SessionLimitOptions {
  maxSessionMs?: number;
  maxCommands?: number;
  /** Told when a session is closed at a limit (for the log). */
  onSessionLimit?: (remoteAddress: string, why: 'lifetime' | 'commands') => void;
  /** Asked before EHLO/HELO (`ehlo`) and DATA (`data`, only once a recipient was accepted) run; an error is the reply. */
  onInboxdCommand?: (stage: 'ehlo' | 'data', session: unknown, done: (err: (Error & { responseCode?: number }) | null) => void) => void;
  /** Told when an idle session is closed to admit a newcomer (for the log). */
  onReclaim?: (closed: { remoteAddress: string; holds: number; idleMs: number }, admitted: string) => void;
}

interface ConnectionInternals {
  send(code: number, data: unknown, context?: unknown): void;
  init(): void;
  _setListeners(cb: () => void): void;
  connectionReady(): void;
  _onCommand(command: Buffer, callback?: () => void): void;
  _server: {
    options: { maxClients?: number; maxClientsPerAddress?: number } & SessionLimitOptions;
    connections: Set<ConnectionInternals>;
  };
  _socket: { once(ev: 'close', fn: () => void): void; destroy(): void };
  id: string;
  session: { envelope?: { rcptTo: unknown[] } };
  _handlerPending: boolean;
  _dataStream: unknown;
  _parser: { _dataMode?: boolean } | null;
  _closing: boolean;
  _upgrading?: boolean;
  name: string;
  remoteAddress: string;
  /** Ours: commands since the last accepted message, whether DATA/BDAT is under way, and whether the lifetime ran
   * out while a message was being stored. */
  _inboxdCommands?: number;
  _inboxdInData?: boolean;
  _inboxdExpired?: boolean;
  /** Ours: the client it counts against, and when it last connected or sent a command. */
  _inboxdKey?: string;
  _inboxdActiveAt?: number;
}

function closeAtLimit(conn: ConnectionInternals, why: 'lifetime' | 'commands'): void {
  const o = conn._server.options;
  conn._server.options.onSessionLimit?.(conn.remoteAddress, why);
  conn.send(
    421,
    why === 'lifetime'
      ? `4.7.0 ${conn.name} session lasted its limit of ${Math.round((o.maxSessionMs ?? 0) / 1000)} s; closing, reconnect to continue`
      : `4.7.0 ${conn.name} session sent its limit of ${o.maxCommands} commands; closing, reconnect to continue`,
  );
}

export function patchSmtpConnection(): void {
  if (patched) return;
  patched = true;
  const proto = SMTPConnection.prototype as unknown as ConnectionInternals;
  const send = proto.send;
  proto.send = function (this: ConnectionInternals, code, data, context) {
    // The answer to a message's end: 250 means delivered, so the command budget starts again (354 is not the end).
    if (this._inboxdInData && code !== 354) {
      this._inboxdInData = false;
      if (code === 250) this._inboxdCommands = 0;
    }
    if (context === undefined && typeof data === 'string' && ENHANCED.test(data)) return send.call(this, code, data, false);
    return send.call(this, code, data, context);
  };
  proto.init = function (this: ConnectionInternals) {
    this._inboxdKey = shareKey(this.remoteAddress);
    this._inboxdActiveAt = performance.now();
    this._setListeners(() => {
      const o = this._server.options;
      const counts = new Map<string, number>();
      for (const c of this._server.connections) {
        const k = c._inboxdKey ?? shareKey(c.remoteAddress);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      const mine = counts.get(this._inboxdKey!) ?? 1;
      if (o.maxClientsPerAddress && mine > o.maxClientsPerAddress)
        return this.send(421, `${this.name} too many connections from ${this.remoteAddress}, try again in a moment`, false);
      if (o.maxClients && this._server.connections.size > o.maxClients) {
        const victim = reclaimable(this, counts, mine);
        if (!victim) return this.send(421, this.name + ' too many connected clients, try again in a moment', false);
        o.onReclaim?.(
          {
            remoteAddress: victim.remoteAddress,
            holds: counts.get(victim._inboxdKey!) ?? 0,
            idleMs: Math.round(performance.now() - (victim._inboxdActiveAt ?? 0)),
          },
          this.remoteAddress,
        );
        victim.send(421, `4.7.0 ${victim.name} closing an idle session to admit another client; reconnect to continue`);
      }
      const lifetime = this._server.options.maxSessionMs;
      if (lifetime) {
        const timer = setTimeout(() => {
          if (this._closing) return;
          // DATA complete and the message being stored (or a handler still deciding): cut at the next command instead.
          const storing = this._handlerPending || (this._dataStream && this._parser && !this._parser._dataMode);
          if (storing) this._inboxdExpired = true;
          else closeAtLimit(this, 'lifetime');
        }, lifetime);
        timer.unref();
        this._socket.once('close', () => clearTimeout(timer));
      }
      setImmediate(() => this.connectionReady());
    });
  };
  const onCommand = proto._onCommand;
  proto._onCommand = function (this: ConnectionInternals, command, callback) {
    this._inboxdActiveAt = performance.now();
    if (this._inboxdExpired) return closeAtLimit(this, 'lifetime');
    const max = this._server.options.maxCommands;
    this._inboxdCommands = (this._inboxdCommands ?? 0) + 1;
    if (/^(DATA|BDAT)\b/i.test(command.toString('latin1', 0, 4))) this._inboxdInData = true;
    if (max && this._inboxdCommands > max) return closeAtLimit(this, 'commands');
    const hook = this._server.options.onInboxdCommand;
    if (hook) {
      const verb = command.toString('latin1', 0, 5).toUpperCase();
      const stage = /^(EHLO|HELO|LHLO)\b/.test(verb)
        ? 'ehlo'
        : /^DATA\b/.test(verb) && (this.session.envelope?.rcptTo.length ?? 0) > 0
          ? 'data'
          : null;
      if (stage)
        return hook(stage, this.session, (err) => {
          if (this._closing) return callback?.();
          if (!err) return onCommand.call(this, command, callback);
          this.send(err.responseCode ?? 451, err.message);
          callback?.();
        });
    }
    return onCommand.call(this, command, callback);
  };
}

/** Closes the socket of session `id` without a reply (a client sees the connection drop). */
export function dropSession(server: { connections: Set<unknown> }, id: string): void {
  for (const c of server.connections as Set<ConnectionInternals>) if (c.id === id) c._socket.destroy();
}

/**
 * The session to close for `newcomer`, whose client then holds `mine`: the longest-idle idle session of the client
 * holding the most among those holding more than `mine`; null if there is none.
 */
function reclaimable(newcomer: ConnectionInternals, counts: Map<string, number>, mine: number): ConnectionInternals | null {
  let best: ConnectionInternals | null = null;
  let bestHolds = 0;
  for (const c of newcomer._server.connections) {
    if (c === newcomer || c._closing || c._handlerPending || c._inboxdInData || c._dataStream || c._upgrading) continue;
    const holds = counts.get(c._inboxdKey!) ?? 0;
    if (holds <= mine || holds < bestHolds) continue;
    if (!best || holds > bestHolds || (c._inboxdActiveAt ?? 0) < (best._inboxdActiveAt ?? 0)) {
      best = c;
      bestHolds = holds;
    }
  }
  return best;
}

export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}
