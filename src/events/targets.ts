// Where callbacks may go (CONTRACT §5): https by default; plain http, loopback and private ranges only when the
// operator allows them; link-local, metadata and unspecified addresses never. The same rules run twice: on the URL
// when an inbox is created (a clear 400), and on the resolved IP right before each attempt, which is then the IP
// connected to — so a name that later resolves somewhere internal (DNS rebinding) is still refused.
import dns from 'node:dns/promises';
import net from 'node:net';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses; the default is the system resolver (getaddrinfo, so /etc/hosts counts). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const NEVER = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
  ['100.100.100.200', 32], // Alibaba Cloud metadata
  ['168.63.129.16', 32], // Azure host services
] as const)
  NEVER.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 128], // unspecified
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['fd00:ec2::254', 128], // AWS metadata over IPv6
  ['64:ff9b::a9fe:0', 112], // 169.254.0.0/16 through NAT64
] as const)
  NEVER.addSubnet(net6, bits, 'ipv6');

const PRIVATE = new net.BlockList();
for (const [net4, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
] as const)
  PRIVATE.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fec0::', 10], // old site-local
] as const)
  PRIVATE.addSubnet(net6, bits, 'ipv6');

export type AddressClass = 'never' | 'private' | 'public';

/** BlockList also matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules. */
export function classifyAddress(ip: string): AddressClass {
  const family = net.isIP(ip);
  if (family === 0) return 'never';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (NEVER.check(ip, type)) return 'never';
  if (PRIVATE.check(ip, type)) return 'private';
  return 'public';
}

/** Why this address may not receive callbacks under the policy, or null. */
export function refuseAddress(ip: string, policy: TargetPolicy): string | null {
  const c = classifyAddress(ip);
  if (c === 'never') return `${ip} is a link-local, metadata or otherwise unroutable address; callbacks never go there`;
  if (c === 'private' && !policy.allowPrivate)
    return `${ip} is a loopback or private address; the operator must start inboxd with --allow-private-callbacks`;
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
