// The self-signed certificate of `--smtp-tls auto` (src/lib/x509.ts): parsed by node's own X.509 parser, signed by
// its own key, names and addresses in subjectAltName, not a CA, the validity asked for, usable by a TLS server.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import tls from 'node:tls';
import { selfSignedCertificate } from '../../src/lib/x509.ts';

const notBefore = new Date('2026-01-01T00:00:00Z');
const notAfter = new Date('2027-01-01T00:00:00Z');

test('the certificate parses, verifies with its own public key and says what was asked', () => {
  const { key, cert } = selfSignedCertificate({
    commonName: 'mail.inboxd.test',
    dnsNames: ['mail.inboxd.test', 'localhost'],
    ips: ['127.0.0.1', '::1', '2001:db8::17'],
    notBefore,
    notAfter,
  });
  const x = new crypto.X509Certificate(cert);
  assert.equal(x.verify(x.publicKey), true, 'self-signed: its signature verifies with its own key');
  assert.equal(x.checkPrivateKey(crypto.createPrivateKey(key)), true);
  assert.equal(x.publicKey.asymmetricKeyType, 'ec');
  assert.equal(x.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.equal(x.ca, false);
  assert.match(x.subject, /CN=mail\.inboxd\.test/);
  assert.equal(x.subject, x.issuer);
  assert.equal(new Date(x.validFrom).toISOString(), notBefore.toISOString());
  assert.equal(new Date(x.validTo).toISOString(), notAfter.toISOString());
  assert.equal(x.checkHost('mail.inboxd.test'), 'mail.inboxd.test');
  assert.equal(x.checkHost('localhost'), 'localhost');
  assert.equal(x.checkHost('other.test'), undefined);
  assert.equal(x.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(x.checkIP('::1'), '::1');
  assert.equal(x.checkIP('2001:db8::17'), '2001:db8::17');
  assert.equal(x.checkIP('10.0.0.1'), undefined);
  assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.match(x.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  // Two certificates never share a key or a serial.
  const other = new crypto.X509Certificate(selfSignedCertificate({ commonName: 'a', dnsNames: ['a'], ips: [], notBefore, notAfter }).cert);
  assert.notEqual(other.serialNumber, x.serialNumber);
  assert.notEqual(other.fingerprint256, x.fingerprint256);
});

test('a validity past 2049 is written as GeneralizedTime', () => {
  const { cert } = selfSignedCertificate({
    commonName: 'x',
    dnsNames: ['x'],
    ips: [],
    notBefore: new Date('2049-06-01T00:00:00Z'),
    notAfter: new Date('2051-06-01T12:30:45Z'),
  });
  const x = new crypto.X509Certificate(cert);
  assert.equal(new Date(x.validTo).toISOString(), '2051-06-01T12:30:45.000Z');
  assert.equal(x.verify(x.publicKey), true);
});

test('a TLS client that pins the certificate as its only CA completes a handshake, checking the host name', async () => {
  const now = Date.now();
  const { key, cert } = selfSignedCertificate({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 86_400_000),
  });
  const server = tls.createServer({ key, cert }, (s) => s.end('hello\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  try {
    const got = await new Promise<string>((resolve, reject) => {
      const c = tls.connect({ host: '127.0.0.1', port, ca: cert, servername: 'localhost' }, () => undefined);
      let data = '';
      c.setEncoding('utf8').on('data', (d: string) => (data += d));
      c.on('end', () => resolve(data));
      c.on('error', reject);
    });
    assert.equal(got, 'hello\n');
    // A host name the certificate does not name is refused.
    await assert.rejects(
      new Promise((resolve, reject) => {
        const c = tls.connect({ host: '127.0.0.1', port, ca: cert, servername: 'evil.test' }, () => resolve(null));
        c.on('error', reject);
      }),
      /altnames|Hostname/,
    );
  } finally {
    server.close();
  }
});
