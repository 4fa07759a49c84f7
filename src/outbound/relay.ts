// The operator's SMTP relay (--smtp-relay): nodemailer's pooled SMTP transport, STARTTLS when the relay offers it,
// DKIM-signed when the sending domain has a key. One call hands one message to the relay for some recipients and
// says, per recipient, whether the relay took it, refused it for good (5xx) or only for now (4xx, no connection,
// timeout) — the outbox retries the last kind.
// nodemailer (and its transports) is loaded with the first message relayed: a server that never relays never pays for it.
import type nodemailer from 'nodemailer';

export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The DKIM key of a sending domain (a verified custom domain, src/domains/) for mail of the sending team, or null to
 * send unsigned (never another team's key).
 */
export type DkimFor = (domain: string, teamId: string) => DkimKey | null | Promise<DkimKey | null>;

export interface RcptOutcome {
  rcpt: string;
  accepted: boolean;
  /** A 5xx answer: retrying will not help. */
  permanent: boolean;
  /** The relay's answer, or what went wrong talking to it (never credentials). */
  response: string;
}

export interface RelayOptions {
  url: string;
  user: string | undefined;
  password: string | undefined;
  /** Connections kept open to the relay. */
  maxConnections?: number;
  /** Connect, greeting and socket inactivity limit per attempt. */
  timeoutMs?: number;
  /** Accept any certificate (--smtp-relay-tls-insecure). */
  tlsInsecure?: boolean;
}

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
  code?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

export interface MailSender {
  send(raw: Buffer, from: string, rcpts: string[], dkim: DkimKey | null): Promise<RcptOutcome[]>;
  close(): void;
}

export class Relay implements MailSender {
  private readonly options: Parameters<typeof nodemailer.createTransport>[0];
  private transport: Promise<ReturnType<typeof nodemailer.createTransport>> | null = null;
  /** host:port, for logs (the URL never carries credentials: config refuses them). */
  readonly target: string;

  constructor(o: RelayOptions) {
    const u = new URL(o.url);
    const secure = u.protocol === 'smtps:';
    const port = Number(u.port || (secure ? 465 : 587));
    this.target = `${u.hostname}:${port}`;
    const timeout = o.timeoutMs ?? 60_000;
    this.options = {
      pool: true,
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port,
      secure,
      maxConnections: o.maxConnections ?? 5,
      maxMessages: 1000,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      auth: o.user !== undefined ? { user: o.user, pass: o.password ?? '' } : undefined,
      // STARTTLS is used whenever the relay offers it (nodemailer's default), and the certificate is checked (the
      // relay login and the mail must not go to whoever answers in its place) unless the operator says otherwise.
      tls: { rejectUnauthorized: !o.tlsInsecure },
      logger: false,
      debug: false,
    };
  }

  private pool(): Promise<ReturnType<typeof nodemailer.createTransport>> {
    this.transport ??= import('nodemailer').then((m) => m.default.createTransport(this.options));
    return this.transport;
  }

  async send(raw: Buffer, from: string, rcpts: string[], dkim: DkimKey | null): Promise<RcptOutcome[]> {
    try {
      const info = (await (
        await this.pool()
      ).sendMail({
        envelope: { from, to: rcpts },
        raw,
        ...(dkim ? { dkim } : {}),
      })) as { accepted?: unknown[]; rejectedErrors?: SmtpError[]; response?: string };
      const accepted = new Set((info.accepted ?? []).map((a) => String(a).toLowerCase()));
      const errors = new Map((info.rejectedErrors ?? []).map((e) => [String(e.recipient ?? '').toLowerCase(), e]));
      return rcpts.map((rcpt) => {
        if (accepted.has(rcpt.toLowerCase())) return { rcpt, accepted: true, permanent: false, response: info.response ?? '250' };
        return failure(rcpt, errors.get(rcpt.toLowerCase()) ?? null);
      });
    } catch (e) {
      const err = e as SmtpError;
      const per = new Map((err.rejectedErrors ?? []).map((r) => [String(r.recipient ?? '').toLowerCase(), r]));
      return rcpts.map((rcpt) => failure(rcpt, per.get(rcpt.toLowerCase()) ?? err));
    }
  }

  close(): void {
    const transport = this.transport;
    this.transport = null;
    transport?.then(
      (t) => t.close(),
      () => {},
    );
  }
}

function failure(rcpt: string, e: SmtpError | null): RcptOutcome {
  if (!e) return { rcpt, accepted: false, permanent: false, response: 'the relay neither accepted nor refused this recipient' };
  const code = e.responseCode;
  const response = (e.response ?? (e.code ? `${e.code}: ${e.message}` : e.message)).replace(/[\r\n]+/g, ' ').slice(0, 500);
  // A refused login is the operator's to fix (credentials), not the recipient's fault: retried like a 4xx.
  const permanent = code !== undefined && code >= 500 && code < 600 && e.code !== 'EAUTH';
  return { rcpt, accepted: false, permanent, response };
}
