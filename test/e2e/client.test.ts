// `inboxd wait|verify|simulate|send` from the built single executable (dist/inboxd) against a running server: JSON on
// stdout, human errors on stderr, and the exit codes a shell step tests (0 ok, 1 error, 2 usage, 3 timeout).
//
// Builds with `npm run build` first (a no-op when dist/inboxd is up to date); INBOXD_BINARY=/path/to/inboxd tests a
// binary built elsewhere.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SEND_FLAGS, SIMULATE_FLAGS } from '../../src/client/send.ts';
import { VERIFY_FLAGS, WAIT_FLAGS } from '../../src/client/wait.ts';
import { ROOT } from '../helpers/cli.ts';
import { startTestServer, type TestServer, tempDir } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

let bin = '';
let s: TestServer;
const children = new Set<ChildProcess>();
const dirs: string[] = [];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the executable with only the INBOXD_* variables given here (none leak in from the test runner). */
function run(args: string[], env: Record<string, string> = {}, onStart?: () => void): Promise<Ran> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('INBOXD_') && !k.startsWith('NODE_')) base[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('spawn', () => onStart?.());
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const env = () => ({ INBOXD_URL: s.url, INBOXD_KEY: s.key });

async function createInbox(label = 'ci-client'): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: { label } });
  assert.equal(r.status, 201);
  return (await r.json()) as { inboxId: string; address: string };
}

before(async () => {
  bin = process.env.INBOXD_BINARY ?? '';
  if (!bin) {
    const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm run build failed:\n${r.stdout}${r.stderr}`);
    bin = path.join(ROOT, 'dist/inboxd');
  }
  s = await startTestServer();
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('inboxd wait', () => {
  test('a wait satisfied by SMTP mail: exit 0, the message as JSON', async () => {
    const inbox = await createInbox();
    let started!: () => void;
    const spawned = new Promise<void>((r) => (started = r));
    const waiting = run(['wait', inbox.inboxId, '--timeout', '30', '--subject', 'verify'], env(), started);
    await spawned;
    // Mail that does not match first, then the one that does.
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'newsletter', text: 'no code here' });
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'Please verify', text: 'Your verification code is 731904' });
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
    const msg = JSON.parse(r.stdout) as { subject: string; verification: { otp: string }; inboxId: string };
    assert.equal(msg.subject, 'Please verify');
    assert.equal(msg.verification.otp, '731904');
    assert.equal(msg.inboxId, inbox.inboxId);
    assert.equal(r.stderr, '');
  });

  test('the inbox may be given by its address', async () => {
    const inbox = await createInbox();
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'hello', text: 'Code: 551234' });
    const r = await run(['wait', inbox.address, '--timeout', '5', '--no-body'], env());
    assert.equal(r.code, 0, r.stderr);
    const msg = JSON.parse(r.stdout) as { inboxId: string; text: string | null };
    assert.equal(msg.inboxId, inbox.inboxId);
  });

  test('a wait that times out: exit 3, nothing on stdout, the reason on stderr', async () => {
    const inbox = await createInbox();
    const r = await run(['wait', inbox.inboxId, '--timeout', '1'], env());
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^inboxd wait: timeout: no matching message arrived in inb_\w+ within 1 s\n$/);
  });

  test('usage errors: exit 2 with one line naming the problem', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['wait'], env(), /give exactly one INBOX/],
      [['wait', 'inb_x', 'inb_y'], env(), /give exactly one INBOX/],
      [['wait', 'inb_x', '--timeuot', '5'], env(), /unknown option '--timeuot' \(did you mean --timeout\?\)/],
      [['wait', 'inb_x', '--timeout', 'soon'], env(), /--timeout must be a whole number of seconds/],
      [['wait', 'inb_x', '--timeout'], env(), /--timeout needs a value/],
      [['wait', 'inb_x'], { INBOXD_URL: s.url }, /no API key: set INBOXD_KEY/],
      [['wait', 'inb_x'], { INBOXD_URL: 'ftp://x', INBOXD_KEY: s.key }, /must be http\(s\)/],
      [['verify'], env(), /give --service NAME .* or --inbox INBOX/],
      [['simulate', 'inb_x', '--scenario', 'nonsense'], env(), /refused: 400 validation_failed/],
      [['send', 'inb_x'], env(), /give at least one --to/],
      [['send', 'inb_x', '--to', 'a@b.test', '--attach', '/nonexistent/file.pdf'], env(), /--attach \/nonexistent\/file.pdf: no such file/],
    ];
    for (const [args, e, re] of cases) {
      const r = await run(args, e);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.equal(r.stdout, '');
    }
  });

  test('a bad key: exit 1, an auth error', async () => {
    const inbox = await createInbox();
    const r = await run(['wait', inbox.inboxId, '--timeout', '1'], {
      INBOXD_URL: s.url,
      INBOXD_KEY: 'ibx_WrongWrongWrongWrongWrongWrong00',
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^inboxd wait: auth error: 401 unauthorized: .*INBOXD_KEY/);
    const viaFlag = await run(['wait', inbox.inboxId, '--key', 'ibx_WrongWrongWrongWrongWrongWrong00', '--url', s.url]);
    assert.equal(viaFlag.code, 1);
  });

  test('an unreachable server and an unknown inbox: exit 1, saying which', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const down = await run(['wait', 'inb_x', '--timeout', '1'], { INBOXD_URL: `http://127.0.0.1:${port}`, INBOXD_KEY: s.key });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /unreachable: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    const missing = await run(['wait', 'inb_doesnotexist', '--timeout', '1'], env());
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not found: 404 not_found/);
    const noAddr = await run(['wait', 'nobody@inboxd.test', '--timeout', '1'], env());
    assert.equal(noAddr.code, 1);
    assert.match(noAddr.stderr, /no inbox with the address nobody@inboxd.test/);
  });
});

