// `--print otp|link|action|…` of the client commands (one bare value; exit 4 when the answer has none) and what a
// second `inboxd verify` says when the code was already handed out (issue 27): at once on stderr, and in its timeout,
// with the --since that gets it again. Runs the CLI from source against a real server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { MAIN, runCli } from '../helpers/cli.ts';
import { json } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const env = () => ({ INBOXD_URL: s.url, INBOXD_KEY: s.key });
const inbox = async () => json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);

test('--print: the bare value, exit 4 without one, a usage error for an unknown name', async () => {
  const box = await inbox();
  const sim = await runCli(['simulate', box.inboxId, '--scenario', 'magic_link', '--print', 'link'], { env: env() });
  assert.equal(sim.code, 0, sim.stderr);
  const link = sim.stdout.trim();
  assert.match(link, /^https?:\/\/\S+$/);
  const w = await runCli(['wait', box.address, '--timeout', '5', '--print', 'link'], { env: env() });
  assert.equal(w.stdout, `${link}\n`);
  assert.equal((await runCli(['wait', box.inboxId, '--timeout', '5', '--print', 'action'], { env: env() })).stdout, `${link}\n`);
  const id = await runCli(['wait', box.inboxId, '--timeout', '5', '--print', 'id'], { env: env() });
  assert.match(id.stdout, /^msg_\w+\n$/);
  const none = await runCli(['wait', box.inboxId, '--timeout', '5', '--print', 'otp'], { env: env() });
  assert.equal(none.code, 4, none.stderr);
  assert.equal(none.stdout, '');
  assert.match(none.stderr, /^inboxd wait: no value: the message msg_\w+ \(".*"\) has no code \(--print otp\)/);
  const bad = await runCli(['wait', box.inboxId, '--print', 'code'], { env: env() });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--print must be one of otp, link, action, id \(got 'code'\)/);
  const addr = await runCli(['verify', '--service', 'github', '--print', 'address'], { env: env() });
  assert.equal(addr.code, 0, addr.stderr);
  assert.match(addr.stdout, /^[a-z0-9]+@inboxd\.test\n$/);
  const timeout = await runCli(['verify', '--inbox', addr.stdout.trim(), '--timeout', '1', '--print', 'otp'], { env: env() });
  assert.equal(timeout.code, 3);
  assert.equal(timeout.stdout, '', 'no JSON with --print on a timeout');
});

test('a second verify says at once that the code was handed out, and --since gets it again', async () => {
  const box = await inbox();
  await sendMail(s.server.smtpPort, { to: box.address, subject: 'Your code', text: 'Your verification code is 558822.' });
  const first = await runCli(['verify', '--inbox', box.address, '--timeout', '10', '--print', 'otp'], { env: env() });
  assert.equal(first.stdout, '558822\n', first.stderr);
  // The second one: the note comes on stderr long before its 4 s are up.
  const t0 = Date.now();
  const child = spawn(process.execPath, [MAIN, 'verify', '--inbox', box.address, '--timeout', '4', '--print', 'otp'], {
    env: { ...process.env, ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let noteAfter = -1;
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (noteAfter < 0 && stderr.includes('note:')) noteAfter = Date.now() - t0;
  });
  const code = await new Promise<number | null>((r) => child.once('close', r));
  assert.equal(code, 3, stderr);
  assert.ok(noteAfter >= 0 && noteAfter < 3000, `the note came after ${noteAfter} ms:\n${stderr}`);
  assert.match(stderr, /note: the mail that arrived \(msg_\w+, "Your code", received [^)]+\) was already handed out by an earlier verify/);
  const since = /--since (\S+)\n$/.exec(stderr)?.[1];
  assert.ok(since, stderr);
  assert.match(stderr, /timeout: no new verification mail arrived within 4 s; the mail that did arrive .* was already handed out/);
  assert.doesNotMatch(stderr, /no verification mail arrived/);
  const again = await runCli(['verify', '--inbox', box.address, '--timeout', '10', '--since', since, '--print', 'otp'], { env: env() });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, '558822\n');
});
