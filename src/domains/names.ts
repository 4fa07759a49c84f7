// Turning what a caller typed into the one spelling a domain is stored, served and looked up under.
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { AppError } from '../errors.ts';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function refuse(raw: string, why: string): never {
  throw new AppError('validation_failed', `domain ${JSON.stringify(raw)} ${why}`, { errors: [{ path: 'domain', message: why }] });
}

/**
 * Lower-cased, without a trailing dot, IDNs as punycode (`bücher.example` → `xn--bcher-kva.example`, the form DNS
 * and SMTP use). Refuses IP addresses, wildcards, a single label, and names over DNS limits (253 / 63 per label).
 */
export function normalizeDomain(raw: string): string {
  let s = raw.trim();
  if (s.length === 0) refuse(raw, 'is empty');
  if (s.length > 1000) refuse(raw, 'is longer than 253 characters');
  if (s.startsWith('[') || net.isIP(s) !== 0 || net.isIP(s.replace(/\.$/, '')) !== 0)
    refuse(raw, 'is an IP address; give a domain name (mail for address literals is not served)');
  if (s.includes('*')) refuse(raw, 'is a wildcard; add each domain by its exact name');
  if (s.includes('@')) refuse(raw, 'looks like an e-mail address; give only the part after @');
  if (/[\s/:?#]/.test(s)) refuse(raw, 'must be a bare domain name (no scheme, port, path or spaces)');
  if (s.endsWith('.')) s = s.slice(0, -1);
  // domainToASCII applies UTS #46 (lower-casing, IDN → punycode) and answers '' for names it cannot map.
  const ascii = /^[\x21-\x7e]*$/.test(s) ? s.toLowerCase() : domainToASCII(s);
  if (ascii === '') refuse(raw, 'is not a valid internationalised domain name');
  if (ascii.length > 253) refuse(raw, `is ${ascii.length} characters long; a domain name has at most 253`);
  const labels = ascii.split('.');
  if (labels.length < 2) refuse(raw, 'needs at least two labels (example.com, not example)');
  for (const l of labels) {
    if (l.length === 0) refuse(raw, 'has an empty label (two dots in a row, or a leading dot)');
    if (l.length > 63) refuse(raw, `has a label of ${l.length} characters; a label has at most 63`);
    if (!LABEL.test(l)) refuse(raw, `has an invalid label ${JSON.stringify(l)} (letters, digits and inner hyphens only)`);
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) refuse(raw, 'ends in a numeric label; that is not a domain name');
  return ascii;
}