describe('inboxd verify', () => {
  test('--service gives an address; --inbox then returns the code from SMTP mail', async () => {
    const first = await run(['verify', '--service', 'github', '--label', 'ci-verify'], env());
    assert.equal(first.code, 0, first.stderr);
    const created = JSON.parse(first.stdout) as { status: string; email: { inboxId: string; address: string } };
    assert.equal(created.status, 'awaiting_message');
    await sendMail(s.server.smtpPort, {
      from: 'GitHub <noreply@github.com>',
      to: created.email.address,
      subject: '[GitHub] Please verify your device',
      text: 'Verification code: 482913',
    });
    const r = await run(['verify', '--inbox', created.email.address, '--timeout', '10'], env());
    assert.equal(r.code, 0, r.stderr);
    const v = JSON.parse(r.stdout) as { status: string; verification: { otp: string } };
    assert.equal(v.status, 'verified');
    assert.equal(v.verification.otp, '482913');
  });

  test('a verify that times out: exit 3, the JSON still printed', async () => {
    const inbox = await createInbox();
    const r = await run(['verify', '--inbox', inbox.inboxId, '--timeout', '1'], env());
    assert.equal(r.code, 3, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { status: string }).status, 'timeout');
    assert.match(r.stderr, /timeout: no verification mail arrived within 1 s/);
  });
});

describe('inboxd simulate', () => {
  test('delivers a message that wait then finds with the expected code', async () => {
    const inbox = await createInbox();
    const r = await run(['simulate', inbox.inboxId, '--scenario', 'otp', '--service', 'github', '--code', '424242'], env());
    assert.equal(r.code, 0, r.stderr);
    const sim = JSON.parse(r.stdout) as { messageId: string; expected: { otp: string } };
    assert.equal(sim.expected.otp, '424242');
    const w = await run(['wait', inbox.inboxId, '--timeout', '5'], env());
    assert.equal(w.code, 0, w.stderr);
    assert.equal((JSON.parse(w.stdout) as { messageId: string }).messageId, sim.messageId);
  });

  test('a read-only key cannot simulate: exit 1, an auth error', async () => {
    const r0 = await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } });
    const ro = ((await r0.json()) as { key: string }).key;
    const inbox = await createInbox();
    const r = await run(['simulate', inbox.inboxId], { INBOXD_URL: s.url, INBOXD_KEY: ro });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /auth error: 403 forbidden/);
  });
});

describe('inboxd send', () => {
  test('sends from one inbox to another (local delivery) and wait finds it', async () => {
    const from = await createInbox();
    const to = await createInbox();
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'report.txt');
    fs.writeFileSync(file, 'attached bytes');
    const r = await run(
      ['send', from.inboxId, '--to', to.address, '--subject', 'Report 42', '--text', 'see attached', '--attach', `${file};text/plain`],
      env(),
    );
    assert.equal(r.code, 0, r.stderr);
    const sent = JSON.parse(r.stdout) as { messageId: string };
    assert.match(sent.messageId, /^msg_/);
    const w = await run(['wait', to.address, '--subject', 'Report 42', '--timeout', '10'], env());
    assert.equal(w.code, 0, w.stderr);
    const got = JSON.parse(w.stdout) as { attachmentCount: number; from: { address: string } };
    assert.equal(got.attachmentCount, 1);
    assert.equal(got.from.address, from.address);
  });
});

describe('--help', () => {
  test('each command documents every flag, the environment, the exit codes and an example', async () => {
    const flags: Record<string, Record<string, unknown>> = {
      wait: WAIT_FLAGS,
      verify: VERIFY_FLAGS,
      simulate: SIMULATE_FLAGS,
      send: SEND_FLAGS,
    };
    for (const cmd of ['wait', 'verify', 'simulate', 'send']) {
      const r = await run([cmd, '--help']);
      assert.equal(r.code, 0, r.stderr);
      for (const flag of Object.keys(flags[cmd]!)) assert.match(r.stdout, new RegExp(`^  ${flag}( |$)`, 'm'), `${cmd} --help: ${flag}`);
      for (const must of ['--url', '--key', 'INBOXD_URL', 'INBOXD_KEY', 'Exit codes:', '  0  ok', '  1  error', '  2  usage', 'Example']) {
        assert.ok(r.stdout.includes(must), `${cmd} --help mentions ${must}`);
      }
      if (cmd === 'wait' || cmd === 'verify') assert.ok(r.stdout.includes('  3  timeout'), `${cmd} --help: exit 3`);
    }
    const top = await run(['--help']);
    for (const cmd of ['wait', 'verify', 'simulate', 'send']) assert.match(top.stdout, new RegExp(`inboxd ${cmd} `));
  });
});
