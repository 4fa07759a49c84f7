// The RCPT check's memory of addresses with an inbox (src/inboxes/recent.ts): kept two seconds, bounded, cleared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentInboxes } from '../../src/inboxes/recent.ts';

test('an address is remembered for two seconds, then asked again', () => {
  let now = 1_000;
  const r = new RecentInboxes(() => now);
  assert.equal(r.has('a@x.test'), false, 'absence is never remembered');
  r.add('a@x.test');
  now += 1_999;
  assert.equal(r.has('a@x.test'), true);
  now += 1;
  assert.equal(r.has('a@x.test'), false);
});

test('bounded: the oldest address goes first; clear() forgets all', () => {
  const r = new RecentInboxes(() => 0);
  for (let i = 0; i < 10_001; i++) r.add(`u${i}@x.test`);
  assert.equal(r.has('u0@x.test'), false, 'the first went when the 10,001st came');
  assert.equal(r.has('u1@x.test'), true);
  assert.equal(r.has('u10000@x.test'), true);
  r.clear();
  assert.equal(r.has('u10000@x.test'), false);
});
