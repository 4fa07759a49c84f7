// Callback target rules (CONTRACT §5): every spelling of a loopback, private or unroutable address is refused,
// both as a URL literal (inbox creation) and as a resolved address (right before each attempt).
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import {
  type AddressClass,
  classifyAddress,
  embeddedIpv4,
  redactCallbackUrls,
  refuseUrl,
  resolveTarget,
  TargetRefused,
} from '../../src/events/targets.ts';

const STRICT = { allowHttp: true, allowPrivate: false };
const LOOSE = { allowHttp: true, allowPrivate: true };

/** [host as written in a URL, class]. */
const HOSTS: Array<[string, AddressClass]> = [
  ['127.0.0.1', 'private'],
  ['0x7f.1', 'private'],
  ['2130706433', 'private'],
  ['127.1', 'private'],
  ['017700000001', 'private'],
  ['0.0.0.0', 'never'],
  ['0', 'never'],
  ['10.1.2.3', 'private'],
  ['169.254.169.254', 'never'],
  ['0xa9.0xfe.0xa9.0xfe', 'never'],
  ['[::1]', 'private'],
  ['[0:0:0:0:0:0:0:1]', 'private'],
  ['[::]', 'never'],
  ['[::7f00:1]', 'private'],
  ['[::127.0.0.1]', 'private'],
  ['[::a00:1]', 'private'],
  ['[::ffff:127.0.0.1]', 'private'],
  ['[::ffff:7f00:1]', 'private'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['[::ffff:169.254.169.254]', 'never'],
  ['[::ffff:0:127.0.0.1]', 'private'],
  ['[64:ff9b::7f00:1]', 'private'],
  ['[64:ff9b::127.0.0.1]', 'private'],
  ['[64:ff9b::a9fe:a9fe]', 'never'],
  ['[64:ff9b::c0a8:101]', 'private'],
  ['[64:ff9b:1::1]', 'private'],
  ['[2002:7f00:1::]', 'private'],
  ['[2002:a00:1::1]', 'private'],
  ['[2002:a9fe:a9fe::1]', 'never'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'private'], // Teredo, client 127.0.0.1 (stored inverted)
  ['[fe80::1]', 'never'],
  ['[fd00::1]', 'private'],
  ['[fd00:ec2::254]', 'never'],
  ['[ff02::1]', 'never'],
  ['[100::1]', 'never'],
  // Public, in every spelling: must stay allowed.
  ['8.8.8.8', 'public'],
  ['[2606:4700::1111]', 'public'],
  ['[::ffff:8.8.8.8]', 'public'],
  ['[64:ff9b::808:808]', 'public'],
  ['[2002:808:808::1]', 'public'],
];

describe('callback target check', () => {
  for (const [host, cls] of HOSTS) {
    it(`${host} is ${cls}`, async () => {
      const url = `http://${host}/hook`;
      const strict = refuseUrl(url, STRICT);
      const loose = refuseUrl(url, LOOSE);
      if (cls === 'public') assert.equal(strict, null);
      if (cls === 'private') {
        assert.match(strict ?? '', /loopback or private/);
        assert.equal(loose, null);
      }
      if (cls === 'never') {
        assert.match(strict ?? '', /never go there/);
        assert.match(loose ?? '', /never go there/);
      }
      // The same address coming back from DNS (rebinding) is judged the same way.
      const ip = new URL(url).hostname.replace(/^\[|\]$/g, '');
      assert.equal(classifyAddress(ip), cls);
      const resolve = async () => [{ address: ip, family: ip.includes(':') ? (6 as const) : (4 as const) }];
      const attempt = resolveTarget(new URL('http://hooks.example.test/x'), STRICT, resolve);
      if (cls === 'public') assert.equal((await attempt).address, ip);
      else await assert.rejects(attempt, TargetRefused);
    });
  }

  it('names the embedded IPv4 address in the refusal', () => {
    assert.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIpv4('2002:a9fe:a9fe::1'), '169.254.169.254');
    assert.equal(embeddedIpv4('2606:4700::1111'), null);
    assert.match(refuseUrl('http://[64:ff9b::7f00:1]/', STRICT) ?? '', /IPv4 127\.0\.0\.1/);
  });
});

test('redactCallbackUrls copies only what it changes and never touches the original', () => {
  const plain = { items: [{ inboxId: 'inb_1', label: null }], nextCursor: null };
  assert.equal(redactCallbackUrls(plain), plain);
  const secret = 'https://user:pw@hooks.example.com/in?token=abc';
  const answer = {
    items: [
      { inboxId: 'inb_1', callbackUrl: secret },
      { inboxId: 'inb_2', callbackUrl: null },
    ],
    nextCursor: null,
  };
  const out = redactCallbackUrls(answer);
  assert.notEqual(out, answer);
  assert.equal(answer.items[0]!.callbackUrl, secret);
  assert.ok(!JSON.stringify(out).includes('pw@') && !JSON.stringify(out).includes('abc'));
  assert.equal(out.items[1], answer.items[1]);
});
