// The auth check's DNS: the --dns-fixtures zone format and the resolver chain (inboxd's own records, the fixtures,
// then the configured server; DNS errors keep their codes so mailauth can say temperror rather than fail).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { authCheckFromSettings } from '../../src/checks/auth/index.ts';
import { resolverChain } from '../../src/checks/auth/resolver.ts';
import { parseZone } from '../../src/checks/auth/zone.ts';

describe('fixture zone', () => {
  const zone = parseZone(`
; comment
example.com.   300 IN TXT "v=spf1 " "ip4:127.0.0.1 -all"   ; trailing comment
Sel._DomainKey.Example.com  TXT "v=DKIM1; p=AB\\"C"
mail.example.com A 127.0.0.1
example.com MX 10 mail.example.com.
# another comment
`);
  test('records by name and type; TXT strings kept apart (joined by the reader), names case-insensitive', async () => {
    const r = resolverChain({ fixtures: zone, server: '127.0.0.1:9', timeoutMs: 100 });
    assert.deepEqual(await r('example.com', 'TXT'), [['v=spf1 ', 'ip4:127.0.0.1 -all']]);
    assert.deepEqual(await r('sel._domainkey.example.com', 'TXT'), [['v=DKIM1; p=AB"C']]);
    assert.deepEqual(await r('MAIL.example.com.', 'A'), ['127.0.0.1']);
    assert.deepEqual(await r('example.com', 'MX'), [{ priority: 10, exchange: 'mail.example.com' }]);
  });

  test('authoritative below its names: absent records are ENODATA/ENOTFOUND, not a network question', async () => {
    const r = resolverChain({ fixtures: zone, server: '127.0.0.1:9', timeoutMs: 100 });
    await assert.rejects(r('example.com', 'AAAA'), { code: 'ENODATA' });
    await assert.rejects(r('_dmarc.example.com', 'TXT'), { code: 'ENOTFOUND' });
    assert.deepEqual(r.networkErrors, []);
  });

  test('syntax errors name the line', () => {
    assert.throws(() => parseZone('a.example TXT "open'), /line 1: unterminated/);
    assert.throws(() => parseZone('\na.example SRV 1 2 3 x'), /line 2: unknown or missing record type "SRV"/);
    assert.throws(() => parseZone('a.example MX mail'), /MX record is "priority exchange"/);
    assert.throws(() => parseZone('x TXT "y"\n'.repeat(10_001)), /more than 10000 records/);
  });
});

describe('resolver chain', () => {
  test('inboxd’s own records come first; other names go to the configured server, whose failure keeps its code', async () => {
    const zone = parseZone('sel._domainkey.example.com TXT "from-fixtures"');
    const r = resolverChain({
      known: async (name) => (name === 'sel._domainkey.example.com' ? ['v=DKIM1; p=OWN'] : null),
      fixtures: zone,
      server: '127.0.0.1:9',
      timeoutMs: 200,
    });
    assert.deepEqual(await r('sel._domainkey.example.com', 'TXT'), [['v=DKIM1; p=OWN']]);
    await assert.rejects(r('elsewhere.example.net', 'TXT'), (e: NodeJS.ErrnoException) => e.code !== 'ENOTFOUND' && e.code !== 'ENODATA');
    assert.equal(r.networkErrors.length, 1);
  });
});

test('the fixture file is read once at construction; an unreadable or broken one throws naming it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-zone-'));
  try {
    const bad = path.join(dir, 'bad.zone');
    fs.writeFileSync(bad, 'ok.example TXT "x"\nbroken.example TXT "open\n');
    assert.throws(
      () => authCheckFromSettings({ dnsFixtures: bad, dnsServer: null, dnsTimeoutMs: 100 }, null),
      /--dns-fixtures .*bad\.zone line 2/,
    );
    assert.throws(
      () => authCheckFromSettings({ dnsFixtures: path.join(dir, 'nope'), dnsServer: null, dnsTimeoutMs: 100 }, null),
      /cannot be read \(ENOENT\)/,
    );
    const good = path.join(dir, 'good.zone');
    fs.writeFileSync(good, 'ok.example TXT "x"\n');
    assert.equal(authCheckFromSettings({ dnsFixtures: good, dnsServer: null, dnsTimeoutMs: 100 }, null).name, 'auth');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
