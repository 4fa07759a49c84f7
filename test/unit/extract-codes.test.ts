// Code extraction: formats (README rules 1–5), distractor classes (rule 6), languages, Subject-only codes,
// presets, and the agent's primary action.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskLine, scanCodes } from '../../src/mail/extract/code-scan.ts';
import { extractVerification, primaryActionFor } from '../../src/mail/extract/index.ts';
import { msg, x } from './extract-helpers.ts';

// ---- formats
const formats: Array<[string, string, string]> = [
  ['6 digits after label', 'Your verification code: 482913', '482913'],
  ['4 digits', 'Your code is 7294.', '7294'],
  ['8 digits', 'Your security code is 83920417', '83920417'],
  ['grouped with space', 'Your code:\n\n714 205\n', '714205'],
  ['grouped with dash', 'Enter this login code:\n\n837-261\n', '837261'],
  ['three pairs', 'Your code is 40 91 73', '409173'],
  ['two quads', 'Your sign-in code is:\n\n    3920 5718\n', '39205718'],
  ['one digit per box', 'Enter this code:\n6 1 5 0 2 7', '615027'],
  ['alnum upper', 'Enter this verification code:\n\nQ8RF2M\n', 'Q8RF2M'],
  ['alnum lower keeps case', 'Your confirmation code is r8k2mq7x', 'r8k2mq7x'],
  ['alnum with dash kept', 'Your confirmation code: QWJ-7MX', 'QWJ-7MX'],
  ['letters-dash-digits kept', 'Your code: ABCD-1234', 'ABCD-1234'],
  ['alnum 5', 'Your one-time code is K7XQ2', 'K7XQ2'],
  ['G- prefix dropped', 'G-582046 is your verification code', '582046'],
  ['FB- prefix dropped', 'Your confirmation code is FB-12345', '12345'],
  ['leading zeros', 'Your code is 004271', '004271'],
  ['code after the number', '730481 is your one-time passcode', '730481'],
  ['PIN', 'Your PIN: 5820', '5820'],
  ['OTP', 'OTP for your login: 552901', '552901'],
  ['full-width digits', 'Your code is ４８２９１３', '482913'],
  ['number sign after a code label', 'Your verification code: #482913', '482913'],
  ['zero-width and nbsp inside', 'Your code is 48\u200b2\u00a0913', '482913'],
];
for (const [name, text, want] of formats) {
  test(`format: ${name}`, () => assert.equal(x({ subject: 'Your code', text }).otp, want));
}

// ---- distractors: never the otp
const distractors: Array<[string, string]> = [
  ['year', 'Your code will arrive shortly.\n© 2026 Example Inc.'],
  ['year in date', 'Your verification code was sent on April 14, 2026.'],
  ['date', 'Code requested on 2026-04-14 and 14.04.2026 and 04/14/2026.'],
  ['time', 'Your code request at 10:30 was received. It expires at 1130 hrs.'],
  ['duration', 'The code expires in 1440 minutes. Check again in 2400 seconds.'],
  ['price', 'Your code for the order of $1999 and €2500 and 3000 USD.'],
  ['phone', 'Questions about your code? Call 1-888-555-0147 or (510) 555-0148 or +1 415 555 0182.'],
  ['order number', 'Your code is on the way. Order #48213 and order number 58213097.'],
  ['ticket', 'Ticket 48213: we will send you a code.'],
  ['receipt number', 'Receipt #1842-5519 — no code needed.'],
  ['transaction id', 'Transaction ID: 5TY05013RG002845M. Verification code sent separately.'],
  ['booking confirmation code', 'Your reservation at Hotel Lumière is booked.\nConfirmation code: HMX4T2\nCheck-in: Friday'],
  ['meeting id and passcode', 'Join Zoom Meeting\nMeeting ID: 851 2233 9044\nPasscode: 483920'],
  ['promo code', 'Spring sale! Use code SPRING20 at checkout for 20% off.'],
  ['promo code digits', 'Use promo code 55210 for free shipping.'],
  ['zip code', 'Your code was sent to Example Inc., San Francisco, CA 94107'],
  ['postal code de', 'Ihr Code wurde gesendet. Musterstraße 12, 10115 Berlin'],
  ['street number', 'Code sent from 1725 3rd Street and 2300 Harrison Street.'],
  ['suite and PO box', 'Code desk: Suite 9000, PO Box 77767'],
  ['IP address', 'Your code was requested from 203.0.113.24.'],
  ['CSS colour', 'Your code <span style="color:#334455">is below</span> #123456'],
  ['masked card', 'Code charged to Visa ending in 4242 and card •••• 7731.'],
  ['version', 'Verification code feature ships in version 2.0.26 (build 58213).'],
  ['commit hash', 'Deploy of commit 3f9a2c1 failed; no code changes.'],
  ['account id', 'Your code for account ID 48213097 and user 8821934.'],
  ['number in URL', 'Your code: see https://example.com/c/482913/verify?n=582046'],
  ['number in e-mail address', 'Code sent to jay.4821@example.net'],
  ['license plate', 'Your driver code: License plate 8KTR392'],
  ['ticket with number sign', 'We will send a code. Ticket #482913'],
  ['order confirmation code', 'Thanks for your order!\nOrder confirmation code: 4829\nTotal: $42.00'],
  ['delivery code', 'Share this delivery code with the driver: 482913'],
  ['referral code', 'Invite friends with your referral code JAY4821X.'],
];
for (const [name, text] of distractors) {
  test(`distractor: ${name}`, () => {
    const r = x({ subject: 'Information', text, html: text.includes('<') ? text : null });
    assert.equal(r.otp, null, `got ${r.otp}`);
  });
}

