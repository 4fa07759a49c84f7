// Issue 11, link classes on mail the public corpus does not have: a password-reset mail's reset link and an
// invitation's accept link are the primary link, in several languages, among help/privacy/unsubscribe/decline
// links; and the near misses (password-changed notices, calendar invitations, "invite your team" calls to action,
// webinar sign-ups, accepted-invitation notices) have none. Whole MIME messages go through parseMessage and
// extractVerification, the path ingest uses.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { xRaw } from './extract-helpers.ts';
import type { MimeSpec } from './extract-mime.ts';
import { button, mime, page } from './extract-mime.ts';

const TOK = 'Qm8xT2vK9pL4nR7sW1yZ3bC6dF0gH5jA';
const T2 = 'b7e41c9a-3f0d-4e8a-9c2b-5d6f7a8e9b10';
const T3 = 'eyJpbnZpdGUiOiI4ODIxIn0.Zk3mQ9xW2pL7';
const U = 'https://mailer.example.net/unsub/7c2e9a4b1d3f5e6071829a3b';

type Case = [name: string, spec: MimeSpec, link: string | null];

const reset: Case[] = [
  [
    'en reset: button among help, privacy, "let us know" and unsubscribe links',
    {
      from: 'Keystone CRM <accounts@keystone-crm.com>',
      subject: 'Reset your Keystone password',
      headers: [`List-Unsubscribe: <${U}>`],
      text: `Hi Dana,\n\nSomeone (hopefully you) asked to reset the password for your Keystone account.\nChoose a new one here (valid for 60 minutes):\n\nhttps://app.keystone-crm.com/password/edit?reset_token=${TOK}\n\nDidn't ask for this? Let us know: https://keystone-crm.com/security/report\nHelp centre: https://help.keystone-crm.com/\nPrivacy: https://keystone-crm.com/privacy\n`,
      html: page(
        `<p>Hi Dana,</p><p>Someone (hopefully you) asked to reset the password for your Keystone account. The link is valid for 60 minutes.</p>${button(`https://app.keystone-crm.com/password/edit?reset_token=${TOK}`, 'Reset password')}<p>Didn't ask for this? <a href="https://keystone-crm.com/security/report">Let us know</a>.</p>`,
        `Keystone CRM, 2300 Harrison St, San Francisco, CA 94110 · <a href="https://help.keystone-crm.com/">Help centre</a> · <a href="https://keystone-crm.com/privacy">Privacy</a> · <a href="${U}">Unsubscribe</a>`,
      ),
    },
    `https://app.keystone-crm.com/password/edit?reset_token=${TOK}`,
  ],
  [
    'en reset: "Pick a new password" on a URL that does not say reset, no "reset" word anywhere',
    {
      from: 'Lumen HR <no-reply@lumenhr.io>',
      subject: 'Trouble signing in?',
      enc: 'base64',
      html: page(
        `<h1>Trouble signing in?</h1><p>No problem. Use the button below to pick a new password for your Lumen account. For your security it works once and expires tomorrow.</p>${button(`https://id.lumenhr.io/u/${T2}/${TOK}`, 'Pick a new password')}<p>Questions? <a href="https://lumenhr.io/support">Contact support</a></p>`,
        `<a href="https://lumenhr.io/legal/terms">Terms</a> · <a href="https://lumenhr.io/legal/privacy">Privacy</a>`,
      ),
    },
    `https://id.lumenhr.io/u/${T2}/${TOK}`,
  ],
  [
    'de reset: "Neues Passwort festlegen", ISO-8859-1, Hilfe/Datenschutz/Impressum',
    {
      from: 'Kontoservice <konto@stadtwerk-portal.de>',
      subject: 'Passwort vergessen?',
      charset: 'iso-8859-1',
      text: `Hallo Jonas,\n\nSie haben angefordert, Ihr Passwort zurückzusetzen. Über den folgenden Link legen Sie ein neues Passwort fest:\n\nhttps://portal.stadtwerk-portal.de/konto/passwort/neu?t=${TOK}\n\nDer Link ist 24 Stunden gültig.\n\nHilfe: https://stadtwerk-portal.de/hilfe\nDatenschutz: https://stadtwerk-portal.de/datenschutz\n`,
      html: page(
        `<p>Hallo Jonas,</p><p>Sie haben angefordert, Ihr Passwort zurückzusetzen. Der Link ist 24 Stunden gültig.</p>${button(`https://portal.stadtwerk-portal.de/konto/passwort/neu?t=${TOK}`, 'Neues Passwort festlegen')}`,
        `Stadtwerk Portal GmbH, Hauptstraße 5, 80331 München · <a href="https://stadtwerk-portal.de/hilfe">Hilfe</a> · <a href="https://stadtwerk-portal.de/datenschutz">Datenschutz</a> · <a href="https://stadtwerk-portal.de/impressum">Impressum</a>`,
        'de',
      ),
    },
    `https://portal.stadtwerk-portal.de/konto/passwort/neu?t=${TOK}`,
  ],
  [
    'fr reset: "Choisir un nouveau mot de passe" with aide/confidentialité/désinscription',
    {
      from: 'Atelier <bonjour@atelier-pro.fr>',
      subject: 'Réinitialisation de votre mot de passe',
      headers: [`List-Unsubscribe: <${U}>`],
      html: page(
        `<p>Bonjour Camille,</p><p>Nous avons reçu une demande de réinitialisation du mot de passe de votre compte Atelier.</p>${button(`https://compte.atelier-pro.fr/r/${TOK}`, 'Choisir un nouveau mot de passe')}<p>Ce lien expire dans 30 minutes. Si vous n'êtes pas à l'origine de cette demande, ignorez ce message.</p>`,
        `<a href="https://aide.atelier-pro.fr/">Aide</a> · <a href="https://atelier-pro.fr/confidentialite">Confidentialité</a> · <a href="${U}">Se désinscrire</a>`,
        'fr',
      ),
    },
    `https://compte.atelier-pro.fr/r/${TOK}`,
  ],
  [
    'es reset: text/plain only, 8bit, link on its own line under the sentence',
    {
      from: 'Mercado Sol <cuentas@mercadosol.es>',
      subject: 'Restablece tu contraseña',
      enc: '8bit',
      text: `Hola Lucía:\n\nRecibimos una solicitud para restablecer la contraseña de tu cuenta.\nPara crear una nueva contraseña, abre este enlace:\n\n<https://mercadosol.es/cuenta/restablecer?codigo=${T3}>\n\nEl enlace caduca en 2 horas.\n\nCentro de ayuda: https://ayuda.mercadosol.es/\nPolítica de privacidad: https://mercadosol.es/privacidad\nDarse de baja: ${U}\n`,
    },
    `https://mercadosol.es/cuenta/restablecer?codigo=${T3}`,
  ],
  [
    'ja reset: パスワードを再設定する button, base64',
    {
      from: 'さくらストア <support@sakura-store.jp>',
      subject: 'パスワード再設定のご案内',
      enc: 'base64',
      html: page(
        `<p>山田 太郎 様</p><p>パスワードを再設定するには、以下のボタンをクリックしてください。このリンクの有効期限は24時間です。</p>${button(`https://sakura-store.jp/account/pw/${TOK}`, 'パスワードを再設定する')}<p>お心当たりのない場合は、このメールを破棄してください。</p>`,
        `〒150-0002 東京都渋谷区渋谷2-21-1 · <a href="https://sakura-store.jp/help">ヘルプ</a> · <a href="https://sakura-store.jp/privacy">プライバシーポリシー</a> · <a href="${U}">配信停止</a>`,
        'ja',
      ),
    },
    `https://sakura-store.jp/account/pw/${TOK}`,
  ],
  [
    'near miss: password-changed notice whose only link is "reset it" for the not-you case',
    {
      from: 'Keystone CRM <accounts@keystone-crm.com>',
      subject: 'Your password was changed',
      html: page(
        `<p>Hi Dana,</p><p>The password for your Keystone account was changed on April 14, 2026 at 10:30 UTC.</p><p>If you didn't make this change, <a href="https://app.keystone-crm.com/password/edit?reset_token=${TOK}">reset your password</a> right away.</p>`,
        `<a href="https://help.keystone-crm.com/">Help centre</a>`,
      ),
    },
    null,
  ],
  [
    'near miss de: "Ihr Passwort wurde geändert" with a reset link for the not-you case',
    {
      from: 'Kontoservice <konto@stadtwerk-portal.de>',
      subject: 'Ihr Passwort wurde geändert',
      text: `Hallo Jonas,\n\nIhr Passwort wurde am 14.04.2026 um 10:30 Uhr geändert.\nWenn Sie das nicht waren, setzen Sie Ihr Passwort hier zurück:\nhttps://portal.stadtwerk-portal.de/konto/passwort/neu?t=${TOK}\n`,
    },
    null,
  ],
  [
    'near miss: newsletter footer "Forgot your password?" to a page without a token',
    {
      from: 'Keystone CRM <news@keystone-crm.com>',
      subject: 'What is new in Keystone this April',
      html: page(
        `<h1>April product update</h1><p>Pipelines now sync every 5 minutes, and reports export to CSV.</p>${button('https://keystone-crm.com/blog/april-2026', 'Read the update')}`,
        `<a href="https://app.keystone-crm.com/forgot-password">Forgot your password?</a> · <a href="${U}">Unsubscribe</a>`,
      ),
    },
    null,
  ],
];

