// One rendering of a mail's HTML to PNG by a headless chromium (Debian's `chromium`), driven over the DevTools
// protocol on a pipe (`--remote-debugging-pipe`: no port is opened). Each rendering starts its own browser with a
// fresh profile directory and ends it, so nothing of one mail (cache, storage) is seen by the next.
//
// Mail is hostile: scripts are off (Emulation.setScriptExecutionDisabled and `--blink-settings=scriptEnabled=false`),
// and no request leaves the process: every request is intercepted (Fetch domain) — the document itself and the
// mail's own `cid:` parts are answered from memory, everything else fails — host names resolve to nothing
// (`--host-resolver-rules`), and a proxy that does not exist stands behind it all.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The origin the document is served from inside the browser; it never reaches a network. */
export const RENDER_ORIGIN = 'http://inboxd-render.invalid';

export interface RenderJob {
  html: string;
  /** Bytes of the mail's inline parts by the path they are served at (`/cid/<n>`). */
  parts: Map<string, { contentType: string; bytes: Buffer }>;
  width: number;
  /** Longest picture; a longer mail is cut here (`truncated`). */
  maxHeight: number;
  theme: 'light' | 'dark';
  signal: AbortSignal;
}

export interface Rendered {
  png: Buffer;
  width: number;
  height: number;
  truncated: boolean;
  /** Requests refused (remote images, fonts, stylesheets …). */
  blocked: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** Renders once; rejects when `signal` aborts (the browser is killed) or chromium fails. */
export async function renderWithChromium(executable: string, job: RenderJob): Promise<Rendered> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-render-'));
  const args = [
    '--headless',
    '--remote-debugging-pipe',
    `--user-data-dir=${profile}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-extensions',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-breakpad',
    '--mute-audio',
    '--hide-scrollbars',
    '--blink-settings=scriptEnabled=false',
    '--host-resolver-rules=MAP * ~NOTFOUND',
    '--proxy-server=127.0.0.1:9',
    '--proxy-bypass-list=<-loopback>',
    // As root (containers) chromium's own sandbox cannot start; scripts are off and nothing reaches a network.
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  // Its own process group, so the renderer and helper processes go with it (killed by the group's id).
  const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
  const toBrowser = child.stdio[3] as NodeJS.WritableStream;
  const fromBrowser = child.stdio[4] as NodeJS.ReadableStream;
  const pending = new Map<number, Pending>();
  const listeners: Array<(method: string, params: unknown, sessionId?: string) => void> = [];
  let nextId = 1;
  let failed: Error | null = null;
  const fail = (e: Error) => {
    if (failed) return;
    failed = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  let buf = '';
  fromBrowser.setEncoding?.('utf8');
  fromBrowser.on('data', (d: string) => {
    buf += d;
    let z: number;
    while ((z = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, z)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: unknown;
        sessionId?: string;
      };
      buf = buf.slice(z + 1);
      if (msg.id !== undefined) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(msg.error.message));
        else p?.resolve(msg.result);
      } else if (msg.method) for (const l of listeners) l(msg.method, msg.params, msg.sessionId);
    }
  });
  (toBrowser as NodeJS.WritableStream & { on: (e: string, f: () => void) => void }).on('error', () =>
    fail(new Error('chromium closed its pipe')),
  );
  child.on('error', (e) => fail(new Error(`chromium could not start (${executable}): ${e.message}`)));
  child.on('exit', (code, sig) =>
    fail(new Error(`chromium exited (${sig ?? code})${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`)),
  );
  const onAbort = () => fail(new Error(String(job.signal.reason ?? 'aborted')));
  job.signal.addEventListener('abort', onAbort, { once: true });

  const send = <T = unknown>(method: string, params: object = {}, sessionId?: string): Promise<T> => {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  };

  try {
    if (job.signal.aborted) onAbort();
    const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const s = <T = unknown>(method: string, params: object = {}) => send<T>(method, params, sessionId);
    let blocked = 0;
    const loaded = new Promise<void>((resolve) => {
      listeners.push((method, raw, sid) => {
        if (sid !== sessionId) return;
        if (method === 'Page.loadEventFired') resolve();
        if (method !== 'Fetch.requestPaused') return;
        const params = raw as { requestId: string; request: { url: string } };
        const url = String(params.request.url);
        const part = url.startsWith(`${RENDER_ORIGIN}/`) ? url.slice(RENDER_ORIGIN.length) : null;
        const body =
          part === '/' ? { contentType: 'text/html; charset=utf-8', bytes: Buffer.from(job.html) } : part ? job.parts.get(part) : undefined;
        if (part === '/favicon.ico')
          void s('Fetch.fulfillRequest', { requestId: params.requestId, responseCode: 404, body: '' }).catch(() => undefined);
        else if (body)
          void s('Fetch.fulfillRequest', {
            requestId: params.requestId,
            responseCode: 200,
            responseHeaders: [
              { name: 'Content-Type', value: body.contentType },
              { name: 'Cache-Control', value: 'no-store' },
            ],
            body: body.bytes.toString('base64'),
          }).catch(() => undefined);
        else {
          blocked++;
          void s('Fetch.failRequest', { requestId: params.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
        }
      });
    });
    await s('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    await s('Page.enable');
    await s('Emulation.setScriptExecutionDisabled', { value: true });
    await s('Emulation.setEmulatedMedia', { media: 'screen', features: [{ name: 'prefers-color-scheme', value: job.theme }] });
    await s('Emulation.setDeviceMetricsOverride', { width: job.width, height: 100, deviceScaleFactor: 1, mobile: false });
    await s('Page.navigate', { url: `${RENDER_ORIGIN}/` });
    await loaded;
    const m = await s<{ cssContentSize: { width: number; height: number } }>('Page.getLayoutMetrics');
    const full = Math.max(1, Math.ceil(m.cssContentSize.height));
    const height = Math.min(full, job.maxHeight);
    const shot = await s<{ data: string }>('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: job.width, height, scale: 1 },
    });
    return { png: Buffer.from(shot.data, 'base64'), width: job.width, height, truncated: full > height, blocked };
  } catch (e) {
    throw failed ?? e;
  } finally {
    job.signal.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      if (!failed) await Promise.race([send('Browser.close').catch(() => undefined), exited, new Promise((r) => setTimeout(r, 1000))]);
      failed ??= new Error('closed');
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await exited;
    }
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
