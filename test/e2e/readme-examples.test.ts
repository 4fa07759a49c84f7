// Every ```sh / ```bash block of README.md, run as a reader would paste it: under `bash -e`, with `inboxd` on PATH
// (node src/main.ts), against real servers — inboxd itself, and for "PostgreSQL" / "Scaling out" a real PostgreSQL
// (test/helpers/postgres.ts) and a real S3 bucket (Swift, test/helpers/swift.ts). What a reader fills in is filled in
// here, each replacement named and checked to be in the block (`ibx_…` → the key, `db.lab:5432` → the test database);
// ports a reader would leave at 25/8025 come from the environment (INBOXD_SMTP_PORT=0 …), so tests run side by side.
//
// Examples must also fail when they should (issue 27: `OTP=$(inboxd verify … | jq -r …) || exit 1` passed with
// OTP=null on a timeout): the CI step runs again with no mail arriving and with mail that has no code, and must stop
// with exit 3 / 4 before it types a code; the outcome `case` must see the timeout. The examples in `inboxd wait
// --help`, `verify --help` and `simulate --help` run the same way.
//
// Each block must have exactly one entry in PLANS (a new block without one fails the first test); blocks that cannot
// run here are listed in SKIPPED with the reason. Blocks not meant to run (diagrams, output) are fenced `text`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAIN, ROOT } from '../helpers/cli.ts';
import { type PgServer, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { tempDir } from '../helpers/server.ts';
import { type SwiftServer, startSwift, swiftMissing } from '../helpers/swift.ts';

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  heading: string;
  code: string;
}

function readmeBlocks(): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const out: Block[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^#{2,4} /.test(l)) heading = l.replace(/^#+ /, '');
    if (!/^```(sh|bash)\s*$/.test(l)) {
      if (/^```/.test(l)) for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++);
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    out.push({ line: start + 1, heading, code: body.join('\n') + '\n' });
  }
  return out;
}

/** Which block an entry is about: its heading and a line it contains (so moving a block does not break the match). */
interface Which {
  heading: string;
  has: string;
}
const find = (w: Which): Block => {
  const hits = readmeBlocks().filter((b) => b.heading === w.heading && b.code.includes(w.has));
  assert.equal(hits.length, 1, `README: one sh block under "${w.heading}" containing ${JSON.stringify(w.has)} (found ${hits.length})`);
  return hits[0]!;
};

const SKIPPED: Array<Which & { why: string }> = [
  {
    heading: 'Set up',
    has: 'npm ci && npm start',
    why: '`npm ci` would replace the node_modules every test runs from; `npm start` (build, serve, stop on SIGTERM) is run by test/e2e/npm-start.test.ts',
  },
  { heading: 'Set up', has: 'npm test', why: 'the whole test suite, which runs this file' },
  {
    heading: 'Structured extraction and models (CONTRACT §12)',
    has: 'ollama pull',
    why: 'needs Ollama, vLLM and a hosted model key (gigabytes of weights); the model chain is tested against fake model servers in test/api/ai/',
  },
  {
    heading: 'Running as a service',
    has: 'docker build',
    why: 'needs a Docker daemon; the executable the image packages is tested by test/e2e/binary.test.ts',
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Running a block

const children = new Set<ChildProcess>();
const dirs: string[] = [];
const shim = tempDir('inboxd-readme-bin-');
dirs.push(shim);
// `inboxd` as a reader has it on PATH: here the source, run by this Node.
fs.writeFileSync(path.join(shim, 'inboxd'), `#!/bin/sh\nexec '${process.execPath}' '${MAIN}' "$@"\n`, { mode: 0o755 });

/** The environment of a reader's shell: no INBOXD_* or Node test settings of the runner; `inboxd` on PATH. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('INBOXD_') && !k.startsWith('NODE_') && !k.startsWith('PG') && !k.startsWith('AWS_')) env[k] = v;
  return { ...env, PATH: `${shim}:${process.env.PATH}`, ...extra };
}

/** The block with each [placeholder, value] filled in; every placeholder must be in it. */
function fill(code: string, subs: Array<[string, string]>): string {
  for (const [from, to] of subs) {
    assert.ok(code.includes(from), `the README block no longer contains ${JSON.stringify(from)}:\n${code}`);
    code = code.split(from).join(to);
  }
  return code;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`the block did not finish within ${o.timeoutMs ?? 60_000} ms\n${stderr}\n${stdout}`));
    }, o.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A block that starts a server: run it in the background, wait for its ports.json, hand it back to be stopped. */
