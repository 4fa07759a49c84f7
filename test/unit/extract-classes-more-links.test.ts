// Issue 11, more link classes in compact form: reset links in Portuguese, Italian, Dutch, Chinese and Korean, behind a
// generic "click here", a text label or a click-tracking wrapper; "View invitation" / "Join Now" / text-only
// invitations; and the near misses (new-sign-in notice, password tips, advertising "invitations", a launch party).
// Whole MIME messages through parseMessage and extractVerification.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { xRaw } from './extract-helpers.ts';
import type { MimeSpec } from './extract-mime.ts';
import { button, mime, page } from './extract-mime.ts';

const T = 'Hq7ZpX2mK9vL4nR8sW1yT3bC6dF0gJ5a';
const W = `https://click.esp.example/ls/click?upn=${T}${T}`;

const cases: Array<[name: string, spec: MimeSpec, otp: string | null, link: string | null]> = [
  [
    'reset generic anchor',
    {
      from: 'A <a@acme.io>',
      subject: 'Account help',
      html: page(
        `<p>We received a request for your account. To reset your password, <a href="https://acme.io/x/${T}">click here</a>.</p>`,
        '',
      ),
    },
    null,
    `https://acme.io/x/${T}`,
  ],
  [
    'reset text label',
    {
      from: 'A <a@acme.io>',
      subject: 'Password help',
      text: `Forgot it? Happens to everyone.\nReset link: https://acme.io/pw/${T}\nSign in: https://acme.io/login\nSupport: https://acme.io/support\n`,
    },
    null,
    `https://acme.io/pw/${T}`,
  ],
  [
    'pt reset',
    {
      from: 'A <a@loja.com.br>',
      subject: 'Redefinição de senha',
      html: page(
        `<p>Recebemos um pedido para redefinir a senha da sua conta.</p>${button(`https://loja.com.br/conta/${T}`, 'Redefinir senha')}<p><a href="https://loja.com.br/ajuda">Ajuda</a></p>`,
        '',
      ),
    },
    null,
    `https://loja.com.br/conta/${T}`,
  ],
  [
    'it reset',
    {
      from: 'A <a@negozio.it>',
      subject: 'Reimposta la tua password',
      html: page(
        `<p>Abbiamo ricevuto una richiesta di reimpostare la password.</p>${button(`https://negozio.it/a/${T}`, 'Reimposta password')}`,
        '',
      ),
    },
    null,
    `https://negozio.it/a/${T}`,
  ],
  [
    'nl reset',
    {
      from: 'A <a@winkel.nl>',
      subject: 'Wachtwoord opnieuw instellen',
      html: page(
        `<p>Klik op de knop om een nieuw wachtwoord te kiezen.</p>${button(`https://winkel.nl/a/${T}`, 'Nieuw wachtwoord kiezen')}`,
        '',
      ),
    },
    null,
    `https://winkel.nl/a/${T}`,
  ],
  [
    'zh reset',
    {
      from: 'A <a@shop.cn>',
      subject: '重置密码',
      html: page(`<p>请点击下面的按钮重置您的密码。</p>${button(`https://shop.cn/a/${T}`, '重置密码')}`, ''),
    },
    null,
    `https://shop.cn/a/${T}`,
  ],
  [
    'ko reset',
    {
      from: 'A <a@shop.kr>',
      subject: '비밀번호 재설정 안내',
      html: page(`<p>아래 버튼을 눌러 비밀번호를 재설정하세요.</p>${button(`https://shop.kr/a/${T}`, '비밀번호 재설정')}`, ''),
    },
    null,
    `https://shop.kr/a/${T}`,
  ],
  [
    'reset sendgrid wrapper + sign in',
    {
      from: 'A <a@acme.io>',
      subject: 'Reset your password',
      html: page(
        `<p>Tap below to reset your password.</p>${button(`https://u123.ct.sendgrid.net/ls/click?upn=${T}${T}`, 'Reset Password')}<p>Remembered it? <a href="https://acme.io/login">Sign in</a></p>`,
        '',
      ),
    },
    null,
    `https://u123.ct.sendgrid.net/ls/click?upn=${T}${T}`,
  ],
  [
    'invite view invitation',
    {
      from: 'A <a@design.io>',
      subject: 'You have been invited to a team',
      html: page(
        `<p>Ana invited you to the Brand team on Design.io.</p>${button(`https://design.io/invites/${T}`, 'View invitation')}`,
        '',
      ),
    },
    null,
    `https://design.io/invites/${T}`,
  ],
  [
    'invite join now',
    {
      from: 'A <a@chat.io>',
      subject: 'Join Acme on Chat',
      html: page(
        `<p>Ana has invited you to join the Acme workspace on Chat.</p>${button(`https://join.chat.io/t/acme/shared_invite/${T}`, 'Join Now')}`,
        '',
      ),
    },
    null,
    `https://join.chat.io/t/acme/shared_invite/${T}`,
  ],
  [
    'invite text',
    {
      from: 'A <a@chat.io>',
      subject: 'Invitation',
      text: `Ana has invited you to collaborate on "Q3 plan".\n\nAccept: https://chat.io/inv/${T}\nDecline: https://chat.io/inv/${T}/no\n`,
    },
    null,
    `https://chat.io/inv/${T}`,
  ],
  [
    'pt invite',
    {
      from: 'A <a@app.com.br>',
      subject: 'Convite para a equipe',
      html: page(
        `<p>João convidou você para a equipe Vendas.</p>${button(`https://app.com.br/c/${T}`, 'Aceitar convite')}<a href="https://app.com.br/c/${T}/recusar">Recusar</a>`,
        '',
      ),
    },
    null,
    `https://app.com.br/c/${T}`,
  ],
  [
    'it invite',
    {
      from: 'A <a@app.it>',
      subject: 'Invito',
      html: page(`<p>Marco ti ha invitato a unirti al team Vendite.</p>${button(`https://app.it/c/${T}`, 'Accetta invito')}`, ''),
    },
    null,
    `https://app.it/c/${T}`,
  ],
  [
    'ko invite',
    {
      from: 'A <a@app.kr>',
      subject: '팀 초대',
      html: page(`<p>김민수님이 회원님을 팀에 초대했습니다.</p>${button(`https://app.kr/c/${T}`, '초대 수락')}`, ''),
    },
    null,
    `https://app.kr/c/${T}`,
  ],
  [
    'invite expired neg',
    {
      from: 'A <a@chat.io>',
      subject: 'Your invitation expired',
      html: page(`<p>The invitation to join Acme has expired.</p>${button(`https://chat.io/request?t=${T}`, 'Ask for a new one')}`, ''),
    },
    null,
    null,
  ],
  [
    'security new sign-in change pw',
    {
      from: 'A <a@acme.io>',
      subject: 'New sign-in to your account',
      html: page(
        `<p>We noticed a new sign-in from Chrome on Windows.</p>${button(`https://acme.io/pw/change?t=${T}`, 'Change password')}`,
        '',
      ),
    },
    null,
    null,
  ],
  [
    'strong password tips',
    {
      from: 'A <a@acme.io>',
      subject: 'How to choose a strong password',
      html: page(`<p>Five tips for a better password.</p>${button(W, 'Read more')}`, ''),
    },
    null,
    null,
  ],
  [
    'es marketing invitación',
    {
      from: 'A <a@tienda.es>',
      subject: 'Invitación exclusiva',
      html: page(`<p>Invitación exclusiva: únete a nuestro club VIP y consigue un 20 % de descuento.</p>${button(W, 'Únete ahora')}`, ''),
    },
    null,
    null,
  ],
  [
    'de marketing einladung',
    {
      from: 'A <a@laden.de>',
      subject: 'Ihre persönliche Einladung',
      html: page(`<p>Ihre Einladung zur Sommer-Sale: jetzt Mitglied werden und sparen.</p>${button(W, 'Jetzt beitreten')}`, ''),
    },
    null,
    null,
  ],
  [
    'launch party',
    {
      from: 'A <a@acme.io>',
      subject: "You're invited!",
      html: page(`<p>Acme has invited you to our launch party on May 5.</p>${button(W, 'RSVP now')}`, ''),
    },
    null,
    null,
  ],
  [
    'near miss: a shared password ("View password") is not a reset',
    {
      from: 'A <a@vault.io>',
      subject: 'Ana shared a password with you',
      html: page(`<p>Ana shared the login for "Staging DB" with you.</p>${button(`https://vault.io/s/${T}`, 'View password')}`, ''),
    },
    null,
    null,
  ],
  [
    'near miss: "invited you to edit" a document, with only an "Open" button',
    {
      from: 'A <a@docs.io>',
      subject: 'Document shared with you',
      html: page(`<p>Ana has invited you to edit the following document: Q3 plan</p>${button(`https://docs.io/d/${T}/edit`, 'Open')}`, ''),
    },
    null,
    null,
  ],
  [
    'reset url anchor, sentence above',
    {
      from: 'A <a@acme.io>',
      subject: 'Your request',
      html: page(`<p>Use the link below to reset your password:</p><p><a href="https://acme.io/a/${T}">https://acme.io/a/${T}</a></p>`, ''),
    },
    null,
    `https://acme.io/a/${T}`,
  ],
  [
    'reset auth0 ticket',
    {
      from: 'A <no-reply@auth0user.net>',
      subject: 'Reset your password',
      html: page(
        `<p>Hello, we got a request to reset your Acme password.</p>${button(`https://acme.us.auth0.com/lo/reset?ticket=${T}#`, 'Reset Password')}`,
        '',
      ),
    },
    null,
    `https://acme.us.auth0.com/lo/reset?ticket=${T}#`,
  ],
  [
    'youre invited org',
    {
      from: 'A <invites@microsoft.example>',
      subject: "You're invited to the Contoso organization",
      html: page(
        `<p>You're invited to join the Contoso organization.</p>${button(`https://myapps.example/redeem?rd=${T}`, 'Accept invitation')}`,
        '',
      ),
    },
    null,
    `https://myapps.example/redeem?rd=${T}`,
  ],
  [
    'invite get started',
    {
      from: 'A <a@crm.io>',
      subject: 'Ana invited you to Acme CRM',
      html: page(`<p>Ana invited you to join Acme on CRM.</p>${button(`https://crm.io/signup/invite/${T}`, 'Get started')}`, ''),
    },
    null,
    `https://crm.io/signup/invite/${T}`,
  ],
  [
    'ja kochira reset',
    {
      from: 'A <a@shop.jp>',
      subject: 'パスワードの再設定',
      html: page(`<p>パスワードを再設定するには、<a href="https://shop.jp/pw/${T}">こちら</a>をクリックしてください。</p>`, ''),
    },
    null,
    `https://shop.jp/pw/${T}`,
  ],
  [
    'join acme',
    {
      from: 'A <a@chat.io>',
      subject: 'Invitation to join Acme',
      html: page(
        `<p>Ana has invited you to join Acme.</p>${button(`https://chat.io/x/${T}`, 'Join Acme')}<p><a href="https://chat.io/login">Sign in</a></p>`,
        '',
      ),
    },
    null,
    `https://chat.io/x/${T}`,
  ],
  [
    'reset code and link',
    {
      from: 'A <a@x.io>',
      subject: 'Password reset',
      html: page(
        `<p>Your password reset code is <b>482913</b>, or use the button.</p>${button(`https://x.io/reset/${T}`, 'Reset my password')}`,
        '',
      ),
    },
    '482913',
    `https://x.io/reset/${T}`,
  ],
  [
    'text reset blank line',
    { from: 'A <a@x.io>', subject: 'Account', text: `Click the link below to reset your password.\n\nhttps://x.io/r/${T}\n\nThanks` },
    null,
    `https://x.io/r/${T}`,
  ],
  [
    'gh org invite no token',
    {
      from: 'GitHub <noreply@github.com>',
      subject: '@octocat has invited you to join the @acme organization',
      html: page(
        `<p>@octocat has invited you to join the @acme organization on GitHub.</p>${button('https://github.com/orgs/acme/invitation?via_email=1', 'Join @acme')}<p>You can also decline: <a href="https://github.com/orgs/acme/invitation/decline">Decline</a>. <a href="https://docs.github.com/orgs">Learn more</a></p>`,
        '',
      ),
    },
    null,
    'https://github.com/orgs/acme/invitation?via_email=1',
  ],
  [
    'team page no token neg',
    {
      from: 'A <a@acme.io>',
      subject: 'Ana invited you to Acme',
      html: page(`<p>Ana invited you to join Acme.</p>${button('https://acme.io/team', 'Join the team')}`, ''),
    },
    null,
    null,
  ],
  [
    'bare verify URL under a support line',
    {
      from: 'A <a@acme.io>',
      subject: 'Confirm your email',
      html: page(
        `<p>Thanks for signing up. Questions? Contact support</p><p><a href="https://acme.io/verify?token=${T}">https://acme.io/verify?token=${T}</a></p>`,
        '',
      ),
    },
    null,
    `https://acme.io/verify?token=${T}`,
  ],
  [
    'login link labelled with an ignore hint',
    {
      from: 'A <a@acme.io>',
      subject: 'Your sign-in link',
      text: `Sign in with this link, or just ignore this email:\nhttps://acme.io/auth/magic?token=${T}\n`,
    },
    null,
    `https://acme.io/auth/magic?token=${T}`,
  ],
];

for (const [name, spec, otp, link] of cases) {
  test(`extract classes (more links): ${name}`, async () => {
    const r = await xRaw(mime(spec));
    assert.deepEqual({ otp: r.otp, primaryLink: r.primaryLink }, { otp, primaryLink: link }, JSON.stringify(r.candidates.slice(0, 3)));
  });
}
