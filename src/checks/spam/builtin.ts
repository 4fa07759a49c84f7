// The built-in content lint (issue 28), used when no spam daemon is configured: a few content signals filters
// commonly weigh, each with a fixed score; the message "looks like spam" at 5.0 or more. No network, no I/O.
import type { CheckInput } from '../types.ts';

export interface LintRule {
  name: string;
  score: number;
  description: string;
  evidence?: string;
}

export const BUILTIN_THRESHOLD = 5;

/** Link shorteners (a filter cannot see where they lead). */
export const SHORTENERS = new Set([
  'bit.ly',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
  'rb.gy',
  'bl.ink',
  't.ly',
  's.id',
  'v.gd',
]);

const PHRASES = [
  '100% free',
  'act now',
  'limited time',
  'click here',
  'winner',
  'congratulations',
  'guaranteed',
  'no risk',
  'risk-free',
  'earn money',
  'make money',
  'work from home',
  'dear friend',
  'cheap meds',
  'viagra',
  'claim your prize',
  'wire transfer',
  'bank account details',
];

/** Drops <script>, <style> and <head> elements in one pass (an unclosed one drops the rest): linear in the input. */
function withoutHidden(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let at = 0;
  for (;;) {
    const open = /<(script|style|head)\b/g;
    open.lastIndex = at;
    const m = open.exec(lower);
    if (!m) return out + html.slice(at);
    out += `${html.slice(at, m.index)} `;
    const close = lower.indexOf(`</${m[1]}`, m.index);
    if (close < 0) return out;
    at = close + m[1]!.length + 2;
  }
}

function visibleText(html: string): string {
  return withoutHidden(html)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;/gi, ' ')
    .replace(/&[a-z#0-9]+;/gi, 'x')
    .replace(/\s+/g, ' ')
    .trim();
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

export function builtinLint(input: CheckInput): LintRule[] {
  const out: LintRule[] = [];
  // Bounded: the lint looks at the first 1 MB of HTML (Gmail clips at ~102 KB anyway).
  const html = (input.html ?? '').slice(0, 1_000_000);
  const text = input.text ?? '';
  if (html && !text.trim())
    out.push({
      name: 'NO_TEXT_PART',
      score: 1.0,
      description: 'HTML only: no text/plain alternative (add one; filters and some readers want it)',
    });
  if (html) {
    const images = (html.match(/<img\b/gi) ?? []).length;
    const words = visibleText(html).length;
    if (images > 0 && words < 100)
      out.push({
        name: 'IMAGE_ONLY',
        score: 2.0,
        description: `the HTML is mostly images (${images} image(s), ${words} characters of text)`,
      });
    else if (images > 0 && words < 400 && images >= 3)
      out.push({ name: 'IMAGE_HEAVY', score: 1.0, description: `${images} images and only ${words} characters of text` });
  }
  const subject = input.parsed.subject ?? '';
  const letters = subject.replace(/[^\p{L}]/gu, '');
  const upper = subject.replace(/[^\p{Lu}]/gu, '');
  if (letters.length >= 10 && upper.length / letters.length >= 0.7)
    out.push({
      name: 'SHOUTING_SUBJECT',
      score: 1.5,
      description: 'the subject is (mostly) capital letters',
      evidence: subject.slice(0, 120),
    });
  if ((subject.match(/!/g) ?? []).length >= 3)
    out.push({
      name: 'SUBJECT_EXCLAMATIONS',
      score: 1.0,
      description: 'three or more exclamation marks in the subject',
      evidence: subject.slice(0, 120),
    });
  if (!subject.trim()) out.push({ name: 'EMPTY_SUBJECT', score: 1.0, description: 'the message has no subject' });
  const urls = new Set<string>();
  for (const m of `${html} ${text}`.matchAll(/https?:\/\/[^\s"'<>)]+/gi)) {
    urls.add(m[0]);
    if (urls.size >= 500) break;
  }
  const short = [...urls].filter((u) => SHORTENERS.has(hostOf(u) ?? ''));
  if (short.length > 0)
    out.push({
      name: 'SHORTENED_LINKS',
      score: 1.5,
      description: `links through a URL shortener hide their target (${short.length})`,
      evidence: short[0]!.slice(0, 200),
    });
  const body = `${subject} ${text} ${html ? visibleText(html) : ''}`.toLowerCase();
  const said = PHRASES.filter((p) => body.includes(p));
  if (said.length > 0)
    out.push({
      name: 'SPAM_PHRASES',
      score: Math.min(2.5, 0.5 * said.length),
      description: `phrases typical of spam: ${said.slice(0, 6).join(', ')}`,
    });
  return out;
}
