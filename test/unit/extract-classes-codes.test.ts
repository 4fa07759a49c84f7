// Issue 11, code classes on mail the public corpus does not have: codes of letters and digits inside a sentence
// (with or without the word "code", dashed, lower- or mixed-case) are the otp, in several languages; order and
// reference numbers, tracking ids, postcodes, product names, colours, build ids in similar sentences are not; and a
// marketing mail's promo/discount code is never the otp, even when the mail also asks to verify the address.
// Whole MIME messages go through parseMessage and extractVerification, the path ingest uses.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { xRaw } from './extract-helpers.ts';
import type { MimeSpec } from './extract-mime.ts';
import { button, mime, page } from './extract-mime.ts';

const TOK = 'Zr4mQ8xW2pL7nK3vB9cT1yH6dJ0sF5gA';
const U = 'https://mailer.example.net/unsub/7c2e9a4b1d3f5e6071829a3b';
const foot = `Orbit Labs, 548 Market St, San Francisco, CA 94104 · <a href="https://orbit-labs.io/privacy">Privacy</a> · <a href="${U}">Unsubscribe</a>`;

type Case = [name: string, spec: MimeSpec, otp: string | null, link: string | null];

const codes: Case[] = [
  [
    'en: "Use 7F3K-92QX to log in" without the word code',
    {
      from: 'Orbit <login@orbit-labs.io>',
      subject: 'Your Orbit sign-in',
      text: 'Hi,\n\nUse 7F3K-92QX to log in to Orbit. It expires in 15 minutes.\n\nIf you did not try to sign in, you can ignore this email.\n',
      html: page(
        '<p>Hi,</p><p>Use <b>7F3K-92QX</b> to log in to Orbit. It expires in 15 minutes.</p><p>If you did not try to sign in, you can ignore this email.</p>',
        foot,
      ),
    },
    '7F3K-92QX',
    null,
  ],
  [
    'en: lower-case code pasted into the app, text/plain only',
    {
      from: 'Ledgerly <security@ledgerly.co>',
      subject: 'Finish signing in to Ledgerly',
      enc: '8bit',
      text: 'Almost there! Paste x7k29q into the Ledgerly app to finish signing in.\n\nThis expires at 10:45 UTC. Order history, invoices and receipts are in your dashboard.\n\nLedgerly Ltd, 1 Canada Square, London E14 5AB\n',
    },
    'x7k29q',
    null,
  ],
  [
    'fr: "Votre code : AB12CD" in a sentence, ISO-8859-1',
    {
      from: 'Banque Azur <securite@banque-azur.fr>',
      subject: 'Connexion à votre espace client',
      charset: 'iso-8859-1',
      html: page(
        '<p>Bonjour,</p><p>Votre code : <strong>AB12CD</strong>. Saisissez-le pour accéder à votre espace. Il est valable 10 minutes.</p><p>Service client : 01 23 45 67 89</p>',
        '12 rue de la Paix, 75002 Paris',
        'fr',
      ),
    },
    'AB12CD',
    null,
  ],
  [
    'de: mixed-case code in a sentence, no keyword on the line',
    {
      from: 'Kontoservice <konto@stadtwerk-portal.de>',
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse',
      html: page(
        '<p>Hallo Jonas,</p><p>bitte geben Sie <b>k9Rt4Z</b> im Browserfenster ein, um Ihre E-Mail-Adresse zu bestätigen.</p><p>Kundennummer 48213907 · Tel. 089 1234567</p>',
        'Stadtwerk Portal GmbH, Hauptstraße 5, 80331 München',
        'de',
      ),
    },
    'k9Rt4Z',
    null,
  ],
  [
    'es: dashed code "4HJ-K92" in a sentence with a ticket number and a date',
    {
      from: 'Mercado Sol <cuentas@mercadosol.es>',
      subject: 'Tu acceso a Mercado Sol',
      text: 'Hola Lucía:\n\nTu código de acceso es 4HJ-K92 y caduca en 10 minutos.\n\nSobre tu consulta n.º 58213 del 14/04/2026: te responderemos pronto.\nPedido MS-48213 enviado.\n',
    },
    '4HJ-K92',
    null,
  ],
  [
    'ja: 認証コード：8KQ2ZT（10分間有効）, base64',
    {
      from: 'さくらストア <support@sakura-store.jp>',
      subject: '【さくらストア】ログインのご確認',
      enc: 'base64',
      text: '山田 太郎 様\n\nログインするには、認証コード：8KQ2ZT（10分間有効）を入力してください。\n\n注文番号：A12B34C5\n〒150-0002 東京都渋谷区渋谷2-21-1\nお問い合わせ：0120-555-123\n',
    },
    '8KQ2ZT',
    null,
  ],
  [
    'en: mixed-case dashed code with a strong label and a verify link (both set)',
    {
      from: 'Relay <auth@relay-mail.dev>',
      subject: 'Confirm your new device',
      html: page(
        `<p>Enter the confirmation code <code>mZ4-8Qp7</code> on the device, or confirm it from here:</p>${button(`https://relay-mail.dev/device/verify?token=${TOK}`, 'Verify device')}`,
        foot,
      ),
    },
    'mZ4-8Qp7',
    `https://relay-mail.dev/device/verify?token=${TOK}`,
  ],
  [
    'near miss en: shipping mail full of alphanumeric ids, colours and postcodes',
    {
      from: 'Parcelbay <orders@parcelbay.com>',
      subject: 'Your order A7K29QX has shipped',
      html: page(
        `<p>Good news! Order <b>A7K29QX</b> left our warehouse on 2026-04-14.</p><p>Reference: KX92-LL0P · Tracking number: 1Z999AA10123456784 · Carrier ref 9QX4-7TRB</p><p>Shipping to: 10 Downing Street, London SW1A 2AA. Colour: #3FA2C1 (teal), size M2.</p><p>Questions? Call 1-800-555-0199.</p>${button(`https://parcelbay.com/track?id=${TOK}`, 'Track package')}`,
        foot,
      ),
    },
    null,
    null,
  ],
  [
    'near miss de: Support ticket with Anfrage-ID and Vorgangsnummer',
    {
      from: 'Support <hilfe@teamraum.de>',
      subject: 'Ihre Anfrage wurde aufgenommen',
      text: 'Hallo,\n\nvielen Dank für Ihre Nachricht. Ihre Anfrage-ID: 7F3K92QX\nVorgangsnummer AB12-CD34, Priorität normal.\n\nWir melden uns innerhalb von 2 Werktagen.\n',
    },
    null,
    null,
  ],
  [
    'near miss fr: facture with numéro de commande and code postal',
    {
      from: 'Atelier <factures@atelier-pro.fr>',
      subject: 'Votre facture FR-2026-0412',
      text: 'Bonjour,\n\nMerci pour votre achat. Numéro de commande : FR7X2K9\nRéférence client : CLT48K2\nLivraison : 12 rue de la Paix, code postal 75002 Paris.\nMontant : 49,90 €\n',
    },
    null,
    null,
  ],
  [
    'near miss en: product newsletter with model names and a build id',
    {
      from: 'Gearhub <news@gearhub.com>',
      subject: 'The new XPS13 and RTX4090 deals are here',
      html: page(
        '<h1>Spring lineup</h1><p>The XPS13 and the Zen4X laptops now ship with Win11 and 32GB. Firmware build 4f9a2c1 fixes Wi-Fi on the M2X dock.</p><p>Model KB87-RGB in stock.</p>',
        foot,
      ),
    },
    null,
    null,
  ],
];

