import crypto from 'node:crypto';
import { randomBase62 } from '../lib/ids.ts';

export const KEY_PREFIX = 'ibx_';
export const TOKEN_PREFIX = 'ibt_';
const KEY_SHAPE = /^ib[xt]_[0-9A-Za-z]{32}$/;

export function newKeySecret(): string {
  return KEY_PREFIX + randomBase62(32);
}

export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBase62(32);
}

/**
 * Secrets are 190 bits of randomness, so a plain sha256 is a safe at-rest hash (no need for a slow KDF), and the
 * lookup by hash means the comparison never runs over the secret itself character by character.
 */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function looksLikeSecret(s: string): boolean {
  return KEY_SHAPE.test(s);
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
