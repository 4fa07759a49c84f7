// The pieces under custom domains on their own: name normalisation, sealing secrets at rest, record judging,
// and the new settings.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { dnsServerAddress, loadConfig, UsageError } from '../../src/config.ts';
import { normalizeDomain } from '../../src/domains/names.ts';
import { expectedRecords, judge } from '../../src/domains/records.ts';
import { parseSecretKey, type SealedError, Sealer } from '../../src/lib/sealed.ts';

test('normalizeDomain: case, trailing dot, IDN; refuses IPs, wildcards and oversize names', () => {
  assert.equal(normalizeDomain(' Mail.Example.COM. '), 'mail.example.com');
  assert.equal(normalizeDomain('BÜCHER.example'), 'xn--bcher-kva.example');
  assert.equal(normalizeDomain('例え.テスト'), 'xn--r8jz45g.xn--zckzah');
  assert.equal(normalizeDomain(`${'a'.repeat(63)}.example`), `${'a'.repeat(63)}.example`);
  for (const bad of [
    '10.0.0.1',
    '::ffff:10.0.0.1',
    '[10.0.0.1]',
    '*.x.example',
    'x',
    `${'a'.repeat(64)}.example`,
    `${'a.'.repeat(127)}ex`,
    'a_b.example',
    'a.example:25',
  ])
    assert.throws(() => normalizeDomain(bad), /validation|domain/i, bad);
});

test('Sealer: round trip, bound to its record, and a missing or other key is named as such', () => {
  const hex = crypto.randomBytes(32).toString('hex');
  const a = new Sealer(hex);
  const sealed = a.seal('-----BEGIN PRIVATE KEY-----\nabc', 'dom_1');
  assert.match(sealed, /^sealed:v1:[0-9a-f]{8}:/);
  assert.doesNotMatch(sealed, /PRIVATE/);
  assert.notEqual(a.seal('same', 'dom_1'), a.seal('same', 'dom_1'), 'a fresh IV each time');
  assert.equal(a.open(sealed, 'dom_1'), '-----BEGIN PRIVATE KEY-----\nabc');
  assert.equal(new Sealer(Buffer.from(hex, 'hex').toString('base64')).open(sealed, 'dom_1'), '-----BEGIN PRIVATE KEY-----\nabc');
  const reason = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as SealedError).reason;
    }
    return 'opened';
  };
  assert.equal(
    reason(() => a.open(sealed, 'dom_2')),
    'corrupt',
  );
  assert.equal(
    reason(() => a.open(sealed.slice(0, -4) + 'AAAA', 'dom_1')),
    'corrupt',
  );
  assert.equal(
    reason(() => new Sealer(undefined).open(sealed, 'dom_1')),
    'no_key',
  );
  assert.equal(
    reason(() => new Sealer(crypto.randomBytes(32).toString('hex')).open(sealed, 'dom_1')),
    'other_key',
  );
  // No key: values pass through (stored plainly), and plain values open under any sealer.
  assert.equal(new Sealer(undefined).seal('plain', 'x'), 'plain');
  assert.equal(a.open('plain', 'x'), 'plain');
  assert.equal(parseSecretKey('short'), null);
  assert.equal(parseSecretKey('g'.repeat(64)), null);
});

test('settings: --dns-server forms, INBOXD_SECRET_KEY shape (exit 2 with a hint), --mx-host', () => {
  assert.equal(dnsServerAddress('10.0.0.53'), '10.0.0.53:53');
  assert.equal(dnsServerAddress('127.0.0.1:5353'), '127.0.0.1:5353');
  assert.equal(dnsServerAddress('[fd00::53]:5353'), '[fd00::53]:5353');
  assert.equal(dnsServerAddress('fd00::53'), '[fd00::53]:53');
  for (const bad of ['dns.example', '10.0.0.1:0', '10.0.0.1:70000', '999.1.1.1', '']) assert.equal(dnsServerAddress(bad), null, bad);
  assert.throws(
    () => loadConfig(['--dns-server', 'dns.example']),
    (e: Error) => e instanceof UsageError && /--dns-server/.test(e.message),
  );
  assert.throws(
    () => loadConfig([], { INBOXD_SECRET_KEY: 'hunter2' }),
    (e: Error) => e instanceof UsageError && /INBOXD_SECRET_KEY.*openssl rand -hex 32/.test(e.message) && !/hunter2/.test(e.message),
  );
  const c = loadConfig(['--mx-host', 'MX.Example.com'], { INBOXD_SECRET_KEY: 'a'.repeat(64) });
  assert.equal(c.mxHost, 'mx.example.com');
  assert.equal(c.secretKey, 'a'.repeat(64));
});

test('judge: quoted TXT, split DKIM, SPF variants and duplicates, DMARC of any policy', () => {
  const recs = expectedRecords({ name: 'd.example', token: 'T', selector: 's1', publicKey: 'QUJD', mxHost: 'mx.h', spfHost: 'relay.h' });
  const by = (p: string) => recs.find((r) => r.purpose === p)!;
  const ctx = { mxHost: 'mx.h', spfHost: 'relay.h' };
  const j = (p: string, values: string[]) => judge(by(p), { values, error: null }, ctx).status;
  assert.equal(j('verification', ['"inboxd-verification=T"']), 'found');
  assert.equal(j('verification', ['inboxd-verification=X']), 'mismatch');
  assert.equal(j('spf', ['v=spf1 include:_spf.google.com a:RELAY.h -all']), 'found');
  assert.equal(j('spf', ['v=spf1 mx ~all']), 'mismatch');
  assert.equal(j('spf', ['v=spf1 a:relay.h ~all', 'v=spf1 mx ~all']), 'mismatch');
  assert.equal(j('spf', ['google-site-verification=x']), 'missing');
  assert.equal(j('dkim', ['v=DKIM1; k=rsa; p=QU JD']), 'found');
  assert.equal(j('dkim', ['v=DKIM1; k=rsa; p=OTHER']), 'mismatch');
  assert.equal(j('dmarc', ['v=DMARC1; p=reject; rua=mailto:x@d.example']), 'found');
  assert.equal(j('mx', ['10 MX.H.']), 'found');
  assert.equal(judge(by('mx'), { values: [], error: 'DNS lookup failed' }, ctx).error, 'DNS lookup failed');
  assert.equal(
    expectedRecords({ name: 'd', token: 't', selector: 's', publicKey: 'p', mxHost: 'm', spfHost: '192.0.2.5' })[2]!.value,
    'v=spf1 ip4:192.0.2.5 ~all',
  );
});
