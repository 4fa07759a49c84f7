// smtp-server derives the RFC 3463 enhanced code from the reply code alone for errors raised by our handlers
// (550 → 5.1.1), but relay denial must read "550 5.7.1". Handlers therefore put the enhanced code at the start of
// the error message, and this wrapper sends such messages as they are instead of prefixing a second code.
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
let patched = false;

export function sendOwnEnhancedCodes(): void {
  if (patched) return;
  patched = true;
  const proto = SMTPConnection.prototype as unknown as { send(code: number, data: unknown, context?: unknown): void };
  const original = proto.send;
  proto.send = function (this: unknown, code: number, data: unknown, context?: unknown) {
    if (context === undefined && typeof data === 'string' && ENHANCED.test(data)) return original.call(this, code, data, false);
    return original.call(this, code, data, context);
  };
}

export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}
