// `inboxd sendmail` from the built single executable (dist/inboxd), as PHP mail(), cron and frameworks call
// /usr/sbin/sendmail: the message on stdin, recipients as arguments or from the headers (-t), sysexits exit codes.
// Also through a symlink named `sendmail` (the executable looks at its own name).
//
// Builds with `npm run build` first (a no-op when dist/inboxd is up to date); INBOXD_BINARY=/path/to/inboxd tests a
// binary built elsewhere.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { json } from '../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../helpers/server.ts';

let bin = '';
let link = '';
let s: TestServer;
const children = new Set<ChildProcess>();
const dirs: string[] = [];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `exe args` with `input` on stdin and only the INBOXD_* variables given here. */
function run(exe: string, args: string[], input: string | Buffer, env: Record<string, string> = {}): Promise<Ran> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('INBOXD_') && !k.startsWith('NODE_')) base[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

const smtpEnv = () => ({ INBOXD_SMTP: `127.0.0.1:${s.server.smtpPort}` });

async function createInbox(): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: { label: 'sendmail' } });
  assert.equal(r.status, 201);
  return (await r.json()) as { inboxId: string; address: string };
}

interface Msg {
  messageId: string;
  subject: string;
  from: { address: string; name: string } | null;
  text: string | null;
  headers: Array<{ name: string; value: string }>;
}

async function messages(inboxId: string): Promise<Msg[]> {
  const r = await s.api(`/v1/inboxes/${inboxId}/messages`);
  assert.equal(r.status, 200);
  const list = (await r.json()) as { items: Array<{ messageId: string }> };
  return Promise.all(list.items.map(async (m) => (await (await s.api(`/v1/inboxes/${inboxId}/messages/${m.messageId}`)).json()) as Msg));
}

const header = (m: Msg, name: string) => m.headers.find((h) => h.name.toLowerCase() === name)?.value;

