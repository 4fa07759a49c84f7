// The Config fields that are not rows of the option table, and the checks that span several options.
// Secrets come from the environment only: argv shows up in `ps`, shell history and logs. The steps run in this
// order because the first failure is the one reported.
import { parseSecretKey } from '../lib/sealed.ts';
import { parsePgUrl } from '../store/pg-url.ts';
import { type S3Credentials, s3CredentialsFromEnv } from '../store/s3-url.ts';
import type { OptionKey, OptionValues } from './options.ts';
import { UsageError } from './usage-error.ts';

/** The fields loadConfig adds to the parsed options; Config is OptionValues & DerivedValues. */
export type DerivedValues = ReturnType<typeof derivedValues>;

/** `from(key)` names where an option's value came from (its flag or its variable), for messages. */
export function derivedValues(o: OptionValues, env: NodeJS.ProcessEnv, from: (key: OptionKey) => string) {
  if ((o.smtpTlsCert === undefined) !== (o.smtpTlsKey === undefined)) {
    throw new UsageError('--smtp-tls-cert and --smtp-tls-key go together: give both or neither');
  }
  if (o.smtpTls === 'auto' && o.smtpTlsCert !== undefined) {
    throw new UsageError('--smtp-tls auto makes its own certificate; drop it to use --smtp-tls-cert/--smtp-tls-key, or drop those');
  }
  if (o.smtpRequireTls && o.smtpTls !== 'auto' && o.smtpTlsCert === undefined) {
    throw new UsageError(
      '--smtp-require-tls needs STARTTLS: add --smtp-tls auto (a self-signed certificate) or --smtp-tls-cert/--smtp-tls-key',
    );
  }
  let blobStoreCredentials: S3Credentials | undefined;
  if (o.blobStore !== undefined) {
    try {
      blobStoreCredentials = s3CredentialsFromEnv(env);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const mailgunSigningKey = env.INBOXD_MAILGUN_SIGNING_KEY || undefined;
  // Mailgun signs every webhook; accepting unsigned posts on a public route would let anyone inject mail.
  if (o.inboundWebhooks.includes('mailgun') && mailgunSigningKey === undefined) {
    throw new UsageError(
      '--inbound-webhooks mailgun needs INBOXD_MAILGUN_SIGNING_KEY (the HTTP webhook signing key from the Mailgun dashboard) to verify requests',
    );
  }
  if (o.database !== undefined) {
    const t = parsePgUrl(o.database);
    // The value is not echoed: it may hold a password.
    if (typeof t === 'string') throw new UsageError(`${from('database')}: the URL ${t}`);
  }
  const adminKey = adminKeyFrom(env.INBOXD_ADMIN_KEY);
  const secretKey = secretKeyFrom(env.INBOXD_SECRET_KEY);
  return {
    /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN only, and only with --blob-store. */
    blobStoreCredentials,
    /** From INBOXD_MAILGUN_SIGNING_KEY only (a secret); required when --inbound-webhooks includes mailgun. */
    mailgunSigningKey,
    /** From INBOXD_SMTP_RELAY_USER / INBOXD_SMTP_RELAY_PASSWORD only (a secret never belongs in argv). */
    smtpRelayUser: env.INBOXD_SMTP_RELAY_USER || undefined,
    smtpRelayPassword: env.INBOXD_SMTP_RELAY_PASSWORD || undefined,
    /** INBOXD_DATABASE_PASSWORD (env only); pg falls back to PGPASSWORD itself. */
    databasePassword: env.INBOXD_DATABASE_PASSWORD || undefined,
    /** From INBOXD_ADMIN_KEY only: a secret never belongs in argv, where `ps` shows it. */
    adminKey,
    /** From INBOXD_BILLING_SECRET_KEY only. */
    billingSecretKey: env.INBOXD_BILLING_SECRET_KEY || undefined,
    /** From INBOXD_OPENAI_API_KEY / INBOXD_ANTHROPIC_API_KEY only (secrets). */
    openaiApiKey: env.INBOXD_OPENAI_API_KEY || undefined,
    anthropicApiKey: env.INBOXD_ANTHROPIC_API_KEY || undefined,
    /** From INBOXD_SECRET_KEY only: seals DKIM private keys (and later other credentials) at rest (src/lib/sealed.ts). */
    secretKey,
  };
}

/** A guessable bootstrap admin key is an open door: at least 24 characters of a token alphabet (`ibx_` + 32 fits). */
function adminKeyFrom(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length >= 24 && raw.length <= 256 && /^[A-Za-z0-9._~+/=-]+$/.test(raw)) return raw;
  throw new UsageError(
    `INBOXD_ADMIN_KEY must be 24 to 256 characters of A-Z a-z 0-9 . _ ~ + / = - (got ${raw.length} characters${/^[A-Za-z0-9._~+/=-]*$/.test(raw) ? '' : ', some outside that set'}); use e.g. "ibx_" + 32 random letters and digits, or unset it to have one generated`,
  );
}

/** A bad INBOXD_SECRET_KEY must stop the start: running on with plain keys would store secrets the operator meant sealed. */
function secretKeyFrom(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (parseSecretKey(raw) !== null) return raw;
  throw new UsageError(
    'INBOXD_SECRET_KEY must be 32 random bytes as 64 hex digits or as base64 (44 characters); make one with: openssl rand -hex 32',
  );
}
