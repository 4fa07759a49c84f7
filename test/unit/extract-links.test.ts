// Link extraction: anchors and plain-text URLs, exclusions (README rule 11), canonical form (rule 10),
// click-tracking wrappers and their unwrap, userinfo tricks, IP hosts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasToken, registrableDomain, unwrapTracking } from '../../src/mail/extract/links.ts';
import { layout, x, xRaw } from './extract-helpers.ts';

const T = 'Zk29fj3KLm8x7c6v5b4n3m2Qa7Pw';
const V = `https://app.example.com/verify?token=${T}`;

test('HTML button with entities decoded', () => {
  const r = x({
    subject: 'Verify your email',
    html: layout(`<a href="https://app.example.com/verify?token=${T}&amp;utm_source=email&amp;utm_medium=email">Verify email</a>`),
  });
  assert.equal(r.primaryLink, `${V}&utm_source=email&utm_medium=email`);
});

test('plain-text URL: brackets and trailing punctuation are not part of it', () => {
  for (const t of [`<${V}>`, `(${V})`, `[${V}]`, `${V}.`, `Verify: ${V},`, `( ${V} )`]) {
    const r = x({ subject: 'Confirm your email', text: `Confirm your email address:\n${t}\n` });
    assert.equal(r.primaryLink, V, t);
  }
});

test('percent-encoding and trailing slash are kept as written', () => {
  const u = `https://app.example.com/confirm/${T}/?next=%2Fhome%3Fa%3D1`;
  assert.equal(x({ subject: 'Confirm', html: `<a href="${u}">Confirm account</a>` }).primaryLink, u);
});

const excluded: Array<[string, string]> = [
  ['unsubscribe', `<a href="https://news.example.com/unsubscribe?u=${T}">Unsubscribe</a>`],
  ['preferences', `<a href="https://news.example.com/prefs?u=${T}">Manage preferences</a>`],
  ['view in browser', `<a href="https://news.example.com/view/${T}">View in browser</a>`],
  ['privacy', `<a href="https://example.com/privacy">Privacy policy</a>`],
  ['terms', `<a href="https://example.com/legal/terms">Terms</a>`],
  ['help', `<a href="https://help.example.com/article/verify-email">Help center</a>`],
  ['social icon', `<a href="https://twitter.com/example"><img src="https://cdn.example.com/x.png" alt="Twitter"></a>`],
  ['logo', `<a href="https://example.com"><img src="https://cdn.example.com/logo.png" alt="Example"></a>`],
  ['tracking pixel', `<a href="https://t.example.com/open?id=${T}"><img src="https://t.example.com/p.gif" width="1" height="1"></a>`],
  ['mailto', `<a href="mailto:verify@example.com?subject=verify">Verify by e-mail</a>`],
  ['IP-literal host', `<a href="http://203.0.113.5/verify?token=${T}">Verify email</a>`],
  ['userinfo trick', `<a href="https://app.example.com@evil.example.net/verify?token=${T}">Verify email</a>`],
  ['not you', `<p>Not you? <a href="https://app.example.com/not-me?token=${T}">Let us know</a></p>`],
  ['deny', `<a href="https://app.example.com/signin/deny?request=${T}">No, block this sign-in</a>`],
  ['plain login, no token', `<p>Sign in at <a href="https://app.example.com/login">https://app.example.com/login</a></p>`],
  ['dashboard, no token', `<a href="https://app.example.com/dashboard">Go to dashboard</a>`],
  ['join meeting', `<a href="https://meet.example.com/j/81234567890?pwd=${T}">Join meeting</a>`],
  ['order tracking', `<a href="https://shop.example.com/track?o=${T}">Track package</a>`],
];
for (const [name, a] of excluded) {
  test(`excluded: ${name}`, () => {
    const r = x({ subject: 'Verify your email address', html: layout(`<p>Thanks for signing up.</p><p>${a}</p>`) });
    assert.equal(r.primaryLink, null, `got ${r.primaryLink}`);
  });
}

