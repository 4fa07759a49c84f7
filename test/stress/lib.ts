// Shared pieces of the reliability tests (quick ones under test/e2e and test/api, long ones here): a real inboxd in a
// child process on free ports, a raw SMTP client that reports every reply, a well-behaved probe that measures how
// long a normal delivery takes while an attack runs, the server's RSS, and the store checks after a crash.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const KEY = 'ibx_ReliabilityKey0000000000000000';

export interface Child {
  child: ChildProcess;
  http: number;
  smtp: number;
  dir: string;
  logs: string[];
  api(p: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  rssMb(): number;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

const children = new Set<ChildProcess>();
/** Kills every server a test started and left running (call from an `after` hook). */
export function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
}

/** Starts `node src/main.ts serve` on the data dir (created if missing), waits for ports.json. */
export async function startChild(dir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  fs.mkdirSync(dir, { recursive: true });
  const portsFile = path.join(dir, 'ports.json');
  fs.rmSync(portsFile, { force: true });
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'src/main.ts'),
      'serve',
      '--host',
      '127.0.0.1',
      '--http-port',
      '0',
      '--smtp-port',
      '0',
      '--data-dir',
      dir,
      '--log-level',
      'warn',
      ...args,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, INBOXD_ADMIN_KEY: KEY, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  const logs: string[] = [];
  const keep = (d: Buffer) => {
    logs.push(d.toString());
    if (logs.length > 2000) logs.splice(0, 1000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  for (let i = 0; i < 800 && !fs.existsSync(portsFile); i++) {
    if (child.exitCode !== null) throw new Error(`inboxd exited with ${child.exitCode} during start:\n${logs.join('')}`);
    await sleep(25);
  }
  const ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http: number; smtp: number };
  const base = `http://127.0.0.1:${ports.http}`;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    ...ports,
    dir,
    logs,
    api(p, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${KEY}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(base + p, { ...init, headers, body: body ?? null });
    },
    rssMb: () => rssMb(child.pid!),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      children.delete(child);
      return code;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      children.delete(child);
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function rssMb(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return Math.round(kb / 102.4) / 10;
  } catch {
    return NaN;
  }
}

export async function createInbox(
  srv: Pick<Child, 'api'>,
  body: Record<string, unknown> = {},
): Promise<{ inboxId: string; address: string }> {
  const res = await srv.api('/v1/inboxes', { method: 'POST', json: body });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { inboxId: string; address: string };
}

/** Every message of an inbox (all pages). */
export async function listAll(
  srv: Pick<Child, 'api'>,
  inboxId: string,
): Promise<Array<{ messageId: string; subject: string; size: number }>> {
  const out: Array<{ messageId: string; subject: string; size: number }> = [];
  let cursor: string | null = null;
  do {
    const res = await srv.api(`/v1/inboxes/${inboxId}/messages?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200);
    const page = (await res.json()) as { items: Array<{ messageId: string; subject: string; size: number }>; nextCursor: string | null };
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/**
 * A raw SMTP connection (optionally from a chosen loopback source address) that collects every reply line.
 * `reply()` resolves with the next complete reply (its last line).
 */
export class RawSmtp {
  readonly socket: net.Socket;
  readonly lines: string[] = [];
  private buf = '';
  private waiters: Array<(line: string) => void> = [];
  closed = false;

  constructor(port: number, opts: { localAddress?: string } = {}) {
    this.socket = net.connect({ port, host: '127.0.0.1', ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    this.socket.setNoDelay(true);
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w('(closed)');
    });
    this.socket.on('data', (d) => {
      this.buf += d.toString('latin1');
      if (this.buf.length > 1 << 20) this.buf = this.buf.slice(-4096);
      let i: number;
      while ((i = this.buf.indexOf('\r\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 2);
        if (this.lines.length < 20_000) this.lines.push(line);
        if (line[3] !== '-') this.waiters.shift()?.(line);
      }
    });
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState === 'open') return resolve();
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
  }

  reply(timeoutMs = 10_000): Promise<string> {
    if (this.closed) return Promise.resolve('(closed)');
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve('(timeout)'), timeoutMs);
      this.waiters.push((l) => {
        clearTimeout(t);
        resolve(l);
      });
    });
  }

  write(data: string | Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    return this.socket.write(data);
  }

  async cmd(line: string, timeoutMs?: number): Promise<string> {
    const p = this.reply(timeoutMs);
    this.write(line + '\r\n');
    return p;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** One complete, well-behaved delivery (new connection, EHLO … QUIT); resolves with its final reply and duration. */
export async function deliver(
  port: number,
  to: string,
  body: string,
  opts: { timeoutMs?: number; localAddress?: string } = {},
): Promise<{ reply: string; ms: number }> {
  const t0 = performance.now();
  const s = new RawSmtp(port, opts);
  try {
    const greeting = await s.reply(opts.timeoutMs);
    if (!greeting.startsWith('220')) return { reply: greeting, ms: performance.now() - t0 };
    for (const c of ['EHLO probe.example', 'MAIL FROM:<probe@example.com>', `RCPT TO:<${to}>`, 'DATA']) {
      const r = await s.cmd(c, opts.timeoutMs);
      if (!/^(250|354)/.test(r)) return { reply: r, ms: performance.now() - t0 };
    }
    const r = await s.cmd(body.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..') + '\r\n.', opts.timeoutMs);
    s.write('QUIT\r\n');
    return { reply: r, ms: performance.now() - t0 };
  } finally {
    s.socket.end();
    setTimeout(() => s.destroy(), 500).unref();
  }
}

/**
 * Delivers a probe message every `everyMs` until stopped; every reply and latency is kept. Used to show the server
 * stays responsive to a normal client while it is under attack.
 */
export function probe(port: number, to: string, everyMs = 200): { stop(): Promise<{ replies: string[]; ms: number[] }> } {
  const replies: string[] = [];
  const ms: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const r = await deliver(port, to, `Subject: probe ${n}\nFrom: probe@example.com\n\nprobe ${n}\n`, { timeoutMs: 20_000 });
      replies.push(r.reply);
      ms.push(r.ms);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { replies, ms };
    },
  };
}

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! * 10) / 10;
}

/**
 * The store after a crash or a full disk: SQLite's integrity check passes, every message row has its raw blob with
 * the stored size, every attachment row has its message and its blob, and no temp file is older than the restart.
 */
export function checkStore(dir: string): { messages: number } {
  const db = new BetterSqlite3(path.join(dir, 'inboxd.db'), { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(db.pragma('foreign_key_check'), []);
    // A blob is in a segment (sha256 → segment, offset, length; its bytes hash to its name) or, from before
    // migration 010, a file of its own.
    const locate = db.prepare('select segment, offset, length from segment_blobs where sha256 = ?');
    const blobSize = (sha: string): number | undefined => {
      const p = locate.get(sha) as { segment: number; offset: number; length: number } | undefined;
      if (!p) return fs.statSync(path.join(dir, 'blobs', sha.slice(0, 2), sha.slice(2)), { throwIfNoEntry: false })?.size;
      const file = path.join(dir, 'blobs', 'segments', `${String(p.segment).padStart(8, '0')}.seg`);
      const fd = fs.openSync(file, 'r');
      try {
        const buf = Buffer.alloc(p.length);
        fs.readSync(fd, buf, 0, p.length, p.offset);
        assert.equal(crypto.createHash('sha256').update(buf).digest('hex'), sha, `blob ${sha} in segment ${p.segment} is corrupt`);
      } finally {
        fs.closeSync(fd);
      }
      return p.length;
    };
    const rows = db.prepare('select id, raw_sha256, size from messages').all() as Array<{ id: string; raw_sha256: string; size: number }>;
    for (const r of rows) {
      const size = blobSize(r.raw_sha256);
      assert.ok(size !== undefined, `message ${r.id}: raw blob ${r.raw_sha256} is missing`);
      assert.equal(size, r.size, `message ${r.id}: raw blob has ${size} bytes, the row says ${r.size}`);
    }
    const atts = db
      .prepare('select a.id, a.sha256, a.size, m.id as mid from attachments a left join messages m on m.id = a.message_id')
      .all() as Array<{ id: string; sha256: string; size: number; mid: string | null }>;
    for (const a of atts) {
      assert.ok(a.mid, `attachment ${a.id} has no message`);
      const size = blobSize(a.sha256);
      assert.ok(size !== undefined, `attachment ${a.id}: blob missing`);
      assert.equal(size, a.size);
    }
    return { messages: rows.length };
  } finally {
    db.close();
  }
}
