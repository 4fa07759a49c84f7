// What the SMTP session knew when a message arrived (issue 28): recorded by ingest on the recipient row
// (`message_rows.session_json`, migration 026) and read back by the checks (SPF needs the client address and HELO).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Handed by the SMTP listener to ingest; the envelope sender and the time are stored in their own columns. */
export interface SmtpSessionInfo {
  /** The connecting address (an IPv4-mapped IPv6 address is given as IPv4). */
  clientIp: string;
  /** The EHLO/HELO name the client gave (null if it sent none). */
  helo: string | null;
  /** The session ran over TLS (STARTTLS or implicit). */
  tls: boolean;
  /** The SMTP AUTH user name, or `key:<id>` under --smtp-auth required; null without AUTH. */
  authUser: string | null;
}

/** The stored facts of one message, shaped like `SessionFacts` (src/checks/types.ts). */
export interface StoredSessionFacts {
  clientIp: string | null;
  helo: string | null;
  mailFrom: string | null;
  tls: boolean;
  authUser: string | null;
  receivedAt: string;
}

/** The column value: short keys, bounded strings (a HELO is at most a line; a user name is cut at 256). */
export function encodeSession(s: SmtpSessionInfo | undefined): string | null {
  if (!s) return null;
  return JSON.stringify({
    ip: s.clientIp.startsWith('::ffff:') && s.clientIp.includes('.') ? s.clientIp.slice(7) : s.clientIp,
    helo: s.helo === null ? null : s.helo.slice(0, 512),
    tls: s.tls,
    auth: s.authUser === null ? null : s.authUser.slice(0, 256),
  });
}

export class SessionFactsRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** The session facts of a message, or null when it did not arrive over SMTP (simulate, webhook, send, older mail). */
  async get(messageId: string): Promise<StoredSessionFacts | null> {
    const row = await this.db
      .selectFrom('message_rows')
      .select(['session_json', 'mail_from', 'received_at'])
      .where('id', '=', messageId)
      .executeTakeFirst();
    if (!row?.session_json) return null;
    return decodeSession(row.session_json, row.mail_from, Number(row.received_at));
  }
}

export function decodeSession(json: string, mailFrom: string | null, receivedAt: number): StoredSessionFacts | null {
  let v: { ip?: unknown; helo?: unknown; tls?: unknown; auth?: unknown };
  try {
    v = JSON.parse(json) as typeof v;
  } catch {
    return null;
  }
  return {
    clientIp: typeof v.ip === 'string' ? v.ip : null,
    helo: typeof v.helo === 'string' ? v.helo : null,
    mailFrom,
    tls: v.tls === true,
    authUser: typeof v.auth === 'string' ? v.auth : null,
    receivedAt: new Date(receivedAt).toISOString(),
  };
}
