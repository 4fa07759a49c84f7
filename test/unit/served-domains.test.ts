import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServedDomains } from '../../src/domains/served.ts';
import { resolveAddress } from '../../src/inboxes/address.ts';

test('configured domains are served; custom ones only between addCustom and removeCustom', () => {
  const s = new ServedDomains(['Inboxd.Test', 'b.test']);
  assert.equal(s.primary, 'inboxd.test');
  assert.ok(s.isServed('INBOXD.test'));
  assert.ok(!s.isServed('mail.acme.test'));
  s.addCustom('Mail.Acme.Test');
  assert.ok(s.isServed('mail.acme.test'));
  assert.ok(s.accepts('mail.acme.test'));
  assert.deepEqual(s.list(), ['inboxd.test', 'b.test', 'mail.acme.test']);
  s.removeCustom('mail.acme.test');
  assert.ok(!s.accepts('mail.acme.test'));
  assert.equal(s.describe(), 'inboxd.test, b.test');
});

test('--accept-any-domain accepts any domain inbound but serves (delivers locally) only its own', () => {
  const s = new ServedDomains(['inboxd.test'], true);
  assert.ok(s.accepts('elsewhere.test'));
  assert.ok(!s.accepts(''));
  assert.ok(!s.isServed('elsewhere.test'));
});

test('resolveAddress follows the served set as it changes', () => {
  const s = new ServedDomains(['inboxd.test']);
  assert.throws(() => resolveAddress({ address: 'a@acme.test' }, s), /mail domain this inboxd serves \(inboxd\.test\)/);
  s.addCustom('acme.test');
  assert.equal(resolveAddress({ address: 'A@Acme.test' }, s), 'a@acme.test');
  assert.match(resolveAddress({}, s), /^[a-z][a-z0-9]{11}@inboxd\.test$/);
  assert.throws(() => new ServedDomains([]), /at least one mail domain/);
});
