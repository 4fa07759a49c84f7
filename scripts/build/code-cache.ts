// Step 4 of scripts/build.ts: make the executable's V8 code caches by running it once. The executable built without
// them starts `serve` in a temporary data dir with INBOXD_BUILD_CODE_CACHE=<dir> (scripts/build/sea-main.cjs writes
// the main bundle's cache there when the process exits, a worker started from a SEA asset its own every 250 ms:
// src/lib/worker-source.ts), answers /health, creates an inbox, takes one message over SMTP (parsed and extracted by
// the ingest worker) and hands it to a waiting client — the paths every CI run takes first — and stops on SIGTERM.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';

/** An unref'd wait: a pending one never holds the build open. */
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * Runs `exe` once; returns the size of each of the `expected` files it wrote into `dir` (the first the main bundle's,
 * written at exit; the others workers'). Throws with what went wrong and the server's output.
 */
export async function makeCodeCache(exe: string, dir: string, expected: string[], timeoutMs = 60_000): Promise<Record<string, number>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-code-cache-'));
  const key = `ibx_build_${randomBytes(18).toString('hex')}`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let output = '';
  const child = spawn(exe, ['serve', '--data-dir', dataDir, '--http-port', '0', '--smtp-port', '0', '--host', '127.0.0.1'], {
    // Nothing of the builder's own inboxd settings (INBOXD_DATABASE, INBOXD_DOMAINS, …) reaches this run.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INBOXD_'))),
      INBOXD_BUILD_CODE_CACHE: dir,
      INBOXD_ADMIN_KEY: key,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const deadline = Date.now() + timeoutMs;
  const failWith = (what: string): never => {
    throw new Error(`${what}; the server said:\n${output.trim().split('\n').slice(-20).join('\n') || '(nothing)'}`);
  };
  try {
    let ports: { http: number; smtp: number } | undefined;
    while (!ports) {
      if (child.exitCode !== null) failWith(`the server exited (${child.exitCode}) before it listened`);
      if (Date.now() > deadline) failWith('the server did not write ports.json in time');
      try {
        ports = JSON.parse(fs.readFileSync(path.join(dataDir, 'ports.json'), 'utf8'));
      } catch {
        await sleep(20);
      }
    }
    const api = async (p: string, init: RequestInit = {}): Promise<Response> => {
      const res = await fetch(`http://127.0.0.1:${ports.http}${p}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
        signal: AbortSignal.timeout(Math.max(1000, deadline - Date.now())),
      });
      if (!res.ok) failWith(`${init.method ?? 'GET'} ${p} answered ${res.status}: ${await res.text()}`);
      return res;
    };
    await (await api('/health')).arrayBuffer();
    const inbox = (await (await api('/v1/inboxes', { method: 'POST', body: JSON.stringify({ localPart: 'build' }) })).json()) as {
      inboxId: string;
      address: string;
    };
    const waiting = api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=30`).then((r) => r.json());
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtp, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'Build <build@example.com>',
      to: inbox.address,
      subject: 'Your verification code',
      text: 'Your code is 482913. It expires in 10 minutes.\n\nOr open https://example.com/verify?token=abc123\n',
      html: '<p>Your code is <b>482913</b>.</p><p><a href="https://example.com/verify?token=abc123">Verify</a></p>',
    });
    transport.close();
    const got = (await waiting) as { verification?: { otp?: string } };
    if (got.verification?.otp !== '482913') failWith(`the message came back without its code: ${JSON.stringify(got).slice(0, 300)}`);
    // A worker writes its cache every 250 ms: wait for one written after the message was handled.
    const workerCaches = expected.slice(1).map((f) => path.join(dir, f));
    const handled = Date.now();
    while (workerCaches.some((f) => (fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0) <= handled)) {
      if (Date.now() > deadline) failWith(`no ${expected.slice(1).join(', ')} written in time`);
      await sleep(50);
    }
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(Math.max(1000, deadline - Date.now())).then(() => 'timeout')]);
    if (code !== 0) failWith(`the server did not stop cleanly (${code})`);
    const sizes: Record<string, number> = {};
    for (const f of expected) {
      const size = fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.size ?? 0;
      if (!size) failWith(`the run did not write ${f}`);
      sizes[f] = size;
    }
    return sizes;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
