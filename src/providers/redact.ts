// A remote server's error text (an IMAP NO, a token endpoint's error_description, a CalDAV body) is quoted in our
// answers so the caller can act on it; some servers echo what they were sent, a password or a refresh token included.
// Every secret the call held is cut out of such text before it reaches an answer, a log line or an account's status.

const MASK = '[redacted]';

/** Forms a secret may come back in: as sent, URL-encoded (query strings, form bodies) and base64 (SASL). */
function formsOf(secret: string): string[] {
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  return [...new Set([secret, encodeURIComponent(secret), form, Buffer.from(secret).toString('base64')])];
}

/** `text` without any of `secrets` (shorter than 4 characters are left: they would blank out ordinary words). */
export function redact(text: string, secrets: ReadonlyArray<string | null | undefined>): string {
  let out = text;
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length < 4) continue;
    for (const f of formsOf(s)) out = out.split(f).join(MASK);
  }
  return out;
}

/** The same error with the secrets cut out of its message (an AppError keeps its code and status). */
export function redactError(e: unknown, secrets: ReadonlyArray<string | null | undefined>): unknown {
  if (e instanceof Error) {
    const clean = redact(e.message, secrets);
    if (clean !== e.message) e.message = clean;
  }
  return e;
}

/** Runs `fn`; whatever it throws leaves without the secrets in its message. */
export async function redacting<T>(secrets: ReadonlyArray<string | null | undefined>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw redactError(e, secrets);
  }
}
