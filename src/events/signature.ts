// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 key bytes, and
// `webhook-signature` is `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`.
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new per-inbox callback secret: 32 random bytes. */
export function newCallbackSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = crypto.createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one attempt (the timestamp is the attempt's, so each retry re-signs). */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureOf(secret, id, timestampSeconds, body),
  };
}
