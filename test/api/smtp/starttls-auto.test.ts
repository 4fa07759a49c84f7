// not @cluster: the made certificate lives in one instance's data dir; a second instance makes its own.
// `--smtp-tls auto`: a self-signed certificate made once and kept in <data-dir>/tls/, its fingerprint logged and in
// GET /v1; Python smtplib starttls() and swaks succeed with it pinned; reused on restart, made again when unreadable
// or expired; `--smtp-require-tls` refuses AUTH before STARTTLS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { selfSignedCertificate } from '../../../src/lib/x509.ts';
import { certificateFiles } from '../../../src/server/tls.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const dirs: string[] = [];
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, extra: string[] = []): Promise<TestServer> {
  const s = await startTestServer(['--smtp-tls', 'auto', ...extra], {}, { dataDir });
  servers.push(s);
  return s;
}

async function stop(s: TestServer): Promise<void> {
  servers.splice(servers.indexOf(s), 1);
  await s.stop();
}

interface Smtp {
  starttls: string;
  requireTls: boolean;
  fingerprintSha256: string | null;
  certificate: string | null;
  validTo: string | null;
}

async function discovery(s: TestServer): Promise<Smtp> {
  const r = await fetch(`${s.url}/v1`);
  assert.equal(r.status, 200);
  return ((await r.json()) as { mail: { smtp: Smtp } }).mail.smtp;
}

async function inbox(s: TestServer): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: {} });
  assert.equal(r.status, 201);
  return (await r.json()) as { inboxId: string; address: string };
}

async function subjects(s: TestServer, inboxId: string): Promise<string[]> {
  const r = await s.api(`/v1/inboxes/${inboxId}/messages`);
  return ((await r.json()) as { items: Array<{ subject: string }> }).items.map((m) => m.subject);
}

