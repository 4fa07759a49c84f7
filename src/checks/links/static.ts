// The links of a mail and the rules that need no network: malformed and relative URLs, unrendered template
// placeholders, plain http, hosts that only exist inside the sender's network (localhost, private addresses,
// staging/dev names), link text naming another domain than the target, URL shorteners, bad mailto:/tel:,
// javascript:, bare `#`. `cid:` references are the html check's (it knows the parts). Pure: no I/O.
import net from 'node:net';
import { Parser } from 'htmlparser2';
import { classifyAddress } from '../../lib/addresses.ts';
import { registrableDomain, unwrapTracking } from '../../mail/extract/urls.ts';
import type { ParsedMessage } from '../../mail/types.ts';
import type { Finding, FindingLocation, Severity } from '../types.ts';

export interface LinkRef {
  /** The attribute value or text URL as written (entities decoded). */
  href: string;
  /** `resource`: a style sheet (`<link href>`) or a `background="…"` image. */
  kind: 'a' | 'area' | 'img' | 'resource' | 'text';
  /** The anchor's text (a/area only, whitespace collapsed, bounded). */
  text?: string;
  location: FindingLocation;
}

/** At most this many links are read from one mail (each part); more are ignored (said in meta). */
export const MAX_LINKS = 2000;

function locator(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

/** Links of the HTML part (a, area, img) with their anchor text, at the tag's line and column. */
export function htmlLinks(html: string): LinkRef[] {
  const at = locator(html);
  const out: LinkRef[] = [];
  const open: Array<{ ref: LinkRef; text: string }> = [];
  const parser: Parser = new Parser(
    {
      onopentag(name, attribs) {
        if (out.length >= MAX_LINKS) return;
        const location: FindingLocation = { part: 'html', ...at(parser.startIndex), selector: name };
        if ((name === 'a' || name === 'area') && attribs.href !== undefined) {
          const ref: LinkRef = { href: attribs.href, kind: name, location };
          if (name === 'area') ref.text = attribs.alt ?? '';
          out.push(ref);
          if (name === 'a') open.push({ ref, text: '' });
        } else if (name === 'link' && attribs.href !== undefined && /stylesheet/i.test(attribs.rel ?? '')) {
          out.push({ href: attribs.href, kind: 'resource', location });
        } else if (attribs.background !== undefined && name !== 'img') {
          out.push({ href: attribs.background, kind: 'resource', location });
        }
        if (name === 'img' && attribs.src !== undefined) {
          out.push({ href: attribs.src, kind: 'img', location });
          const alt = attribs.alt;
          if (alt) for (const o of open) if (o.text.length < 300) o.text += ` ${alt}`;
        }
      },
      ontext(t) {
        for (const o of open) if (o.text.length < 300) o.text += t;
      },
      onclosetag(name) {
        if (name !== 'a') return;
        const o = open.pop();
        if (o) o.ref.text = o.text.replace(/\s+/g, ' ').trim().slice(0, 300);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  for (const o of open) o.ref.text = o.text.replace(/\s+/g, ' ').trim().slice(0, 300);
  return out;
}

/** http(s) URLs written in the text part, at their line and column. */
export function textLinks(text: string): LinkRef[] {
  const at = locator(text);
  const out: LinkRef[] = [];
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s<>"'()[\]{}]+/gi)) {
    if (out.length >= MAX_LINKS) break;
    const href = m[0].replace(/[.,;:!?]+$/, '');
    out.push({ href, kind: 'text', location: { part: 'text', ...at(m.index) } });
  }
  return out;
}

export const SHORTENERS = new Set([
  'bit.ly',
  'bitly.com',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'v.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'rb.gy',
  'tiny.cc',
  'bl.ink',
  't.ly',
  's.id',
  'lnkd.in',
  'shorte.st',
  'adf.ly',
  'qr.ae',
  'tr.im',
  'soo.gd',
  'clck.ru',
  'short.io',
]);

/** Host names that exist only inside the sender's network, or name a pre-production environment. */
const INTERNAL_SUFFIX = /(?:^|\.)(?:localhost|local|internal|intranet|lan|home\.arpa|corp|test|invalid|example)$/;
const STAGING_LABEL = /(?:^|[.-])(?:staging|stage|stg|preprod|pre-prod|uat|qa|sandbox|dev|develop|development)(?:$|[.\d-])/;
const PLACEHOLDER = /\{\{|\}\}|%7B%7B|%7D%7D|\{%|%\}|\*\|[A-Z_]+\|\*|\$\{|%24%7B|\[\[|\]\]|__[A-Z][A-Z_]+__|<%|%3C%25|#\{/i;
/**
 * A domain written in link text: after http(s):// or www., or ending in a common generic TLD or a two-letter country
 * code (so "Mr.Smith" or "Node.js" are not taken for domains).
 */
const DOMAIN_IN_TEXT =
  /(?:https?:\/\/|\bwww\.)((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.[a-z]{2,24})|\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|edu|gov|mil|int|io|co|ai|app|dev|info|biz|me|xyz|shop|store|online|site|tech|cloud|email|link|page|news|blog|[a-z]{2}))(?![a-z0-9-])/i;
const TLD_LIKE_WORDS = /\.(?:js|ts|py|md|sh|rb|pl|rs|go|cs|txt|pdf|png|jpg|jpeg|gif|html?|php|zip|exe|json|csv)$/i;

export interface StaticContext {
  /** The mail is obviously a test (subject/sender say so): leaked-host findings drop to info. */
  testMail: boolean;
}

/** A mail obviously sent as a test: its subject says test/staging/QA, or its sender is at a reserved test domain. */
export function isTestMail(parsed: ParsedMessage): boolean {
  if (/\b(?:test(?:ing)?|qa|staging|dev|sandbox|dummy)\b/i.test(parsed.subject ?? '')) return true;
  const domain = parsed.from?.address.split('@').pop()?.toLowerCase() ?? '';
  return /(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost)$/.test(domain);
}

export interface Judged {
  findings: Finding[];
  /** http(s) URLs fit to follow in reach mode (absolute, well formed), with where they were found. */
  followable: Array<{ url: URL; ref: LinkRef }>;
}

function finding(rule: string, severity: Severity, title: string, detail: string, ref: LinkRef, docs?: string): Finding {
  return {
    check: 'links',
    rule,
    severity,
    title,
    detail,
    location: ref.location,
    evidence: ref.href.length > 200 ? `${ref.href.slice(0, 197)}…` : ref.href,
    ...(docs ? { docs } : {}),
  };
}

/** The host a URL really reaches: IP literals unbracketed, trailing dot dropped, lower case. */
export function bareHost(u: URL): string {
  return u.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** Why this host would only work inside the sender's network, or null. */
export function internalHost(host: string): string | null {
  if (net.isIP(host)) {
    const c = classifyAddress(host);
    return c === 'public' ? null : `${host} is a ${c === 'never' ? 'link-local or reserved' : 'loopback or private'} address`;
  }
  if (INTERNAL_SUFFIX.test(host)) return `${host} is a name that resolves only inside a private network or on the sender's machine`;
  if (!host.includes('.')) return `${host} is a single-label host name, which only resolves inside the sender's network`;
  return null;
}

const MAILTO_ADDR = /^[^\s@,;<>()[\]\\"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

function judgeMailto(href: string): string | null {
  const rest = href.slice(href.indexOf(':') + 1);
  const [to, query] = rest.split('?', 2) as [string, string | undefined];
  let addrs: string[] = [];
  try {
    addrs = decodeURIComponent(to)
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  } catch {
    return 'the address is not valid percent-encoding';
  }
  if (query) {
    const params = new URLSearchParams(query);
    for (const k of ['to', 'cc', 'bcc'])
      for (const v of params.getAll(k))
        addrs.push(
          ...v
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        );
  }
  if (addrs.length === 0) return 'it names no address';
  const bad = addrs.find((a) => !MAILTO_ADDR.test(a));
  return bad ? `"${bad.slice(0, 80)}" is not an e-mail address` : null;
}

function judgeTel(href: string): string | null {
  let number = href.slice(href.indexOf(':') + 1).split(';')[0]!;
  try {
    number = decodeURIComponent(number);
  } catch {
    return 'the number is not valid percent-encoding';
  }
  if (!/^\+?[\d\s().-]+$/.test(number))
    return `"${number.slice(0, 40)}" has characters other than digits, +, spaces, dots, dashes and parentheses`;
  const digits = number.replace(/\D/g, '').length;
  if (digits < 3 || digits > 15) return `"${number.slice(0, 40)}" has ${digits} digits (a phone number has 3 to 15)`;
  return null;
}

/** Judges every link by the static rules; returns the findings and the links reach mode may follow. */
export function judgeLinks(refs: LinkRef[], ctx: StaticContext): Judged {
  const findings: Finding[] = [];
  const followable: Judged['followable'] = [];
  const leakSeverity: Severity = ctx.testMail ? 'info' : 'warning';
  const leakNote = ctx.testMail ? ' (the mail looks like a test, so this is only noted)' : '';
  for (const ref of refs) {
    const raw = ref.href.trim();
    const what = ref.kind === 'img' ? 'Image' : ref.kind === 'resource' ? 'Resource' : 'Link';
    if (PLACEHOLDER.test(raw)) {
      findings.push(
        finding(
          'link-placeholder',
          'error',
          `${what} contains an unrendered template placeholder`,
          'The URL still holds template syntax ({{ }}, *|MERGE|*, <% %> and the like): the template variable was not filled in when the mail was rendered.',
          ref,
        ),
      );
      continue;
    }
    if (ref.kind !== 'text' && (raw === '' || raw === '#')) {
      if (ref.kind === 'img' || ref.kind === 'resource')
        findings.push(
          finding(
            'link-malformed',
            'error',
            `${what} has an empty URL`,
            'An empty src, href or background loads nothing (or the message itself).',
            ref,
          ),
        );
      else
        findings.push(
          finding(
            'link-empty',
            'warning',
            `Link goes nowhere (href="${raw}")`,
            'A bare "#" or empty href does nothing in a mail client (or reopens the message); link the real page or drop the link.',
            ref,
          ),
        );
      continue;
    }
    if (ref.kind !== 'text' && raw.startsWith('#')) continue; // in-message anchors: the compat check reports their support
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
    if (!scheme) {
      findings.push(
        finding(
          'link-relative',
          'error',
          `${what} has a relative URL`,
          `"${raw.slice(0, 80)}" has no scheme and host; a mail has no base address, so it leads nowhere. Write the absolute https:// URL.`,
          ref,
        ),
      );
      continue;
    }
    if (scheme === 'mailto') {
      const why = judgeMailto(raw);
      if (why)
        findings.push(
          finding('link-mailto-invalid', 'error', 'mailto: link is invalid', `The mailto: link cannot start a message: ${why}.`, ref),
        );
      continue;
    }
    if (scheme === 'tel' || scheme === 'sms') {
      const why = judgeTel(raw);
      if (why)
        findings.push(
          finding('link-tel-invalid', 'error', `${scheme}: link is invalid`, `The ${scheme}: link cannot be dialled: ${why}.`, ref),
        );
      continue;
    }
    if (scheme === 'javascript' || scheme === 'vbscript' || scheme === 'data' || scheme === 'file') {
      if (scheme === 'data' && (ref.kind === 'img' || ref.kind === 'resource')) continue; // inline images: the html check weighs data: URIs
      findings.push(
        finding(
          'link-scheme',
          'error',
          `${what} uses ${scheme}: URLs, which mail clients remove or block`,
          `${scheme}: links do not work in mail (clients strip or block them, and spam filters score them).`,
          ref,
        ),
      );
      continue;
    }
    if (scheme !== 'http' && scheme !== 'https') continue; // cid:, sms:, webcal:, app schemes: not ours to judge
    let url: URL;
    try {
      url = new URL(raw);
      if (!url.hostname || /\s/.test(raw)) throw new Error('no host');
    } catch {
      findings.push(
        finding(
          'link-malformed',
          'error',
          `${what} URL is malformed`,
          `"${raw.slice(0, 120)}" is not a valid URL (${/\s/.test(raw) ? 'it contains white space' : 'it has no valid host'}).`,
          ref,
        ),
      );
      continue;
    }
    const host = bareHost(url);
    const internal = internalHost(host);
    if (internal) {
      findings.push(
        finding(
          'link-private-host',
          leakSeverity,
          `${what} points to ${host}, which recipients cannot reach`,
          `${internal}; a customer clicking it gets an error${leakNote}. Render links with the public base URL.`,
          ref,
        ),
      );
    } else if (STAGING_LABEL.test(host)) {
      findings.push(
        finding(
          'link-staging-host',
          leakSeverity,
          `${what} points to a pre-production host (${host})`,
          `The host name names a staging, QA or development environment${leakNote}; mail meant for customers should link production.`,
          ref,
        ),
      );
    }
    if (url.protocol === 'http:' && !internal) {
      findings.push(
        finding(
          'link-http',
          'warning',
          `${what} uses plain http`,
          `http://${host} is not encrypted: clients may warn, and the request (with any token in the URL) can be read or changed on the way. Use https.`,
          ref,
        ),
      );
    }
    if (SHORTENERS.has(host)) {
      findings.push(
        finding(
          'link-shortener',
          'warning',
          `${what} uses the URL shortener ${host}`,
          'Shortened links hide the destination from the reader and are weighed as a spam signal by filters; link the real address.',
          ref,
        ),
      );
    }
    if (ref.kind === 'a' || ref.kind === 'area') {
      const named = DOMAIN_IN_TEXT.exec(ref.text ?? '');
      const shown = named ? (named[1] ?? named[2])!.toLowerCase() : null;
      const textDomain = shown && !TLD_LIKE_WORDS.test(shown) ? registrableDomain(shown) : null;
      if (textDomain && textDomain !== registrableDomain(host)) {
        const unwrapped = unwrapTracking(raw);
        const target = unwrapped && URL.canParse(unwrapped) ? registrableDomain(bareHost(new URL(unwrapped))) : null;
        if (target !== textDomain) {
          findings.push(
            finding(
              'link-text-mismatch',
              'warning',
              `Link text names ${shown} but the link goes to ${host}`,
              'Text that shows one domain over a link to another is what phishing looks like; filters and careful readers distrust it. Make the text match the target (or do not show a domain).',
              ref,
            ),
          );
        }
      }
    }
    followable.push({ url, ref });
  }
  return { findings, followable };
}
