// Three narrow adjustments to smtp-server's connection, applied once at start:
// 1. Enhanced status codes: smtp-server derives the RFC 3463 code from the reply code alone for errors raised by
//    our handlers (550 → 5.1.1), but relay denial must read "550 5.7.1". Handlers put their enhanced code at the
//    start of the message, and such messages are sent as they are instead of gaining a second code.
// 2. Greeting delay: smtp-server holds every greeting for 100 ms to catch spam bots that talk first. inboxd is a
//    sink for test traffic, where that delay is pure latency on every connection, so the greeting goes out at once
//    (a client that talks early is still answered in order; it is not rejected).
// 3. Connections per client address: `maxClientsPerAddress` (our option) caps how many connections one address may
//    hold open, checked where smtp-server checks its overall `maxClients`; the surplus gets 421 and is closed.
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
let patched = false;

interface ConnectionInternals {
  send(code: number, data: unknown, context?: unknown): void;
  init(): void;
  _setListeners(cb: () => void): void;
  connectionReady(): void;
  _server: { options: { maxClients?: number; maxClientsPerAddress?: number }; connections: Set<{ remoteAddress?: string }> };
  name: string;
  remoteAddress: string;
}

export function patchSmtpConnection(): void {
  if (patched) return;
  patched = true;
  const proto = SMTPConnection.prototype as unknown as ConnectionInternals;
  const send = proto.send;
  proto.send = function (this: ConnectionInternals, code, data, context) {
    if (context === undefined && typeof data === 'string' && ENHANCED.test(data)) return send.call(this, code, data, false);
    return send.call(this, code, data, context);
  };
  proto.init = function (this: ConnectionInternals) {
    this._setListeners(() => {
      const max = this._server.options.maxClients;
      if (max && this._server.connections.size > max)
        return this.send(421, this.name + ' too many connected clients, try again in a moment', false);
      const perAddress = this._server.options.maxClientsPerAddress;
      if (perAddress) {
        let same = 0;
        for (const c of this._server.connections) if (c.remoteAddress === this.remoteAddress) same++;
        if (same > perAddress)
          return this.send(421, `${this.name} too many connections from ${this.remoteAddress}, try again in a moment`, false);
      }
      setImmediate(() => this.connectionReady());
    });
  };
}

export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}
