// Secrets at rest (DKIM private keys; later provider credentials): AES-256-GCM under the operator's INBOXD_SECRET_KEY.
// A sealed value names the key it was sealed with (a short fingerprint), so a changed or missing key is reported as
// exactly that instead of as a corrupt value, and an unsealed value (stored while no key was set) is recognisable.
import crypto from 'node:crypto';

const PREFIX = 'sealed:v1:';

/** 32 bytes from 64 hex digits or base64 (with or without padding), or null when the text is neither. */
export function parseSecretKey(raw: string): Buffer | null {
  const s = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) {
    const b = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  return null;
}

/** Why a sealed value could not be opened: the key is missing, another key sealed it, or the bytes were changed. */
export class SealedError extends Error {
  override name = 'SealedError';
  readonly reason: 'no_key' | 'other_key' | 'corrupt';
  constructor(reason: 'no_key' | 'other_key' | 'corrupt', message: string) {
    super(message);
    this.reason = reason;
  }
}

export class Sealer {
  private readonly key: Buffer | null;
  /** First 8 hex digits of sha256(key): tells keys apart without revealing anything useful about them. */
  readonly fingerprint: string | null;

  /** `secretKey`: INBOXD_SECRET_KEY as given (validated by the config), or undefined for "store plainly". */
  constructor(secretKey: string | undefined) {
    this.key = secretKey ? parseSecretKey(secretKey) : null;
    if (secretKey && !this.key) throw new Error('INBOXD_SECRET_KEY is not 32 bytes of hex or base64');
    this.fingerprint = this.key ? crypto.createHash('sha256').update(this.key).digest('hex').slice(0, 8) : null;
  }

  get enabled(): boolean {
    return this.key !== null;
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /**
   * Seals `plain` (returned as is when no key is set). `context` (e.g. the row id) is bound in as associated data,
   * so a sealed value copied onto another row does not open there.
   */
  seal(plain: string, context: string): string {
    if (!this.key) return plain;
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `${PREFIX}${this.fingerprint}:${iv.toString('base64url')}:${Buffer.concat([body, c.getAuthTag()]).toString('base64url')}`;
  }

  /** The plain value of a stored one (sealed or not). Throws SealedError when it cannot be opened. */
  open(stored: string, context: string): string {
    if (!Sealer.isSealed(stored)) return stored;
    const [fp, ivText, dataText] = stored.slice(PREFIX.length).split(':');
    if (!fp || !ivText || !dataText) throw new SealedError('corrupt', 'the sealed value is malformed');
    if (!this.key) throw new SealedError('no_key', `sealed with key ${fp}, but INBOXD_SECRET_KEY is not set`);
    if (fp !== this.fingerprint)
      throw new SealedError('other_key', `sealed with key ${fp}, but INBOXD_SECRET_KEY is key ${this.fingerprint}`);
    const data = Buffer.from(dataText, 'base64url');
    if (data.length < 16) throw new SealedError('corrupt', 'the sealed value is truncated');
    try {
      const d = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(ivText, 'base64url'));
      d.setAAD(Buffer.from(context, 'utf8'));
      d.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]).toString('utf8');
    } catch {
      throw new SealedError('corrupt', 'the sealed value does not authenticate (changed, or sealed for another record)');
    }
  }
}
