// Shared pieces of the benchmark scripts: a fresh inboxd on free ports, Postfix's load tools, statistics.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

/** Starts dist/inboxd (or `node src/main.ts` with --source or when there is no binary) in a temp data dir. */
export async function startInboxd(args: string[] = [], opts: { source?: boolean } = {}): Promise<Inboxd> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-bench-'));
  const binary = path.join(ROOT, 'dist/inboxd');
  const useBinary = !opts.source && fs.existsSync(binary);
  const argv = ['serve', '--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...args];
  const child = useBinary
    ? spawn(binary, argv, { env: { ...process.env, INBOXD_ADMIN_KEY: BENCH_KEY }, stdio: ['ignore', 'inherit', 'inherit'] })
    : spawn(process.execPath, [path.join(ROOT, 'src/main.ts'), ...argv], { env: { ...process.env, INBOXD_ADMIN_KEY: BENCH_KEY }, stdio: ['ignore', 'inherit', 'inherit'] });
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
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Postfix's smtp-source / smtp-sink, unpacked from Debian's package into .bench/ (no daemon, no install). */
export function postfixTool(name: 'smtp-source' | 'smtp-sink'): { cmd: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(ROOT, '.bench/postfix');
  const cmd = path.join(dir, 'usr/sbin', name);
  if (!fs.existsSync(cmd)) {
    fs.mkdirSync(dir, { recursive: true });
    const dl = spawnSync('sh', ['-c', 'apt-get download postfix >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get download postfix) && dpkg -x postfix_*.deb . && rm -f postfix_*.deb'], { cwd: dir, stdio: 'inherit' });
    if (dl.status !== 0 || !fs.existsSync(cmd)) throw new Error(`could not unpack Postfix's ${name}: needs Debian's apt-get and dpkg (apt-get download postfix)`);
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

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      this.buf += d.toString('latin1');
      let i;
      while ((i = this.buf.indexOf('\r\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 2);
        if (line[3] === ' ') this.waiters.shift()?.(line);
      }
    });
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
    const p = this.reply();
    this.socket.write(line + '\r\n');
    return p;
  }

  /** Sends one message; resolves with the final reply and the time the end-of-DATA was written. */
  async send(from: string, to: string, body: string): Promise<{ reply: string; endOfData: number }> {
    await this.cmd(`MAIL FROM:<${from}>`);
    await this.cmd(`RCPT TO:<${to}>`);
    await this.cmd('DATA');
    const p = this.reply();
    this.socket.write(body.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..') + '\r\n.\r\n');
    const endOfData = performance.now();
    return { reply: await p, endOfData };
  }

  close(): void {
    this.socket.end('QUIT\r\n');
  }
}

export function report(name: string, figures: Record<string, unknown>, lines: string[]): void {
  for (const l of lines) console.log(l);
  console.log(JSON.stringify({ bench: name, at: new Date().toISOString(), ...figures }));
}
