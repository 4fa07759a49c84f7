// Raw connections from loopback source addresses (127.0.0.x as distinct clients), PROXY v2 headers, an SMTP delivery
// over such a connection, and the listeners' PROXY refusal log lines: for the PROXY protocol tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A v2 PROXY header for a TCP over IPv4 connection from `client`. */
export function v2Header(client: string, port = 40000): Buffer {
  const b = Buffer.alloc(28);
  Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, 12]).copy(b);
  Buffer.from(client.split('.').map(Number)).copy(b, 16);
  Buffer.from([127, 0, 0, 1]).copy(b, 20);
  b.writeUInt16BE(port, 24);
  b.writeUInt16BE(25, 26);
  return b;
}

export interface Conn {
  socket: net.Socket;
  text(): string;
  /** Resolves once the received text matches `re` (rejects after 5 s with what came). */
  until(re: RegExp): Promise<string>;
  closed: Promise<void>;
  write(s: string | Buffer): void;
}

/** A raw connection from `from` to `port`, `first` written at once. */
export function connect(port: number, from: string, first?: Buffer | string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: from }, () => {
      if (first) socket.write(first);
      resolve(conn);
    });
    let got = '';
    const waiters: Array<() => void> = [];
    socket.on('data', (d) => {
      got += d.toString('latin1');
      for (const w of waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const conn: Conn = {
      socket,
      text: () => got,
      closed,
      write: (s) => socket.write(s),
      until(re) {
        return new Promise((res, rej) => {
          const timer = setTimeout(() => rej(new Error(`no ${re} within 5 s; got ${JSON.stringify(got)}`)), 5000);
          const check = () => {
            if (re.test(got)) {
              clearTimeout(timer);
              return res(got);
            }
            if (socket.destroyed) {
              clearTimeout(timer);
              return rej(new Error(`closed before ${re}; got ${JSON.stringify(got)}`));
            }
            waiters.push(check);
          };
          socket.once('close', () => {
            for (const w of waiters.splice(0)) w();
          });
          check();
        });
      },
    };
  });
}

/** One SMTP message over a connection already past its banner; returns the stored message id. */
export async function deliver(c: Conn, to: string): Promise<string> {
  c.write('EHLO client.test\r\n');
  await c.until(/250 [^\r\n]*\r\n(?![\s\S]*250-)/);
  c.write(`MAIL FROM:<a@client.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
  await c.until(/354/);
  c.write('Subject: via proxy\r\n\r\nhello\r\n.\r\n');
  const text = await c.until(/stored as (msg_\w+)/);
  c.write('QUIT\r\n');
  return /stored as (msg_\w+)/.exec(text)![1]!;
}

export function proxyRefusals(s: { logs: string[] }): Array<Record<string, unknown>> {
  return s.logs
    .filter((l) => l.includes('PROXY protocol'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'connection refused: PROXY protocol');
}

export async function waitFor<T>(what: string, fn: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never saw ${what}`);
}

/** Why HAProxy cannot run here, or null. With CI=true a test must fail on this, not skip. */
export function haproxyMissing(): string | null {
  return fs.existsSync('/usr/sbin/haproxy') ? null : 'HAProxy not found (/usr/sbin/haproxy): apt-get install haproxy';
}

export interface HaProxy {
  stop(): Promise<void>;
}

/** Debian's HAProxy in the foreground on `config` (a haproxy.cfg text); resolves once every `ports` accepts. */
export async function startHaproxy(config: string, ports: number[]): Promise<HaProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const child = spawn('/usr/sbin/haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (const port of ports) {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${stderr}`);
      const ok = await new Promise<boolean>((r) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), r(true)));
        s.on('error', () => r(false));
      });
      if (ok) break;
      if (i > 100) {
        await stop();
        throw new Error(`haproxy did not listen on ${port}: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { stop };
}
