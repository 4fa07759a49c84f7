// Realistic messages in styles the public corpus does not cover: other languages, codes in <strong>, in
// boxes, with letters, link-only resets, approvals, wrappers, newsletters with promo codes, receipts,
// bookings, meeting invites, security notices, replies. Each row: name, message, expected otp, expected link.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MsgSpec } from './extract-helpers.ts';
import { layout, x } from './extract-helpers.ts';

const footer = `Example Inc., 548 Market St #12345, San Francisco, CA 94104 · <a href="https://example.com/privacy">Privacy</a> · <a href="https://example.com/unsubscribe?u=8f3a9c2d1e0b4a5f6c7d">Unsubscribe</a>`;
const T = 'tK8pQ2vX9mL4nR7sW1yZ3bC6dF0gH5jA';

const cases: Array<[string, MsgSpec, string | null, string | null]> = [
  [
    'de strong',
    {
      from: 'Konto <noreply@beispiel.de>',
      subject: 'Ihr Bestätigungscode',
      html: layout(
        '<p>Hallo,</p><p>Ihr Bestätigungscode lautet: <strong>482913</strong></p><p>Der Code ist 15 Minuten gültig.</p>',
        'Musterstraße 12, 10115 Berlin · Tel. +49 30 1234567 · <a href="https://beispiel.de/impressum">Impressum</a>',
      ),
    },
    '482913',
    null,
  ],
  [
    'fr alnum',
    {
      subject: 'Votre code de vérification',
      html: layout('<p>Bonjour,</p><p>Votre code de vérification : <b>K7XQ2P</b></p><p>Il expire dans 10 minutes.</p>', footer),
    },
    'K7XQ2P',
    null,
  ],
  [
    'it grouped',
    {
      subject: 'Codice di verifica',
      text: 'Ciao,\n\nil tuo codice di verifica è 305 118.\n\nScade tra 10 minuti.\n\nVia Roma 12, 00184 Roma',
    },
    '305118',
    null,
  ],
  [
    'nl 4-4',
    {
      subject: 'Je verificatiecode',
      text: 'Hallo,\n\nJe verificatiecode is:\n\n7710 2391\n\nDeze code verloopt over 10 minuten.\n\nKeizersgracht 123, 1015 CJ Amsterdam',
    },
    '77102391',
    null,
  ],
  [
    'zh',
    { subject: '【示例】验证码', text: '您的验证码是：846201，10分钟内有效。请勿泄露给他人。\n客服电话：400-123-4567\n2026年4月14日' },
    '846201',
    null,
  ],
  ['ko', { subject: '[Example] 인증번호 안내', text: '[Example] 인증번호 [592043]를 입력해 주세요.\n고객센터 1588-1234' }, '592043', null],
  [
    'ru',
    {
      subject: 'Код подтверждения',
      text: 'Здравствуйте!\n\nВаш код подтверждения: 7391. Никому не сообщайте его.\n\nТелефон поддержки: 8 800 555-35-35',
    },
    '7391',
    null,
  ],
  [
    'span boxes',
    {
      subject: 'Your sign-in code',
      html: layout(
        '<p>Use the code below to sign in.</p><div><span style="border:1px solid #ccc;padding:8px">A</span>\n<span style="border:1px solid #ccc;padding:8px">7</span>\n<span>K</span>\n<span>2</span>\n<span>Q</span>\n<span>9</span></div><p>Expires in 10 minutes.</p>',
        footer,
      ),
    },
    'A7K2Q9',
    null,
  ],
  [
    'div boxes',
    {
      subject: 'Verify your email',
      html: layout(
        '<p>Enter this code:</p><div style="display:flex"><div class="d">3</div><div class="d">0</div><div class="d">9</div><div class="d">4</div><div class="d">1</div><div class="d">7</div></div>',
        footer,
      ),
    },
    '309417',
    null,
  ],
  [
    'reset link only',
    {
      subject: 'Reset your password',
      html: layout(
        `<h1>Reset your password</h1><p>We received a request to reset the password for your account.</p><p><a href="https://app.example.com/reset-password?token=${T}" style="background:#000;color:#fff">Reset password</a></p><p>If you didn't request a password reset, you can ignore this email.</p>`,
        footer,
      ),
    },
    null,
    `https://app.example.com/reset-password?token=${T}`,
  ],
  [
    'newsletter promo',
    {
      subject: 'Spring deals inside',
      html: layout(
        '<h1>Spring sale</h1><p>Use code <strong>SAVE2024</strong> for 20% off.</p><p>Members save more — member #84729103.</p><p>Trail shoes <s>$120.00</s> <b>$96.00</b></p><p><a href="https://shop.example.com/sale?c=8a7f6e5d4c3b2a19">Shop now</a></p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'receipt auth code',
    {
      subject: 'Your receipt #A-10293',
      text: 'Thanks for your purchase!\n\nReceipt #A-10293\nDate: 14/04/2026 10:31\nVisa ending in 4242\nAuthorization code: 048213\nSubtotal: $42.00\nTax: $3.78\nTotal: $45.78\n\nStore #0192, 1200 Main Street, Springfield, IL 62701\n(217) 555-0142',
    },
    null,
    null,
  ],
  [
    'booking',
    {
      subject: 'Your booking is confirmed',
      html: layout(
        '<h1>Booking confirmed</h1><p>Hotel Lumière, Paris</p><table><tr><td>Check-in</td><td>Fri 17 Apr 2026</td></tr><tr><td>Confirmation code</td><td><b>4829XK</b></td></tr><tr><td>Booking reference</td><td>83920175</td></tr></table><p>Total €312.40</p><p><a href="https://travel.example.com/trips/83920175?t=Zk29fj3KLm8">Manage booking</a></p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'meeting',
    {
      subject: 'Invitation: Weekly sync',
      text: 'You are invited to a meeting.\n\nJoin meeting\nhttps://meet.example.com/j/81234567890?pwd=aB3dE5fG7hI9jK1\n\nMeeting ID: 812 3456 7890\nPasscode: 918273\n',
    },
    null,
    null,
  ],
  [
    'welcome done',
    {
      subject: 'Welcome to Example!',
      html: layout(
        '<h1>You\'re all set</h1><p>Your email address has been verified. Thanks for joining Example.</p><p><a href="https://app.example.com/dashboard?ref=welcome_a8B3c9D2e7F1">Go to your dashboard</a> or <a href="https://app.example.com/login?s=Xy82kLm39QpZ">Log in</a></p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'security notice',
    {
      subject: 'New sign-in to your account',
      html: layout(
        '<p>We noticed a new sign-in to your account from Chrome on Windows (IP 203.0.113.9) on Apr 14, 2026 at 10:30.</p><p>If this was you, you can ignore this message. If not, <a href="https://account.example.com/security/lock?t=ab12cd34ef56gh78ij90">secure your account</a>.</p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'gmail reply',
    {
      subject: 'Re: your code',
      inReplyTo: '<a@b>',
      html: '<div dir="ltr">Here is the new one: <b>771204</b></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Apr 13, 2026 at 9:00 AM Support &lt;help@example.com&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0 0 0 .8ex;border-left:1px #ccc solid;padding-left:1ex"><div>Your verification code is 552210.</div></blockquote></div>',
    },
    '771204',
    null,
  ],
  [
    'outlook reply',
    {
      subject: 'RE: Login code',
      text: 'Hi,\n\nA fresh verification code: 480215\n\nRegards,\nIT Desk\n\n-----Original Message-----\nFrom: IT Desk <it@example.com>\nSent: Monday, April 13, 2026 9:00 AM\nTo: Jay\nSubject: Login code\n\nYour verification code is 991034.',
    },
    '480215',
    null,
  ],
  [
    'G prefix text',
    {
      from: 'Google <no-reply@accounts.google.com>',
      subject: 'Email verification code',
      text: 'G-771903 is your verification code.\n\nGoogle LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043',
    },
    '771903',
    null,
  ],
  [
    'FB prefix subject',
    {
      from: 'Facebook <registration@facebookmail.com>',
      subject: 'FB-48213 is your Facebook confirmation code',
      text: 'Hi,\n\nYou may be asked to enter this confirmation code:\n\nFB-48213\n\nThanks,\nThe Facebook team',
    },
    '48213',
    null,
  ],
  [
    'google url wrapper',
    {
      subject: 'Confirm your email',
      html: layout(
        `<p>Please confirm your email address.</p><p><a href="https://www.google.com/url?q=https%3A%2F%2Fapp.example.com%2Fverify%3Ftoken%3D${T}&amp;sa=D&amp;source=email">Confirm email</a></p>`,
        footer,
      ),
    },
    null,
    `https://www.google.com/url?q=https%3A%2F%2Fapp.example.com%2Fverify%3Ftoken%3D${T}&sa=D&source=email`,
  ],
  [
    'userinfo trick',
    {
      subject: 'Verify your email',
      html: layout(
        `<p>Please verify your email.</p><p><a href="https://example.com@evil.example.net/verify?token=${T}">Verify email</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'plain login no token',
    {
      subject: 'Your account is ready',
      text: 'Hi,\n\nYour account has been created. Sign in at https://app.example.com/login to get started.\n\nHelp: https://help.example.com',
    },
    null,
    null,
  ],
  ['alnum dash subject', { subject: 'ABCD-1234 is your sign-in code', text: 'Use the code in the subject to sign in.' }, 'ABCD-1234', null],
  [
    'code + phone',
    { subject: 'Verification', text: 'Your verification code is 836104. Questions? Call 1 (800) 555-0199 or +44 20 7946 0958.' },
    '836104',
    null,
  ],
  [
    'es 4 digits',
    { subject: 'Código de verificación', text: 'Hola,\n\nTu código de verificación es 4821.\n\nCalle Mayor 5, 28013 Madrid' },
    '4821',
    null,
  ],
  [
    'de double opt-in',
    {
      subject: 'Bitte bestätigen Sie Ihre Anmeldung',
      html: layout(
        `<p>Vielen Dank für Ihr Interesse an unserem Newsletter.</p><p><a href="https://news.beispiel.de/optin/confirm?id=${T}">Anmeldung bestätigen</a></p><p>Falls Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail.</p>`,
        footer,
      ),
    },
    null,
    `https://news.beispiel.de/optin/confirm?id=${T}`,
  ],
  [
    'big font no kw',
    {
      subject: 'Confirm your email',
      html: layout(
        '<h1>Confirm your email</h1><p>Enter the following on the sign-up page:</p><p style="font-size:32px;font-weight:bold">593017</p><p>It expires in 30 minutes.</p>',
        footer,
      ),
    },
    '593017',
    null,
  ],
  [
    'spaced otp text',
    { subject: 'One-time password', text: 'Your one-time password is:\n\n  8 3 0 2 9 1\n\nDo not share it.' },
    '830291',
    null,
  ],
  ['otp grouped', { subject: 'Sign-in attempt', text: 'Your OTP: 482 913\nValid for 5 minutes.' }, '482913', null],
  [
    'magic link text',
    {
      subject: 'Your sign-in link',
      text: `Hi,\n\nClick to sign in:\n<https://app.example.com/magic?token=${T}>\n\nThis link expires in 10 minutes.\n\nUnsubscribe: https://app.example.com/unsubscribe?u=abcdef123456`,
    },
    null,
    `https://app.example.com/magic?token=${T}`,
  ],
  [
    'verify + code',
    {
      subject: 'Verify your account',
      html: layout(
        `<p>Your verification code is <strong>204816</strong>.</p><p>Or <a href="https://app.example.com/verify?token=${T}">verify your account</a> with one click.</p>`,
        footer,
      ),
    },
    '204816',
    `https://app.example.com/verify?token=${T}`,
  ],
  [
    'pt link',
    {
      subject: 'Confirme seu e-mail',
      html: layout(
        `<p>Olá! Confirme seu endereço de e-mail para ativar sua conta.</p><p><a href="https://conta.exemplo.com.br/ativar?codigo=${T}">Confirmar e-mail</a></p>`,
        footer,
      ),
    },
    null,
    `https://conta.exemplo.com.br/ativar?codigo=${T}`,
  ],
  [
    'ja link',
    {
      subject: 'メールアドレスの確認',
      html: layout(
        `<p>以下のボタンをクリックしてメールアドレスを確認してください。</p><p><a href="https://example.jp/verify?t=${T}">メールアドレスを確認する</a></p>`,
        footer,
      ),
    },
    null,
    `https://example.jp/verify?t=${T}`,
  ],
  [
    'digest numbers',
    {
      subject: 'Your weekly summary',
      text: 'This week: 1,204 views, 38 new followers.\nTop post: "Release 4.2.1" (build 58213)\nNext billing: May 1, 2026 — $12.00\nAccount ID 48213097\n',
    },
    null,
    null,
  ],
  [
    'shipping',
    {
      subject: 'Your order has shipped',
      text: 'Order #112-4482910-2283 shipped.\nTracking number: 1Z999AA10123456784\nEstimated delivery: April 16\nTrack your package: https://shop.example.com/track?o=11244829102283&k=Hx92kLm',
    },
    null,
    null,
  ],
  [
    'gh launch',
    {
      from: 'GitHub <noreply@github.com>',
      subject: 'Your GitHub launch code',
      text: "Here's your GitHub launch code, @octo-cat-77!\n\n  48213097\n\nContinue signing up for GitHub by entering the code above. The code will expire in 2 hours.\n\nGitHub, Inc. 88 Colin P Kelly Jr Street, San Francisco, CA 94107",
    },
    '48213097',
    null,
  ],
  [
    'gh ssh key',
    {
      from: 'GitHub <noreply@github.com>',
      subject: '[GitHub] A new SSH authentication public key was added to your account',
      text: 'The following SSH key was added to your account:\n\nMy laptop\nSHA256:2wR9Kf0bXyQ1mN3pL7vC8dE4fG6hJ2kL5zX9aB0cD1e\n\nIf you believe this key was added in error, you can remove the key and disable access at the following location:\n\nhttps://github.com/settings/keys',
    },
    null,
    null,
  ],
  [
    'ms unusual',
    {
      from: 'Microsoft account team <account-security-noreply@accountprotection.microsoft.com>',
      subject: 'Microsoft account unusual sign-in activity',
      html: layout(
        '<p>We detected something unusual about a recent sign-in to the Microsoft account sw*****@example.net.</p><table><tr><td>Country/region:</td><td>Brazil</td></tr><tr><td>IP address:</td><td>203.0.113.57</td></tr><tr><td>Date:</td><td>4/14/2026 10:30 AM (GMT)</td></tr></table><p>Please go to your recent activity page to let us know whether or not this was you.</p><p><a href="https://account.live.com/Activity?ru=https%3a%2f%2faccount.microsoft.com&amp;tk=9f8e7d6c5b4a39281716">Review recent activity</a></p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'apple signin notice',
    {
      from: 'Apple <noreply@email.apple.com>',
      subject: 'Your Apple Account was used to sign in to iCloud via a web browser',
      text: 'Dear Jay,\n\nYour Apple Account (jay@example.net) was used to sign in to iCloud via a web browser.\n\nDate and Time: April 14, 2026, 10:30 AM PDT\n\nIf the information above looks familiar, you can ignore this message.\n\nIf you have not signed in to iCloud recently and believe someone may have accessed your account, go to Apple Account (https://account.apple.com) and change your password as soon as possible.\n\nApple Support',
    },
    null,
    null,
  ],
  [
    'stripe payout',
    {
      from: 'Stripe <notifications@stripe.com>',
      subject: 'Your payout of $1,234.56 is on the way',
      text: 'A payout of $1,234.56 USD is on the way to your bank account ending in 6789.\n\nPayout ID: po_1NxY2zL8vR3pQ9zT\nEstimated arrival: Apr 16, 2026\n\nView payout: https://dashboard.stripe.com/payouts/po_1NxY2zL8vR3pQ9zT',
    },
    null,
    null,
  ],
  [
    'netflix temp code',
    {
      from: 'Netflix <info@account.netflix.com>',
      subject: 'Your temporary access code',
      html: layout(
        '<h2>Here\'s your temporary access code</h2><p style="font-size:36px;letter-spacing:4px">8245</p><p>Enter this code on your TV. It expires in 15 minutes.</p><p>Requested by: Living Room TV, April 14 at 10:30 PM</p>',
        'Questions? Call 1-866-579-7172',
      ),
    },
    '8245',
    null,
  ],
  [
    'netflix household',
    {
      from: 'Netflix <info@account.netflix.com>',
      subject: 'Important: How to update your Netflix Household',
      html: layout(
        `<p>A request to update the Netflix Household for your account was made from a device near Lyon.</p><p>Did you send this request?</p><p><a href="https://www.netflix.com/account/travel/verify?nftoken=${T}&amp;messageGuid=8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d">Yes, This Was Me</a></p><p>If you didn't send this request, <a href="https://www.netflix.com/password">change your password</a>.</p>`,
        footer,
      ),
    },
    null,
    `https://www.netflix.com/account/travel/verify?nftoken=${T}&messageGuid=8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d`,
  ],
  [
    'discord verify login',
    {
      from: 'Discord <noreply@discord.com>',
      subject: 'Verify Discord Login from New Location',
      html: layout(
        `<p>Hey there,</p><p>It looks like someone tried to log into your Discord account from a new location. If this is you, follow the link below to authorize logging in from this location on your account.</p><p><a href="https://click.discord.com/ls/click?upn=u001.${T}${T}">Verify Login</a></p><p>IP Address: 203.0.113.18<br>Location: Madrid, Spain</p>`,
        footer,
      ),
    },
    null,
    `https://click.discord.com/ls/click?upn=u001.${T}${T}`,
  ],
  [
    'instagram confirm email',
    {
      from: 'Instagram <no-reply@mail.instagram.com>',
      subject: 'Confirm your email address for Instagram',
      html: layout(
        `<p>Hi swift.otter,</p><p>We just need to verify your email address to finish setting up your account.</p><p><a href="https://www.instagram.com/accounts/confirm_email/${T}/ZmFrZV9iYXNlNjQ/">Confirm email address</a></p><p>from Meta</p>`,
        '© Instagram. Meta Platforms, Inc., 1601 Willow Road, Menlo Park, CA 94025',
      ),
    },
    null,
    `https://www.instagram.com/accounts/confirm_email/${T}/ZmFrZV9iYXNlNjQ/`,
  ],
  [
    'zoom code',
    {
      from: 'Zoom <no-reply@zoom.us>',
      subject: 'Zoom sign-in verification code',
      text: 'Hi Jay,\n\nYour verification code is 502913. It expires in 10 minutes.\n\nZoom Communications, Inc., 55 Almaden Blvd, San Jose, CA 95113',
    },
    '502913',
    null,
  ],
  [
    'shopify order',
    {
      from: 'Northwind Goods <store+58213094@t.shopifyemail.com>',
      subject: 'Order #1042 confirmed',
      html: layout(
        '<h2>Thank you for your purchase!</h2><p>Order #1042</p><p>Confirmation number: 7H2K9QX</p><table><tr><td>Cotton tee × 2</td><td>$48.00</td></tr><tr><td>Shipping</td><td>$5.00</td></tr><tr><td>Total</td><td>$53.00 USD</td></tr></table><p><a href="https://northwind-goods.com/58213094/orders/8f7e6d5c4b3a29181716?key=a1b2c3d4e5f6">View your order</a></p>',
        '18 Harbour St, Halifax, NS B3J 1A1',
      ),
    },
    null,
    null,
  ],
  [
    'figma share',
    {
      from: 'Figma <no-reply@figma.com>',
      subject: 'Maya shared "Checkout redesign" with you',
      html: layout(
        `<p>Maya Chen invited you to edit <b>Checkout redesign</b>.</p><p><a href="https://www.figma.com/file/Zx82kLm39QpZ4a7b/Checkout-redesign?invite=${T}">Open file</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'jira issue',
    {
      from: 'Jira <jira@orbit-labs.atlassian.net>',
      subject: '[JIRA] (WEB-1482) Fix login redirect loop',
      text: 'Maya Chen assigned WEB-1482 to you.\n\nFix login redirect loop\nPriority: High · Sprint 24\n\nView issue: https://orbit-labs.atlassian.net/browse/WEB-1482',
    },
    null,
    null,
  ],
  [
    'dropbox share',
    {
      from: 'Dropbox <no-reply@dropbox.com>',
      subject: 'Maya shared "Q2 Plan" with you',
      text: 'Maya Chen shared a folder with you.\n\nQ2 Plan (14 files, 238 MB)\n\nView folder: https://www.dropbox.com/scl/fo/k29fj3klm8x7c6v5b4n3m2/AAB8x7c6v5b4n3m2k1j0h9g8?dl=0',
    },
    null,
    null,
  ],
  [
    'x reset',
    {
      from: 'X <info@x.com>',
      subject: 'Password reset request',
      text: `We received a request to reset the password for your X account (@swift_otter).\n\nReset password: https://x.com/i/account/password_reset?token=${T}\n\nIf you didn't make this request, just ignore this email.`,
    },
    null,
    `https://x.com/i/account/password_reset?token=${T}`,
  ],
  [
    'paypal confirm',
    {
      from: 'PayPal <service@paypal.com>',
      subject: 'Confirm your email address',
      html: layout(
        `<p>Hello Jay,</p><p>Confirm your email address to get the most out of your PayPal account.</p><p><a href="https://www.paypal.com/us/cgi-bin/webscr?cmd=_confirm-email-password-submit&amp;token=${T}">Confirm my email</a></p>`,
        'PayPal, 2211 North First Street, San Jose, CA 95131',
      ),
    },
    null,
    `https://www.paypal.com/us/cgi-bin/webscr?cmd=_confirm-email-password-submit&token=${T}`,
  ],
  [
    'slack digits dash',
    {
      from: 'Slack <no-reply@slack.com>',
      subject: 'Slack confirmation code: 482-913',
      text: "Confirm your email address\n\nYour confirmation code is below — enter it in your open browser window and we'll help you get signed in.\n\n482-913\n",
    },
    '482913',
    null,
  ],
  [
    'openai invoice',
    {
      from: 'OpenAI <noreply@tm.openai.com>',
      subject: 'Your OpenAI API invoice is available',
      text: 'Invoice #INV-2026-0412-3391\nAmount due: $120.00\nBilling period: Mar 1 – Mar 31, 2026\nDownload invoice: https://pay.openai.com/invoices/in_1Pq8sT2eZvKYlo2C3k9fJ3kL',
    },
    null,
    null,
  ],
  [
    'vercel code',
    {
      from: 'Vercel <notifications@vercel.com>',
      subject: 'Your Vercel verification code',
      html: layout(
        '<h1>Verify your email</h1><p>Your verification code is:</p><p style="font-size:28px;font-family:monospace">735 018</p><p>This code expires in 10 minutes.</p>',
        footer,
      ),
    },
    '735018',
    null,
  ],
  [
    'uber receipt id',
    {
      from: 'Uber Receipts <noreply@uber.com>',
      subject: 'Your Tuesday evening trip with Uber',
      text: 'Total $18.45\nTrip ID: 8f7e6d5c\n6:42 PM 350 Mission St, San Francisco, CA 94105\n7:01 PM 1 Ferry Building, San Francisco, CA 94111\nVisa ••••4242',
    },
    null,
    null,
  ],
  [
    'airbnb code',
    {
      from: 'Airbnb <automated@airbnb.com>',
      subject: 'Your Airbnb verification code',
      text: "Your Airbnb verification code is: 482910. Don't share this code with anyone; our employees will never ask for the code.",
    },
    '482910',
    null,
  ],
  [
    'linkedin invite',
    {
      from: 'LinkedIn <invitations@linkedin.com>',
      subject: 'Maya Chen wants to connect',
      html: layout(
        `<p>Maya Chen, Product Designer at Fabrikam, wants to connect.</p><p><a href="https://www.linkedin.com/comm/invitations/accept?invitationId=7291834752&amp;sharedKey=${T}">Accept</a> <a href="https://www.linkedin.com/comm/in/maya-chen-4821?trk=eml-invite">View profile</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'google passkey',
    {
      from: 'Google <no-reply@accounts.google.com>',
      subject: 'Security alert',
      html: layout(
        '<p>A new passkey was added to your account jay@example.net.</p><p>If you didn\'t add a passkey, someone might be using your account. <a href="https://accounts.google.com/AccountChooser?Email=jay@example.net&amp;continue=https://myaccount.google.com/alert/nt/1775469012000?rfn%3D325">Check activity</a></p>',
        '© 2026 Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043',
      ),
    },
    null,
    null,
  ],
  [
    'de newsletter gutschein',
    {
      from: 'Shop <news@shop.example.de>',
      subject: 'Nur heute: 25 % Rabatt',
      html: layout(
        '<p>Mit dem Gutscheincode <b>SOMMER25</b> sparen Sie 25 %.</p><p>Gültig bis 30.04.2026.</p><p><a href="https://shop.example.de/sale?c=k29fj3klm8x7c6v5b4n3">Jetzt einkaufen</a></p>',
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'html blockquote not reply',
    {
      subject: 'Your login code',
      html: layout('<p>Use this code to log in:</p><blockquote style="font-size:24px">582031</blockquote>', footer),
    },
    '582031',
    null,
  ],
  [
    'code in table cell label',
    {
      subject: 'Verify your identity',
      html: layout(
        '<table><tr><td>Verification code</td><td><strong>730199</strong></td></tr><tr><td>Requested</td><td>Apr 14, 2026 10:30</td></tr></table>',
        footer,
      ),
    },
    '730199',
    null,
  ],
  [
    'click here',
    {
      subject: 'Confirm your subscription',
      html: layout(
        `<p>Thanks for signing up! To confirm your subscription, <a href="https://list.example.org/e/Zk29fj3KLm8x7c6v5b4n3m2">click here</a>.</p>`,
        footer,
      ),
    },
    null,
    'https://list.example.org/e/Zk29fj3KLm8x7c6v5b4n3m2',
  ],
  [
    'long label',
    {
      subject: 'Sign-in',
      text: 'Please use the following one-time verification code to complete your sign-in to the Example Portal: 482913',
    },
    '482913',
    null,
  ],
  [
    'click here not-you',
    {
      subject: 'New sign-in',
      html: layout(
        `<p>New sign-in from Firefox. If this wasn't you, <a href="https://app.example.com/s/Zk29fj3KLm8x7c6v5b4n3m2">click here</a> to secure your account.</p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'order conf code',
    {
      subject: 'Thanks for your order!',
      text: 'Thanks for your order!\nOrder confirmation code: 4829\nShipping to: 12 Elm St, Springfield, IL 62701\nTotal: $42.00',
    },
    null,
    null,
  ],
  [
    'delivery code',
    {
      subject: 'Your delivery is arriving today',
      text: 'Your package arrives today between 2 PM and 6 PM.\nShare this delivery code with the driver: 482913\nTrack: https://shop.example.com/track/8f7e6d5c4b3a2918',
    },
    null,
    null,
  ],
  [
    'code + reference',
    {
      subject: 'Your verification code',
      text: 'Your verification code is 730519.\nReference: 4829-1034\nThis code expires in 10 minutes.',
    },
    '730519',
    null,
  ],
  [
    'code + sign-in button no token',
    {
      subject: 'Your sign-in code',
      html: layout('<p>Your sign-in code is <b>619203</b>.</p><p><a href="https://app.example.com/login">Sign in</a></p>', footer),
    },
    '619203',
    null,
  ],
  [
    'verify + help article',
    {
      subject: 'Verify your email',
      html: layout(
        `<p><a href="https://app.example.com/verify-email/${T}">Verify email</a></p><p>Trouble? <a href="https://help.example.com/articles/how-to-verify-your-email">How to verify your email</a></p>`,
        footer,
      ),
    },
    null,
    `https://app.example.com/verify-email/${T}`,
  ],
  [
    'h1 keyword table code',
    {
      subject: 'Action required',
      html: layout(
        '<h1>Verification code</h1><table><tr><td style="letter-spacing:6px;font-size:30px">482913</td></tr></table><p>Valid for 10 minutes.</p>',
        footer,
      ),
    },
    '482913',
    null,
  ],
  [
    'nbsp spaced',
    { subject: 'Code', html: layout('<p>Your code:</p><p>4&nbsp;8&nbsp;2&nbsp;9&nbsp;1&nbsp;3</p>', footer) },
    '482913',
    null,
  ],
  [
    'sms-like',
    {
      subject: 'Example',
      text: 'Your Example verification code is 482 913. Msg&data rates may apply. Reply STOP to cancel. Call 1-800-555-0199 for help.',
    },
    '482913',
    null,
  ],
  [
    'ja link',
    {
      subject: 'パスワードの再設定',
      html: layout(
        `<p>パスワード再設定のリクエストを受け付けました。</p><p><a href="https://example.jp/password/reset?t=${T}">パスワードを再設定する</a></p>`,
        footer,
      ),
    },
    null,
    `https://example.jp/password/reset?t=${T}`,
  ],
  [
    'ko link',
    {
      subject: '이메일 주소 인증',
      html: layout(
        `<p>아래 버튼을 눌러 이메일 주소를 인증해 주세요.</p><p><a href="https://example.kr/verify?t=${T}">이메일 인증하기</a></p>`,
        footer,
      ),
    },
    null,
    `https://example.kr/verify?t=${T}`,
  ],
  [
    'fr reset',
    {
      subject: 'Réinitialisation de votre mot de passe',
      html: layout(
        `<p>Vous avez demandé la réinitialisation de votre mot de passe.</p><p><a href="https://exemple.fr/mdp/nouveau?jeton=${T}">Choisir un nouveau mot de passe</a></p>`,
        footer,
      ),
    },
    null,
    `https://exemple.fr/mdp/nouveau?jeton=${T}`,
  ],
  [
    'image button',
    {
      subject: 'Confirm your email',
      html: layout(
        `<p>Almost done!</p><p><a href="https://app.example.com/c/${T}"><img src="https://cdn.example.com/btn.png" alt="Confirm my email address" width="200" height="48"></a></p>`,
        footer,
      ),
    },
    null,
    `https://app.example.com/c/${T}`,
  ],
  [
    'bare url in html',
    {
      subject: 'Verify your account',
      html: layout(
        `<p>Please verify your account by opening this address in your browser:</p><p>https://app.example.com/verify?token=${T}</p>`,
        footer,
      ),
    },
    null,
    `https://app.example.com/verify?token=${T}`,
  ],
  [
    'markdown text link',
    { subject: 'Confirm your email', text: `Confirm your email: [Confirm email](https://app.example.com/confirm?t=${T})\n\nThanks` },
    null,
    `https://app.example.com/confirm?t=${T}`,
  ],
  [
    'newsletter log in wrapper',
    {
      subject: 'Your weekly digest',
      html: layout(
        `<h1>This week</h1><p>12 new posts in your groups.</p><p><a href="https://click.esp.example/ls/click?upn=${T}${T}">Log in to see more</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'invite',
    {
      subject: 'Maya invited you to Acme',
      html: layout(
        `<p>Maya invited you to join the Acme workspace.</p><p><a href="https://app.example.com/invite/accept?token=${T}">Accept invitation</a></p>`,
        footer,
      ),
    },
    null,
    // issue 11: an invitation's accept link is the primary link
    `https://app.example.com/invite/accept?token=${T}`,
  ],
  [
    'magic link wrapper subject login',
    {
      subject: 'Log in to Acme',
      html: layout(
        `<p>Click the button below to log in. This link expires in 15 minutes.</p><p><a href="https://click.esp.example/ls/click?upn=${T}${T}">Log in</a></p>`,
        footer,
      ),
    },
    null,
    `https://click.esp.example/ls/click?upn=${T}${T}`,
  ],
  [
    'steam-like 5 alnum',
    {
      subject: 'Your Steam account: Access from new computer',
      text: 'Here is the Steam Guard code you need to login to account jay4821:\n\nF7K2Q\n\nThis email was generated because of a login attempt from a web or mobile device located at 203.0.113.4 (US).',
    },
    'F7K2Q',
    null,
  ],
  ['code 4 digits year-like strong', { subject: 'Your code', text: 'Your verification code is 2024.' }, '2024', null],
  [
    'password changed de',
    {
      subject: 'Ihr Passwort wurde geändert',
      html: layout(
        `<p>Ihr Passwort wurde am 14.04.2026 um 10:30 Uhr geändert.</p><p>Wenn Sie das nicht waren, <a href="https://beispiel.de/konto/sperren?t=${T}">sichern Sie Ihr Konto</a>.</p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'two codes same msg pick labeled',
    { subject: 'Your login code', text: 'Request ID 582913\n\nYour login code is 730519\n\nSupport PIN for phone calls: 4821' },
    '730519',
    null,
  ],
  [
    'confirm appointment',
    {
      subject: 'Please confirm your appointment',
      html: layout(
        `<p>Your appointment with Dr. Lee is on April 20 at 10:30.</p><p><a href="https://clinic.example.com/appt/confirm?t=${T}">Confirm appointment</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
  [
    'confirm order',
    {
      subject: 'Confirm your order',
      html: layout(
        `<p>Please confirm your order #4821.</p><p><a href="https://shop.example.com/order/confirm?t=${T}">Confirm your order</a></p>`,
        footer,
      ),
    },
    null,
    null,
  ],
];

for (const [name, spec, otp, link] of cases) {
  test(`message: ${name}`, () => {
    const r = x(spec);
    assert.equal(r.otp, otp, `otp of ${name}`);
    assert.equal(r.primaryLink, link, `link of ${name}`);
  });
}
