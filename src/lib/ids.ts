import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = crypto.randomBytes(length * 2);
    for (const b of bytes) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'inb' | 'msg' | 'att' | 'thr' | 'key' | 'cli' | 'tok' | 'dom' | 'rem' | 'act' | 'run' | 'team' | 'dlv';

/** Opaque identifier with a type prefix (CONTRACT §3), e.g. `inb_3kT9…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
