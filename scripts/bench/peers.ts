// The SMTP servers inboxd is measured against, each started on a free port on 127.0.0.1 for the run and stopped after:
// Postfix's smtp-sink (the protocol ceiling), MailDev (the usual test mail catcher) and Haraka (a production Node MTA
// that queues each message to disk with fsync before its 250, the promise inboxd makes).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, postfixTool, ROOT, waitForSmtp } from './lib.ts';

export interface Peer {
  name: string;
  port: number;
  pid: number;
  /** Messages it has durably stored so far, for the peers that store (checked against what smtp-source sent). */
  stored?(): Promise<number>;
  /** Drops what it holds in memory between runs (MailDev keeps every message in memory too). */
  reset?(): Promise<void>;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Postfix's smtp-sink: accepts every message and discards it — the protocol ceiling. */
export async function startSink(): Promise<Peer> {
  const tool = postfixTool('smtp-sink');
  const port = await freePort();
  const user = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(tool.cmd, [...user, `127.0.0.1:${port}`, '1024'], { env: tool.env, stdio: 'ignore' });
  await waitForSmtp(port);
  return { name: 'smtp-sink', port, pid: child.pid!, stop: () => stopChild(child) };
}

/** MailDev (npm `maildev`) bound to 127.0.0.1, persisting mail to a temp folder, on the pinned Node. */
export async function startMaildev(): Promise<Peer> {
  const port = await freePort();
  const web = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'maildev-bench-'));
  const main = path.join(ROOT, 'node_modules/maildev/dist/bin/maildev.js');
  const child = spawn(
    process.execPath,
    [main, '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '-s', String(port), '-w', String(web), '--mail-directory', dir, '--silent'],
    { stdio: 'ignore' },
  );
  await waitForSmtp(port);
  return {
    name: 'MailDev',
    port,
    pid: child.pid!,
    async reset() {
      await fetch(`http://127.0.0.1:${web}/email/all`, { method: 'DELETE' }).catch(() => undefined);
    },
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Haraka's exact version and its dependency tree are pinned by scripts/bench/haraka/package-lock.json. */
const HARAKA_SRC = path.join(ROOT, 'scripts/bench/haraka');
const HARAKA_DIR = path.join(ROOT, '.bench/haraka');

/**
 * Installs Haraka into .bench/haraka on first use with `npm ci` from its own lock file, so the product's dependencies
 * do not carry a benchmark-only MTA and its ~50 packages. Throws with npm's own words when that is impossible.
 */
export function harakaInstall(): string {
  const bin = path.join(HARAKA_DIR, 'node_modules/Haraka/bin/haraka');
  const lock = path.join(HARAKA_DIR, 'package-lock.json');
  const want = fs.readFileSync(path.join(HARAKA_SRC, 'package-lock.json'), 'utf8');
  if (fs.existsSync(bin) && fs.existsSync(lock) && fs.readFileSync(lock, 'utf8') === want) return bin;
  fs.mkdirSync(HARAKA_DIR, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(HARAKA_SRC, f), path.join(HARAKA_DIR, f));
  // npm runs on the pinned Node (first on PATH) so engine checks see Node 24; no install scripts are needed.
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync('npm', ['ci', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: HARAKA_DIR,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0 || !fs.existsSync(bin)) {
    const said = `${r.stderr ?? ''}\n${r.stdout ?? ''}`
      .split('\n')
      .filter((l) => /^npm (error|ERR!) (code|errno|network|request|\d{3}|[A-Z])/.test(l))
      .slice(0, 4)
      .join(' / ');
    throw new Error(
      `could not install Haraka 3.3.4 from the npm registry into ${HARAKA_DIR} (npm ci exited ${r.status ?? r.error?.message}): ${said || 'no reason given'}`,
    );
  }
  return bin;
}

/**
 * Haraka in a temp dir: its shipped config, listening on 127.0.0.1 only, accepting mail for inboxd.test
 * (rcpt_to.in_host_list) and queueing each message with scripts/bench/haraka/bench_queue.js, which writes it to its
 * own file and fsyncs before the 250. `nodes` is smtp.ini's process count: `cpus` (one process per core, Haraka's
 * advice for throughput) unless told otherwise.
 */
export async function startHaraka(opts: { nodes?: string } = {}): Promise<Peer> {
  const bin = harakaInstall();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'haraka-bench-'));
  fs.cpSync(path.join(path.dirname(bin), '../config'), path.join(dir, 'config'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'plugins'));
  fs.copyFileSync(path.join(HARAKA_SRC, 'bench_queue.js'), path.join(dir, 'plugins/bench_queue.js'));
  const cfg = (name: string, text: string) => fs.writeFileSync(path.join(dir, 'config', name), text);
  cfg('smtp.ini', `listen=127.0.0.1:${port}\nnodes=${opts.nodes ?? 'cpus'}\n`);
  cfg('plugins', 'rcpt_to.in_host_list\nbench_queue\n');
  cfg('host_list', 'inboxd.test\n');
  cfg('me', 'haraka.bench\n');
  cfg('log.ini', '[main]\nlevel=warn\n');
  const log = fs.openSync(path.join(dir, 'haraka.log'), 'a');
  const child = spawn(process.execPath, [bin, '-c', dir], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  try {
    await waitForSmtp(port, 30_000);
  } catch (e) {
    const tail = fs.readFileSync(path.join(dir, 'haraka.log'), 'utf8').slice(-1500);
    await stopChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`Haraka did not start: ${(e as Error).message}; its log ends:\n${tail}`);
  }
  const queue = path.join(dir, 'queue-bench');
  return {
    name: 'Haraka',
    port,
    pid: child.pid!,
    stored: async () => (fs.existsSync(queue) ? (await fs.promises.readdir(queue)).length : 0),
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