interface Serving {
  http: string;
  smtp: number;
  stderr(): string;
  stop(): Promise<number | null>;
}

async function serve(script: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<Serving> {
  const child = spawn('bash', ['-e', '-c', script], { cwd: tempDir(), env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8000)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ports = path.join(dataDir, 'ports.json');
  for (let i = 0; !fs.existsSync(ports); i++) {
    assert.equal(child.exitCode, null, `the server block exited (${child.exitCode}):\n${stderr}`);
    assert.ok(i < 1200, `no ports.json within 30 s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const p = JSON.parse(fs.readFileSync(ports, 'utf8')) as { http: number; smtp: number };
  return {
    http: `http://localhost:${p.http}`,
    smtp: p.smtp,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) killGroup(child, 'SIGTERM');
      const code = await exited;
      children.delete(child);
      return code;
    },
  };
}

/** Ends a process group this file started (its leader is our child). */
function killGroup(c: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-c.pid!, signal);
  } catch {
    // already gone
  }
}

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) killGroup(c, 'SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// One inboxd on SQLite, started like the quick start says (next to its inboxd-data, the key generated)

let home = '';
let server: ChildProcess;
let api = '';
let smtpPort = 0;
let key = '';

before(async () => {
  home = tempDir('inboxd-readme-');
  dirs.push(home);
  server = spawn(process.execPath, [MAIN, 'serve', '--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0'], {
    cwd: home,
    env: shellEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(server);
  const ports = path.join(home, 'inboxd-data/ports.json');
  for (let i = 0; !fs.existsSync(ports) || !fs.existsSync(path.join(home, 'inboxd-data/admin.key')); i++) {
    assert.equal(server.exitCode, null, 'server exited');
    assert.ok(i < 1200, 'the server did not start within 30 s');
    await new Promise((r) => setTimeout(r, 25));
  }
  const p = JSON.parse(fs.readFileSync(ports, 'utf8')) as { http: number; smtp: number };
  api = `http://localhost:${p.http}`;
  smtpPort = p.smtp;
  key = fs.readFileSync(path.join(home, 'inboxd-data/admin.key'), 'utf8').trim();
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
});

async function call(method: string, p: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${api}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `${method} ${p}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as Record<string, any>;
}

/** Mail over SMTP, as a signup form's service would send it. */
async function mail(to: string, subject: string, text: string): Promise<void> {
  const r = await bash(
    `printf 'From: GitHub <noreply@github.com>\\r\\nTo: %s\\r\\nSubject: %s\\r\\n\\r\\n%s\\r\\n' "$TO" "$SUBJECT" "$TEXT" |
      curl -sSf smtp://localhost:${smtpPort} --mail-from noreply@github.com --mail-rcpt "$TO" -T -`,
    { cwd: home, env: shellEnv({ TO: to, SUBJECT: subject, TEXT: text }) },
  );
  assert.equal(r.code, 0, r.stderr);
}

// ---------------------------------------------------------------------------------------------------------------

const PLANS: Which[] = [];
const plan = (w: Which) => (PLANS.push(w), w);

test('every sh/bash block of the README is run below or skipped with a reason', () => {
  const blocks = readmeBlocks();
  const covered = new Map<number, number>();
  for (const w of [...PLANS, ...SKIPPED]) {
    const b = find(w);
    covered.set(b.line, (covered.get(b.line) ?? 0) + 1);
  }
  const missing = blocks.filter((b) => !covered.has(b.line));
  assert.deepEqual(
    missing.map((b) => `README.md:${b.line} (${b.heading}): ${b.code.split('\n')[0]}`),
    [],
    'blocks nobody runs: add them to PLANS (or SKIPPED, with the reason), or fence them `text` if they are not commands',
  );
  for (const [line, n] of covered) assert.equal(n, 1, `README.md:${line} is covered ${n} times`);
  assert.ok(SKIPPED.length <= 4, 'the skip list stays short');
});

const QUICK = plan({ heading: 'Quick start', has: 'inboxd-data/admin.key' });
test('Quick start: creates an inbox, mails it, gets the code', async () => {
  const r = await bash(find(QUICK).code, { cwd: home, env: shellEnv() });
  assert.equal(r.code, 0, r.stderr);
  const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.equal(last.verification.otp, '482913');
});

const CONVERSATION = plan({ heading: 'Sending and replying (CONTRACT §9)', has: 'Your order' });
test('Sending and replying: a conversation between two inboxes', async () => {
  const code = fill(find(CONVERSATION).code, [
    ['KEY=ibx_…', `KEY=${key}`],
    ['API=http://localhost:8025', `API=${api}`],
  ]);
  const r = await bash(code, { cwd: home, env: shellEnv() });
  assert.equal(r.code, 0, r.stderr);
  // The last command pretty-prints with jq: the last object, over several lines.
  const reply = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{\n')));
  assert.equal(reply.subject, 'Re: Your order');
  assert.match(reply.inReplyTo, /^<.+>$/);
});

describe('Client commands', () => {
  const CI = plan({ heading: 'Client commands (CONTRACT §16)', has: 'e2e/signup.sh' });

  /** A folder with the two scripts the CI step calls: signup.sh makes the service mail `$1`, enter-code.sh notes the code. */
  function ciFolder(signup: string): string {
    const dir = tempDir('inboxd-readme-ci-');
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'e2e'));
    fs.writeFileSync(path.join(dir, 'e2e/signup.sh'), `#!/bin/bash\nset -e\n${signup}\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'e2e/enter-code.sh'), '#!/bin/sh\nprintf %s "$1" > entered-code\n', { mode: 0o755 });
    return dir;
  }
  const sendFromSignup = (subject: string, text: string) =>
    `printf 'From: GitHub <noreply@github.com>\\r\\nTo: %s\\r\\nSubject: ${subject}\\r\\n\\r\\n${text}\\r\\n' "$1" |
  curl -sSf smtp://localhost:$SMTP_PORT --mail-from noreply@github.com --mail-rcpt "$1" -T -`;

  const ciStep = (timeout: string) =>
    fill(find(CI).code, [
      ['http://inboxd:8025', api],
      ...(timeout === '120' ? [] : ([['--timeout 120', `--timeout ${timeout}`]] as Array<[string, string]>)),
    ]);
  const ciEnv = () => shellEnv({ INBOXD_CI_KEY: key, CI_JOB_ID: String(Date.now()), SMTP_PORT: String(smtpPort) });

  test('the CI step: the code reaches enter-code.sh, the welcome mail welcome.json', async () => {
    const dir = ciFolder(
      [
        sendFromSignup('[GitHub] Please verify your device', 'Verification code: 913842'),
        sendFromSignup('Welcome to GitHub', 'Thanks for joining.'),
      ].join('\n'),
    );
    const r = await bash(ciStep('120'), { cwd: dir, env: ciEnv() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'entered-code'), 'utf8'), '913842');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'welcome.json'), 'utf8')).subject, 'Welcome to GitHub');
  });

  test('the CI step fails (exit 3) when no mail arrives, before it types a code', async () => {
    const dir = ciFolder('true # the form was never submitted');
    const t0 = Date.now();
    const r = await bash(ciStep('2'), { cwd: dir, env: ciEnv() });
    assert.equal(r.code, 3, `the step must fail on a timeout:\n${r.stderr}`);
    assert.match(r.stderr, /inboxd verify: timeout: no verification mail arrived within 2 s/);
    assert.equal(fs.existsSync(path.join(dir, 'entered-code')), false, 'enter-code.sh never ran');
    assert.ok(Date.now() - t0 < 20_000);
  });

  test('the CI step fails (exit 4) when the mail has no code', async () => {
    const dir = ciFolder(sendFromSignup('[GitHub] Hello', 'Nothing to type here.'));
    const r = await bash(ciStep('5'), { cwd: dir, env: ciEnv() });
    assert.equal(r.code, 4, `the step must fail without a code:\n${r.stderr}`);
    assert.match(r.stderr, /inboxd verify: no value: .* has no code \(--print otp\)/);
    assert.equal(fs.existsSync(path.join(dir, 'entered-code')), false, 'enter-code.sh never ran');
  });

  const CASE = plan({ heading: 'Client commands (CONTRACT §16)', has: 'case $status in' });
  test('telling the outcomes apart: mail, and a timeout the script sees', async () => {
    const inbox = await call('POST', '/v1/inboxes', {});
    await mail(inbox.address, 'hello', 'hi');
    const env = shellEnv({ INBOXD_URL: api, INBOXD_KEY: key });
    const got = await bash(find(CASE).code, { cwd: home, env: { ...env, INBOX: inbox.inboxId } });
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /mail arrived\n$/);
    const empty = await call('POST', '/v1/inboxes', {});
    const code = fill(find(CASE).code, [['--timeout 30', '--timeout 1']]);
    const none = await bash(code, { cwd: home, env: { ...env, INBOX: empty.inboxId } });
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'no mail within 30 s\n');
  });
});