const promo: Case[] = [
  [
    'en newsletter: "Use code SAVE20 for 20% off"',
    {
      from: 'Brightwear <hello@brightwear.com>',
      subject: 'Spring sale starts now 🌸',
      headers: [`List-Unsubscribe: <${U}>`],
      html: page(
        `<h1>Spring sale</h1><p>Use code <b>SAVE20</b> for 20% off everything, this weekend only.</p>${button('https://brightwear.com/sale?utm_source=email', 'Shop now')}`,
        foot,
      ),
    },
    null,
    null,
  ],
  [
    'en newsletter: welcome code alone on its line under "Your welcome code:"',
    {
      from: 'Brightwear <hello@brightwear.com>',
      subject: 'Welcome to Brightwear',
      text:
        'Thanks for joining Brightwear!\n\nYour welcome code:\n\nHELLO15\n\nValid on your first order until May 31. Free shipping over $50.\n\nUnsubscribe: ' +
        U +
        '\n',
    },
    null,
    null,
  ],
  [
    'de: Gutscheincode with Rabatt',
    {
      from: 'Modehaus <news@modehaus-nord.de>',
      subject: 'Nur heute: 15 % auf alles',
      html: page('<p>Ihr Gutscheincode: <b>SOMMER25</b> – 15 % Rabatt auf Ihre nächste Bestellung.</p>', 'Abmelden', 'de'),
    },
    null,
    null,
  ],
  [
    'fr: code promo BIENVENUE20',
    {
      from: 'Atelier <news@atelier-pro.fr>',
      subject: 'Un cadeau de bienvenue',
      text: 'Profitez de -20 % sur votre première commande avec le code promo BIENVENUE20.\n\nSe désinscrire : ' + U + '\n',
    },
    null,
    null,
  ],
  [
    'es: cupón VERANO15',
    {
      from: 'Mercado Sol <ofertas@mercadosol.es>',
      subject: '¡Ofertas de verano!',
      html: page('<p>Usa el cupón <b>VERANO15</b> y ahorra un 15 % en tu próxima compra.</p>', 'Darse de baja', 'es'),
    },
    null,
    null,
  ],
  [
    'ja: クーポンコード',
    {
      from: 'さくらストア <news@sakura-store.jp>',
      subject: '春のセール開催中',
      enc: 'base64',
      text: '春のセールを開催中です。\nクーポンコード「HARU25」をご利用ください。全品10%オフ。\n',
    },
    null,
    null,
  ],
  [
    'en near miss: "verify your email" link plus a welcome discount code',
    {
      from: 'Brightwear <hello@brightwear.com>',
      subject: 'Verify your email to get 10% off',
      html: page(
        `<p>Thanks for signing up! Please verify your email address to activate your account.</p>${button(`https://brightwear.com/account/verify?token=${TOK}`, 'Verify email')}<p>As a thank-you, use code <b>WELCOME10</b> at checkout.</p><p>Your code:</p><p><b>WELCOME10</b></p>`,
        foot,
      ),
    },
    null,
    `https://brightwear.com/account/verify?token=${TOK}`,
  ],
  [
    'de near miss: Bestätigungslink plus Rabattcode',
    {
      from: 'Modehaus <konto@modehaus-nord.de>',
      subject: 'Bitte bestätigen Sie Ihre E-Mail-Adresse',
      html: page(
        `<p>Bitte bestätigen Sie Ihre E-Mail-Adresse.</p>${button(`https://modehaus-nord.de/konto/bestaetigen/${TOK}`, 'E-Mail-Adresse bestätigen')}<p>Danach gilt Ihr Code <b>NEU15K</b> für Ihre erste Bestellung.</p>`,
        'Abmelden',
        'de',
      ),
    },
    null,
    `https://modehaus-nord.de/konto/bestaetigen/${TOK}`,
  ],
  [
    'control: verification code with a promo footer',
    {
      from: 'Orbit <login@orbit-labs.io>',
      subject: 'Your Orbit verification code',
      html: page('<p>Your verification code is <b>7KQ2ZP</b>.</p><hr><p>Go Pro: get 20% off with code UPGRADE20.</p>', foot),
    },
    '7KQ2ZP',
    null,
  ],
];

for (const [name, spec, otp, link] of [...codes, ...promo]) {
  test(`extract classes (codes): ${name}`, async () => {
    const r = await xRaw(mime(spec));
    assert.equal(r.otp, otp, `otp; candidates: ${JSON.stringify(r.candidates)}`);
    assert.equal(r.primaryLink, link, 'primaryLink');
  });
}