/** Runs a client in a child process (asynchronously: the server under test runs in this process). */
function exec(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const python = (script: string, env: Record<string, string>) => exec('python3', ['-c', script], env);

const SMTPLIB = `
import os, smtplib, ssl
ctx = ssl.create_default_context(cafile=os.environ.get('CA') or None)
s = smtplib.SMTP('127.0.0.1', int(os.environ['PORT']), timeout=10)
s.ehlo('app.test')
if os.environ.get('LOGIN_FIRST'):
    try:
        s.login('app', 'secret')
        print('LOGIN-OK-BEFORE-TLS')
    except smtplib.SMTPException as e:
        print('LOGIN-REFUSED', e)
s.starttls(context=ctx)
s.ehlo('app.test')
print('CIPHER', s.sock.cipher()[0], s.sock.version())
peer = s.sock.getpeercert(binary_form=True)
import hashlib
print('PEER', hashlib.sha256(peer).hexdigest())
if os.environ.get('LOGIN_AFTER'):
    s.login('app', 'secret')
    print('LOGIN-OK-AFTER-TLS')
s.sendmail('app@app.test', [os.environ['TO']], 'Subject: %s\\r\\n\\r\\nover TLS\\r\\n' % os.environ['SUBJECT'])
s.quit()
print('SENT')
`;

const hex = (fp: string) => fp.replace(/:/g, '').toLowerCase();

describe('--smtp-tls auto', () => {
  test('makes a certificate in the data dir (key 0600), logs and publishes its fingerprint; smtplib and swaks pin it', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const s = await start(dataDir);
    const files = certificateFiles(dataDir);
    assert.equal(fs.statSync(files.key).mode & 0o777, 0o600);
    const pem = fs.readFileSync(files.cert, 'utf8');
    const x = new crypto.X509Certificate(pem);
    const d = await discovery(s);
    assert.equal(d.starttls, 'auto');
    assert.equal(d.fingerprintSha256, x.fingerprint256);
    assert.equal(d.certificate, pem);
    assert.equal(d.requireTls, false);
    const logged = s.logs.find((l) => l.includes('smtp tls certificate generated'));
    assert.ok(logged, 'a log line says the certificate was made');
    assert.ok(logged.includes(x.fingerprint256), 'with its fingerprint');
    assert.ok(x.checkHost('inboxd.test') && x.checkIP('127.0.0.1'), 'names the mail domain and loopback');

    const ca = path.join(dataDir, 'pinned.pem');
    fs.writeFileSync(ca, d.certificate!);
    const box = await inbox(s);
    const port = String(s.server.smtpPort);
    // Python smtplib: the certificate as the only CA, the host name (127.0.0.1) checked against the certificate.
    const py = await python(SMTPLIB, { CA: ca, PORT: port, TO: box.address, SUBJECT: 'smtplib over starttls' });
    assert.equal(py.code, 0, py.out);
    assert.match(py.out, /CIPHER \S+ TLSv1\.[23]/);
    assert.match(py.out, new RegExp(`PEER ${hex(x.fingerprint256)}`), 'the peer certificate is the one discovery names');
    // Without the pin (the system CAs), verification fails: the test would pass without checking otherwise.
    const unpinned = await python(SMTPLIB, { PORT: port, TO: box.address, SUBJECT: 'must not arrive' });
    assert.notEqual(unpinned.code, 0);
    assert.match(unpinned.out, /CERTIFICATE_VERIFY_FAILED/);

    // swaks with --tls-verify and the certificate as its CA file.
    const sw = await exec('swaks', [
      '--server',
      `127.0.0.1:${port}`,
      '--to',
      box.address,
      '--from',
      'app@app.test',
      '--header',
      'Subject: swaks over starttls',
      '--tls',
      '--tls-verify',
      '--tls-ca-path',
      ca,
    ]);
    assert.equal(sw.code, 0, sw.out);
    assert.match(sw.out, /TLS started/);
    const other = path.join(dataDir, 'other.pem');
    const now = Date.now();
    fs.writeFileSync(
      other,
      selfSignedCertificate({
        commonName: 'x',
        dnsNames: ['x'],
        ips: [],
        notBefore: new Date(now - 1000),
        notAfter: new Date(now + 86_400_000),
      }).cert,
    );
    const swBad = await exec('swaks', [
      '--server',
      `127.0.0.1:${port}`,
      '--to',
      box.address,
      '--header',
      'Subject: must not arrive',
      '--tls',
      '--tls-verify',
      '--tls-ca-path',
      other,
    ]);
    assert.notEqual(swBad.code, 0, `swaks refuses a certificate its CA file does not vouch for: ${swBad.out}`);

    assert.deepEqual((await subjects(s, box.inboxId)).sort(), ['smtplib over starttls', 'swaks over starttls']);
  });

  test('reused on restart; made again when the key is unreadable or the certificate expired, with a log line', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const files = certificateFiles(dataDir);
    let s = await start(dataDir);
    const first = (await discovery(s)).fingerprintSha256;
    await stop(s);

    s = await start(dataDir);
    assert.equal((await discovery(s)).fingerprintSha256, first, 'the kept certificate is reused');
    assert.ok(s.logs.some((l) => l.includes('smtp tls certificate reused')));
    await stop(s);

    fs.writeFileSync(files.key, 'garbage');
    s = await start(dataDir);
    const second = (await discovery(s)).fingerprintSha256;
    assert.notEqual(second, first);
    assert.ok(s.logs.some((l) => l.includes('smtp tls certificate generated') && l.includes('does not parse')));
    assert.equal(fs.statSync(files.key).mode & 0o777, 0o600);
    await stop(s);

    // An expired certificate (with its matching key) in place of the kept one.
    const old = selfSignedCertificate({
      commonName: 'inboxd.test',
      dnsNames: ['inboxd.test', 'localhost'],
      ips: ['127.0.0.1', '::1'],
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date('2021-01-01T00:00:00Z'),
    });
    fs.writeFileSync(files.key, old.key);
    fs.writeFileSync(files.cert, old.cert);
    s = await start(dataDir);
    const third = await discovery(s);
    assert.notEqual(third.fingerprintSha256, new crypto.X509Certificate(old.cert).fingerprint256);
    assert.ok(Date.parse(third.validTo!) > Date.now() + 300 * 86_400_000, 'valid for a year');
    assert.ok(s.logs.some((l) => l.includes('smtp tls certificate generated') && l.includes('expired')));
    await stop(s);
  });

  test('--smtp-require-tls: AUTH before STARTTLS is refused, after it accepted', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const s = await start(dataDir, ['--smtp-require-tls']);
    const d = await discovery(s);
    assert.equal(d.requireTls, true);
    const ca = path.join(dataDir, 'pinned.pem');
    fs.writeFileSync(ca, d.certificate!);
    const box = await inbox(s);
    const py = await python(SMTPLIB, {
      CA: ca,
      PORT: String(s.server.smtpPort),
      TO: box.address,
      SUBJECT: 'after auth over tls',
      LOGIN_FIRST: '1',
      LOGIN_AFTER: '1',
    });
    assert.equal(py.code, 0, py.out);
    assert.doesNotMatch(py.out, /LOGIN-OK-BEFORE-TLS/);
    assert.match(py.out, /LOGIN-REFUSED/);
    assert.match(py.out, /LOGIN-OK-AFTER-TLS/);
    assert.deepEqual(await subjects(s, box.inboxId), ['after auth over tls']);
  });

  test('without --smtp-tls there is no STARTTLS, and discovery says so', async () => {
    const s = await startTestServer();
    servers.push(s);
    const d = await discovery(s);
    assert.deepEqual(d, { starttls: 'off', requireTls: false, fingerprintSha256: null, certificate: null, validTo: null });
  });

  test('configuration: --smtp-require-tls needs TLS; auto and certificate files exclude each other', () => {
    assert.throws(() => loadConfig(['--smtp-require-tls'], {}), /--smtp-require-tls needs STARTTLS/);
    assert.throws(
      () => loadConfig(['--smtp-tls', 'auto', '--smtp-tls-cert', 'a.pem', '--smtp-tls-key', 'b.pem'], {}),
      /makes its own certificate/,
    );
    assert.throws(() => loadConfig(['--smtp-tls', 'yes'], {}), /must be off or auto/);
  });
});
