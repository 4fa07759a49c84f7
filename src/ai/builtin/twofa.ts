// The `2fa` preset: code and link from the verification extractor (src/mail/extract), the service it is for,
// and the stated validity in minutes. A message with neither a code nor a link has all four fields null.
// The labels of src/ai/builtin/lexicon.ts add what the extractor does not read in every language: a code that a
// code label names ("رمز التحقق … هو: 604731", "आपका ओटीपी 318 207 है"), a sign-in link named by its anchor text
// ("Masuk sekarang") in a mail about a sign-in link, and validities in minutes, hours or days.

import { extractVerification } from '../../mail/extract/index.ts';
import { getPreset } from '../../mail/presets.ts';
import type { ParsedMessage } from '../../mail/types.ts';
import { cleanSender } from './commerce.ts';
import * as X from './lexicon.ts';
import type { MessageView } from './view.ts';

export interface TwoFaData {
  code: string | null;
  link: string | null;
  service: string | null;
  expiresInMinutes: number | null;
}

// a word ends where no letter of a script written with spaces follows ("3분간", "10分以内" end without one)
const NOT_LETTER = '(?![\\p{sc=Latn}\\p{sc=Cyrl}\\p{sc=Grek}\\p{sc=Arab}\\p{sc=Hebr}\\p{sc=Deva}\\p{sc=Beng}\\p{M}])';
const VALIDITY = new RegExp(`(?:${X.alternation(X.VALIDITY)})`, 'iu');
const WORD_ONE = 'one|an|a|une|un|una|uno|eine?|ein|en|ett|één|een|bir';
const UNIT = new RegExp(
  `(?:(?<![\\p{N}.,])(\\p{Nd}{1,4})|(?<![\\p{L}\\p{N}])(?:${WORD_ONE}))\\s?[-\\s]?(?:(${X.alternation(X.DAY_UNITS)})|(${X.alternation(X.HOUR_UNITS)})|(${X.alternation(X.MINUTE_UNITS)}))${NOT_LETTER}`,
  'iu',
);

/** The value of a run of decimal digits in any script (every Unicode digit block is ten consecutive code points). */
export function digitsValue(s: string): number {
  let n = 0;
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    let zero = cp;
    while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1)) && cp - zero < 9) zero--;
    cp = (cp - zero) % 10;
    n = n * 10 + cp;
  }
  return n;
}

export function expiresIn(lines: string[]): number | null {
  for (const l of lines) {
    if (!VALIDITY.test(l)) continue;
    const m = UNIT.exec(l);
    if (!m) continue;
    const n = m[1] ? digitsValue(m[1]) : 1;
    if (n > 0) return m[2] ? n * 1440 : m[3] ? n * 60 : n;
  }
  return null;
}

const CODE_LABEL = new RegExp(`(?<![\\p{L}\\p{M}])(?:${X.alternation(X.CODE_LABEL)})`, 'u');
// a code as typed: 4-8 digits, or two groups of three ("318 207", "552-108"); never part of a longer number
const CODE = /(?<![\p{L}\p{N}.,:/-])(\d{3}[ -]\d{3}|\d{4,8})(?![\p{L}\p{N}]|[.,:/-]\d| \d)/u;

/** The code right after a code label (same line, or alone on the next line). */
export function labelledCode(lines: string[]): string | null {
  for (let i = 0; i < lines.length; i++) {
    const lower = lines[i]!.toLowerCase();
    const m = CODE_LABEL.exec(lower);
    if (!m) continue;
    const rest = lines[i]!.slice(m.index + m[0].length);
    const own = CODE.exec(rest);
    if (own) return own[1]!.replace(/[ -]/g, '');
    const next = (lines[i + 1] ?? '').trim();
    const alone = CODE.exec(next);
    if (alone && alone.index === 0 && next.length <= alone[1]!.length + 2) return alone[1]!.replace(/[ -]/g, '');
  }
  return null;
}

const SIGN_IN_TEXT = new RegExp(`(?<![\\p{L}\\p{M}])(?:${X.alternation(X.SIGN_IN_LINK)})${NOT_LETTER}`, 'u');
const LINK_WORD =
  /\blinks?\b|magic|tautan|pautan|\blien\b|enlace|collegamento|länk|odkaz|bağlantı|ссылк|посилан|رابط|קישור|लिंक|লিংক|ลิงก์|liên kết|リンク|链接|鏈結|링크/iu;
const NOT_SIGN_IN =
  /unsubscribe|abmelden|désinscri|berhenti|langganan|help|hilfe|aide|ayuda|bantuan|password|passwort|mot de passe|contraseña|kata sandi|settings|einstellungen|not you|nicht sie/i;

/** A sign-in link named by its anchor text, in a mail that is about a sign-in link. */
export function signInLink(v: MessageView): string | null {
  if (!LINK_WORD.test([v.subject, ...v.lines].join('\n'))) return null;
  for (const l of v.links) {
    const t = l.text.toLowerCase().trim();
    if (!/^https?:/i.test(l.href) || t.length > 60 || NOT_SIGN_IN.test(t)) continue;
    if (SIGN_IN_TEXT.test(t)) return l.href;
  }
  return null;
}

export function extractTwoFa(msg: ParsedMessage, v: MessageView): TwoFaData {
  const x = extractVerification(msg);
  const found = x.otp ? x.otp.replace(/\s+/g, '') : null;
  const labelled = labelledCode([v.subject, ...v.lines]);
  // the extractor's code wins unless a code label names another one and nothing labels the extractor's
  const code = labelled && found !== labelled && !(found && labelledLinesHold([v.subject, ...v.lines], found)) ? labelled : found;
  const link = x.primaryLink ?? (code ? null : signInLink(v));
  if (!code && !link) return { code: null, link: null, service: null, expiresInMinutes: null };
  const service = x.service
    ? getPreset(x.service).displayName
    : cleanSender(
        v.fromName.replace(/\s*(?:support|team|security|sicherheit|accounts?|konto|compte|cuenta|no-?reply|notifications?|guard)\s*$/i, ''),
      );
  return { code, link, service, expiresInMinutes: expiresIn([v.subject, ...v.lines]) };
}

/** Whether `code` is written on a line with a code label (or the line after one). */
function labelledLinesHold(lines: string[], code: string): boolean {
  for (let i = 0; i < lines.length; i++) {
    if (!CODE_LABEL.test(lines[i]!.toLowerCase())) continue;
    const near = `${lines[i]} ${lines[i + 1] ?? ''}`.replace(/[\s-]/g, '');
    if (near.includes(code)) return true;
  }
  return false;
}
