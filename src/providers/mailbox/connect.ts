// Connecting a mailbox account: the credentials are checked against the server first (IMAP login, SMTP login when
// given, or a Gmail token refresh and profile read) and nothing is stored when they fail; a working account is
// stored sealed. Used by the mailbox service (service.ts).
import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import type { ProviderAccountRow, ProviderAccounts } from '../accounts.ts';
import { redact, redacting } from '../redact.ts';
import { type GmailEndpoints, GmailMailbox, type GmailSecret } from './gmail.ts';
import { type ImapConfig, type ImapSecret, imapClient, imapError } from './imap.ts';

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
  const { default: nodemailer } = await import('nodemailer'); // loaded when an account is connected, not at start
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

/** What connecting needs: the accounts store, the clock and the Gmail endpoints. */
export interface ConnectDeps {
  providers: Pick<ProviderAccounts, 'requireSealing' | 'save'>;
  now: () => number;
  gmail: GmailEndpoints;
}

/** Checks the credentials against the server, then stores the account (sealed). Nothing is stored on any failure. */
export function connectMailbox(s: ConnectDeps, p: Principal, i: ConnectInput): Promise<ProviderAccountRow> {
  // A server's refusal is quoted in the answer; whatever of the credentials it echoes is cut out.
  return redacting([i.password, i.smtpPassword, i.clientSecret, i.refreshToken, i.accessToken], () => connectChecked(s, p, i));
}

async function connectChecked(s: ConnectDeps, p: Principal, i: ConnectInput): Promise<ProviderAccountRow> {
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
    expiresAt: i.accessToken ? s.now() + 300_000 : null,
  };
  const probe = new GmailMailbox(
    '(connecting)',
    '',
    secret,
    s.gmail,
    () => s.now(),
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
