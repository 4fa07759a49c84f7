// A self-signed X.509 v3 certificate made with node:crypto and a small DER writer (no dependency): an ECDSA P-256 key,
// SHA-256 signature, subjectAltName with the given names and addresses, basicConstraints CA:false, keyUsage
// digitalSignature, extKeyUsage serverAuth. Used by `--smtp-tls auto` (src/server/tls.ts).
import crypto from 'node:crypto';
import net from 'node:net';

// DER: tag, length, contents (ITU-T X.690 §8).
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const octets = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps the sign bit clear). */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1]! < 0x80) b = b.subarray(1);
  if (b[0]! >= 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function ipBytes(ip: string): Buffer {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::" and write 8 groups of 16 bits.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(Number.parseInt(g || '0', 16), i * 2);
  return out;
}

export interface SelfSigned {
  /** PKCS#8 PEM of the ECDSA P-256 private key. */
  key: string;
  /** The certificate, PEM. */
  cert: string;
}

export interface SelfSignedOptions {
  /** Subject common name (also the first DNS name). */
  commonName: string;
  /** DNS names for subjectAltName (ASCII host names). */
  dnsNames: string[];
  /** IPv4/IPv6 addresses for subjectAltName. */
  ips: string[];
  notBefore: Date;
  notAfter: Date;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

export function selfSignedCertificate(o: SelfSignedOptions): SelfSigned {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = crypto.randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive, 16 bytes, never shortened
  const name = seq(set(seq(oid('2.5.4.3'), utf8(o.commonName))), set(seq(oid('2.5.4.10'), utf8('inboxd (self-signed)'))));
  const alg = seq(oid(ECDSA_WITH_SHA256));
  const san = seq(
    ...o.dnsNames.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))),
    ...o.ips.filter((ip) => net.isIP(ip) !== 0).map((ip) => tlv(0x87, ipBytes(ip))),
  );
  // subjectKeyIdentifier: SHA-1 of the subjectPublicKey bits (RFC 5280 §4.2.1.2, method 1).
  const keyBits = spki.subarray(spki.length - 65);
  const extensions = seq(
    extension('2.5.29.19', true, seq()), // basicConstraints: CA false (the default, so an empty SEQUENCE)
    extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, san),
    extension('2.5.29.14', false, octets(crypto.createHash('sha1').update(keyBits).digest())),
  );
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    alg,
    name,
    seq(time(o.notBefore), time(o.notAfter)),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = crypto.sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, alg, bitString(signature));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${b64.endsWith('\n') ? b64 : `${b64}\n`}-----END CERTIFICATE-----\n`,
  };
}
