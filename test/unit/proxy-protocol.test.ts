// The PROXY protocol parser (v1 text, v2 binary with TLVs, LOCAL, IPv4/IPv6), malformed, truncated and oversized
// headers, the --trusted-proxies list and the X-Forwarded-For walk (src/lib/proxy-protocol.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  forwardedClient,
  type ProxyParse,
  parseProxyHeader,
  parseTrustedEntry,
  TrustedProxies,
  V1_MAX_BYTES,
  V2_MAX_BYTES,
} from '../../src/lib/proxy-protocol.ts';

const SIG = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** A v2 header: version/command byte, family/transport byte, the address block and TLVs. */
function v2(verCmd: number, fam: number, block: Buffer, tlvs: Buffer = Buffer.alloc(0)): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(block.length + tlvs.length);
  return Buffer.concat([SIG, Buffer.from([verCmd, fam]), len, block, tlvs]);
}

function inet4(src: number[], dst: number[], sport: number, dport: number): Buffer {
  const b = Buffer.alloc(12);
  Buffer.from(src).copy(b, 0);
  Buffer.from(dst).copy(b, 4);
  b.writeUInt16BE(sport, 8);
  b.writeUInt16BE(dport, 10);
  return b;
}

function tlv(type: number, value: Buffer): Buffer {
  const h = Buffer.from([type, 0, 0]);
  h.writeUInt16BE(value.length, 1);
  return Buffer.concat([h, value]);
}

function header(r: ProxyParse) {
  assert.equal(r.kind, 'header', JSON.stringify(r));
  return (r as Extract<ProxyParse, { kind: 'header' }>).header;
}

function invalid(r: ProxyParse, re: RegExp): void {
  assert.equal(r.kind, 'invalid', JSON.stringify(r));
  assert.match((r as { reason: string }).reason, re);
}

test('v1 TCP4 and TCP6: client and destination, and where the client bytes start', () => {
  const raw = Buffer.from('PROXY TCP4 203.0.113.7 192.0.2.1 51234 25\r\nEHLO x\r\n');
  const h = header(parseProxyHeader(raw));
  assert.deepEqual(h.source, { address: '203.0.113.7', port: 51234 });
  assert.deepEqual(h.destination, { address: '192.0.2.1', port: 25 });
  assert.equal(h.command, 'proxy');
  assert.equal(raw.subarray(h.length).toString(), 'EHLO x\r\n');
  const h6 = header(parseProxyHeader(Buffer.from('PROXY TCP6 2001:db8::7 2001:db8::1 4000 80\r\n')));
  assert.equal(h6.source!.address, '2001:db8::7');
  assert.equal(h6.version, 1);
});

test('v1 UNKNOWN is the balancer speaking for itself: no client address', () => {
  assert.equal(header(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).command, 'local');
  assert.equal(header(parseProxyHeader(Buffer.from('PROXY UNKNOWN ffff:: ffff:: 1 2\r\n'))).source, null);
});

test('v1 truncated: incomplete until the CRLF; malformed and oversized: invalid with the reason', () => {
  assert.equal(parseProxyHeader(Buffer.from('PROX')).kind, 'incomplete');
  assert.equal(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 2')).kind, 'incomplete');
  assert.equal(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r')).kind, 'incomplete');
  invalid(parseProxyHeader(Buffer.from(`PROXY TCP4 ${'1'.repeat(V1_MAX_BYTES)}`)), /without CRLF in its first 107 bytes/);
  invalid(parseProxyHeader(Buffer.from(`PROXY TCP4 1.2.3.4 5.6.7.8 1 2${' '.repeat(90)}\r\n`)), /107/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n')), /5 fields, not 6/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.999 5.6.7.8 1 2\r\n')), /not both TCP4 addresses/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n')), /not both TCP6 addresses/);
  invalid(parseProxyHeader(Buffer.from('PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n')), /not TCP4, TCP6 or UNKNOWN/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n')), /0-65535/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n')), /0-65535/);
  invalid(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4\x00')), /printable/);
});

test('no PROXY header: absent (a client speaking its protocol)', () => {
  for (const s of ['EHLO x\r\n', 'GET / HTTP/1.1\r\n', 'proxy tcp4', 'PROXYTCP4'])
    assert.equal(parseProxyHeader(Buffer.from(s)).kind, 'absent', s);
});

test('v2 PROXY over IPv4 and IPv6, with the client bytes after it', () => {
  const raw = Buffer.concat([v2(0x21, 0x11, inet4([198, 51, 100, 9], [10, 0, 0, 1], 40000, 2525)), Buffer.from('QUIT\r\n')]);
  const h = header(parseProxyHeader(raw));
  assert.deepEqual(h.source, { address: '198.51.100.9', port: 40000 });
  assert.deepEqual(h.destination, { address: '10.0.0.1', port: 2525 });
  assert.equal(h.version, 2);
  assert.equal(raw.subarray(h.length).toString(), 'QUIT\r\n');
  const b6 = Buffer.alloc(36);
  Buffer.from('20010db8000000000000000000000042', 'hex').copy(b6, 0);
  Buffer.from('20010db8000000000000000000000001', 'hex').copy(b6, 16);
  b6.writeUInt16BE(1234, 32);
  b6.writeUInt16BE(80, 34);
  const h6 = header(parseProxyHeader(v2(0x21, 0x21, b6)));
  assert.deepEqual(h6.source, { address: '2001:db8::42', port: 1234 });
  assert.equal(h6.destination!.address, '2001:db8::1');
});

