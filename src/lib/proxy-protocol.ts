// The PROXY protocol (HAProxy's spec, versions 1 and 2) that a load balancer puts in front of a connection to say
// whose it is, the --trusted-proxies address list that decides who may send one, and the X-Forwarded-For walk for
// HTTP. Pure functions: src/lib/proxied-connections.ts reads the bytes from the socket.
import net from 'node:net';

/** A v1 header is at most 107 bytes with its CRLF (spec §2.1). */
export const V1_MAX_BYTES = 107;
/** v2: 16 fixed bytes and the address block with its TLVs; longer blocks are refused (the spec allows 64 KiB). */
export const V2_MAX_BYTES = 16 + 2048;
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_PREFIX = Buffer.from('PROXY ', 'latin1');

export interface ProxyEndpoint {
  address: string;
  port: number;
}

export interface ProxyHeader {
  version: 1 | 2;
  /**
   * `proxy`: the connection is a client's, `source` is the client. `local`: the balancer's own (health checks; v2
   * LOCAL, v1 UNKNOWN, or an address family that carries no IP): the connection's own address stands.
   */
  command: 'proxy' | 'local';
  source: ProxyEndpoint | null;
  destination: ProxyEndpoint | null;
  /** Bytes of the header, TLVs included; what follows is the client's first bytes. */
  length: number;
}

export type ProxyParse =
  | { kind: 'header'; header: ProxyHeader }
  /** Too few bytes yet to decide. */
  | { kind: 'incomplete' }
  /** The bytes do not start a PROXY header (a client speaking its protocol). */
  | { kind: 'absent' }
  | { kind: 'invalid'; reason: string };

/** Whether `buf` starts like a PROXY header of either version (or could, given more bytes). */
export function looksLikeProxyHeader(buf: Buffer): boolean {
  return startsWith(buf, V1_PREFIX) || startsWith(buf, V2_SIGNATURE);
}

/** Reads the PROXY header at the start of `buf`. */
export function parseProxyHeader(buf: Buffer): ProxyParse {
  if (startsWith(buf, V2_SIGNATURE)) return buf.length < V2_SIGNATURE.length ? { kind: 'incomplete' } : parseV2(buf);
  if (startsWith(buf, V1_PREFIX)) return buf.length < V1_PREFIX.length ? { kind: 'incomplete' } : parseV1(buf);
  return { kind: 'absent' };
}

/** `buf` and `prefix` agree over the shorter of the two. */
function startsWith(buf: Buffer, prefix: Buffer): boolean {
  const n = Math.min(buf.length, prefix.length);
  return n > 0 && buf.subarray(0, n).equals(prefix.subarray(0, n));
}

function parseV1(buf: Buffer): ProxyParse {
  const end = buf.indexOf('\r\n', 0, 'latin1');
  if (end < 0 || end + 2 > V1_MAX_BYTES) {
    if (buf.length >= V1_MAX_BYTES) return { kind: 'invalid', reason: `v1 header without CRLF in its first ${V1_MAX_BYTES} bytes` };
    const seen = buf.subarray(0, buf[buf.length - 1] === 0x0d ? buf.length - 1 : buf.length);
    if (seen.some((b) => b < 0x20 || b > 0x7e)) return { kind: 'invalid', reason: 'v1 header with a byte that is not printable ASCII' };
    return { kind: 'incomplete' };
  }
  const line = buf.toString('latin1', 0, end);
  const length = end + 2;
  if (/[^\x20-\x7e]/.test(line)) return { kind: 'invalid', reason: 'v1 header with a byte that is not printable ASCII' };
  const parts = line.split(' ');
  if (parts[1] === 'UNKNOWN') return { kind: 'header', header: { version: 1, command: 'local', source: null, destination: null, length } };
  if (parts.length !== 6) return { kind: 'invalid', reason: `v1 header has ${parts.length} fields, not 6: ${JSON.stringify(line)}` };
  const [, proto, src, dst, sport, dport] = parts as [string, string, string, string, string, string];
  const family = proto === 'TCP4' ? 4 : proto === 'TCP6' ? 6 : 0;
  if (!family) return { kind: 'invalid', reason: `v1 protocol ${JSON.stringify(proto)} is not TCP4, TCP6 or UNKNOWN` };
  if (net.isIP(src) !== family || net.isIP(dst) !== family)
    return { kind: 'invalid', reason: `v1 addresses ${JSON.stringify(src)} and ${JSON.stringify(dst)} are not both ${proto} addresses` };
  const ps = v1Port(sport);
  const pd = v1Port(dport);
  if (ps === null || pd === null)
    return { kind: 'invalid', reason: `v1 ports ${JSON.stringify(sport)} and ${JSON.stringify(dport)} must be 0-65535` };
  return {
    kind: 'header',
    header: { version: 1, command: 'proxy', source: { address: src, port: ps }, destination: { address: dst, port: pd }, length },
  };
}

function v1Port(s: string): number | null {
  if (!/^(0|[1-9]\d{0,4})$/.test(s)) return null;
  const n = Number(s);
  return n <= 65535 ? n : null;
}

