// Shared pieces of the benchmark scripts: a fresh inboxd on free ports, Postfix's load tools, statistics.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BENCH_KEY = 'ibx_BenchmarkKey0000000000000000000';

export interface Inboxd {
  http: number;
  smtp: number;
  dataDir: string;
  child: ChildProcess;
  kind: 'binary' | 'source';
  api(p: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Starts dist/inboxd (or `node src/main.ts` with --source or when there is no binary) in a temp data dir; `binary`
 * runs another build's executable instead (the baseline of a side-by-side run, see `buildBinary`).
 */
export async function startInboxd(
  args: string[] = [],
  opts: {
    source?: boolean;
    env?: NodeJS.ProcessEnv;
    dataDir?: string;
    binary?: string;
    /** V8/Node flags for the server (`inboxd --node-options=…`), e.g. --trace-gc */
    nodeFlags?: string[];
    /** receives the server's stdout instead of this process's stdout */
    onStdout?: (chunk: Buffer) => void;
  } = {},
): Promise<Inboxd> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-bench-'));
  fs.rmSync(path.join(dataDir, 'ports.json'), { force: true });
  const env = { ...process.env, INBOXD_ADMIN_KEY: BENCH_KEY, ...opts.env };
  const binary = opts.binary ?? path.join(ROOT, 'dist/inboxd');
  const useBinary = opts.binary !== undefined || (!opts.source && fs.existsSync(binary));
  const argv = [
    'serve',
    '--host',
    '127.0.0.1',
    '--http-port',
    '0',
    '--smtp-port',
    '0',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    ...args,
  ];
  const flags = opts.nodeFlags ?? [];
  const stdio: Array<'ignore' | 'inherit' | 'pipe'> = ['ignore', opts.onStdout ? 'pipe' : 'inherit', 'inherit'];
  const child = useBinary
    ? spawn(binary, [...(flags.length ? [`--node-options=${flags.join(' ')}`] : []), ...argv], { env, stdio })
    : spawn(process.execPath, [...flags, path.join(ROOT, 'src/main.ts'), ...argv], { env, stdio });
  if (opts.onStdout) child.stdout!.on('data', opts.onStdout);
  const portsFile = path.join(dataDir, 'ports.json');
  for (let i = 0; i < 1000 && !fs.existsSync(portsFile); i++) {
    if (child.exitCode !== null) throw new Error(`inboxd exited with ${child.exitCode} during start`);
    await sleep(10);
  }
  const ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http: number; smtp: number };
  const base = `http://127.0.0.1:${ports.http}`;
  return {
    ...ports,
    dataDir,
    child,
    kind: useBinary ? 'binary' : 'source',
    api(p, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${BENCH_KEY}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(base + p, { ...init, headers, body: body ?? null });
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The executable of an earlier build for `--baseline DIR`: DIR itself when it is a file, else DIR/dist/inboxd (a
 * checkout of that commit after `npm run build`).
 */
export function buildBinary(dir: string): string {
  const p = path.resolve(dir);
  const bin = fs.existsSync(p) && fs.statSync(p).isFile() ? p : path.join(p, 'dist/inboxd');
  if (!fs.existsSync(bin))
    throw new Error(
      `--baseline ${dir}: no ${bin}. Make one with: git worktree add /tmp/base <commit> && cd /tmp/base && ln -s ${path.join(ROOT, 'node_modules')} node_modules && npm run build`,
    );
  return bin;
}

/**
 * Builds an earlier commit of this repository for a side-by-side run: `git archive` of it into
 * .bench/baseline-<commit>, this checkout's node_modules linked in, `npm run build`. Reused when already built.
 */
export function baselineFromCommit(commit: string): string {
  const sha = spawnSync('git', ['rev-parse', '--short', `${commit}^{commit}`], { cwd: ROOT, encoding: 'utf8' });
  if (sha.status !== 0) throw new Error(`--baseline-commit ${commit}: not a commit of this repository (${sha.stderr.trim()})`);
  const dir = path.join(ROOT, '.bench', `baseline-${sha.stdout.trim()}`);
  if (fs.existsSync(path.join(dir, 'dist/inboxd'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
  const steps = [
    `git -C '${ROOT}' archive ${sha.stdout.trim()} | tar -x -C '${dir}'`,
    `ln -s '${path.join(ROOT, 'node_modules')}' '${path.join(dir, 'node_modules')}'`,
    `cd '${dir}' && npm run build`,
  ];
  for (const step of steps) {
    console.log(`baseline: ${step}`);
    const r = spawnSync('sh', ['-c', step], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`--baseline-commit ${commit}: "${step}" failed (exit ${r.status})`);
  }
  return dir;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Postfix's smtp-source / smtp-sink, unpacked from Debian's package into .bench/ (no daemon, no install). */
export function postfixTool(name: 'smtp-source' | 'smtp-sink'): { cmd: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(ROOT, '.bench/postfix');
  const cmd = path.join(dir, 'usr/sbin', name);
  if (!fs.existsSync(cmd)) {
    fs.mkdirSync(dir, { recursive: true });
    const dl = spawnSync(
      'sh',
      [
        '-c',
        'apt-get download postfix >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get download postfix) && dpkg -x postfix_*.deb . && rm -f postfix_*.deb',
      ],
      { cwd: dir, stdio: 'inherit' },
    );
    if (dl.status !== 0 || !fs.existsSync(cmd))
      throw new Error(`could not unpack Postfix's ${name}: needs Debian's apt-get and dpkg (apt-get download postfix)`);
  }
  return { cmd, env: { ...process.env, LD_LIBRARY_PATH: path.join(dir, 'usr/lib/postfix') } };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

/** A raw SMTP session that can send messages one after another and report the moment each DATA ended. */
export class SmtpSession {
  private socket: net.Socket;
  private buf = '';
  private waiters: Array<(line: string) => void> = [];

  /** Set once the server closed the connection (e.g. at its session lifetime): every command then answers 421. */
  closed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      this.buf += d.toString('latin1');
      let i: number;
      while ((i = this.buf.indexOf('\r\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 2);
        if (line[3] === ' ') this.waiters.shift()?.(line);
      }
    });
    const gone = () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w('421 connection closed');
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  static async open(port: number): Promise<SmtpSession> {
    const s = new SmtpSession(net.connect(port, '127.0.0.1'));
    await s.reply();
    await s.cmd('EHLO bench');
    return s;
  }

  private reply(): Promise<string> {
    return new Promise((r) => this.waiters.push(r));
  }

  async cmd(line: string): Promise<string> {
    if (this.closed) return '421 connection closed';
    const p = this.reply();
    this.socket.write(line + '\r\n');
    return p;
  }

  /** Sends one message; resolves with the final reply, the time the end-of-DATA was written and the reply's time. */
  async send(from: string, to: string, body: string): Promise<{ reply: string; endOfData: number; replyAt: number }> {
    await this.cmd(`MAIL FROM:<${from}>`);
    await this.cmd(`RCPT TO:<${to}>`);
    const data = await this.cmd('DATA');
    if (!data.startsWith('354')) return { reply: data, endOfData: performance.now(), replyAt: performance.now() };
    const p = this.reply();
    this.socket.write(body.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..') + '\r\n.\r\n');
    const endOfData = performance.now();
    const reply = await p;
    return { reply, endOfData, replyAt: performance.now() };
  }

  close(): void {
    this.socket.end('QUIT\r\n');
  }
}

export function report(name: string, figures: Record<string, unknown>, lines: string[]): void {
  for (const l of lines) console.log(l);
  console.log(JSON.stringify({ bench: name, at: new Date().toISOString(), ...figures }));
}

/** Facts about the machine for the report. */
export function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    nproc: os.availableParallelism(),
    cpu: cpus[0]?.model ?? 'unknown',
    memGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: os.release(),
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    load1: Math.round(os.loadavg()[0]! * 100) / 100,
    tmpFs: tmpFilesystem(),
  };
}

/** The file system of the temp dir, where every data dir and peer queue of the benchmarks lives (fsync costs differ). */
function tmpFilesystem(): string {
  const r = spawnSync('df', ['--output=fstype', os.tmpdir()], { encoding: 'utf8' });
  return r.status === 0 ? `${r.stdout.trim().split('\n').at(-1)} (${os.tmpdir()})` : 'unknown';
}

/** The kernel's ephemeral range (where `listen(0)` and every outgoing connection take their ports), Linux only. */
function ephemeralRange(): [number, number] | null {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return lo && hi ? [lo, hi] : null;
  } catch {
    return null;
  }
}

const handedOut = new Set<number>();
/** Ports handed out lately by any process on this machine (a file per port; older than a minute: free again). */
export const RESERVED_DIR = path.join(os.tmpdir(), 'inboxd-ports');
const RESERVATION_MS = 60_000;

/** Claims `port` for this process unless another one claimed it within the last minute. */
export function reservePort(port: number): boolean {
  const file = path.join(RESERVED_DIR, String(port));
  try {
    fs.mkdirSync(RESERVED_DIR, { recursive: true });
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no shared temp dir: the bind check alone
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs < RESERVATION_MS) return false;
    fs.writeFileSync(file, String(process.pid));
  }
  if (handedOut.size === 0)
    process.once('exit', () => {
      for (const p of handedOut) fs.rmSync(path.join(RESERVED_DIR, String(p)), { force: true });
    });
  return true;
}

/**
 * A port free now, for a program started next that cannot listen on port 0 and report (PostgreSQL, Swift, Dovecot…).
 * It is picked at random below the kernel's ephemeral range: a port from `listen(0)` is in that range, so between
 * closing it here and the program binding it (a second or more for a Python server), any `listen(0)` or outgoing
 * connection of a concurrent test could take it — a Swift backend whose port an inboxd test server took answered
 * that server's 400s to the proxy (a CI run's cluster tests). Two test processes picking at the same moment are kept
 * apart by a reservation file per port (`$TMPDIR/inboxd-ports/`, a minute). Falls back to `listen(0)` where the
 * range is unknown.
 */
export async function freePort(): Promise<number> {
  const range = ephemeralRange();
  const [lo, hi] = range && range[0] > 12_000 ? [10_000, range[0]] : [0, 0];
  for (let tries = 0; hi > lo && tries < 50; tries++) {
    const port = lo + Math.floor(Math.random() * (hi - lo));
    if (handedOut.has(port)) continue;
    if ((await canListen(port)) && reservePort(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Resolves once something on the port greets with an SMTP 220. */
export async function waitForSmtp(port: number, timeoutMs = 20_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('data', (d) => {
        s.end('QUIT\r\n');
        s.destroy();
        resolve(d.toString().startsWith('220'));
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`nothing answers SMTP on port ${port}`);
    await sleep(50);
  }
}

/**
 * Runs Postfix's smtp-source against a port; resolves with the wall time in seconds. By default smtp-source opens a
 * new connection for every message; `keep` (`-d`) sends each session's messages over one kept connection, the way an
 * MTA delivers a batch.
 */
export function smtpSource(opts: {
  port: number;
  sessions: number;
  size: number;
  messages: number;
  to: string;
  keep?: boolean;
}): Promise<{ seconds: number; ok: boolean; stderr: string }> {
  const tool = postfixTool('smtp-source');
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      tool.cmd,
      [
        ...(opts.keep ? ['-d'] : []),
        '-s',
        String(opts.sessions),
        '-m',
        String(opts.messages),
        '-l',
        String(opts.size),
        '-f',
        'load@example.com',
        '-t',
        opts.to,
        `127.0.0.1:${opts.port}`,
      ],
      { env: tool.env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ seconds: (performance.now() - t0) / 1000, ok: code === 0, stderr }));
  });
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Least-squares slope of y over x. */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}