describe('the examples in --help', () => {
  /** The indented lines after "Example" at the end of `inboxd COMMAND --help`. */
  async function helpExample(cmd: string): Promise<string> {
    const r = await bash(`inboxd ${cmd} --help`, { cwd: home, env: shellEnv() });
    const text = r.stdout.slice(r.stdout.lastIndexOf('\nExample'));
    const lines = text.split('\n').filter((l) => l.startsWith('  '));
    assert.ok(lines.length > 0, `inboxd ${cmd} --help has an example`);
    return lines.map((l) => l.slice(2)).join('\n') + '\n';
  }
  const env = () => shellEnv({ INBOXD_URL: api, INBOXD_KEY: key, CI_JOB_ID: String(Date.now()) });

  test('inboxd wait --help: the code, or a failed step on a timeout', async () => {
    const example = fill(await helpExample('wait'), [
      ['export INBOXD_URL=http://inboxd:8025 INBOXD_KEY=ibx_…\n', ''],
      ['--timeout 120', '--timeout 2'],
    ]);
    const inbox = await call('POST', '/v1/inboxes', {});
    await mail(inbox.address, 'Your verification code', 'Your code is 662211.');
    const ok = await bash(`${example}echo "$CODE"`, { cwd: home, env: { ...env(), INBOX_ID: inbox.inboxId } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '662211\n');
    const empty = await call('POST', '/v1/inboxes', {});
    const failed = await bash(`${example}echo "went on with '$CODE'"`, { cwd: home, env: { ...env(), INBOX_ID: empty.inboxId } });
    assert.equal(failed.code, 3, failed.stdout);
    assert.equal(failed.stdout, '');
  });

  test('inboxd verify --help: a failed step on a timeout', async () => {
    const example = fill(await helpExample('verify'), [
      ['./signup.sh "$ADDR"', 'test -n "$ADDR"'],
      ['--timeout 120', '--timeout 1'],
    ]);
    const failed = await bash(`${example}echo "went on with '$OTP'"`, { cwd: home, env: env() });
    assert.equal(failed.code, 3, failed.stderr);
    assert.equal(failed.stdout, '');
  });

  test('inboxd simulate --help: the simulated code comes back', async () => {
    const inbox = await call('POST', '/v1/inboxes', {});
    const r = await bash(await helpExample('simulate'), { cwd: home, env: { ...env(), INBOX_ID: inbox.inboxId } });
    assert.equal(r.code, 0, r.stderr);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// STARTTLS out of the box and the sendmail symlink: a server of their own (--smtp-tls auto), the built executable.

/** Starts `inboxd serve` with extra flags in a folder of its own; its ports and a stop function. */
async function serveWith(flags: string[]): Promise<{ http: number; smtp: number; dir: string; stop(): Promise<void> }> {
  const dir = tempDir('inboxd-readme-own-');
  dirs.push(dir);
  const child = spawn(process.execPath, [MAIN, 'serve', '--http-port', '0', '--smtp-port', '0', '--ingest-threads', '0', ...flags], {
    cwd: dir,
    env: shellEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const ports = path.join(dir, 'inboxd-data/ports.json');
  for (let i = 0; !fs.existsSync(ports); i++) {
    assert.equal(child.exitCode, null, `server exited:\n${stderr}`);
    assert.ok(i < 1200, `the server did not start within 30 s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const p = JSON.parse(fs.readFileSync(ports, 'utf8')) as { http: number; smtp: number };
  return {
    ...p,
    dir,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      children.delete(child);
    },
  };
}

const TLS = plan({ heading: 'STARTTLS out of the box (`--smtp-tls auto`)', has: 'inboxd-smtp.pem' });
describe('STARTTLS out of the box', {
  skip: !fs.existsSync('/usr/bin/swaks') && process.env.CI !== 'true' && 'skipped: swaks is not installed',
}, () => {
  const block = (http: number, smtp: number) =>
    fill(find(TLS).code, [
      ['http://inboxd:8025', `http://localhost:${http}`],
      ['inboxd:2525', `localhost:${smtp}`],
      ['"127.0.0.1",2525', `"127.0.0.1",${smtp}`],
    ]);

  test('the certificate from discovery pins swaks and smtplib', async () => {
    const s = await serveWith(['--smtp-tls', 'auto']);
    try {
      const r = await bash(block(s.http, s.smtp), { cwd: s.dir, env: shellEnv() });
      assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
      assert.match(fs.readFileSync(path.join(s.dir, 'inboxd-smtp.pem'), 'utf8'), /^-----BEGIN CERTIFICATE-----/);
    } finally {
      await s.stop();
    }
  });

  test('the step fails when the server offers no STARTTLS (no certificate to pin)', async () => {
    const s = await serveWith([]);
    try {
      const r = await bash(block(s.http, s.smtp), { cwd: s.dir, env: shellEnv() });
      assert.notEqual(r.code, 0, 'jq -e fails on a null certificate, so the step stops');
    } finally {
      await s.stop();
    }
  });
});

const SENDMAIL = plan({ heading: 'sendmail: `inboxd sendmail` and a symlink named `sendmail`', has: 'ln -s' });
test('sendmail: a symlink named sendmail delivers what PHP mail() hands it', async () => {
  let bin = process.env.INBOXD_BINARY ?? path.join(ROOT, 'dist/inboxd');
  if (!process.env.INBOXD_BINARY && !fs.existsSync(bin)) {
    const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm run build failed:\n${r.stdout}${r.stderr}`);
    bin = path.join(ROOT, 'dist/inboxd');
  }
  const inbox = await call('POST', '/v1/inboxes', {});
  // What PHP's mail() runs with sendmail_path = "sendmail -t -i": the message on stdin.
  const php = `printf 'To: %s\\nSubject: via the symlink\\n\\nHello from PHP.\\n' "$TO" | sendmail -t -i\n`;
  const run = (smtp: string) => {
    const dir = tempDir('inboxd-readme-sendmail-');
    dirs.push(dir);
    const code = fill(find(SENDMAIL).code, [
      ['/usr/local/bin/inboxd', bin],
      ['/usr/local/bin/sendmail', path.join(dir, 'sendmail')],
      ['inboxd:2525', smtp],
    ]);
    return bash(code + php, { cwd: dir, env: shellEnv({ PATH: `${dir}:${shim}:${process.env.PATH}`, TO: inbox.address }) });
  };
  const r = await run(`localhost:${smtpPort}`);
  assert.equal(r.code, 0, r.stderr);
  const got = await call('GET', `/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
  assert.equal(got.subject, 'via the symlink');
  // And the step fails when nothing listens there (sendmail exits 75, EX_TEMPFAIL).
  const down = await run('localhost:1');
  assert.equal(down.code, 75, down.stderr);
});

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL and Scaling out: a real PostgreSQL server (a fresh one: the role and database come from the README), a
// real S3 bucket.

const missing = postgresMissing() ?? swiftMissing();
const skipPg = missing !== null && process.env.CI !== 'true' ? `skipped: ${missing}` : false;

describe('PostgreSQL and Scaling out', { skip: skipPg }, () => {
  const CREATE = plan({ heading: 'Scaling out: several instances behind one load balancer', has: 'createuser' });
  const PG_START = plan({ heading: 'PostgreSQL', has: 'db.internal:5432' });
  const INSTANCE = plan({ heading: 'Scaling out: several instances behind one load balancer', has: 'INBOXD_BLOB_STORE=' });
  const PASSWORD = 'Correct-Horse-Battery-7';
  const ADMIN_KEY = 'ibx_ReadmeClusterKey00000000000000000';
  let pg: PgServer;
  let swift: SwiftServer;
  let dba: NodeJS.ProcessEnv;

  before(async () => {
    [pg, swift] = await Promise.all([startPostgres(), startSwift()]);
    await swift.createBucket('inboxd-mail');
    // Make it a fresh server with a superuser "dba": the helper's own superuser is called inboxd and owns a database
    // inboxd, which is exactly what the README creates.
    const asBootstrap = shellEnv({ PGHOST: '127.0.0.1', PGPORT: String(pg.port), PGUSER: 'inboxd', PGDATABASE: 'postgres' });
    let r = await bash(`psql -v ON_ERROR_STOP=1 -qc 'create role dba superuser login' -c 'drop database inboxd'`, {
      cwd: home,
      env: asBootstrap,
    });
    assert.equal(r.code, 0, r.stderr);
    dba = shellEnv({ PGHOST: '127.0.0.1', PGPORT: String(pg.port), PGUSER: 'dba', PGDATABASE: 'postgres' });
    r = await bash(`psql -v ON_ERROR_STOP=1 -qc 'alter role inboxd rename to bootstrap'`, { cwd: home, env: dba });
    assert.equal(r.code, 0, r.stderr);
    // The test cluster trusts every local login; make the new role log in with its password, as a real server would.
    r = await bash(`psql -Atc 'show hba_file'`, { cwd: home, env: dba });
    const hba = r.stdout.trim();
    fs.writeFileSync(hba, `host all inboxd 127.0.0.1/32 scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
    r = await bash(`psql -qAtc 'select pg_reload_conf()'`, { cwd: home, env: dba });
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await pg?.stop();
    await swift?.stop();
  });

  test('the role and the database, as a superuser', async () => {
    const r = await bash(find(CREATE).code, { cwd: home, env: { ...dba, INBOXD_DATABASE_PASSWORD: PASSWORD } });
    assert.equal(r.code, 0, r.stderr);
    const owner = await bash(`psql -Atc "select pg_get_userbyid(datdba) from pg_database where datname = 'inboxd'"`, {
      cwd: home,
      env: dba,
    });
    assert.equal(owner.stdout.trim(), 'inboxd');
  });

  const serverEnv = () => shellEnv({ INBOXD_HTTP_PORT: '0', INBOXD_SMTP_PORT: '0', INBOXD_INGEST_THREADS: '0' });

  test('PostgreSQL: two instances on it without INBOXD_ADMIN_KEY; the one key generated works on both', async () => {
    const dirA = tempDir('inboxd-readme-pg-a-');
    const dirB = tempDir('inboxd-readme-pg-b-');
    dirs.push(dirA, dirB);
    const block = (dir: string, password = PASSWORD) =>
      fill(find(PG_START).code, [
        ["INBOXD_DATABASE_PASSWORD='…'", `INBOXD_DATABASE_PASSWORD='${password}'`],
        ['db.internal:5432', `127.0.0.1:${pg.port}`],
        ['/var/lib/inboxd', dir],
      ]);
    // A wrong password is refused: the login really is checked.
    const wrong = await bash(block(tempDir('inboxd-readme-pg-x-'), 'wrong'), { cwd: home, env: serverEnv(), timeoutMs: 30_000 });
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /refused the login of user inboxd \(password authentication failed/);
    // Without the password line: said so, and the process ends (it used to hang after the message).
    const none = await bash(fill(block(tempDir('inboxd-readme-pg-y-')), [[`INBOXD_DATABASE_PASSWORD='${PASSWORD}' `, '']]), {
      cwd: home,
      env: serverEnv(),
      timeoutMs: 30_000,
    });
    assert.equal(none.code, 1, none.stderr);
    assert.match(none.stderr, /asks for the password of user inboxd and none was given: set INBOXD_DATABASE_PASSWORD/);
    const a = await serve(block(dirA), dirA, serverEnv());
    const b = await serve(block(dirB), dirB, serverEnv());
    try {
      assert.ok(fs.existsSync(path.join(dirA, 'admin.key')), 'the first instance generated a key');
      assert.equal(fs.existsSync(path.join(dirB, 'admin.key')), false, 'the second found it in the database: no file of its own');
      const generated = fs.readFileSync(path.join(dirA, 'admin.key'), 'utf8').trim();
      for (const s of [a, b]) {
        const me = await fetch(`${s.http}/v1/me`, { headers: { authorization: `Bearer ${generated}` } });
        assert.equal(me.status, 200, `${s.http}: ${await me.text()}`);
      }
    } finally {
      assert.equal(await b.stop(), 0, b.stderr());
      assert.equal(await a.stop(), 0, a.stderr());
    }
  });

  test('Scaling out: two instances as written, one INBOXD_ADMIN_KEY for both, mail in the bucket', async () => {
    const block = (dir: string) =>
      fill(find(INSTANCE).code, [
        ['db.lab:5432', `127.0.0.1:${pg.port}`],
        ['INBOXD_DATABASE_PASSWORD=…', `INBOXD_DATABASE_PASSWORD=${PASSWORD}`],
        ['http://s3.lab:8080', swift.endpoint],
        [
          'AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=…',
          `AWS_ACCESS_KEY_ID=${swift.accessKeyId} AWS_SECRET_ACCESS_KEY=${swift.secretAccessKey}`,
        ],
        ['INBOXD_ADMIN_KEY=ibx_…', `INBOXD_ADMIN_KEY=${ADMIN_KEY}`],
        ['INBOXD_SECRET_KEY=…', `INBOXD_SECRET_KEY=${'ab'.repeat(32)}`],
        // two instances on one machine cannot both listen on 2525
        ['--smtp-port 2525', '--smtp-port 0'],
        ['/var/lib/inboxd', dir],
      ]);
    const dirA = tempDir('inboxd-readme-s3-a-');
    const dirB = tempDir('inboxd-readme-s3-b-');
    dirs.push(dirA, dirB);
    const a = await serve(block(dirA), dirA, serverEnv());
    const b = await serve(block(dirB), dirB, serverEnv());
    try {
      const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
      const inbox = (await (await fetch(`${a.http}/v1/inboxes`, { method: 'POST', headers: auth, body: '{}' })).json()) as Record<
        string,
        any
      >;
      assert.match(inbox.address, /@mail\.lab$/);
      const sim = await fetch(`${b.http}/v1/inboxes/${inbox.inboxId}/simulate`, {
        method: 'POST',
        headers: auth,
        body: '{"scenario":"otp"}',
      });
      assert.equal(sim.status, 201, await sim.clone().text());
      const raw = await fetch(`${a.http}/v1/inboxes/${inbox.inboxId}/messages/${((await sim.json()) as any).messageId}/raw`, {
        headers: auth,
      });
      assert.equal(raw.status, 200, 'A reads the raw bytes B stored in the bucket');
      for (const d of [dirA, dirB]) assert.equal(fs.existsSync(path.join(d, 'admin.key')), false, 'no key file with INBOXD_ADMIN_KEY');
    } finally {
      assert.equal(await b.stop(), 0, b.stderr());
      assert.equal(await a.stop(), 0, a.stderr());
    }
  });
});