function parseV2(buf: Buffer): ProxyParse {
  if (buf.length < 16) return { kind: 'incomplete' };
  const verCmd = buf[12]!;
  if (verCmd >> 4 !== 2) return { kind: 'invalid', reason: `v2 header with version ${verCmd >> 4}, not 2` };
  const cmd = verCmd & 0x0f;
  if (cmd > 1) return { kind: 'invalid', reason: `v2 header with command ${cmd} (0 LOCAL and 1 PROXY exist)` };
  const fam = buf[13]!;
  const blockLength = buf.readUInt16BE(14);
  const length = 16 + blockLength;
  if (length > V2_MAX_BYTES) return { kind: 'invalid', reason: `v2 header of ${length} bytes; at most ${V2_MAX_BYTES} are read` };
  if (buf.length < length) return { kind: 'incomplete' };
  const block = buf.subarray(16, length);
  const family = fam >> 4;
  const transport = fam & 0x0f;
  const addressBytes = [0, 12, 36, 216][family];
  if (addressBytes === undefined) return { kind: 'invalid', reason: `v2 header with address family ${family}` };
  if (transport > 2) return { kind: 'invalid', reason: `v2 header with transport ${transport}` };
  if (blockLength < addressBytes)
    return { kind: 'invalid', reason: `v2 address block of ${blockLength} bytes is shorter than family ${family} needs (${addressBytes})` };
  const tlvError = checkTlvs(block.subarray(addressBytes));
  if (tlvError) return { kind: 'invalid', reason: tlvError };
  const local = {
    kind: 'header' as const,
    header: { version: 2 as const, command: 'local' as const, source: null, destination: null, length },
  };
  // LOCAL (health checks from the balancer itself) and families without an IP: the connection's own address stands.
  if (cmd === 0 || family === 0 || family === 3) return local;
  if (transport !== 1) return { kind: 'invalid', reason: 'v2 header for a datagram transport on a stream connection' };
  const [source, destination] = family === 1 ? [ipv4(block, 0, 8), ipv4(block, 4, 10)] : [ipv6(block, 0, 32), ipv6(block, 16, 34)];
  return { kind: 'header', header: { version: 2, command: 'proxy', source, destination, length } };
}

/** TLVs after the addresses are skipped, but their framing must add up to the block's end. */
function checkTlvs(tlvs: Buffer): string | null {
  let at = 0;
  while (at < tlvs.length) {
    if (at + 3 > tlvs.length)
      return `v2 TLV at offset ${at} is cut short (${tlvs.length - at} bytes left, 3 needed for its type and length)`;
    const len = tlvs.readUInt16BE(at + 1);
    if (at + 3 + len > tlvs.length)
      return `v2 TLV of type 0x${tlvs[at]!.toString(16)} claims ${len} bytes; ${tlvs.length - at - 3} are left`;
    at += 3 + len;
  }
  return null;
}

function ipv4(b: Buffer, at: number, portAt: number): ProxyEndpoint {
  return { address: `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`, port: b.readUInt16BE(portAt) };
}

function ipv6(b: Buffer, at: number, portAt: number): ProxyEndpoint {
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(b.readUInt16BE(at + i * 2).toString(16));
  // The canonical text form (longest zero run shortened), as the socket's own remoteAddress would print it.
  return { address: new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address, port: b.readUInt16BE(portAt) };
}

/**
 * `--trusted-proxies`: addresses and CIDR ranges whose connections may carry a PROXY header and whose
 * X-Forwarded-For is believed. IPv4-mapped IPv6 peers (::ffff:a.b.c.d) match their IPv4 entries.
 */
export class TrustedProxies {
  private readonly list = new net.BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    this.entries = entries;
    for (const e of entries) {
      const r = parseTrustedEntry(e);
      if (typeof r === 'string') throw new Error(r);
      this.list.addSubnet(r.address, r.prefix, r.family);
    }
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  has(address: string | undefined): boolean {
    if (!address || this.entries.length === 0) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const a = mapped ? mapped[1]! : address.replace(/%.*$/, '');
    const family = net.isIP(a);
    if (!family) return false;
    return this.list.check(a, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** One --trusted-proxies entry (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`), or why it is not one. */
export function parseTrustedEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | string {
  const [address = '', bits, extra] = entry.trim().split('/');
  const family = net.isIP(address);
  if (!family || extra !== undefined)
    return `${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)`;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return `${JSON.stringify(entry)}: the prefix length must be 0-${max}`;
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * The client of an HTTP request that reached us from `peer`: when `peer` is a trusted proxy, the rightmost address of
 * X-Forwarded-For that is not itself a trusted proxy (each proxy appends the address it was connected from, so the
 * hops to the right of the first untrusted one are ours and those to its left are the client's say-so). Otherwise,
 * or when the header is absent or malformed, `peer`.
 */
export function forwardedClient(peer: string, header: string | string[] | undefined, trusted: TrustedProxies): string {
  if (header === undefined || !trusted.has(peer)) return peer;
  const hops = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = stripPort(hops[i]!);
    if (!net.isIP(hop)) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/** `1.2.3.4:5678` and `[::1]:80` as some proxies write them; a bare address stays as it is. */
function stripPort(hop: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (v6) return v6[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4 ? v4[1]! : hop;
}
