// Which mailbox a tool acts on, and connecting one. No account and no accountId → the local mailbox (inboxd's own
// inboxes); `local` selects it explicitly; otherwise a connected IMAP or Gmail account (ProviderAccounts.pick).
// Connecting checks the credentials against the server first and stores nothing when they fail.
import nodemailer from 'nodemailer';
import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import { redact, redacting } from '../redact.ts';
import type { Services } from '../../services.ts';
import { notConnected, type ProviderAccountRow } from '../accounts.ts';
import { GmailMailbox, type GmailSecret } from './gmail.ts';
import { type ImapConfig, ImapMailbox, type ImapSecret, imapClient, imapError } from './imap.ts';
import { LocalMailbox } from './local.ts';
import type { MailboxProvider } from './types.ts';

export const DEFAULT_GMAIL_API_BASE = 'https://gmail.googleapis.com';
export const DEFAULT_GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

function endpoints(s: Services) {
  const c = s.config as { gmailApiBase?: string; googleTokenUrl?: string };
  return { apiBase: c.gmailApiBase ?? DEFAULT_GMAIL_API_BASE, tokenUrl: c.googleTokenUrl ?? DEFAULT_GOOGLE_TOKEN_URL };
}

/** A connected account works on the team's real mailbox, which a key scoped to some inboxes' labels must not read. */
function requireUnscoped(p: Principal): void {
  if (p.scope.labelPrefix !== null)
    throw new AppError(
      'forbidden',
      `this key is scoped to labels starting with "${p.scope.labelPrefix}" and sees only those inboxes: use the local mailbox (accountId "local" or none), or an unscoped key for a connected account`,
    );
}

export function adapterFor(s: Services, p: Principal, row: ProviderAccountRow): MailboxProvider {
  requireUnscoped(p);
  const now = () => s.clock.now();
  if (row.provider === 'imap') {
    const o = s.providers.open<ImapConfig, ImapSecret>(row);
    return new ImapMailbox(row.id, o.config, o.secret, now);
  }
  if (row.provider === 'gmail') {
    const o = s.providers.open<{ address: string }, GmailSecret>(row);
    return new GmailMailbox(row.id, o.config.address, o.secret, endpoints(s), now, async (secret) => {
      await s.providers.save({
        teamId: row.team_id,
        kind: 'mailbox',
        provider: 'gmail',
        address: row.address,
        config: o.config,
        secret: { ...secret },
      });
    });
  }
  throw new AppError('internal', `mailbox account ${row.id} has an unknown provider ${row.provider}`);
}

/** The mailbox a tool call names; `remoteOnly` for tools that need a connected account. */
export async function openMailbox(
  s: Services,
  p: Principal,
  accountId: string | undefined,
  what: string,
  remoteOnly = false,
): Promise<MailboxProvider> {
  if (accountId === 'local') return new LocalMailbox(s, p);
  if (accountId !== undefined && !(await s.providers.list(p.teamId, 'mailbox')).length) throw notConnected('mailbox', what);
  const row = await s.providers.pick(p.teamId, 'mailbox', accountId);
  if (!row) {
    if (remoteOnly) throw notConnected('mailbox', what);
    return new LocalMailbox(s, p);
  }
  return adapterFor(s, p, row);
}

/** Runs `fn` on the mailbox and closes it; the account's status records whether the server answered. */
export async function withMailbox<T>(
  s: Services,
  p: Principal,
  accountId: string | undefined,
  what: string,
  fn: (m: MailboxProvider) => Promise<T>,
): Promise<T> {
  const m = await openMailbox(s, p, accountId, what);
  try {
    const out = await redacting(m.secrets?.() ?? [], () => fn(m));
    if (m.kind !== 'local') await s.providers.mark(m.accountId, { ok: true });
    return out;
  } catch (e) {
    if (m.kind !== 'local' && e instanceof AppError && e.code === 'unavailable')
      await s.providers.mark(m.accountId, { ok: false, error: e.detail });
    throw e;
  } finally {
    await m.close().catch(() => undefined);
  }
}

export interface ConnectInput {
  provider: 'imap' | 'gmail';
  label?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  secure?: boolean | undefined;
  user?: string | undefined;
  password?: string | undefined;
  address?: string | undefined;
  tlsInsecure?: boolean | undefined;
  smtpHost?: string | undefined;
  smtpPort?: number | undefined;
  smtpSecure?: boolean | undefined;
  smtpUser?: string | undefined;
  smtpPassword?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  refreshToken?: string | undefined;
  accessToken?: string | undefined;
}