test('v2 TLVs are skipped; their framing must add up', () => {
  const tlvs = Buffer.concat([tlv(0x05, Buffer.from('unique-id-123')), tlv(0x20, Buffer.alloc(5)), tlv(0x04, Buffer.alloc(0))]);
  const raw = Buffer.concat([v2(0x21, 0x11, inet4([192, 0, 2, 10], [192, 0, 2, 1], 5, 6), tlvs), Buffer.from('X')]);
  const h = header(parseProxyHeader(raw));
  assert.equal(h.source!.address, '192.0.2.10');
  assert.equal(raw.subarray(h.length).toString(), 'X');
  const overrun = Buffer.from([0x05, 0x00, 0x10, 0x41]);
  invalid(parseProxyHeader(v2(0x21, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2), overrun)), /claims 16 bytes; 1 are left/);
  invalid(parseProxyHeader(v2(0x21, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2), Buffer.from([0x05, 0x00]))), /cut short/);
});

test('v2 LOCAL (health checks), UNSPEC and UNIX families: no client address', () => {
  assert.equal(header(parseProxyHeader(v2(0x20, 0x00, Buffer.alloc(0)))).command, 'local');
  assert.equal(header(parseProxyHeader(v2(0x20, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2)))).source, null);
  assert.equal(header(parseProxyHeader(v2(0x21, 0x00, Buffer.alloc(0)))).command, 'local');
  assert.equal(header(parseProxyHeader(v2(0x21, 0x31, Buffer.alloc(216)))).command, 'local');
});

test('v2 truncated: incomplete; malformed and oversized: invalid', () => {
  const full = v2(0x21, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2));
  for (const n of [1, 5, 12, 15, 16, 27]) assert.equal(parseProxyHeader(full.subarray(0, n)).kind, 'incomplete', `${n} bytes`);
  invalid(parseProxyHeader(v2(0x11, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2))), /version 1, not 2/);
  invalid(parseProxyHeader(v2(0x22, 0x11, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2))), /command 2/);
  invalid(parseProxyHeader(v2(0x21, 0x12, inet4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2))), /datagram/);
  invalid(parseProxyHeader(v2(0x21, 0x41, Buffer.alloc(12))), /address family 4/);
  invalid(parseProxyHeader(v2(0x21, 0x21, Buffer.alloc(12))), /shorter than family 2 needs \(36\)/);
  const huge = Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0xff, 0xff])]);
  invalid(parseProxyHeader(huge), new RegExp(`65551 bytes; at most ${V2_MAX_BYTES}`));
});

test('--trusted-proxies: addresses and CIDR ranges, IPv4-mapped peers, and the errors for bad entries', () => {
  const t = new TrustedProxies(['127.0.0.9', '10.0.0.0/8', 'fd00::/8']);
  assert.ok(t.has('127.0.0.9'));
  assert.ok(t.has('::ffff:127.0.0.9'));
  assert.ok(t.has('10.200.3.4'));
  assert.ok(t.has('fd12::1'));
  assert.ok(!t.has('127.0.0.1'));
  assert.ok(!t.has('11.0.0.1'));
  assert.ok(!t.has('fe80::1'));
  assert.ok(!t.has(undefined));
  assert.ok(!new TrustedProxies([]).has('127.0.0.1'));
  assert.match(parseTrustedEntry('10.0.0.0/33') as string, /prefix length must be 0-32/);
  assert.match(parseTrustedEntry('lb.example') as string, /not an IP address or CIDR range/);
  assert.match(parseTrustedEntry('10.0.0.0/8/1') as string, /not an IP address/);
  assert.throws(() => new TrustedProxies(['nope']), /not an IP address/);
});

test('X-Forwarded-For: believed from trusted proxies only, rightmost untrusted hop', () => {
  const t = new TrustedProxies(['10.0.0.0/8']);
  assert.equal(forwardedClient('203.0.113.5', '1.1.1.1', t), '203.0.113.5', 'an untrusted peer cannot name a client');
  assert.equal(forwardedClient('10.0.0.2', '198.51.100.7', t), '198.51.100.7');
  assert.equal(forwardedClient('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3', t), '198.51.100.7', 'the client cannot prepend itself');
  assert.equal(forwardedClient('10.0.0.2', ['6.6.6.6', '198.51.100.7:4321'], t), '198.51.100.7');
  assert.equal(forwardedClient('10.0.0.2', '[2001:db8::9]:80', t), '2001:db8::9');
  assert.equal(forwardedClient('10.0.0.2', 'garbage, 198.51.100.7', t), '198.51.100.7');
  assert.equal(forwardedClient('10.0.0.2', '198.51.100.7, garbage', t), '10.0.0.2', 'a malformed hop stops the walk');
  assert.equal(forwardedClient('10.0.0.2', '10.0.0.4', t), '10.0.0.4', 'all hops trusted: the leftmost');
  assert.equal(forwardedClient('10.0.0.2', undefined, t), '10.0.0.2');
});