test('distractor: a code next to distractors still wins', () => {
  const r = x({
    subject: 'Your sign-in code',
    text: 'Order #48213 from 10:30, April 14, 2026.\nYour sign-in code is 730481.\nCall 1-888-555-0147. Example, 1725 3rd Street, San Francisco, CA 94107',
  });
  assert.equal(r.otp, '730481');
});

// ---- languages
const languages: Array<[string, string, string, string]> = [
  ['en', 'Your verification code', 'Your verification code is 482913.', '482913'],
  ['de', 'Ihr Bestätigungscode', 'Ihr Bestätigungscode lautet: 482913', '482913'],
  ['de compound', 'Sicherheitscode', 'Sicherheitscode: 771902', '771902'],
  ['fr', 'Votre code', 'Votre code de vérification est : 482913', '482913'],
  ['es', 'Tu código', 'Tu código de verificación es 482913', '482913'],
  ['pt', 'Seu código', 'Use o código de segurança abaixo:\n\n204719', '204719'],
  ['it', 'Il tuo codice', 'Il tuo codice di verifica è 482913', '482913'],
  ['nl', 'Je code', 'Je verificatiecode is 482913', '482913'],
  ['sv', 'Din kod', 'Din verifieringskod är 482913', '482913'],
  ['da', 'Din kode', 'Din bekræftelseskode er 482913', '482913'],
  ['pl', 'Twój kod', 'Twój kod weryfikacyjny to 482913', '482913'],
  ['tr', 'Doğrulama kodu', 'Doğrulama kodunuz: 482913', '482913'],
  ['ru', 'Код', 'Ваш код подтверждения: 482913', '482913'],
  ['ja', '認証コード', '認証コード：482913', '482913'],
  ['ja sentence', 'ログイン', '確認コードは482913です。', '482913'],
  ['zh', '验证码', '您的验证码是：482913，10分钟内有效。', '482913'],
  ['zh-tw', '驗證碼', '您的驗證碼為 482913', '482913'],
  ['ko', '인증', '인증 코드: 482913', '482913'],
  ['ko number', '인증번호', '[Example] 인증번호 [482913]를 입력해 주세요.', '482913'],
];
for (const [lang, subject, text, want] of languages) {
  test(`language: ${lang}`, () => assert.equal(x({ subject, text }).otp, want));
}

// ---- structure
test('HTML: code in <strong> inside a sentence', () => {
  assert.equal(x({ subject: 'Hi', html: '<p>Your login code is <strong>582031</strong>.</p>' }).otp, '582031');
});

test('HTML: digits in separate table cells are joined', () => {
  const html =
    "<p>Enter this code to confirm it's you:</p><table><tr><td>6</td><td></td><td>1</td><td>5</td><td>0</td><td>2</td><td>7</td></tr></table>";
  assert.equal(x({ subject: 'Login', html }).otp, '615027');
});

test('HTML: big-font block after a heading', () => {
  const html = '<h1>Enter this code to sign in</h1><p style="font-size:32px">3718</p><p>It expires in 15 minutes.</p>';
  assert.equal(x({ subject: 'Your sign-in code', html }).otp, '3718');
});

test('HTML: style/script/head content is ignored', () => {
  const html =
    '<head><title>Code 111111</title><style>.c{color:#222222}</style></head><body><script>var code=333333</script><p>Your code: 482913</p></body>';
  assert.equal(x({ subject: 'x', html }).otp, '482913');
});

