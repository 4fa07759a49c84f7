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

// Reads started before the view that needs them is drawn (the overview's, while the saved key is checked): the view's
// first read of that path takes the answer already on its way instead of asking again.
// An answer not taken within 5 s is dropped (a later view reads afresh).
const early = new Map<string, { answer: Promise<unknown>; at: number }>();
export function prefetch(paths: string[]): void {
  for (const p of paths) {
    const answer = api(p);
    answer.catch(() => undefined); // a refusal is the view's to show, when it reads
    early.set(p, { answer, at: Date.now() });
  }
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
    const ahead = early.get(path);
    early.delete(path);
    (ahead && Date.now() - ahead.at < 5000 ? (ahead.answer as Promise<T>) : api<T>(path, { signal: ctrl.signal })).then(
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

// Live arrivals (the open inbox's SSE stream) reach every view that shows a count of them: the inbox's header, the
// inbox list and the overview read their counts again. A burst of arrivals is one re-read, a quarter second later.
const arrivalListeners = new Set<(inboxId: string) => void>();
const pendingArrivals = new Set<string>();
let arrivalTimer: ReturnType<typeof setTimeout> | null = null;

/** Mail arrived in, or left, this inbox (a live arrival, a send, a delete, a clear): counts are read again. */
export function notifyArrival(inboxId: string): void {
  pendingArrivals.add(inboxId);
  if (arrivalTimer !== null) return;
  arrivalTimer = setTimeout(() => {
    arrivalTimer = null;
    const ids = [...pendingArrivals];
    pendingArrivals.clear();
    for (const f of [...arrivalListeners]) for (const id of ids) f(id);
  }, 250);
}

/** Calls `f` with the inbox id after mail arrived live in it (the latest `f`; no re-subscription per render). */
export function useArrivals(f: (inboxId: string) => void): void {
  const ref = useRef(f);
  ref.current = f;
  useEffect(() => {
    const g = (id: string) => ref.current(id);
    arrivalListeners.add(g);
    return () => {
      arrivalListeners.delete(g);
    };
  }, []);
}

/** A <dialog> shown modal when it mounts; `close` runs when it closes (Esc, a Cancel, a form with method=dialog). */
export function useModal(close: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    d.showModal();
    const back = () => close();
    d.addEventListener('close', back);
    return () => d.removeEventListener('close', back);
  }, []);
  return ref;
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

/**
 * A moment in the browser's locale and time zone: the time of day when it is today, else the date and the time, so a
 * list never shows a bare "14:02" for mail from last week.
 */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === new Date().toDateString()
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The full moment (weekday, date, seconds, time zone) in the browser's locale: the title of every shown time. */
export function fullTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' });
}

/** `<time>` with the short form shown and the full one on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return html`<span>—</span>`;
  return html`<time datetime=${iso} title=${fullTime(iso)}>${when(iso)}</time>`;
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

/** Who a list row names: the sender of received mail, the recipients of sent mail. */
export function party(m: {
  direction?: string;
  from: { name: string; address: string } | null;
  to?: Array<{ name: string; address: string }>;
}): string {
  if (m.direction !== 'outbound') return who(m.from);
  const to = (m.to ?? []).map(who).join(', ');
  return `to ${to || '(no recipient)'}`;
}

/** Sent or received, in words and an arrow; a server without the field has only received mail. */
export function Direction({ m }: { m: { direction?: string } }) {
  return m.direction === 'outbound'
    ? html`<span class="badge dir dir-out" title="Sent from this inbox">↗ sent</span>`
    : html`<span class="badge dir dir-in" title="Received by this inbox">↙ received</span>`;
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
