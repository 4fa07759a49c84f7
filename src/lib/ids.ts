import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from a pool refilled 4 KiB at a time: ids are made several times per stored message, and one
// getrandom call per id showed up on the ingest path's profile.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let at = 0;
function randomByte(): number {
  if (at >= pool.length) {
    pool = crypto.randomBytes(POOL_SIZE);
    at = 0;
  }
  return pool[at++]!;
}

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

/** Milliseconds since the epoch as 8 base62 digits (enough until the year 8888), most significant first. */
function timePart(ms: number): string {
  let n = Math.max(0, Math.floor(ms));
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export type IdPrefix =
  | 'inb'
  | 'msg'
  | 'att'
  | 'thr'
  | 'key'
  | 'cli'
  | 'tok'
  | 'dom'
  | 'rem'
  | 'act'
  | 'run'
  | 'team'
  | 'dlv'
  | 'pac'
  | 'evt'
  | 'flt'
  | 'fev'
  | 'lbr'
  | 'chk'
  | 'ins';

/**
 * Opaque identifier with a type prefix (CONTRACT §3), e.g. `inb_0Lq3xV2a…`: 8 characters of creation time, then 12
 * random ones (71 bits). Ids made later sort later (in byte order), so rows keyed by them are appended at the end of
 * their indexes instead of landing on a random page each: fewer pages written per commit on the ingest path. Clients
 * must still treat ids as opaque.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${timePart(Date.now())}${randomBase62(12)}`;
}