test('excluded: List-Unsubscribe URL', () => {
  const u = `https://news.example.com/confirm-unsub/${T}`;
  const r = x({
    subject: 'Confirm',
    headers: [['list-unsubscribe', `<${u}>, <mailto:u@example.com>`]],
    html: `<a href="${u}">Confirm</a>`,
  });
  assert.equal(r.primaryLink, null);
});

test('security notice: "secure your account" / "change password" is not primary', () => {
  const html = layout(
    `<p>Your password was changed on April 20, 2026.</p><p>If you didn't change your password, <a href="https://app.example.com/disavow?token=${T}">secure your account here</a>.</p>`,
  );
  assert.equal(x({ subject: 'Your password has been changed', html }).primaryLink, null);
  const html2 = layout(
    `<p>Here is your code: 482913</p><p>If you didn't ask for this code, <a href="https://app.example.com/settings/password?t=${T}">change your password</a>.</p>`,
  );
  const r = x({ subject: 'Your code', html: html2 });
  assert.equal(r.otp, '482913');
  assert.equal(r.primaryLink, null);
});

test('password reset request: the reset link is primary', () => {
  const html = layout(
    `<p>We received a request to reset your password.</p><p><a href="https://app.example.com/reset?token=${T}">Choose a new password</a></p>`,
  );
  assert.equal(x({ subject: 'Reset your password', html }).primaryLink, `https://app.example.com/reset?token=${T}`);
});

test('approve a pending sign-in; the block link is not', () => {
  const ok = `https://app.example.com/signin/approve?request=${T}`;
  const html = `<p>Was this you?</p><p><a href="${ok}">Yes, it's me – approve</a> <a href="https://app.example.com/signin/deny?request=${T}">No, block this sign-in</a></p>`;
  assert.equal(x({ subject: 'Approve sign-in request', html }).primaryLink, ok);
});

test('magic link among many footer links', () => {
  const magic = `https://app.example.com/t/acme/login/z-app-${T}`;
  const html = layout(
    `<p><a href="https://app.example.com/downloads">Get the app</a></p><p><a href="${magic}">Sign in to Acme</a></p><p><a href="https://example.com/help">Help</a> · <a href="https://example.com/blog">Blog</a></p>`,
  );
  assert.equal(x({ subject: 'Your sign-in link for Acme', html }).primaryLink, magic);
});

test('multilingual anchors', () => {
  for (const [subject, anchor] of [
    ['Bitte bestätigen', 'E-Mail-Adresse bestätigen'],
    ['Vérifiez votre adresse', "Vérifier l'adresse e-mail"],
    ['Confirma tu correo', 'Confirmar correo'],
    ['Conferma la tua email', 'Conferma email'],
    ['Bevestig je e-mailadres', 'Bevestigen'],
    ['Подтвердите адрес', 'Подтвердить адрес'],
    ['メールアドレスの確認', 'メールアドレスを確認する'],
    ['验证您的邮箱', '验证邮箱'],
    ['이메일 인증', '이메일 인증하기'],
  ]) {
    const r = x({ subject, html: layout(`<p><a href="https://app.example.com/e/${T}">${anchor}</a></p>`) });
    assert.equal(r.primaryLink, `https://app.example.com/e/${T}`, anchor);
  }
});

test('click-tracking wrapper is reported as written, the target is unwrapped from url=/q=/u=', () => {
  const target = `https://app.example.com/verify?token=${T}`;
  const wrapped = `https://click.example-esp.com/track?u=${encodeURIComponent(target)}&id=8f7e6d5c4b3a`;
  const r = x({ subject: 'Verify your email', html: `<p><a href="${wrapped.replace(/&/g, '&amp;')}">Verify email</a></p>` });
  assert.equal(r.primaryLink, wrapped);
  assert.equal(r.primaryLinkUnwrapped, target);
  const opaque = `https://click.example-esp.com/ls/click?upn=u001.${T}${T}`;
  const r2 = x({ subject: 'Verify your email', html: `<p><a href="${opaque}">Verify email</a></p>` });
  assert.equal(r2.primaryLink, opaque);
  assert.equal(r2.primaryLinkUnwrapped, null);
});

