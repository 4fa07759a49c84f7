/// <reference lib="dom" />
// Small shared pieces: the htm binding, a data hook, error notes, copy-to-clipboard, tabs, time formatting.

import htm from 'htm';
import { type ComponentChildren, h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from './api.ts';

export const html = htm.bind(h);

export interface Loaded<T> {
  data: T | null;
  error: ApiError | Error | null;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (null: nothing) whenever it changes; the answer of an older path is dropped. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ path: string | null; data: T | null; error: Error | null; loading: boolean }>({
    path,
    data: null,
    error: null,
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const ctrl = new AbortController();
    setState((s) => ({ path, data: s.path === path ? s.data : null, error: null, loading: true }));
    api<T>(path, { signal: ctrl.signal }).then(
      (data) => setState({ path, data, error: null, loading: false }),
      (error: Error) => {
        if (!ctrl.signal.aborted) setState({ path, data: null, error, loading: false });
      },
    );
    return () => ctrl.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const fresh = state.path === path;
  return { data: fresh ? state.data : null, error: fresh ? state.error : null, loading: !fresh || state.loading, reload };
}

/** What went wrong, in words; a route this server lacks is said as such, not as an error. */
export function ErrorNote({ error, what }: { error: Error | null; what: string }) {
  if (!error) return null;
  if (error instanceof ApiError && error.notOffered) {
    return html`<p class="note" role="status">This server does not offer ${what} (its route answered 404). An inboxd build with
      that feature shows it here.</p>`;
  }
  return html`<p class="error" role="alert">Could not load ${what}: ${error.message}</p>`;
}

let announce: ((msg: string) => void) | null = null;
export function setAnnouncer(f: (msg: string) => void): void {
  announce = f;
}
export function say(msg: string): void {
  announce?.(msg);
}

/** Copies text; the async clipboard API needs a secure context, so plain-http LAN hosts fall back to a selection. */
export async function copyText(text: string, what: string): Promise<void> {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'offscreen';
    const back = document.activeElement as HTMLElement | null;
    document.body.append(ta);
    ta.select();
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    back?.focus();
  }
  say(ok ? `Copied ${what}` : `Could not copy ${what}; select it and press Ctrl+C`);
}

export function CopyButton({ text, what, hotkey }: { text: string; what: string; hotkey?: string }) {
  return html`<button type="button" class="copy" data-copy=${what} onClick=${() => void copyText(text, what)}
    title=${hotkey ? `Copy ${what} (${hotkey})` : `Copy ${what}`}>Copy${hotkey ? html` <kbd>${hotkey}</kbd>` : ''}</button>`;
}

export interface Tab {
  id: string;
  label: string;
}

/** WAI-ARIA tabs: arrow keys move between tabs, the panel follows. */
export function Tabs({
  tabs,
  current,
  onSelect,
  label,
  children,
}: {
  tabs: Tab[];
  current: string;
  onSelect: (id: string) => void;
  label: string;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const onKey = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === current);
    let j = i;
    if (e.key === 'ArrowRight') j = (i + 1) % tabs.length;
    else if (e.key === 'ArrowLeft') j = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = tabs.length - 1;
    else return;
    e.preventDefault();
    onSelect(tabs[j]!.id);
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>('[aria-selected="true"]')?.focus());
  };
  return html`<div class="tabs">
    <div role="tablist" aria-label=${label} ref=${list} onKeyDown=${onKey}>
      ${tabs.map(
        (t) => html`<button type="button" role="tab" id=${`tab-${t.id}`} aria-controls=${`panel-${t.id}`}
          aria-selected=${t.id === current ? 'true' : 'false'} tabIndex=${t.id === current ? 0 : -1}
          onClick=${() => onSelect(t.id)}>${t.label}</button>`,
      )}
    </div>
    <div role="tabpanel" id=${`panel-${current}`} aria-labelledby=${`tab-${current}`} class="panel">${children}</div>
  </div>`;
}

export function when(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date();
  return d.toDateString() === today.toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
}

export function ago(iso: string): string {
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  const abs = Math.abs(s);
  const f =
    abs < 60
      ? `${abs}s`
      : abs < 3600
        ? `${Math.round(abs / 60)}m`
        : abs < 86400
          ? `${Math.round(abs / 3600)}h`
          : `${Math.round(abs / 86400)}d`;
  return s >= 0 ? `${f} ago` : `in ${f}`;
}

export function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function who(a: { name: string; address: string } | string | null | undefined): string {
  if (!a) return '(no sender)';
  if (typeof a === 'string') return a;
  return a.name ? `${a.name} <${a.address}>` : a.address;
}

/** Only http(s) links become clickable; anything else (javascript:, data:) stays text. */
export function safeHref(url: string | null | undefined): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/** A search snippet with its matches marked («…», or `<mark>…</mark>`), as text and <mark> nodes only. */
export function Snippet({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  const parts = text.split(/«|»|<\/?mark>/);
  return html`<span class="snippet">${parts.map((p, i) => (i % 2 === 1 ? html`<mark>${p}</mark>` : p))}</span>`;
}
