// The 25 service presets and sender-domain detection.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getPreset, isPresetId, listPresets, PRESET_IDS, serviceFromAddress } from '../../src/mail/presets.ts';

test('25 presets in the contract order', () => {
  assert.deepEqual(
    [...PRESET_IDS],
    'github google microsoft apple amazon slack discord notion stripe shopify atlassian dropbox linkedin x facebook instagram airbnb uber netflix spotify zoom openai figma vercel paypal'.split(
      ' ',
    ),
  );
  assert.equal(listPresets().length, 25);
});

test('every preset is complete', () => {
  for (const id of PRESET_IDS) {
    const p = getPreset(id);
    assert.equal(p.id, id);
    assert.ok(p.displayName.length > 0);
    assert.ok(p.senderDomains.length > 0 && p.senderDomains.every((d) => /^[a-z0-9.-]+\.[a-z]{2,}$/.test(d)), id);
    assert.ok(['code', 'link', 'both'].includes(p.sends));
    if (p.sends !== 'link') assert.ok(p.code && p.code.lengths.length > 0, id);
    assert.ok(p.recipe.summary.length > 10 && p.recipe.steps.length >= 4, id);
    // a domain belongs to one preset only
    for (const d of p.senderDomains) assert.equal(serviceFromAddress(`x@${d}`), id, d);
  }
});

test('isPresetId / getPreset', () => {
  assert.equal(isPresetId('github'), true);
  assert.equal(isPresetId('GitHub'), false);
  assert.equal(isPresetId('twitter'), false);
  assert.equal(isPresetId(42), false);
  assert.equal(getPreset('nope'), undefined);
  assert.equal(getPreset('google').code?.prefix, 'G-');
});

test('serviceFromAddress: sub-domains, country and mail domains', () => {
  const cases: Array<[string, string | null]> = [
    ['noreply@github.com', 'github'],
    ['no-reply@accounts.google.com', 'google'],
    ['account-security-noreply@accountprotection.microsoft.com', 'microsoft'],
    ['no_reply@email.apple.com', 'apple'],
    ['account-update@amazon.com', 'amazon'],
    ['x@amazon.co.jp', 'amazon'],
    ['no-reply@slack.com', 'slack'],
    ['noreply@discord.com', 'discord'],
    ['notify@mail.notion.so', 'notion'],
    ['support@stripe.com', 'stripe'],
    ['store+58213094@t.shopifyemail.com', 'shopify'],
    ['noreply@id.atlassian.com', 'atlassian'],
    ['no-reply@dropbox.com', 'dropbox'],
    ['security-noreply@linkedin.com', 'linkedin'],
    ['verify@x.com', 'x'],
    ['info@twitter.com', 'x'],
    ['security@facebookmail.com', 'facebook'],
    ['security@mail.instagram.com', 'instagram'],
    ['automated@airbnb.com', 'airbnb'],
    ['noreply@uber.com', 'uber'],
    ['info@account.netflix.com', 'netflix'],
    ['no-reply@spotify.com', 'spotify'],
    ['no-reply@zoom.us', 'zoom'],
    ['noreply@tm.openai.com', 'openai'],
    ['no-reply@figma.com', 'figma'],
    ['notifications@vercel.com', 'vercel'],
    ['service@paypal.de', 'paypal'],
    ['service@paypal.com.br', 'paypal'],
    ['someone@gmail.com', null],
    ['a@notgithub.com', null],
    ['a@github.com.evil.example', null],
    ['', null],
    ['no-at-sign', null],
    ['NoReply@GitHub.COM', 'github'],
  ];
  for (const [addr, want] of cases) assert.equal(serviceFromAddress(addr), want, addr);
});
