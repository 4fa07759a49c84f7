// Serves the browser console: the page shell at `/` and its two hashed assets under /console/. The UI talks to the
// public API only (with the key the user pastes, in an Authorization header); this module serves static bytes.
//
// Where the assets come from: inside the single executable, the SEA assets scripts/build.ts embedded; running a
// bundle with node (dist/inboxd.cjs), the files beside it; running from source, esbuild on the first request.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type Koa from 'koa';
import type { Logger } from '../log.ts';
import { bundleConsole, CONSOLE_CSS_ASSET, CONSOLE_JS_ASSET, type ConsoleBundle } from './bundle.ts';

/**
 * The console page's policy. Scripts only from this origin (no inline script, no eval). `style-src 'unsafe-inline'`
 * and remote `img-src` exist for the message preview only: a `srcdoc` frame inherits this policy, mail HTML is
 * styled inline, and "load remote images" must be possible when the user asks; the frame adds its own stricter
 * policy on top (src/console/ui/preview.ts). The console itself renders no markup it did not write (Preact escapes
 * every string), so neither is a way into it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  // The preview is a srcdoc frame, which frame-src does not govern; 'none' keeps that frame from navigating anywhere.
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

interface Asset {
  path: string;
  type: string;
  body: Buffer;
}

interface Assets {
  html: Buffer;
  byPath: Map<string, Asset>;
}

function hashed(name: string, ext: string, text: string, type: string): Asset {
  const hash = crypto.createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { path: `/console/${name}.${hash}.${ext}`, type, body: Buffer.from(text, 'utf8') };
}

export function assetsOf(b: ConsoleBundle): Assets {
  const js = hashed('console', 'js', b.js, 'text/javascript; charset=utf-8');
  const css = hashed('console', 'css', b.css, 'text/css; charset=utf-8');
  // Relative asset URLs, so the console also works behind a proxy that mounts inboxd under a path.
  const html =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    '<title>inboxd console</title>' +
    '<link rel="icon" href="data:,">' +
    `<link rel="stylesheet" href=".${css.path}">` +
    `<script defer src=".${js.path}"></script>` +
    '</head><body><div id="app"><noscript>The inboxd console needs JavaScript.</noscript></div></body></html>\n';
  return { html: Buffer.from(html, 'utf8'), byPath: new Map([js, css].map((a) => [a.path, a])) };
}

/** The bundle built into the executable (or beside a node-run bundle); null when running from source. */
function builtBundle(): ConsoleBundle | null {
  const sea = process.getBuiltinModule('node:sea');
  if (sea?.isSea()) {
    try {
      return { js: sea.getAsset(CONSOLE_JS_ASSET, 'utf8'), css: sea.getAsset(CONSOLE_CSS_ASSET, 'utf8') };
    } catch {
      return null;
    }
  }
  const here = import.meta.url;
  if (here.endsWith('.ts')) return null;
  try {
    return {
      js: fs.readFileSync(new URL(`./${CONSOLE_JS_ASSET}`, here), 'utf8'),
      css: fs.readFileSync(new URL(`./${CONSOLE_CSS_ASSET}`, here), 'utf8'),
    };
  } catch {
    return null;
  }
}

export interface ConsoleOptions {
  log: Logger;
  /** Where the bundle comes from (tests); default: built assets, else esbuild from source. */
  load?: () => Promise<ConsoleBundle>;
}

export function consoleMiddleware(opts: ConsoleOptions): Koa.Middleware {
  const load = opts.load ?? (async () => builtBundle() ?? (await bundleConsole()));
  let assets: Promise<Assets> | null = null;
  const get = (): Promise<Assets> => {
    if (!assets) {
      assets = load().then(assetsOf);
      // A failed load is tried again on the next request (a source edit in dev may fix it).
      assets.catch((err: unknown) => {
        opts.log.error('the console could not be loaded', { err: err as Error });
        assets = null;
      });
    }
    return assets;
  };

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const p = ctx.path;
    if (p !== '/' && !p.startsWith('/console/')) return next();
    ctx.state.operation = 'console'; // the HTTP metrics label (GET /metrics), like an operation's name
    let a: Assets;
    try {
      a = await get();
    } catch {
      ctx.status = 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'application/problem+json; charset=utf-8';
      ctx.body = JSON.stringify({
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        code: 'unavailable',
        detail: 'the console could not be loaded; the server log says why (running from source needs esbuild: npm install)',
      });
      return;
    }
    if (p === '/') {
      ctx.set(COMMON_HEADERS);
      // The shell names the current asset hashes: always revalidated, never stored by proxies.
      ctx.set('Cache-Control', 'no-cache, private');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = a.html;
      return;
    }
    const asset = a.byPath.get(p);
    if (!asset) return next();
    ctx.set(COMMON_HEADERS);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
