// A real rspamd (Debian rspamd) on a free loopback port for the spam check tests. The distribution's config is used
// with our own LOCAL_CONFDIR/DBDIR/RUNDIR/LOGDIR (--var): only the controller worker runs (it serves /checkv2 and
// /actions), no normal/proxy/fuzzy worker; DNS points at a closed loopback port (air-gapped: no DNS lists), and a
// tiny public-suffix list replaces the 9,600-entry one whose compilation takes ~25 s. Starts in about a second;
// runs in the foreground, so stop() ends it by its own pid. As root it drops to nobody (-u/-g).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/bench/lib.ts';

export const RSPAMD = process.env.RSPAMD_PATH ?? '/usr/bin/rspamd';

/** Why the rspamd tests cannot run here, or null. With CI=true a missing rspamd is a failure, not a skip. */
export function rspamdMissing(): string | null {
  if (fs.existsSync(RSPAMD) && fs.existsSync('/etc/rspamd/rspamd.conf')) return null;
  const why = `${RSPAMD} not found: apt-get install rspamd (or set RSPAMD_PATH)`;
  if (process.env.CI === 'true') assert.fail(`the spam check tests need rspamd: ${why}`);
  return why;
}

export interface Rspamd {
  /** `http://127.0.0.1:<port>` for --rspamd. */
  url: string;
  stop(): Promise<void>;
}

export async function startRspamd(): Promise<Rspamd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-rspamd-'));
  fs.chmodSync(dir, 0o755);
  const root = process.getuid?.() === 0;
  const local = path.join(dir, 'local');
  for (const d of ['local/override.d', 'local/local.d', 'db', 'run', 'log']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const d of ['db', 'run', 'log']) {
    fs.chmodSync(path.join(dir, d), 0o777);
  }
  const port = await freePort();
  const write = (rel: string, text: string) => fs.writeFileSync(path.join(local, rel), text, { mode: 0o644 });
  write('override.d/worker-controller.inc', `bind_socket = "127.0.0.1:${port}";\ncount = 1;\nsecure_ip = "127.0.0.1";\n`);
  write('override.d/worker-normal.inc', 'enabled = false;\n');
  write('override.d/worker-proxy.inc', 'enabled = false;\n');
  write('override.d/worker-fuzzy.inc', 'enabled = false;\n');
  write('override.d/logging.inc', `type = "file";\nfilename = "${path.join(dir, 'log', 'rspamd.log')}";\nlevel = "error";\n`);
  fs.writeFileSync(
    path.join(dir, 'tld.dat'),
    ['com', 'org', 'net', 'io', 'test', 'example', 'invalid', 'localhost', 'uk', 'co.uk', 'de', 'ly'].join('\n'),
    {
      mode: 0o644,
    },
  );
  write(
    'local.d/options.inc',
    `dns { nameserver = ["127.0.0.1:9"]; timeout = 0.2s; retransmits = 1; }\ndisable_hyperscan = true;\nurl_tld = "${path.join(dir, 'tld.dat')}";\n`,
  );
  const args = [
    '-f',
    '-c',
    '/etc/rspamd/rspamd.conf',
    `--var=LOCAL_CONFDIR=${local}`,
    `--var=DBDIR=${path.join(dir, 'db')}`,
    `--var=RUNDIR=${path.join(dir, 'run')}`,
    `--var=LOGDIR=${path.join(dir, 'log')}`,
    ...(root ? ['-u', 'nobody', '-g', 'nogroup'] : []),
  ];
  const child: ChildProcess = spawn(RSPAMD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`rspamd exited at start (${child.exitCode}): ${out.slice(-2000)}`);
    }
    const ok = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`rspamd did not answer /ping on ${url} within 60 s: ${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, stop };
}