test('Subject-only code counts', () => {
  const r = x({
    subject: '719350 is your Tessellate sign-in code',
    text: 'Use the 6-digit code in the subject line. Requested from 192.0.2.211 at 10:30 UTC.',
  });
  assert.equal(r.otp, '719350');
});

test('code only in an attachment is not searched', () => {
  const m = msg({ subject: 'Your secure document', text: 'The one-time access code is in the attached PDF.' });
  m.attachments.push({
    filename: 'code.pdf',
    contentType: 'application/pdf',
    disposition: 'attachment',
    contentId: null,
    size: 20,
    content: Buffer.from('Your code is 482913'),
  });
  assert.equal(extractVerification(m).otp, null);
});

test('preset hint sharpens the score of the expected shape', () => {
  const spec = { subject: 'Sign in', text: 'Use this to sign in:\n\n7294\n' };
  const plain = x(spec).candidates.find((c) => c.value === '7294')?.confidence ?? 0;
  const uber = x(spec, 'uber').candidates.find((c) => c.value === '7294')?.confidence ?? 0;
  const github = x(spec, 'github').candidates.find((c) => c.value === '7294')?.confidence ?? 0;
  assert.ok(uber > plain, `${uber} > ${plain}`);
  assert.ok(github < plain, `${github} < ${plain}`);
  assert.equal(x({ from: 'Uber <noreply@uber.com>', subject: 'Your Uber code', text: 'Your Uber verification code is 7294.' }).otp, '7294');
  assert.equal(x({ subject: 'Code', text: 'Use this code: FB-48213' }, 'facebook').otp, '48213');
});

test('service comes from the From domain, or from opts.service', () => {
  assert.equal(x({ from: 'X <verify@x.com>', subject: 'code', text: 'Your code is 482913' }).service, 'x');
  assert.equal(x({ from: 'Someone <a@unknown.example>', subject: 'code', text: 'code 482913' }).service, null);
  assert.equal(x({ from: 'Someone <a@unknown.example>', subject: 'code', text: 'code 482913' }, 'github').service, 'github');
});

test('candidates are ranked and bounded', () => {
  const text = Array.from({ length: 30 }, (_, i) => `Code ${100000 + i}`).join('\n');
  const r = x({ subject: 'codes', text });
  assert.ok(r.candidates.length <= 10);
  for (let i = 1; i < r.candidates.length; i++) assert.ok(r.candidates[i - 1]!.confidence >= r.candidates[i]!.confidence);
});

// ---- scanner
test('scanCodes canonicalises shapes', () => {
  const values = (s: string) => scanCodes(maskLine(s)).map((c) => c.value);
  assert.deepEqual(values('714 205'), ['714205']);
  assert.deepEqual(values('837-261'), ['837261']);
  assert.deepEqual(values('G-582046'), ['582046']);
  assert.deepEqual(values('QWJ-7MX'), ['QWJ-7MX']);
  assert.deepEqual(values('1-888-555-0147'), []);
  assert.deepEqual(values('12.345.678/0001-90'), []);
  assert.deepEqual(values('10:30 2026-04-14 $19.99'), []);
  assert.deepEqual(values('6-digit 2-Pack USB-C'), []);
  assert.deepEqual(values('https://x.example/482913 a@4821.example'), []);
});

// ---- primary action
test('primaryActionFor: otp names the service; link; manual with and without rawUrl', () => {
  const base = { otp: null, primaryLink: null, primaryLinkUnwrapped: null, service: null, candidates: [] };
  const otp = primaryActionFor({ ...base, otp: '482913', service: 'github' }, { rawUrl: null });
  assert.equal(otp.type, 'otp');
  assert.equal(otp.value, '482913');
  assert.match(otp.instruction, /Type 482913 .*GitHub/);
  const both = primaryActionFor({ ...base, otp: '482913', primaryLink: 'https://a.example/v?t=1' }, { rawUrl: null, serviceName: 'Acme' });
  assert.equal(both.type, 'otp');
  assert.match(both.instruction, /Acme/);
  const link = primaryActionFor({ ...base, primaryLink: 'https://a.example/verify?t=abc' }, { rawUrl: null });
  assert.equal(link.type, 'link');
  assert.equal(link.value, 'https://a.example/verify?t=abc');
  assert.match(link.instruction, /^Open this link/);
  const manual = primaryActionFor(base, { rawUrl: 'http://localhost:8025/v1/inboxes/inb_1/messages/msg_1/raw' });
  assert.equal(manual.type, 'manual');
  assert.equal(manual.value, 'http://localhost:8025/v1/inboxes/inb_1/messages/msg_1/raw');
  assert.match(manual.instruction, /raw message/);
  assert.equal(primaryActionFor(base, { rawUrl: null }).value, '');
});
