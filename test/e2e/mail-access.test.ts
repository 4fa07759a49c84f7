// POP3 and IMAP on the built executable (issue 29): Python's poplib and imaplib and imapflow log in with an inbox
// address and an API key, list, fetch, mark seen, delete and IDLE (woken by an SMTP delivery; the time is printed),
// STARTTLS/STLS with the --smtp-tls-cert/key material, and a key scoped to another label prefix is refused.
//
// Builds with `npm run build` first (a no-op when dist/inboxd is up to date); INBOXD_BINARY=/path/to/inboxd tests
// another build.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';

const root = path.resolve(import.meta.dirname, '../..');
/** python3 (poplib, imaplib) and openssl (a test certificate): a missing one skips these tests, and fails them in CI. */
const missing = ['python3', 'openssl'].filter((cmd) => spawnSync(cmd, ['--version']).error);
const SKIP = missing.length > 0 && process.env.CI !== 'true' ? `needs ${missing.join(' and ')} (Debian packages)` : false;
const KEY = 'ibx_E2eMailAccess000000000000000000';
let server: ChildProcess | null = null;
let binary = '';
let dataDir = '';
let ports: { http: number; smtp: number; pop3: number; imap: number };

before(async () => {
  if (SKIP) return;
  let bin = process.env.INBOXD_BINARY;
  if (!bin) {
    const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm run build failed:\n${r.stdout}${r.stderr}`);
    bin = path.join(root, 'dist/inboxd');
  }
  binary = bin;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-e2e-access-'));
  const cert = path.join(dataDir, 'cert.pem');
  const key = path.join(dataDir, 'key.pem');
  const ssl = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(ssl.status, 0, ssl.stderr);
  const env: NodeJS.ProcessEnv = { ...process.env, INBOXD_ADMIN_KEY: KEY };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('NODE_TEST')) delete env[k];
  server = spawn(
    bin,
    [
      'serve',
      ...['--http-port', '0', '--smtp-port', '0', '--pop3-port', '0', '--imap-port', '0', '--host', '127.0.0.1'],
      ...['--data-dir', path.join(dataDir, 'data'), '--smtp-tls-cert', cert, '--smtp-tls-key', key, '--log-level', 'warn'],
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  server.stderr!.on('data', (d) => (stderr += d));
  server.stdout!.resume();
  const file = path.join(dataDir, 'data', 'ports.json');
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(file)) {
    if (server.exitCode !== null) assert.fail(`inboxd exited: ${stderr}`);
    if (Date.now() > deadline) assert.fail(`no ports.json within 30 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  ports = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.ok(ports.pop3 > 0 && ports.imap > 0, `ports.json lists pop3 and imap: ${JSON.stringify(ports)}`);
});

after(async () => {
  if (server && server.exitCode === null) {
    const gone = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('inboxd --help lists --pop3-port and --imap-port', { skip: SKIP }, () => {
  const r = spawnSync(binary, ['--help'], { encoding: 'utf8', timeout: 15_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /--pop3-port PORT .*POP3/);
  assert.match(r.stdout, /--imap-port PORT .*IMAP4rev1/);
});

async function api(p: string, init: { method?: string; json?: unknown; key?: string } = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${ports.http}${p}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.key ?? KEY}`, 'content-type': 'application/json' },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  const body = (await res.json()) as Record<string, unknown>;
  assert.ok(res.ok, JSON.stringify(body));
  return body;
}

async function deliver(to: string, subject: string): Promise<void> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtp, secure: false, ignoreTLS: true });
  try {
    await t.sendMail({ from: 'App <app@example.com>', to, subject, text: `body of ${subject}\n.dot line\n` });
  } finally {
    t.close();
  }
}

async function messages(inboxId: string): Promise<Array<{ subject: string; seen: boolean }>> {
  return (await api(`/v1/inboxes/${inboxId}/messages`)).items as Array<{ subject: string; seen: boolean }>;
}

function python(script: string, env: Record<string, string>): { stdout: string; stderr: string } {
  const r = spawnSync('python3', ['-c', script], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `python failed:\n${r.stdout}\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

const POPLIB = `
import os, poplib, ssl
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
p = poplib.POP3('127.0.0.1', int(os.environ['PORT']), timeout=10)
print('CAPA', sorted(p.capa().keys()))
p.stls(context=ctx)
p.user(os.environ['USER_']); p.pass_(os.environ['PASS_'])
n, size = p.stat(); print('STAT', n, size > 0)
print('LIST', len(p.list()[1]))
uidl = [l.decode().split()[1] for l in p.uidl()[1]]; print('UIDL', ','.join(uidl))
top = b'\\n'.join(p.top(1, 0)[1]).decode(); print('TOPSUBJ', [l for l in top.split('\\n') if l.startswith('Subject:')][0])
body = b'\\n'.join(p.retr(1)[1]).decode(); print('DOT', '.dot line' in body)
p.dele(2)
print('QUIT', p.quit().decode())
`;

test('Python poplib: STLS, USER/PASS, STAT, LIST, UIDL, TOP, RETR (marks seen), DELE at QUIT', { skip: SKIP }, async () => {
  const inbox = await api('/v1/inboxes', { method: 'POST', json: {} });
  await deliver(inbox.address as string, 'pop one');
  await deliver(inbox.address as string, 'pop two');
  const r = python(POPLIB, { PORT: String(ports.pop3), USER_: inbox.address as string, PASS_: KEY });
  console.log(r.stdout.trim());
  assert.match(r.stdout, /CAPA \[.*'STLS'.*'TOP'.*'UIDL'.*'USER'/);
  assert.match(r.stdout, /STAT 2 True/);
  assert.match(r.stdout, /UIDL msg_\w+,msg_\w+/);
  assert.match(r.stdout, /TOPSUBJ Subject: pop one/);
  assert.match(r.stdout, /DOT True/);
  assert.match(r.stdout, /QUIT \+OK 1 messages deleted/);
  const left = await messages(inbox.inboxId as string);
  assert.deepEqual(
    left.map((m) => [m.subject, m.seen]),
    [['pop one', true]],
  );
});

const IMAPLIB = `
import os, imaplib, smtplib, ssl, time
from email.message import EmailMessage
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
M = imaplib.IMAP4('127.0.0.1', int(os.environ['PORT']))
M.starttls(ssl_context=ctx)
M.login(os.environ['USER_'], os.environ['PASS_'])
print('LIST', sorted(l.decode().split(' ')[-1].strip('"') for l in M.list()[1]))
typ, data = M.select('INBOX'); print('SELECT', data[0].decode())
typ, data = M.fetch('1', '(RFC822)'); print('FETCH', b'Subject: imap one' in data[0][1])
typ, data = M.uid('SEARCH', None, 'UNSEEN'); print('UNSEEN', len(data[0].split()))
typ, data = M.search(None, 'SUBJECT', '"imap two"'); print('SUBJECT', data[0].decode())
M.store('2', '+FLAGS', '\\\\Deleted'); M.expunge()
typ, data = M.select('INBOX'); print('AFTER', data[0].decode())
# IDLE (Python 3.11 has no idle(): the command by hand), woken by an SMTP delivery
tag = M._new_tag()
M.send(tag + b' IDLE\\r\\n')
print('CONT', M.readline().decode().strip())
msg = EmailMessage(); msg['From'] = 'app@example.com'; msg['To'] = os.environ['USER_']; msg['Subject'] = 'wake'; msg.set_content('x')
s = smtplib.SMTP('127.0.0.1', int(os.environ['SMTP']))
s.send_message(msg)
t0 = time.perf_counter()
line = M.readline().decode().strip()
print('WOKE', line, round((time.perf_counter() - t0) * 1000, 1))
s.quit()
M.send(b'DONE\\r\\n')
while True:
    l = M.readline()
    if l.startswith(tag): print('DONE', l.decode().strip()); break
M.logout()
`;

test('Python imaplib: STARTTLS, LOGIN, LIST, SELECT, FETCH marks seen, SEARCH, STORE \\Deleted + EXPUNGE, IDLE', {
  skip: SKIP,
}, async () => {
  const inbox = await api('/v1/inboxes', { method: 'POST', json: {} });
  await deliver(inbox.address as string, 'imap one');
  await deliver(inbox.address as string, 'imap two');
  const r = python(IMAPLIB, { PORT: String(ports.imap), SMTP: String(ports.smtp), USER_: inbox.address as string, PASS_: KEY });
  console.log(r.stdout.trim());
  assert.match(r.stdout, /LIST \['INBOX', 'Sent'\]/);
  assert.match(r.stdout, /SELECT 2\n/);
  assert.match(r.stdout, /FETCH True/);
  assert.match(r.stdout, /UNSEEN 1\n/, 'FETCH RFC822 marked the first one seen');
  assert.match(r.stdout, /SUBJECT 2\n/);
  assert.match(r.stdout, /AFTER 1\n/);
  assert.match(r.stdout, /CONT \+ idling/);
  const woke = /WOKE \* 2 EXISTS ([\d.]+)/.exec(r.stdout);
  assert.ok(woke, r.stdout);
  console.log(`imaplib IDLE woke ${woke[1]} ms after smtplib's 250`);
  assert.ok(Number(woke[1]) < 1000);
  const left = await messages(inbox.inboxId as string);
  assert.deepEqual(left.map((m) => [m.subject, m.seen]).sort(), [
    ['imap one', true],
    ['wake', false],
  ]);
});

test('imapflow against the executable: IDLE woken by SMTP, seen, delete; another scope is refused', { skip: SKIP }, async () => {
  const inbox = await api('/v1/inboxes', { method: 'POST', json: { label: 'run-a/1' } });
  const address = inbox.address as string;
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: ports.imap,
    secure: false,
    auth: { user: address, pass: KEY },
    logger: false,
    tls: { rejectUnauthorized: false },
  });
  await c.connect();
  try {
    await c.mailboxOpen('INBOX');
    const woke = new Promise<number>((resolve) => c.once('exists', () => resolve(performance.now())));
    void c.idle().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    await deliver(address, 'flow one');
    const delivered = performance.now();
    const ms = (await woke) - delivered;
    console.log(`imapflow IDLE woke ${Math.max(0, ms).toFixed(1)} ms after the SMTP delivery was acknowledged`);
    assert.ok(ms < 1000);
    const m = await c.fetchOne('*', { uid: true, envelope: true, source: true });
    assert.ok(m && m.envelope?.subject === 'flow one');
    await c.messageFlagsAdd(String(m.uid), ['\\Seen'], { uid: true });
    assert.equal((await messages(inbox.inboxId as string))[0]?.seen, true);
    await c.messageDelete(String(m.uid), { uid: true });
    assert.deepEqual(await messages(inbox.inboxId as string), []);
  } finally {
    await c.logout();
  }
  const scoped = await api('/v1/team/keys', { method: 'POST', json: { label: 'other run', scope: { labelPrefix: 'run-b/' } } });
  const refused = new ImapFlow({
    host: '127.0.0.1',
    port: ports.imap,
    secure: false,
    auth: { user: address, pass: scoped.key as string },
    logger: false,
    tls: { rejectUnauthorized: false },
  });
  await assert.rejects(refused.connect(), (e: Error & { authenticationFailed?: boolean }) => e.authenticationFailed === true);
  refused.close();
});