const invite: Case[] = [
  [
    'en invite: "Accept invitation" wins over "Decline" (both carry tokens)',
    {
      from: 'Tasklane <notifications@tasklane.app>',
      subject: 'Priya Shah invited you to join Northwind on Tasklane',
      headers: [`List-Unsubscribe: <${U}>`],
      html: page(
        `<p><b>Priya Shah</b> (priya@northwind.example) has invited you to join the <b>Northwind</b> workspace on Tasklane.</p>${button(`https://tasklane.app/invitations/${T2}/accept?sig=${TOK}`, 'Accept invitation')}<p>Not interested? <a href="https://tasklane.app/invitations/${T2}/decline?sig=${TOK}">Decline</a></p><p><a href="https://tasklane.app/about">Learn more about Tasklane</a></p>`,
        `<a href="${U}">Unsubscribe</a> · <a href="https://tasklane.app/privacy">Privacy</a>`,
      ),
    },
    `https://tasklane.app/invitations/${T2}/accept?sig=${TOK}`,
  ],
  [
    'en invite: "Join the team" with the link also in text/plain',
    {
      from: 'Codeforge <noreply@codeforge.dev>',
      subject: '@octo-lead invited you to the acme-robotics team',
      text: `@octo-lead has invited you to collaborate in the acme-robotics organization.\n\nJoin the team: https://codeforge.dev/orgs/acme-robotics/invitation?invitation_token=${TOK}\n\nThis invitation expires in 7 days. Docs: https://docs.codeforge.dev/orgs\n`,
      html: page(
        `<p><b>@octo-lead</b> has invited you to collaborate in the <b>acme-robotics</b> organization.</p>${button(`https://codeforge.dev/orgs/acme-robotics/invitation?invitation_token=${TOK}`, 'Join the team')}<p>This invitation expires in 7 days.</p>`,
        `<a href="https://docs.codeforge.dev/orgs">Docs</a> · <a href="https://codeforge.dev/settings/notifications">Notification settings</a>`,
      ),
    },
    `https://codeforge.dev/orgs/acme-robotics/invitation?invitation_token=${TOK}`,
  ],
  [
    'de invite: "Einladung annehmen" next to "Ablehnen"',
    {
      from: 'Teamraum <einladung@teamraum.de>',
      subject: 'Max Müller hat Sie zu „Vertrieb Süd“ eingeladen',
      html: page(
        `<p>Hallo,</p><p>Max Müller hat Sie eingeladen, dem Team „Vertrieb Süd“ auf Teamraum beizutreten.</p>${button(`https://app.teamraum.de/einladung/${TOK}`, 'Einladung annehmen')}<p><a href="https://app.teamraum.de/einladung/${TOK}/ablehnen">Ablehnen</a></p>`,
        `<a href="https://teamraum.de/hilfe">Hilfe</a> · <a href="https://teamraum.de/datenschutz">Datenschutz</a>`,
        'de',
      ),
    },
    `https://app.teamraum.de/einladung/${TOK}`,
  ],
  [
    'fr invite: "Accepter l\'invitation" next to "Refuser"',
    {
      from: 'Atelier <bonjour@atelier-pro.fr>',
      subject: "Camille vous invite à rejoindre l'espace Atelier Lumière",
      html: page(
        `<p>Camille Martin vous invite à rejoindre l'espace de travail <b>Lumière</b>.</p>${button(`https://atelier-pro.fr/join/${TOK}?from=email`, "Accepter l'invitation")}<p><a href="https://atelier-pro.fr/join/${TOK}/refuser">Refuser</a></p>`,
        `<a href="https://aide.atelier-pro.fr/">Aide</a>`,
        'fr',
      ),
    },
    `https://atelier-pro.fr/join/${TOK}?from=email`,
  ],
  [
    'es invite: "Unirme al equipo", text/plain with a "rechazar" link',
    {
      from: 'Planea <equipo@planea.app>',
      subject: 'Lucía te ha invitado a Planea',
      enc: '8bit',
      text: `Hola:\n\nLucía Gómez te ha invitado a unirte al equipo «Ventas» en Planea.\n\nUnirme al equipo:\nhttps://planea.app/i/${TOK}\n\nSi no quieres unirte, rechaza la invitación aquí:\nhttps://planea.app/i/${TOK}/rechazar\n\nAyuda: https://planea.app/ayuda\n`,
    },
    `https://planea.app/i/${TOK}`,
  ],
  [
    'ja invite: 招待を承認する',
    {
      from: 'チームボード <noreply@teamboard.jp>',
      subject: '山田さんがあなたを「開発部」に招待しました',
      enc: 'base64',
      html: page(
        `<p>山田 花子さんが、あなたをチーム「開発部」に招待しました。</p>${button(`https://teamboard.jp/invite/accept?token=${TOK}`, '招待を承認する')}<p>この招待の有効期限は7日間です。</p>`,
        `<a href="https://teamboard.jp/help">ヘルプ</a>`,
        'ja',
      ),
    },
    `https://teamboard.jp/invite/accept?token=${TOK}`,
  ],
  [
    'near miss: calendar invitation with Yes/Maybe/No and "Join with video"',
    {
      from: 'Calendar <calendar-notification@calendar.example.org>',
      subject: 'Invitation: Quarterly review @ Tue Apr 14, 2026 10:30 - 11:30 (UTC)',
      html: page(
        `<p>You have been invited to the following event.</p><p><b>Quarterly review</b><br>Tue Apr 14, 2026 10:30 – 11:30 (UTC)</p><p><a href="https://meet.example.org/abc-defg-hij">Join with video</a></p><p>Going? <a href="https://calendar.example.org/event?action=RESPOND&amp;rst=1&amp;eid=${TOK}">Yes</a> <a href="https://calendar.example.org/event?action=RESPOND&amp;rst=3&amp;eid=${TOK}">Maybe</a> <a href="https://calendar.example.org/event?action=RESPOND&amp;rst=2&amp;eid=${TOK}">No</a></p>`,
        `Invitation from Example Calendar`,
      ),
      attachment: { name: 'invite.ics', type: 'text/calendar', body: 'BEGIN:VCALENDAR\nMETHOD:REQUEST\nEND:VCALENDAR\n' },
    },
    null,
  ],
  [
    'near miss: welcome/newsletter with "Invite your teammates" and "Join our webinar"',
    {
      from: 'Tasklane <hello@tasklane.app>',
      subject: 'Tasklane tips: work better together',
      html: page(
        `<p>Teams that plan together ship faster.</p>${button(`https://click.mailer.example.net/ls/click?upn=${TOK}`, 'Invite your teammates')}<p>Live next Tuesday: <a href="https://tasklane.app/webinars/register?ref=${TOK}">Join our webinar</a></p>`,
        `<a href="${U}">Unsubscribe</a>`,
      ),
    },
    null,
  ],
  [
    'near miss: "Priya accepted your invitation" notice with "Open workspace"',
    {
      from: 'Tasklane <notifications@tasklane.app>',
      subject: 'Priya Shah accepted your invitation',
      html: page(
        `<p>Priya Shah accepted your invitation and joined the Northwind workspace.</p>${button(`https://tasklane.app/w/northwind?ref=email&amp;s=${TOK}`, 'Open workspace')}`,
        `<a href="https://tasklane.app/settings/notifications">Notification settings</a>`,
      ),
    },
    null,
  ],
];

for (const [name, spec, link] of [...reset, ...invite]) {
  test(`extract classes (links): ${name}`, async () => {
    const r = await xRaw(mime(spec));
    assert.equal(r.primaryLink, link, `primaryLink; candidates: ${JSON.stringify(r.candidates)}`);
    assert.equal(r.otp, null, 'otp');
  });
}
