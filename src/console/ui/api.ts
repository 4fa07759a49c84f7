/// <reference lib="dom" />
// The console's only way to the server: the public API, with the pasted key in an Authorization header. The key
// lives in sessionStorage (gone when the tab closes) — in localStorage too only when the user ticks "Remember this key
// on this device" — never in a URL, never logged, never sent anywhere but here.

const KEY_ITEM = 'inboxd.console.key';

/** The key in this tab (sessionStorage), else one remembered on this device (localStorage, only when asked to). */
export function savedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_ITEM) ?? localStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
}

/** Whether a key is remembered on this device (the sign-in form's "Remember this key on this device"). */
export function rememberedKey(): boolean {
  try {
    return localStorage.getItem(KEY_ITEM) !== null;
  } catch {
    return false;
  }
}

export function saveKey(key: string | null, remember = false): void {
  try {
    if (key === null) {
      sessionStorage.removeItem(KEY_ITEM);
      localStorage.removeItem(KEY_ITEM);
    } else {
      sessionStorage.setItem(KEY_ITEM, key);
      if (remember) localStorage.setItem(KEY_ITEM, key);
    }
  } catch {
    // Storage disabled: the key lives only as long as this page.
  }
}

let currentKey: string | null = savedKey();
/** null forgets the key everywhere (this tab and this device). */
export function setKey(key: string | null, remember = false): void {
  currentKey = key;
  saveKey(key, remember);
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The route does not exist on this server (another build, or a feature it does not have). */
  readonly notOffered: boolean;
  constructor(status: number, code: string, detail: string) {
    super(detail);
    this.status = status;
    this.code = code;
    this.notOffered = status === 404 && /^no such endpoint/.test(detail);
  }
}

/** Relative to the page, so the console works behind a proxy that mounts inboxd under a path. */
export function apiUrl(path: string): string {
  return new URL(path.replace(/^\//, ''), document.baseURI).href;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return currentKey ? { authorization: `Bearer ${currentKey}`, ...extra } : extra;
}

async function failure(res: Response): Promise<ApiError> {
  let code = 'http_' + res.status;
  let detail = `${res.status} ${res.statusText}`;
  try {
    const p = (await res.json()) as { code?: string; detail?: string; title?: string };
    code = p.code ?? code;
    detail = p.detail ?? p.title ?? detail;
  } catch {
    // Not problem+json (a proxy's error page): keep the status line.
  }
  if (res.status === 401) onUnauthorized?.();
  return new ApiError(res.status, code, detail);
}

let onUnauthorized: (() => void) | null = null;
export function whenUnauthorized(f: () => void): void {
  onUnauthorized = f;
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const res = await fetch(apiUrl(path), {
    method: init.method ?? 'GET',
    headers: headers(
      init.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    ),
    body: init.body === undefined ? null : JSON.stringify(init.body),
    signal: init.signal ?? null,
    cache: 'no-store',
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** A raw answer (the .eml, an attachment) fetched with the key, as a Blob. */
export async function apiBlob(path: string, signal?: AbortSignal): Promise<Blob> {
  const res = await fetch(apiUrl(path), { headers: headers(), signal: signal ?? null, cache: 'no-store', credentials: 'omit' });
  if (!res.ok) throw await failure(res);
  return res.blob();
}

/** An absolute URL the API handed out (rawUrl, attachment url) as a path on this server. */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.replace(/^\//, '') + u.search;
  } catch {
    return url;
  }
}

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Server-sent events over fetch, because EventSource cannot send an Authorization header (and a key in the query
 * string would end up in logs and history). Reconnects with Last-Event-ID after a drop, so nothing is missed.
 */
export function streamEvents(
  path: string,
  opts: {
    lastEventId: string | null;
    onEvent: (e: SseEvent) => void;
    onState: (s: 'live' | 'reconnecting' | 'closed', why?: string) => void;
  },
): () => void {
  const ctrl = new AbortController();
  let lastId = opts.lastEventId;
  let retryMs = 2000;
  let stopped = false;

  const once = async (): Promise<'again' | 'stop'> => {
    const res = await fetch(apiUrl(path), {
      headers: headers({ accept: 'text/event-stream', ...(lastId !== null ? { 'last-event-id': lastId } : {}) }),
      signal: ctrl.signal,
      cache: 'no-store',
      credentials: 'omit',
    });
    if (!res.ok || !res.body) {
      const err = await failure(res);
      opts.onState('closed', err.message);
      return err.status >= 500 || err.status === 429 ? 'again' : 'stop';
    }
    opts.onState('live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let ev: SseEvent = { id: null, event: 'message', data: '' };
    let hasData = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return 'again';
      buf += value;
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === '\r' && buf[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (hasData || ev.event !== 'message') {
            if (ev.id !== null) lastId = ev.id;
            opts.onEvent(ev);
            if (ev.event === 'inbox.deleted') {
              opts.onState('closed', 'the inbox was deleted');
              return 'stop';
            }
          }
          ev = { id: null, event: 'message', data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          ev.data = hasData ? `${ev.data}\n${val}` : val;
          hasData = true;
        } else if (field === 'event') ev.event = val;
        else if (field === 'id') ev.id = val;
        else if (field === 'retry' && /^\d+$/.test(val)) retryMs = Math.max(500, Number(val));
      }
    }
  };

  const loop = async () => {
    while (!stopped) {
      let next: 'again' | 'stop';
      try {
        next = await once();
      } catch {
        if (stopped) return;
        next = 'again';
      }
      if (next === 'stop' || stopped) return;
      opts.onState('reconnecting');
      await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void loop();
  return () => {
    stopped = true;
    ctrl.abort();
  };
}
