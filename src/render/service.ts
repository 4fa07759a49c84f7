// PNG renderings of stored mail as a client would draw it (issue 32): the message's HTML (or its text) at a width,
// with its inline `cid:` images or without images, in light or dark, by Debian's chromium when the operator set
// `--render-chromium`. A rendering is work whose cost the mail's sender controls, so it runs under a budget: one
// chromium at a time, at most `--render-queue` waiting (one more is 503 with Retry-After), each under
// `--render-timeout-ms` (the browser is killed past it: 422), scripts off and no request leaving the browser
// (src/render/chromium.ts). The two renderings of a comparison are pixel-compared in a sandbox worker
// (src/render/png.ts, task render.compare).
import fs from 'node:fs';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { AttachmentRow, MessageRepo, MessageRow } from '../store/messages.ts';
import { RENDER_ORIGIN, type Rendered, type RenderJob, renderWithChromium } from './chromium.ts';

export const RENDER_WIDTH = { min: 240, max: 1920, default: 800 } as const;
/** A longer mail is cut here (the answer says so). */
export const MAX_HEIGHT = 10_000;
/** Inline images put into a rendering: count and bytes each (as the console's preview). */
const MAX_PARTS = 50;
const MAX_PART_BYTES = 5 * 1024 * 1024;
const IMAGE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)$/i;

export interface RenderOptions {
  width: number;
  images: 'on' | 'off';
  theme: 'light' | 'dark';
}

export interface RenderDeps {
  /** The chromium executable (`--render-chromium`), or undefined: not configured. */
  chromium: string | undefined;
  timeoutMs: number;
  queue: number;
  messages: Pick<MessageRepo, 'get' | 'attachments'>;
  blobs: Pick<BlobStore, 'get'>;
  log: Logger;
  /** Pixels that differ between two PNGs: the sandbox task render.compare (off the main thread). */
  compare: (a: Buffer, b: Buffer) => Promise<{ differentPixels: number; totalPixels: number }>;
  /** Replaceable in tests. */
  render?: (executable: string, job: RenderJob) => Promise<Rendered>;
}

/**
 * Bad config caught at start: `--render-chromium` must name an executable file, or every rendering would answer 503
 * with a retry that cannot help. Returns the problem, or null.
 */
