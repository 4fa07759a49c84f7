// Property tests: a code planted next to a keyword in random text is found; planted years, prices, times
// and phone numbers are never returned as the code.
import { test } from 'node:test';
import fc from 'fast-check';
import { x } from './extract-helpers.ts';

const WORDS = (
  'the account team thanks you for using our service please note that this message was sent automatically ' +
  'if you have questions reply to support and we will get back to you soon our office hours are listed on ' +
  'the website you can manage notifications in settings we value your privacy and security hello there ' +
  'bonjour merci hallo danke hola gracias ciao grazie'
).split(' ');

const sentence = fc
  .array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 14 })
  .map((w) => w.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.');
const paragraph = fc.array(sentence, { minLength: 0, maxLength: 4 }).map((s) => s.join(' '));
const filler = fc.array(paragraph, { minLength: 0, maxLength: 4 }).map((p) => p.join('\n\n'));

const digitCode = fc
  .integer({ min: 4, max: 8 })
  .chain((n) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }))
  .map((d) => d.join(''))
  .filter((c) => !(c.length === 4 && /^(?:19|20)/.test(c)));
const alnumCode = fc
  .array(fc.constantFrom(...'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'.split('')), { minLength: 6, maxLength: 6 })
  .map((a) => a.join(''))
  .filter((c) => /\d/.test(c) && /[A-Z]/.test(c));

const TEMPLATES = [
  (c: string) => `Your verification code is ${c}.`,
  (c: string) => `${c} is your login code`,
  (c: string) => `Enter this code to continue:\n\n${c}\n`,
  (c: string) => `Security code: ${c}`,
  (c: string) => `Ihr Bestätigungscode lautet: ${c}`,
  (c: string) => `Tu código de verificación es ${c}`,
  (c: string) => `Votre code : ${c}`,
  (c: string) => `認証コード：${c}`,
  (c: string) => `您的验证码是 ${c}`,
  (c: string) => `인증 코드: ${c}`,
  (c: string) => `Ваш код: ${c}`,
];

test('property: a code planted next to a keyword is found', () => {
  fc.assert(
    fc.property(
      filler,
      filler,
      fc.oneof(digitCode, alnumCode),
      fc.integer({ min: 0, max: TEMPLATES.length - 1 }),
      fc.boolean(),
      (before, after, code, t, html) => {
        const body = `${before}\n\n${TEMPLATES[t]!(code)}\n\n${after}`;
        const r = html
          ? x({
              subject: 'Your account',
              html: body
                .split('\n')
                .map((l) => `<p>${l}</p>`)
                .join(''),
            })
          : x({ subject: 'Your account', text: body });
        return r.otp === code;
      },
    ),
    { numRuns: 400 },
  );
});

const year = fc.integer({ min: 1990, max: 2035 }).map(String);
const DISTRACTORS = [
  year.map((y) => `© ${y} Example Inc. All rights reserved.`),
  year.map((y) => `Sent on April 3, ${y} at 10:30.`),
  year.map((y) => `Member since ${y}.`),
  fc.integer({ min: 1000, max: 99_999 }).map((n) => `Your total is $${n}.99 and you saved €${n}.`),
  fc.integer({ min: 1000, max: 99_999 }).map((n) => `Price: USD ${n}`),
  fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `Requested at ${h}:${String(m).padStart(2, '0')} UTC.`),
  fc
    .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1000, max: 9999 }))
    .map(([a, b, c]) => `Questions? Call (${a}) ${b}-${c} or +1 ${a}-${b}-${c}.`),
  fc.integer({ min: 10_000, max: 99_999 }).map((z) => `Example Inc., 500 Howard Street, San Francisco, CA ${z}`),
  fc.integer({ min: 1000, max: 99_999_999 }).map((n) => `Order #${n} has shipped.`),
];

test('property: years, prices, times, phone numbers, ZIPs and order numbers are never the code', () => {
  fc.assert(
    fc.property(filler, fc.oneof(...DISTRACTORS), filler, fc.boolean(), (before, distractor, after, html) => {
      const body = `We sent you a verification code earlier today.\n\n${before}\n\n${distractor}\n\n${after}`;
      const r = html
        ? x({
            subject: 'About your code',
            html: body
              .split('\n')
              .map((l) => `<p>${l}</p>`)
              .join(''),
          })
        : x({ subject: 'About your code', text: body });
      return r.otp === null;
    }),
    { numRuns: 400 },
  );
});