function need<K extends keyof ConnectInput>(i: ConnectInput, keys: K[]): void {
  const missing = keys.filter((k) => i[k] === undefined || i[k] === '');
  if (missing.length)
    throw new AppError('validation_failed', `provider ${i.provider} needs ${missing.join(', ')}`, {
      errors: missing.map((k) => ({ path: k, message: `required for provider ${i.provider}` })),
    });
}

async function checkSmtp(c: NonNullable<ImapConfig['smtp']>, password: string | null, tlsInsecure: boolean): Promise<void> {
  const t = nodemailer.createTransport({
    host: c.host,
    port: c.port,
    secure: c.secure,
    ...(c.user ? { auth: { user: c.user, pass: password ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    ...(tlsInsecure ? { tls: { rejectUnauthorized: false } } : {}),
  });
  try {
    await t.verify();
  } catch (e) {
    const err = e as { code?: string; response?: string; message?: string };
    if (err.code === 'EAUTH')
      throw new AppError(
        'validation_failed',
        `the SMTP server ${c.host}:${c.port} refused the login of ${c.user}: check smtpUser and smtpPassword`,
        {
          errors: [{ path: 'smtpPassword', message: 'SMTP login failed' }],
        },
      );
    throw new AppError(
      'unavailable',
      `cannot reach the SMTP server ${c.host}:${c.port}: ${redact(err.code ?? err.message ?? 'error', [password]).slice(0, 200)}; check smtpHost, smtpPort and smtpSecure`,
    );
  } finally {
    t.close();
  }
}

/** Checks the credentials against the server, then stores the account (sealed). Nothing is stored on any failure. */
export function connectMailbox(s: Services, p: Principal, i: ConnectInput): Promise<ProviderAccountRow> {
  // A server's refusal is quoted in the answer; whatever of the credentials it echoes is cut out.
  return redacting([i.password, i.smtpPassword, i.clientSecret, i.refreshToken, i.accessToken], () => connectChecked(s, p, i));
}

async function connectChecked(s: Services, p: Principal, i: ConnectInput): Promise<ProviderAccountRow> {
  if (i.provider === 'imap') need(i, ['host', 'user', 'password']);
  else need(i, ['clientId', 'clientSecret', 'refreshToken']);
  s.providers.requireSealing('mailbox');
  if (i.provider === 'imap') {
    const port = i.port ?? 993;
    const user = i.user!;
    const address = (i.address ?? (user.includes('@') ? user : `${user}@${i.host}`)).toLowerCase();
    const smtp = i.smtpHost
      ? { host: i.smtpHost, port: i.smtpPort ?? 587, secure: i.smtpSecure ?? (i.smtpPort ?? 587) === 465, user: i.smtpUser ?? null }
      : null;
    const config: ImapConfig = {
      host: i.host!,
      port,
      secure: i.secure ?? port === 993,
      user,
      address,
      tlsInsecure: i.tlsInsecure ?? false,
      smtp,
    };
    const secret: ImapSecret = { password: i.password!, smtpPassword: i.smtpPassword ?? null };
    const c = await imapClient(config, secret);
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.list();
      await c.logout();
    } catch (e) {
      c.close();
      throw imapError(e, config, secret);
    }
    if (smtp) await checkSmtp(smtp, secret.smtpPassword ?? null, config.tlsInsecure);
    return s.providers.save({
      teamId: p.teamId,
      kind: 'mailbox',
      provider: 'imap',
      address,
      label: i.label ?? null,
      config: { ...config },
      secret: { ...secret },
    });
  }
  let secret: GmailSecret = {
    clientId: i.clientId!,
    clientSecret: i.clientSecret!,
    refreshToken: i.refreshToken!,
    accessToken: i.accessToken ?? null,
    expiresAt: i.accessToken ? s.clock.now() + 300_000 : null,
  };
  const probe = new GmailMailbox(
    '(connecting)',
    '',
    secret,
    endpoints(s),
    () => s.clock.now(),
    async (n) => {
      secret = n;
    },
  );
  const profile = await probe.api<{ emailAddress?: string }>('profile');
  const address = (profile.emailAddress ?? '').toLowerCase();
  if (!address) throw new AppError('unavailable', 'the Gmail API profile has no emailAddress; check --gmail-api-base');
  return s.providers.save({
    teamId: p.teamId,
    kind: 'mailbox',
    provider: 'gmail',
    address,
    label: i.label ?? null,
    config: { address },
    secret: { ...secret },
  });
}
