// Where callbacks may go (CONTRACT §5): https by default; plain http, loopback and private ranges only when the
// operator allows them; link-local, metadata and unspecified addresses never. The same rules run twice: on the URL
// when an inbox is created (a clear 400), and on the resolved IP right before each attempt, which is then the IP
// connected to — so a name that later resolves somewhere internal (DNS rebinding) is still refused.
import net from 'node:net';
import type { ResolvedAddress, Resolver } from '../lib/addresses.ts';
import { classifyAddress, embeddedIpv4 } from '../lib/addresses.ts';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

export type { AddressClass, ResolvedAddress, Resolver } from '../lib/addresses.ts';
export { classifyAddress, embeddedIpv4, ipv6Groups, systemResolver } from '../lib/addresses.ts';

/** Why this address may not receive callbacks under the policy, or null. */
export function refuseAddress(ip: string, policy: TargetPolicy): string | null {
  const c = classifyAddress(ip);
  const inner = c === 'public' ? null : embeddedIpv4(ip);
  const shown = inner ? `${ip} (IPv4 ${inner})` : ip;
  if (c === 'never') return `${shown} is a link-local, metadata or otherwise unroutable address; callbacks never go there`;
  if (c === 'private' && !policy.allowPrivate)
    return `${shown} is a loopback or private address; the operator must start inboxd with --allow-private-callbacks`;
  return null;
}

export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Why this URL may not receive callbacks, judged without DNS (at inbox creation and before each attempt): the
 * scheme, IP literals and `localhost` names. Null when acceptable so far (names are checked once resolved).
 */
export function refuseUrl(raw: string, policy: TargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'callbackUrl is not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'callbackUrl must be an https URL';
  if (url.protocol === 'http:' && !policy.allowHttp)
    return 'callbackUrl must use https; plain http needs the operator to start inboxd with --allow-http-callbacks';
  const host = hostOf(url).toLowerCase();
  if (net.isIP(host)) return refuseAddress(host, policy);
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return policy.allowPrivate ? null : `${host} is the loopback host; the operator must start inboxd with --allow-private-callbacks`;
  }
  return null;
}

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/**
 * The address to connect to for this URL: the first resolved address the policy allows. Throws TargetRefused
 * when none is allowed (and lets resolver errors through, which are ordinary, retryable failures).
 */
export async function resolveTarget(url: URL, policy: TargetPolicy, resolve: Resolver): Promise<ResolvedAddress> {
  const reason = refuseUrl(url.href, policy);
  if (reason) throw new TargetRefused(reason);
  const host = hostOf(url);
  const family = net.isIP(host);
  const candidates: ResolvedAddress[] = family ? [{ address: host, family: family === 6 ? 6 : 4 }] : await resolve(host);
  if (candidates.length === 0) throw new Error(`${host} has no addresses`);
  let firstRefusal: string | null = null;
  for (const c of candidates) {
    const why = refuseAddress(c.address, policy);
    if (!why) return c;
    firstRefusal ??= why;
  }
  throw new TargetRefused(family ? firstRefusal! : `${host} resolves to ${firstRefusal!}`);
}

/** Query parameter names whose values are credentials (matched anywhere in the name, any case). */
const SECRET_PARAM = /token|secret|sig|pass|pwd|auth|key|credential|session|code|hmac|jwt/i;
/** A path segment that looks like a generated secret (Slack-style hook paths): long, with letters and digits. */
const SECRET_SEGMENT = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{20,}$/;
export const REDACTED = 'REDACTED';

/**
 * A callback URL as shown to callers who may not see its credentials (members, read-only keys): userinfo,
 * secret-looking query values, secret-looking path segments and the fragment become REDACTED. Host, port and
 * the rest of the path stay, so the caller can still tell where callbacks go.
 */
export function redactUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return REDACTED;
  }
  if (u.username || u.password) {
    u.username = REDACTED;
    u.password = '';
  }
  u.pathname = u.pathname
    .split('/')
    .map((seg) => (SECRET_SEGMENT.test(seg) ? REDACTED : seg))
    .join('/');
  if (u.search) {
    const params = [...u.searchParams].map(([k, v]) => [k, SECRET_PARAM.test(k) ? REDACTED : v] as [string, string]);
    u.search = new URLSearchParams(params).toString();
  }
  if (u.hash) u.hash = REDACTED;
  return u.href;
}

/**
 * The answer with every `callbackUrl` string in it redacted. Only the objects on the path to a changed URL are copied;
 * an answer without one (most answers) comes back as it is, with nothing allocated.
 */
export function redactCallbackUrls<T>(value: T): T {
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const r = redactCallbackUrls(value[i]);
      if (r !== value[i]) (out ??= [...value])[i] = r;
    }
    return (out ?? value) as T;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const r = k === 'callbackUrl' && typeof v === 'string' ? redactUrl(v) : redactCallbackUrls(v);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
}
