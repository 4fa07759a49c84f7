// For the console's browser tests and scripts/screenshots.ts: the built executable on free ports, Debian's chromium
// driven by playwright-core, and a local HTTP server that records what a page asked it for (remote images in mail).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startRelay, type TestRelay } from './relay.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ADMIN_KEY = 'ibx_ConsoleE2eAdminKey0000000000000';

/** Why the browser tests cannot run here, or null. With CI=true a missing chromium is a failure, not a skip. */
export function chromiumMissing(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const why = `${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`;
  if (process.env.CI === 'true') assert.fail(`browser tests need chromium: ${why}`);
  return why;
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where chromium's own sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** `npm run build` (a no-op when dist/inboxd is up to date), or INBOXD_BINARY. */
export function builtBinary(): string {
  if (process.env.INBOXD_BINARY) return process.env.INBOXD_BINARY;
  let r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    r = spawnSync(path.join(root, 'node_modules/.bin/node'), ['scripts/build.ts'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  }
  assert.equal(r.status, 0, `npm run build failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
  return path.join(root, 'dist/inboxd');
}

export interface Running {
  base: string;
  smtpPort: number;
  dir: string;
  stop: () => Promise<void>;
  api: <T = any>(p: string, init?: { method?: string; body?: unknown }) => Promise<T>;
}

/** Starts `inboxd serve` on free ports with a known admin key; stop() ends it by its own pid and removes its dir. */
export async function startServer(bin: string, extraArgs: string[] = []): Promise<Running> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-console-e2e-'));
  const env: NodeJS.ProcessEnv = { ...process.env, INBOXD_ADMIN_KEY: ADMIN_KEY, INBOXD_NATIVE_CACHE_DIR: path.join(dir, 'native') };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('NODE_TEST')) delete env[k];
  const child: ChildProcess = spawn(
    bin,
    [
      'serve',
      '--http-port',
      '0',
      '--smtp-port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      path.join(dir, 'data'),
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const portsFile = path.join(dir, 'data/ports.json');
  const deadline = Date.now() + 30_000;
  let ports: { http: number; smtp: number } | null = null;
  while (!ports) {
    if (child.exitCode !== null) {
      await stop();
      assert.fail(`inboxd exited before it served:\n${out}`);
    }
    if (Date.now() > deadline) {
      await stop();
      assert.fail(`inboxd wrote no ports.json within 30 s:\n${out}`);
    }
    try {
      ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http: number; smtp: number };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const base = `http://127.0.0.1:${ports.http}`;
  const api = async (p: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(base + p, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : null,
    });
    const text = await res.text();
    assert.ok(res.ok, `${init.method ?? 'GET'} ${p} → ${res.status} ${text}`);
    return JSON.parse(text);
  };
  return { base, smtpPort: ports.smtp, dir, stop, api };
}

/** A local "remote" web server: records every request path (nothing may reach it unless the user asks). */
export async function recorder(): Promise<{ url: string; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const pixel = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' });
    res.end(pixel);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    paths,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The shared life of a browser test suite (call it inside `describe`): a recording SMTP relay, the built server
 * started with `args(relay)`, chromium, and browser contexts; all stopped after the suite. `open(key)` is a page
 * signed in with the key.
 */
export function browserSuite(args: (relay: TestRelay) => string[]) {
  const s = {
    server: null as unknown as Running,
    browser: null as unknown as Browser,
    relay: null as unknown as TestRelay,
    contexts: [] as BrowserContext[],
    async context(): Promise<BrowserContext> {
      const ctx = await s.browser.newContext({ colorScheme: 'light', viewport: { width: 1360, height: 900 } });
      s.contexts.push(ctx);
      return ctx;
    },
    async open(key = ADMIN_KEY, ctx?: BrowserContext): Promise<Page> {
      const page = await (ctx ?? (await s.context())).newPage();
      await page.goto(`${s.server.base}/`);
      await page.fill('#key', key);
      await page.press('#key', 'Enter');
      await page.waitForSelector('header.top');
      return page;
    },
  };
  before(async () => {
    s.relay = await startRelay();
    s.server = await startServer(builtBinary(), args(s.relay));
    s.browser = await launchChromium();
  });
  after(async () => {
    for (const c of s.contexts) await c.close().catch(() => undefined);
    await s.browser?.close().catch(() => undefined);
    await s.server?.stop();
    await s.relay?.close();
  });
  return s;
}