test('unwrapTracking: q=, url=, awstrack path; not a same-host redirect parameter', () => {
  assert.equal(unwrapTracking('https://www.google.com/url?q=https%3A%2F%2Fa.example%2Fv&sa=D'), 'https://a.example/v');
  assert.equal(
    unwrapTracking('https://eur01.safelinks.protection.outlook.com/?url=https%3A%2F%2Fa.example%2Fv%3Ft%3D1&data=x'),
    'https://a.example/v?t=1',
  );
  assert.equal(
    unwrapTracking('https://abc.r.us-east-1.awstrack.me/L0/https:%2F%2Fa.example%2Fverify%3Ft%3D9/1/0100/xyz=123'),
    'https://a.example/verify?t=9',
  );
  assert.equal(unwrapTracking('https://a.example/login?next=https%3A%2F%2Fa.example%2Fhome'), null);
  assert.equal(unwrapTracking('not a url'), null);
});

test('plain text: the label is the line above the URL', async () => {
  const r = await xRaw(
    `From: Dropbox <no-reply@dropbox.com>\nSubject: Verify your email address\nContent-Type: text/plain; charset=utf-8\n\nVerify your email:\n${V}\n\nHaving trouble? See https://help.dropbox.com/verify-email\nManage email preferences: https://www.dropbox.com/account/notifications\n`,
  );
  assert.equal(r.primaryLink, V);
  assert.equal(r.service, 'dropbox');
});

test('quoted-printable soft breaks are joined and =3D decoded', async () => {
  const raw = [
    'From: a@example.com',
    'Subject: Verify your email',
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    '<a href=3D"https://app.example.com/users/1/confirm_verification/122b598615dcbe8=',
    '10beacd557705a54b5edbbbe5?utm_campaign=3Dverify&amp;utm_medium=3Demail">Verify=',
    ' email address</a>',
  ].join('\n');
  const r = await xRaw(raw);
  assert.equal(
    r.primaryLink,
    'https://app.example.com/users/1/confirm_verification/122b598615dcbe810beacd557705a54b5edbbbe5?utm_campaign=verify&utm_medium=email',
  );
});

test('no verification purpose: newsletter, receipt, digest give no link', () => {
  const news = layout(
    `<h1>New this week</h1><p><a href="https://news.example.com/c/${T}">Read the story</a></p><p><a href="https://shop.example.com/p/${T}">Shop now</a></p>`,
  );
  assert.equal(x({ subject: 'This week at Example', html: news }).primaryLink, null);
  const receipt = layout(`<p>Receipt #1842-5519</p><p><a href="https://pay.example.com/receipts/${T}">Download receipt</a></p>`);
  assert.equal(x({ subject: 'Your receipt', html: receipt }).primaryLink, null);
});

test('hasToken and registrableDomain', () => {
  assert.equal(hasToken(new URL(`https://a.example/verify?token=${T}`)), true);
  assert.equal(hasToken(new URL('https://a.example/settings/security')), false);
  assert.equal(hasToken(new URL('https://docs.example.com/securing-your-account-with-two-factor-authentication-2fa')), false);
  assert.equal(hasToken(new URL('https://a.example/p?utm_campaign=verification-email-2026')), false);
  assert.equal(hasToken(new URL('https://a.example/c/122b598615dcbe810beacd557705a54b5edbbbe5')), true);
  assert.equal(hasToken(new URL('https://a.example/verify?email=a%40b.c&code=482913')), true);
  assert.equal(hasToken(new URL('https://a.example/help?code=abcdef')), false);
  assert.equal(registrableDomain('mail.notion.so'), 'notion.so');
  assert.equal(registrableDomain('t.shopifyemail.com'), 'shopifyemail.com');
  assert.equal(registrableDomain('www.amazon.co.jp'), 'amazon.co.jp');
  assert.equal(registrableDomain('service.paypal.com.br'), 'paypal.com.br');
});