export function renderChromiumProblem(exe: string | undefined): string | null {
  if (exe === undefined) return null;
  try {
    if (!fs.statSync(exe).isFile())
      return `--render-chromium ${exe} is not a file; give the chromium executable (Debian: /usr/bin/chromium)`;
    fs.accessSync(exe, fs.constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? `--render-chromium ${exe} does not exist; install chromium (Debian: apt-get install -y chromium) or unset the flag`
      : `--render-chromium ${exe} cannot be run (${code ?? (e as Error).message}); give an executable chromium`;
  }
}

export class RenderService {
  private readonly d: RenderDeps;
  private running = false;
  private readonly waiting: Array<{ go: () => void; signal: AbortSignal }> = [];

  constructor(d: RenderDeps) {
    this.d = d;
  }

  configured(): boolean {
    return this.d.chromium !== undefined;
  }

  /** One message as a PNG. */
  async message(inbox: InboxRow, messageId: string, o: RenderOptions, signal: AbortSignal): Promise<Rendered> {
    const exe = this.executable();
    const job = await this.jobOf(inbox, messageId, o);
    return this.turn(signal, (s) => this.draw(exe, job, o, s));
  }

  /** Two messages at the same options, and how many pixels differ (a taller one's extra rows all count). */
  async compare(
    a: { inbox: InboxRow; messageId: string },
    b: { inbox: InboxRow; messageId: string },
    o: RenderOptions,
    signal: AbortSignal,
  ): Promise<{ a: Rendered; b: Rendered; differentPixels: number; totalPixels: number }> {
    const exe = this.executable();
    const [ja, jb] = [await this.jobOf(a.inbox, a.messageId, o), await this.jobOf(b.inbox, b.messageId, o)];
    const ra = await this.turn(signal, (s) => this.draw(exe, ja, o, s));
    const rb = await this.turn(signal, (s) => this.draw(exe, jb, o, s));
    return { a: ra, b: rb, ...(await this.d.compare(ra.png, rb.png)) };
  }

  private executable(): string {
    if (!this.d.chromium)
      throw new AppError(
        'not_configured',
        'PNG rendering is not configured on this server: start inboxd with --render-chromium /usr/bin/chromium (Debian: apt-get install -y chromium)',
      );
    return this.d.chromium;
  }

  private async jobOf(inbox: InboxRow, messageId: string, o: RenderOptions): Promise<Omit<RenderJob, 'signal'>> {
    const msg = await this.d.messages.get(inbox.id, messageId);
    if (!msg) throw new AppError('not_found', `no message ${messageId} in inbox ${inbox.id}`);
    const parts = new Map<string, { contentType: string; bytes: Buffer }>();
    const html = msg.html_body !== null ? await this.inline(msg, o.images === 'on' ? parts : null) : textPage(msg.text_body ?? '');
    return { html, parts, width: o.width, maxHeight: MAX_HEIGHT, theme: o.theme };
  }

  /** The HTML with each `cid:` reference pointed at a part served inside the browser (null: images off, left broken). */
  private async inline(msg: MessageRow, parts: Map<string, { contentType: string; bytes: Buffer }> | null): Promise<string> {
    const html = msg.html_body!;
    if (!parts || !/cid:/i.test(html)) return html;
    const byCid = new Map<string, AttachmentRow>();
    for (const a of await this.d.messages.attachments(msg.id))
      if (a.content_id && IMAGE.test(a.content_type) && a.size <= MAX_PART_BYTES)
        byCid.set(a.content_id.replace(/^<|>$/g, '').toLowerCase(), a);
    const served = new Map<string, string>();
    const refs = [...html.matchAll(/cid:([^"'\s)>]+)/gi)].map((m) => m[1]!);
    for (const ref of refs) {
      let id = ref;
      try {
        id = decodeURIComponent(ref);
      } catch {
        // Not percent-encoded: as written.
      }
      const a = byCid.get(id.toLowerCase());
      if (!a || served.has(ref) || served.size >= MAX_PARTS) continue;
      const at = `/cid/${served.size}`;
      parts.set(at, { contentType: a.content_type, bytes: await this.d.blobs.get(a.sha256) });
      served.set(ref, `${RENDER_ORIGIN}${at}`);
    }
    return html.replace(/cid:([^"'\s)>]+)/gi, (all, ref: string) => served.get(ref) ?? all);
  }

  private async draw(exe: string, job: Omit<RenderJob, 'signal'>, o: RenderOptions, signal: AbortSignal): Promise<Rendered> {
    const timeout = AbortSignal.timeout(this.d.timeoutMs);
    const started = performance.now();
    try {
      return await (this.d.render ?? renderWithChromium)(exe, { ...job, signal: AbortSignal.any([signal, timeout]) });
    } catch (e) {
      if (signal.aborted) throw e;
      if (timeout.aborted)
        throw new AppError(
          'budget_exceeded',
          `rendering took longer than ${this.d.timeoutMs} ms (--render-timeout-ms) and was stopped; a very long or heavy mail cannot be rendered within it`,
        );
      this.d.log.warn('render failed', { error: (e as Error).message, width: o.width, ms: Math.round(performance.now() - started) });
      throw new AppError('unavailable', `chromium could not render the message: ${(e as Error).message}`, {
        headers: { 'Retry-After': '5' },
      });
    }
  }

  /** Runs `f` when it is this caller's turn: one at a time, a bounded queue, a caller that left gives up its place. */
  private async turn<T>(signal: AbortSignal, f: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.running) {
      if (this.waiting.length >= this.d.queue)
        throw new AppError(
          'unavailable',
          `${this.waiting.length + 1} renderings are already running or waiting (--render-queue ${this.d.queue}); retry shortly`,
          { headers: { 'Retry-After': String((this.waiting.length + 1) * 2) } },
        );
      await new Promise<void>((resolve, reject) => {
        const entry = { go: resolve, signal };
        this.waiting.push(entry);
        signal.addEventListener(
          'abort',
          () => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    }
    this.running = true;
    try {
      return await f(signal);
    } finally {
      const next = this.waiting.shift();
      if (next) next.go();
      else this.running = false;
    }
  }

  /** Renderings waiting for their turn (metrics, tests). */
  queued(): number {
    return this.waiting.length;
  }
}

/** A text-only mail as a client shows it: the text, wrapped, in a plain page. */
function textPage(text: string): string {
  const esc = text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
  return `<!doctype html><meta charset="utf-8"><body style="margin:8px"><pre style="white-space:pre-wrap;font:14px/1.4 monospace;margin:0">${esc}</pre></body>`;
}