before(async () => {
  bin = process.env.INBOXD_BINARY ?? '';
  if (!bin) {
    const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm run build failed:\n${r.stdout}${r.stderr}`);
    bin = path.join(ROOT, 'dist/inboxd');
  }
  const dir = tempDir('inboxd-sendmail-');
  dirs.push(dir);
  link = path.join(dir, 'sendmail');
  fs.symlinkSync(bin, link);
  s = await startTestServer();
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('inboxd sendmail', () => {
  test("PHP's mail(): sendmail -t -i reads To/Cc/Bcc from the headers, removes Bcc, keeps a lone dot line", async () => {
    const [to, cc, bcc] = [await createInbox(), await createInbox(), await createInbox()];
    // PHP runs sendmail_path ("/usr/sbin/sendmail -t -i") with the message on stdin, LF line ends, no envelope args.
    const mail = [
      `To: Someone <${to.address}>`,
      `Cc: ${cc.address}`,
      `Bcc: ${bcc.address}`,
      'From: Shop <shop@app.test>',
      'Subject: Your order',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=UTF-8',
      '',
      'Thanks for your order.',
      '.',
      'This line comes after a lone dot and must arrive (-i).',
      '',
    ].join('\n');
    const r = await run(bin, ['sendmail', '-t', '-i'], mail, smtpEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    for (const inbox of [to, cc, bcc]) {
      const [m] = await messages(inbox.inboxId);
      assert.ok(m, `a copy for ${inbox.address}`);
      assert.equal(m.subject, 'Your order');
      assert.equal(m.from?.address, 'shop@app.test');
      assert.match(m.text ?? '', /must arrive/);
      assert.equal(header(m, 'bcc'), undefined, 'Bcc is not written into the message');
      assert.ok(header(m, 'date'), 'a Date header is added');
      assert.ok(header(m, 'message-id'), 'a Message-ID header is added');
    }
  });

  test('sendmail -f a@x b@y < mail through a symlink named sendmail, the port from the data dir ports.json', async () => {
    const inbox = await createInbox();
    const other = await createInbox();
    const mail = `Subject: cron job output\n\nbackup finished\n`;
    // No --smtp, no INBOXD_SMTP: the port comes from <data-dir>/ports.json of the running server.
    const r = await run(link, ['-odi', '-oem', '-f', 'cron@host.test', '-F', 'Cron Daemon', inbox.address, other.address], mail, {
      INBOXD_DATA_DIR: s.dataDir,
    });
    assert.equal(r.code, 0, r.stderr);
    for (const i of [inbox, other]) {
      const [m] = await messages(i.inboxId);
      assert.ok(m);
      assert.equal(m.subject, 'cron job output');
      // No From header in the input: one is written from -f and -F.
      assert.deepEqual(m.from, { name: 'Cron Daemon', address: 'cron@host.test' });
      assert.match(m.text ?? '', /backup finished/);
    }
  });

  test("cron's exact invocation: sendmail -FCronDaemon -i -B8BITMIME -oem root (a bare name gets the mail domain)", async () => {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: { localPart: 'root' } }), 201);
    const mail = 'From: root (Cron Daemon)\nTo: root\nSubject: Cron <root@host> /usr/local/bin/backup\n\nbackup ok\n';
    const r = await run(link, ['-FCronDaemon', '-i', '-B8BITMIME', '-oem', 'root'], mail, smtpEnv());
    assert.equal(r.code, 0, r.stderr);
    const [m] = await messages(box.inboxId);
    assert.equal(m?.subject, 'Cron <root@host> /usr/local/bin/backup');
  });

  test('without -i a line with a single dot ends the message; -fADDR attached; -oi is -i', async () => {
    const a = await createInbox();
    const b = await createInbox();
    const mail = 'Subject: dots\n\nbefore\n.\nafter the dot\n';
    const r1 = await run(bin, ['sendmail', `-fbounce@app.test`, a.address], mail, smtpEnv());
    assert.equal(r1.code, 0, r1.stderr);
    const [m1] = await messages(a.inboxId);
    assert.match(m1!.text ?? '', /before/);
    assert.doesNotMatch(m1!.text ?? '', /after the dot/);
    const r2 = await run(bin, ['sendmail', '-oi', b.address], mail, smtpEnv());
    assert.equal(r2.code, 0, r2.stderr);
    const [m2] = await messages(b.inboxId);
    assert.match(m2!.text ?? '', /after the dot/);
  });

  test('-bs speaks SMTP on stdin/stdout', async () => {
    const inbox = await createInbox();
    const dialogue = [
      'EHLO app.test',
      'MAIL FROM:<app@app.test>',
      `RCPT TO:<${inbox.address}>`,
      'DATA',
      'Subject: over -bs',
      '',
      'hello',
      '.',
      'QUIT',
      '',
    ].join('\r\n');
    const r = await run(link, ['-bs'], dialogue, smtpEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^220 /);
    assert.match(r.stdout, /250 .*stored as msg_/);
    assert.match(r.stdout, /221 /);
    const [m] = await messages(inbox.inboxId);
    assert.equal(m?.subject, 'over -bs');
  });

  test('exit codes: 64 usage, 75 inboxd not reachable, 69 refused for good; messages on stderr', async () => {
    const mail = 'Subject: x\n\nx\n';
    const noRcpt = await run(bin, ['sendmail', '-t'], mail, smtpEnv());
    assert.equal(noRcpt.code, 64);
    assert.match(noRcpt.stderr, /no recipient/);
    const badFlag = await run(bin, ['sendmail', '-Q', 'a@b.test'], mail, smtpEnv());
    assert.equal(badFlag.code, 64);
    assert.match(badFlag.stderr, /unknown option '-Q'/);
    const badAddr = await run(bin, ['sendmail', 'a@b@c.test'], mail, smtpEnv());
    assert.equal(badAddr.code, 64);
    // A port nothing listens on: temporary (75), so cron and PHP callers may retry.
    const free = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const down = await run(bin, ['sendmail', 'a@inboxd.test'], mail, { INBOXD_SMTP: `127.0.0.1:${free}` });
    assert.equal(down.code, 75, down.stderr);
    assert.match(down.stderr, /not reachable at 127\.0\.0\.1:\d+ \(from INBOXD_SMTP\)/);
    // A domain this inboxd does not serve: 550 relaying denied → 69.
    const refused = await run(bin, ['sendmail', 'someone@elsewhere.example'], mail, smtpEnv());
    assert.equal(refused.code, 69, refused.stderr);
    assert.match(refused.stderr, /relaying denied/);
    const help = await run(link, ['--help'], '', {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /sendmail_path/);
    // The executable's own --help lists the command and the new serve flags.
    const main = await run(bin, ['--help'], '', {});
    assert.equal(main.code, 0);
    for (const flag of ['sendmail [-t]', '--smtp-tls ', '--smtp-require-tls', '--release-allow', '--max-label-rules'])
      assert.ok(main.stdout.includes(flag), `inboxd --help lists ${flag}`);
  });
});
