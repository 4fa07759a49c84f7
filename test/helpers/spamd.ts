// A real SpamAssassin daemon (Debian spamd) on a free loopback port for the spam check tests: a temp site config
// (the distribution's .pre files plus a local.cf that turns off everything needing the network: DNS, block lists,
// Razor/Pyzor, Bayes), a temp home, logs in the dir. It runs in the foreground, so stop() ends it by its own pid
// (its children go with it). As root it drops to nobody (-u), as spamd requires.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/bench/lib.ts';

export const SPAMD = process.env.SPAMD_PATH ?? '/usr/sbin/spamd';

/** Why the spamd tests cannot run here, or null. With CI=true a missing spamd is a failure, not a skip. */
export function spamdMissing(): string | null {
  if (fs.existsSync(SPAMD) && fs.existsSync('/etc/spamassassin/v320.pre')) return null;
  const why = `${SPAMD} not found: apt-get install spamassassin spamc spamd (or set SPAMD_PATH)`;
  if (process.env.CI === 'true') assert.fail(`the spam check tests need spamd: ${why}`);
  return why;
}

export interface Spamd {
  host: string;
  port: number;
  /** `127.0.0.1:<port>` for --spamd. */
  address: string;
  stop(): Promise<void>;
}

export async function startSpamd(): Promise<Spamd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-spamd-'));
  fs.chmodSync(dir, 0o755);
  const site = path.join(dir, 'site');
  const home = path.join(dir, 'home');
  fs.mkdirSync(site);
  fs.mkdirSync(home, { mode: 0o777 });
  fs.chmodSync(home, 0o777);
  for (const f of fs.readdirSync('/etc/spamassassin'))
    if (f.endsWith('.pre')) fs.copyFileSync(path.join('/etc/spamassassin', f), path.join(site, f));
  fs.writeFileSync(
    path.join(site, 'local.cf'),
    'dns_available no\nskip_rbl_checks 1\nuse_bayes 0\nuse_razor2 0\nuse_pyzor 0\nuse_auto_whitelist 0\n',
  );
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const args = [
    '--listen',
    `127.0.0.1:${port}`,
    '-L',
    '-x',
    '-m',
    '2',
    '--siteconfigpath',
    site,
    '-H',
    home,
    '-s',
    path.join(dir, 'spamd.log'),
  ];
  if (root) args.push('-u', 'nobody');
  const child: ChildProcess = spawn(SPAMD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      const log = fs.existsSync(path.join(dir, 'spamd.log')) ? fs.readFileSync(path.join(dir, 'spamd.log'), 'utf8') : '';
      await stop();
      throw new Error(`spamd exited at start (${child.exitCode}): ${out}${log.slice(-2000)}`);
    }
    if (await pongs(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`spamd did not answer PING on 127.0.0.1:${port} within 60 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { host: '127.0.0.1', port, address: `127.0.0.1:${port}`, stop };
}

function pongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(2000, () => done(false));
    s.on('connect', () => s.end('PING SPAMC/1.5\r\n\r\n'));
    s.on('data', (d) => (got += d.toString()));
    s.once('end', () => done(got.includes('PONG')));
    s.once('error', () => done(false));
  });
}
