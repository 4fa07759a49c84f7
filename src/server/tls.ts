// The TLS material of the mail listeners (SMTP STARTTLS; POP3 STLS and IMAP STARTTLS use the same): a real
// certificate from --smtp-tls-cert/--smtp-tls-key, or with --smtp-tls auto a self-signed one made once and kept in
// <data-dir>/tls/ (key 0600, written atomically), reused on restart and made again when it is unreadable, expires
// within 30 days, or no longer names this server. Read once at start; the listeners take the result as an input.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.ts';
import { selfSignedCertificate } from '../lib/x509.ts';
import type { Logger } from '../log.ts';
import { StartError } from './listen.ts';

export interface TlsMaterial {
  /** PEM private key and certificate (chain), as node:tls takes them. */
  key: string;
  cert: string;
  /** SHA-256 fingerprint of the (first) certificate, colon-separated upper-case hex as openssl prints it. */
  fingerprint: string;
  /** `auto`: made by inboxd (self-signed); `files`: --smtp-tls-cert/--smtp-tls-key. */
  source: 'auto' | 'files';
  /** Expiry of the certificate (ISO 8601). */
  validTo: string;
}

/** How long a made certificate is valid, and how close to expiry it is made again at start. */
export const AUTO_VALID_DAYS = 365;
export const AUTO_RENEW_DAYS = 30;
const DAY = 86_400_000;

export function certificateFiles(dataDir: string): { dir: string; key: string; cert: string } {
  const dir = path.join(dataDir, 'tls');
  return { dir, key: path.join(dir, 'smtp-key.pem'), cert: path.join(dir, 'smtp-cert.pem') };
}

/** The names and addresses a made certificate carries: the mail domains, this host, the public URL's host, loopback. */
export function autoNames(config: Pick<Config, 'domains' | 'host' | 'baseUrl'>): { dnsNames: string[]; ips: string[] } {
  const dns = new Set<string>();
  const ips = new Set<string>(['127.0.0.1', '::1']);
  const add = (h: string | undefined) => {
    if (!h) return;
    const name = h.replace(/^\[|\]$/g, '').toLowerCase();
    if (net.isIP(name) !== 0) {
      if (name !== '0.0.0.0' && name !== '::') ips.add(name);
    } else if (/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(name)) dns.add(name);
  };
  for (const d of config.domains) add(d);
  add('localhost');
  add(os.hostname());
  add(config.host);
  if (config.baseUrl) add(new URL(config.baseUrl).hostname);
  return { dnsNames: [...dns].slice(0, 100), ips: [...ips].slice(0, 20) };
}

export function loadTlsMaterial(config: Config, log: Logger, now: number): TlsMaterial | null {
  if (config.smtpTlsCert !== undefined && config.smtpTlsKey !== undefined) return fromFiles(config.smtpTlsCert, config.smtpTlsKey);
  if (config.smtpTls !== 'auto') return null;
  return autoCertificate(config, log, now);
}

function fromFiles(certFile: string, keyFile: string): TlsMaterial {
  const read = (flag: string, file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new StartError(
        `${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
        2,
      );
    }
  };
  const cert = read('--smtp-tls-cert', certFile);
  const key = read('--smtp-tls-key', keyFile);
  let x: crypto.X509Certificate;
  try {
    x = new crypto.X509Certificate(cert);
  } catch {
    throw new StartError(`--smtp-tls-cert ${certFile}: not a PEM certificate`, 2);
  }
  return { key, cert, fingerprint: x.fingerprint256, source: 'files', validTo: new Date(x.validTo).toISOString() };
}

function autoCertificate(config: Config, log: Logger, now: number): TlsMaterial {
  const files = certificateFiles(config.dataDir);
  const { dnsNames, ips } = autoNames(config);
  const kept = readKept(files, now, dnsNames, ips);
  if (kept.material) {
    log.info('smtp tls certificate reused', { file: files.cert, fingerprint: kept.material.fingerprint, validTo: kept.material.validTo });
    return kept.material;
  }
  const made = selfSignedCertificate({
    commonName: dnsNames[0] ?? 'localhost',
    dnsNames,
    ips,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + AUTO_VALID_DAYS * DAY),
  });
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  writeAtomic(files.key, made.key, 0o600);
  writeAtomic(files.cert, made.cert, 0o644);
  const x = new crypto.X509Certificate(made.cert);
  const material: TlsMaterial = {
    key: made.key,
    cert: made.cert,
    fingerprint: x.fingerprint256,
    source: 'auto',
    validTo: new Date(x.validTo).toISOString(),
  };
  log.info('smtp tls certificate generated', {
    reason: kept.reason,
    file: files.cert,
    fingerprint: material.fingerprint,
    validTo: material.validTo,
    names: [...dnsNames, ...ips].join(','),
  });
  return material;
}

function readKept(
  files: { key: string; cert: string },
  now: number,
  dnsNames: string[],
  ips: string[],
): { material: TlsMaterial; reason?: undefined } | { material?: undefined; reason: string } {
  let key: string;
  let cert: string;
  try {
    key = fs.readFileSync(files.key, 'utf8');
    cert = fs.readFileSync(files.cert, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { reason: code === 'ENOENT' ? 'none kept yet' : `the kept one is unreadable (${code ?? (e as Error).message})` };
  }
  let x: crypto.X509Certificate;
  try {
    x = new crypto.X509Certificate(cert);
    if (!x.checkPrivateKey(crypto.createPrivateKey(key))) return { reason: 'the kept key does not match the kept certificate' };
  } catch {
    return { reason: 'the kept certificate or key does not parse' };
  }
  const validTo = Date.parse(x.validTo);
  if (validTo - now < AUTO_RENEW_DAYS * DAY)
    return { reason: validTo <= now ? 'the kept one has expired' : `the kept one expires within ${AUTO_RENEW_DAYS} days` };
  const missing = [...dnsNames.filter((n) => x.checkHost(n) === undefined), ...ips.filter((ip) => x.checkIP(ip) === undefined)];
  if (missing.length > 0) return { reason: `the kept one does not name ${missing.slice(0, 5).join(', ')}` };
  return { material: { key, cert, fingerprint: x.fingerprint256, source: 'auto', validTo: new Date(validTo).toISOString() } };
}

function writeAtomic(file: string, text: string, mode: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
}
