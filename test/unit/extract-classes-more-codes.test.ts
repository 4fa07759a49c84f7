// Issue 11, more code classes in compact form: letter+digit codes handed over with "use/enter/type … to sign in" in
// eight languages (verb-final Japanese too), alone under "Enter the following", in the Subject only; the ids,
// usernames, Wi-Fi codes, colours, flights, invoices and booking numbers that are not; promo codes (digits too) in
// Korean, Russian and English advertising, and real codes with a promo footer. Whole MIME messages through
// parseMessage and extractVerification.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { xRaw } from './extract-helpers.ts';
import type { MimeSpec } from './extract-mime.ts';
import { mime, page } from './extract-mime.ts';

const cases: Array<[name: string, spec: MimeSpec, otp: string | null, link: string | null]> = [
  ['pt code', { from: 'A <a@banco.com.br>', subject: 'Acesso', text: 'Seu código é: Ab3x9K. Válido por 5 minutos.' }, 'Ab3x9K', null],
  ['it code', { from: 'A <a@banca.it>', subject: 'Accesso', text: 'Usa 9XK-2MQ per accedere al tuo conto.' }, '9XK-2MQ', null],
  ['en passcode lower dashed', { from: 'A <a@x.io>', subject: 'Sign-in', text: 'Your one-time passcode: 4f7k-29xq' }, '4f7k-29xq', null],
  [
    'enter following',
    { from: 'A <a@x.io>', subject: 'Confirm it is you', html: page('<p>Enter the following to continue:</p><p><b>QX7-93K</b></p>', '') },
    'QX7-93K',
    null,
  ],
  ['subject only', { from: 'A <a@x.io>', subject: '7F3K92 is your Orbit code', text: 'Hi there, thanks.' }, '7F3K92', null],
  [
    'wifi password neg',
    {
      from: 'A <a@hotel.com>',
      subject: 'Welcome to your stay',
      text: 'Your Wi-Fi password is H7k29QpX. Use it to log in to the guest network.',
    },
    null,
    null,
  ],
  [
    'employee id neg',
    { from: 'A <a@corp.com>', subject: 'Sign in', text: 'Log in with your employee ID E12K345 at the portal.' },
    null,
    null,
  ],
  [
    'flight neg',
    {
      from: 'A <a@air.com>',
      subject: 'Your flight',
      text: 'Flight LH2024 confirmed. Seat 12A, gate B22. Booking ref X7K2QP. Check in online.',
    },
    null,
    null,
  ],
  [
    'invoice neg',
    { from: 'A <a@corp.com>', subject: 'Invoice', text: 'Your invoice INV3K9X2 is attached. Sign in to view it.' },
    null,
    null,
  ],
  [
    'windows neg',
    {
      from: 'A <a@corp.com>',
      subject: 'New sign-in',
      text: 'New sign-in from Win11 Chrome124 on 2026-04-14. If this was you, no action needed.',
    },
    null,
    null,
  ],
  [
    'promo verify line',
    { from: 'A <a@shop.com>', subject: 'Confirm your subscription', text: 'Confirm your subscription and get 15% off with code JOIN15K.' },
    null,
    null,
  ],
  [
    'promo only footer, real code',
    {
      from: 'A <a@shop.com>',
      subject: 'Your login code',
      html: page('<p>Here it is:</p><p><b>QX7K93</b></p><p>Shop the sale: 30% off sneakers this week with code SNKR30.</p>', ''),
    },
    'QX7K93',
    null,
  ],
  ['promo ko', { from: 'A <a@shop.kr>', subject: '할인 쿠폰', text: '쿠폰 코드 SPRING7K 를 입력하면 10% 할인!' }, null, null],
  ['promo ru', { from: 'A <a@shop.ru>', subject: 'Скидка', text: 'Ваш промокод: VESNA25 — скидка 10%.' }, null, null],
  ['promo digits code', { from: 'A <a@shop.com>', subject: 'Deal', text: 'Use code 482913 at checkout for free shipping.' }, null, null],
  [
    'referral',
    { from: 'A <a@app.com>', subject: 'Give $10, get $10', text: 'Share your referral code AB12CD with friends. They get $10 off.' },
    null,
    null,
  ],
  [
    'promo digits alone',
    { from: 'A <a@shop.com>', subject: 'A gift for you', text: 'Enjoy 15% off your first order!\nYour code:\n482913\nValid until May 31.' },
    null,
    null,
  ],
  [
    'promo digits discount alone',
    { from: 'A <a@shop.com>', subject: 'A gift for you', text: 'Your discount code:\n482913\nValid on orders over $50 until May 31.' },
    null,
    null,
  ],
  [
    'shop verification + promo footer',
    {
      from: 'A <a@shop.com>',
      subject: 'Verify your account',
      text: 'Your verification code is 7KQ2ZP.\n\nUse code SAVE20 for 20% off your next order.',
    },
    '7KQ2ZP',
    null,
  ],
  [
    'digit code + promo footer',
    { from: 'A <a@shop.com>', subject: 'Your code', text: 'Here is your code: 482913\n\nSpring sale: 20% off everything.' },
    '482913',
    null,
  ],
  [
    'confirmation number sign in',
    { from: 'A <a@hotel.com>', subject: 'See you soon', text: 'Your confirmation number is 7KQ2ZP. Sign in to manage your stay.' },
    null,
    null,
  ],
  ['username', { from: 'A <a@acme.io>', subject: 'Welcome', text: 'Log in with username jdoe42 and your password.' }, null, null],
  ['wifi code', { from: 'A <a@cafe.com>', subject: 'Welcome', text: 'Use Wi-Fi code X7K2QP to log in to the network.' }, null, null],
  [
    'hex colour words',
    { from: 'A <a@acme.io>', subject: 'Brand kit', text: 'Use 3FA2C1 as the primary colour and 1F2933 for text when you sign in pages.' },
    null,
    null,
  ],
  [
    'alnum no verify in promo mail',
    {
      from: 'A <a@shop.com>',
      subject: 'New arrivals',
      text: 'New arrivals are here. Free shipping on orders over $50.\n\nModel KX7-2QP in stock now.',
    },
    null,
    null,
  ],
  [
    'two-step en code in para',
    {
      from: 'A <a@bank.com>',
      subject: 'Two-step verification',
      text: 'To continue, type 9QX-4KT in the verification box. Do not share it.',
    },
    '9QX-4KT',
    null,
  ],
  [
    'fr use code sentence',
    { from: 'A <a@banque.fr>', subject: 'Connexion', text: 'Utilisez 7F3K92 pour vous connecter. Ne le communiquez à personne.' },
    '7F3K92',
    null,
  ],
  ['de verwenden', { from: 'A <a@bank.de>', subject: 'Anmeldung', text: 'Verwenden Sie Q7X-2KP, um sich anzumelden.' }, 'Q7X-2KP', null],
  ['es usa', { from: 'A <a@banco.es>', subject: 'Inicio de sesión', text: 'Usa Q7X2KP para iniciar sesión.' }, 'Q7X2KP', null],
  ['ja no kw', { from: 'A <a@bank.jp>', subject: 'ログイン', text: 'ログインするには 7F3K92 を入力してください。' }, '7F3K92', null],
  [
    'near miss: a model name with a sign-in word',
    { from: 'A <a@ai.io>', subject: 'New model', text: 'Log in to try the new GPT4o model today.' },
    null,
    null,
  ],
  [
    'grouped alnum',
    {
      from: 'A <a@bank.io>',
      subject: 'Your sign-in code',
      html: page('<p>Your sign-in code:</p><p style="font-size:28px"><b>K7XQ 2P9M</b></p>', ''),
    },
    'K7XQ2P9M',
    null,
  ],
  [
    'canadian postcode',
    {
      from: 'A <a@shop.ca>',
      subject: 'Your verification code',
      text: 'Your verification code is 482913.\n\nShop Inc., 150 Elgin St, Ottawa ON K2P 2L8',
    },
    '482913',
    null,
  ],
  ['licence key 3 groups', { from: 'A <a@soft.io>', subject: 'Your licence', text: 'Activate with key AB12 CD34 EF56 GH78.' }, null, null],
  ['lowercase dashed', { from: 'A <a@x.io>', subject: 'Login', text: 'Your login code is a1b2-c3d4.' }, 'a1b2-c3d4', null],
  ['it promo', { from: 'A <a@negozio.it>', subject: 'Saldi', text: 'Usa il codice sconto ESTATE20 entro domenica.' }, null, null],
  [
    'pt promo',
    { from: 'A <a@loja.com.br>', subject: 'Presente', text: 'Use o cupom de desconto BEMVINDO10 na sua primeira compra.' },
    null,
    null,
  ],
  ['nl promo', { from: 'A <a@winkel.nl>', subject: 'Zomer', text: 'Met kortingscode ZOMER20 krijg je 20% korting.' }, null, null],
  [
    'order confirm next time promo',
    {
      from: 'A <a@shop.com>',
      subject: 'Order confirmed',
      text: 'Thanks for your order #48213.\nNext time, use code THANKS10 for 10% off.',
    },
    null,
    null,
  ],
  [
    'code with far promo footer',
    {
      from: 'A <a@store.io>',
      subject: 'Your Acme code',
      html: page(
        "<p>Here's your code:</p><p><b>Q8RF2M</b></p><p>It works once.</p><p>&nbsp;</p><p>Thanks for shopping with us.</p><p>Gift cards now available, redeem in store.</p>",
        '',
      ),
    },
    'Q8RF2M',
    null,
  ],
  [
    'code alone no kw in promo mail',
    { from: 'A <a@store.io>', subject: 'Hello', html: page('<p>Big sale this week.</p><p>Spring arrivals</p><p><b>Q8RF2M</b></p>', '') },
    null,
    null,
  ],
  [
    'enter when prompted',
    { from: 'A <a@x.io>', subject: 'Your verification code', text: 'Hi,\n\nPlease enter 7F3K92 when prompted.\n\nThanks' },
    '7F3K92',
    null,
  ],
  ['copy css', { from: 'A <a@x.io>', subject: 'Sign in to Brandkit', text: 'Copy 3FA2C1 into your CSS to match the brand.' }, null, null],
  [
    'first order in a verification sentence',
    { from: 'A <a@shop.io>', subject: 'Almost done', text: 'Enter 7KQ2ZP to verify your email and complete your first order.' },
    '7KQ2ZP',
    null,
  ],
];

for (const [name, spec, otp, link] of cases) {
  test(`extract classes (more codes): ${name}`, async () => {
    const r = await xRaw(mime(spec));
    assert.deepEqual({ otp: r.otp, primaryLink: r.primaryLink }, { otp, primaryLink: link }, JSON.stringify(r.candidates.slice(0, 3)));
  });
}
