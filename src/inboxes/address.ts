// Addresses: generated local parts, and validation of ones a caller chooses (CONTRACT §2).
import crypto from 'node:crypto';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';

// RFC 5321 dot-atom, lower-cased; no quoted local parts (they are legal but no signup form accepts them).
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function generateLocalPart(): string {
  const bytes = crypto.randomBytes(12);
  let s = ALNUM[bytes[0]! % 26]!;
  for (let i = 1; i < 12; i++) s += ALNUM[bytes[i]! % 36];
  return s;
}

export function validateLocalPart(raw: string, field = 'localPart'): string {
  const local = raw.trim().toLowerCase();
  if (local.length === 0 || local.length > 64 || !LOCAL_PART.test(local)) {
    throw new AppError(
      'validation_failed',
      `${field} ${JSON.stringify(raw)} is not a valid e-mail local part (letters, digits and !#$%&'*+/=?^_\`{|}~.- ; 1-64 characters; no leading, trailing or double dots)`,
      {
        errors: [{ path: field, message: 'invalid local part' }],
      },
    );
  }
  return local;
}

/**
 * Resolves the requested address (a local part, or a full address at a served domain) or generates one at the
 * primary domain. With --accept-any-domain a full address may be at any well-formed domain.
 */
export function resolveAddress(req: { localPart?: string | undefined; address?: string | undefined }, served: ServedDomains): string {
  if (req.localPart !== undefined && req.address !== undefined) {
    throw new AppError('validation_failed', 'give either localPart or address, not both', {
      errors: [{ path: 'address', message: 'conflicts with localPart' }],
    });
  }
  if (req.address !== undefined) {
    const at = req.address.lastIndexOf('@');
    const domain =
      at > 0
        ? req.address
            .slice(at + 1)
            .trim()
            .toLowerCase()
        : '';
    if (!served.isServed(domain) && !(served.acceptAny && DOMAIN.test(domain))) {
      throw new AppError(
        'validation_failed',
        `address must be at a mail domain this inboxd serves (${served.describe()}); got ${JSON.stringify(req.address)}`,
        {
          errors: [{ path: 'address', message: 'domain not served by this inboxd' }],
        },
      );
    }
    return `${validateLocalPart(req.address.slice(0, at), 'address')}@${domain}`;
  }
  const local = req.localPart !== undefined ? validateLocalPart(req.localPart) : generateLocalPart();
  return `${local}@${served.primary}`;
}
