// How an IP address is classed for outbound requests inboxd makes on someone else's say-so (callbacks, link checks):
// `never` (link-local, cloud metadata, multicast, unspecified — no request ever goes there), `private` (loopback and
// private ranges — only when the operator allows them) or `public`. IPv6 forms that carry an IPv4 address are judged
// by that address too. The callers check the RESOLVED address right before connecting, and connect to it, so a name
// that later resolves somewhere internal (DNS rebinding) is still refused. Moved here from src/events/targets.ts so
// the link check (src/checks/links) shares the very same ranges.
import dns from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import net from 'node:net';

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
  ['100::', 64], // discard-only
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
  ['64:ff9b:1::', 48], // local-use NAT64: translates into the operator's own network
] as const)
  PRIVATE.addSubnet(net6, bits, 'ipv6');

export type AddressClass = 'never' | 'private' | 'public';

const RANK: Record<AddressClass, number> = { public: 0, private: 1, never: 2 };
const worse = (a: AddressClass, b: AddressClass): AddressClass => (RANK[a] >= RANK[b] ? a : b);

/** The eight 16-bit groups of an IPv6 literal (zone id dropped, a trailing dotted quad folded in), or null. */
export function ipv6Groups(ip: string): number[] | null {
  let s = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (net.isIPv6(s) === false) return null;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    s = s.slice(0, quad.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const halves = s.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length > 1 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(fill).fill('0'), ...tail].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the transition forms that route to IPv4:
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16) and Teredo (2001::/32, whose client address is stored inverted). Null for any other address.
 */
export function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (!g) return null;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!);
  if (zero(0, 6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return v4(~g[6]! & 0xffff, ~g[7]! & 0xffff);
  return null;
}

/**
 * Classifies an IP literal after normalising it: IPv6 forms that carry an IPv4 address (see embeddedIpv4) are
 * judged by that address as well, and the stricter class wins; `::` and `::1` keep their own meaning. Anything
 * that is not a plain IP literal (e.g. `127.1`, which the URL parser — but not this function — normalises) is 'never'.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare);
  if (family === 0) return 'never';
  if (family === 4) return NEVER.check(bare, 'ipv4') ? 'never' : PRIVATE.check(bare, 'ipv4') ? 'private' : 'public';
  const g = ipv6Groups(bare);
  if (!g) return 'never';
  const canonical = g.map((x) => x.toString(16)).join(':');
  let c: AddressClass = NEVER.check(canonical, 'ipv6') ? 'never' : PRIVATE.check(canonical, 'ipv6') ? 'private' : 'public';
  const isLoopOrAny = g.slice(0, 7).every((x) => x === 0) && g[7]! <= 1;
  const inner = isLoopOrAny ? null : embeddedIpv4(bare);
  if (inner) c = worse(c, classifyAddress(inner));
  return c;
}

/**
 * A `lookup` for http(s).request that answers with the address(es) already judged, never with a second resolution.
 * Given several, Node's connection racing (autoSelectFamily, which asks with `all`) may try each of them.
 */
export function pinnedLookup(target: ResolvedAddress | readonly ResolvedAddress[]): LookupFunction {
  const list = Array.isArray(target) ? target : [target as ResolvedAddress];
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all)
      cb(
        null,
        list.map((t) => ({ address: t.address, family: t.family })),
      );
    else cb(null, list[0]!.address, list[0]!.family);
  }) as unknown as LookupFunction;
}
