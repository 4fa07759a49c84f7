/// <reference lib="dom" />
// The console's frame: sign-in with a pasted key, the hash router, the header, keyboard shortcuts and their help,
// and the colour theme.
import { useEffect, useRef, useState } from 'preact/hooks';
import { InboxActions, setAccess } from './actions.ts';
import { Audit, Keys } from './admin.ts';
import { ApiError, api, query, savedKey, setKey, whenUnauthorized } from './api.ts';
import { FaultsPanel } from './faults.ts';
import { AllThreads, Callbacks, Dashboard, InboxThreads, SearchView, Sidebar, ThreadView } from './lists.ts';
import { MessageList, MessageView, useLiveMessages } from './mail.ts';
import { RunList, RunPage } from './runs.ts';
import type { Inbox, InboxDetail, Me } from './types.ts';
import { ago, CopyButton, ErrorNote, fullTime, html, prefetch, setAnnouncer, useApi, useArrivals, useModal } from './ui.ts';
import { WorkspacePage } from './workspace.ts';

type Route =
  | { view: 'home' }
  | {
      view: 'inbox';
      inboxId: string;
      sub: 'messages' | 'threads' | 'callbacks' | 'faults';
      messageId: string | null;
      threadId: string | null;
    }
  | { view: 'threads' }
  | { view: 'search'; q: string; inboxId: string | null }
  | { view: 'keys' }
  | { view: 'audit' }
  | { view: 'runs'; runId: string | null }
  | { view: 'workspace'; sub: string };

const ID = '([A-Za-z0-9_-]{1,64})';

export function parseRoute(hash: string): Route {
  const [path = '', qs = ''] = hash.replace(/^#/, '').split('?');
  let m: RegExpExecArray | null;
  if ((m = new RegExp(`^/inbox/${ID}(?:/(m|thread)/${ID}|/(threads|callbacks|faults))?$`).exec(path))) {
    const inboxId = m[1]!;
    if (m[2] === 'm') return { view: 'inbox', inboxId, sub: 'messages', messageId: m[3]!, threadId: null };
    if (m[2] === 'thread') return { view: 'inbox', inboxId, sub: 'threads', messageId: null, threadId: m[3]! };
    return {
      view: 'inbox',
      inboxId,
      sub: (m[4] as 'threads' | 'callbacks' | 'faults' | undefined) ?? 'messages',
      messageId: null,
      threadId: null,
    };
  }
  if (path === '/threads') return { view: 'threads' };
  if (path === '/keys') return { view: 'keys' };
  if (path === '/audit') return { view: 'audit' };
  if ((m = new RegExp(`^/runs(?:/${ID})?$`).exec(path))) return { view: 'runs', runId: m[1] ?? null };
  if ((m = /^\/workspace(?:\/(policy|reminders|actions))?$/.exec(path))) return { view: 'workspace', sub: m[1] ?? 'today' };
  if (path === '/search') {
    const p = new URLSearchParams(qs);
    return { view: 'search', q: p.get('q') ?? '', inboxId: p.get('inbox') };
  }
  return { view: 'home' };
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

const THEME_ITEM = 'inboxd.console.theme';

function useTheme(): [string, () => void] {
  const dark = matchMedia('(prefers-color-scheme: dark)');
  const [chosen, setChosen] = useState<string | null>(() => localStorage.getItem(THEME_ITEM));
  const [system, setSystem] = useState(dark.matches ? 'dark' : 'light');
  useEffect(() => {
    const on = () => setSystem(dark.matches ? 'dark' : 'light');
    dark.addEventListener('change', on);
    return () => dark.removeEventListener('change', on);
  }, []);
  const theme = chosen ?? system;
  useEffect(() => {
    document.documentElement.dataset['theme'] = theme;
  }, [theme]);
  const toggle = () => {
    const next = theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(THEME_ITEM, next);
    setChosen(next);
  };
  return [theme, toggle];
}

export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [signedOut, setSignedOut] = useState<string | null>(null);
  const [checking, setChecking] = useState(savedKey() !== null);
  const [message, setMessage] = useState('');
  const [theme, toggleTheme] = useTheme();

  useEffect(() => {
    setAnnouncer((msg) => {
      // Cleared first so the same words twice are announced twice.
      setMessage('');
      requestAnimationFrame(() => setMessage(msg));
    });
    whenUnauthorized(() => {
      setKey(null);
      setMe(null);
      setSignedOut('The server refused the key (unknown, revoked or expired). Paste a key again.');
    });
    if (savedKey() !== null) {
      // The overview's two reads start with the key check rather than after it (one round trip less to first paint).
      if (parseRoute(location.hash).view === 'home') prefetch(['v1/console/summary', `v1/inboxes${query({ limit: 100 })}`]);
      api<Me>('v1/me')
        .then(setMe, (e: Error) => setSignedOut(e.message))
        .finally(() => setChecking(false));
    }
  }, []);

  const signIn = async (key: string, remember: boolean) => {
    setKey(key, remember);
    try {
      setMe(await api<Me>('v1/me'));
      setSignedOut(null);
    } catch (e) {
      setKey(null);
      setSignedOut(
        e instanceof ApiError && e.status === 401 ? 'That key was refused: unknown, revoked or mistyped.' : (e as Error).message,
      );
    }
  };
  const signOut = () => {
    setKey(null);
    setMe(null);
    setSignedOut('Signed out: the key is removed from this tab.');
  };

  return html`
    <a class="skip" href="#main">Skip to content</a>
    ${
      me
        ? html`<${Console} me=${me} theme=${theme} toggleTheme=${toggleTheme} signOut=${signOut} />`
        : checking
          ? html`<main id="main" class="login"><p>Checking the saved key…</p></main>`
          : html`<${Login} onKey=${signIn} note=${signedOut} theme=${theme} toggleTheme=${toggleTheme} />`
    }
    <div id="announce" class="toast" role="status" aria-live="polite">${message}</div>`;
}

function Login({
  onKey,
  note,
  theme,
  toggleTheme,
}: {
  onKey: (k: string, remember: boolean) => void;
  note: string | null;
  theme: string;
  toggleTheme: () => void;
}) {
  const [key, setKeyText] = useState('');
  const [remember, setRemember] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return html`<main id="main" class="login">
    <h1>inboxd console</h1>
    <form onSubmit=${(e: Event) => (e.preventDefault(), key.trim() && onKey(key.trim(), remember))}>
      <label for="key">API key</label>
      <input id="key" ref=${ref} type="password" autocomplete="off" spellcheck="false" required value=${key}
        onInput=${(e: Event) => setKeyText((e.target as HTMLInputElement).value)} placeholder="ibx_…" />
      <button type="submit">Open</button>
      <label class="tick remember"><input type="checkbox" id="remember" checked=${remember}
        onChange=${(e: Event) => setRemember((e.target as HTMLInputElement).checked)} /> Remember this key on this device</label>
    </form>
    ${note ? html`<p class="error" role="alert">${note}</p>` : ''}
    <p class="muted">The key stays in this tab (session storage) and goes only to this server, as an Authorization header.
      Remembered on this device, it is kept in local storage (any tab, after a restart) until "Forget key".
      The admin key is printed at first start and kept in <code>${'<data-dir>/admin.key'}</code>.</p>
    <p><button type="button" class="link-button" onClick=${toggleTheme}>${theme === 'dark' ? 'Light' : 'Dark'} mode</button></p>
  </main>`;
}

function Console({ me, theme, toggleTheme, signOut }: { me: Me; theme: string; toggleTheme: () => void; signOut: () => void }) {
  const route = useRoute();
  const [label, setLabel] = useState('');
  const [help, setHelp] = useState(false);
  const [tab, setTab] = useState('html');
  const [remote, setRemote] = useState(false);
  const admin = me.role === 'admin' && !me.scope?.labelPrefix;
  setAccess(me);
  const inboxId = route.view === 'inbox' ? route.inboxId : null;
  const messageId = route.view === 'inbox' ? route.messageId : null;
  // Remote images are a per-message decision: opening another message starts blocked again.
  useEffect(() => setRemote(false), [messageId]);
  useShortcuts({ setHelp, toggleTheme, setTab, remote, setRemote, inboxId });

  const search = (q: string) => {
    location.hash = `#/search?q=${encodeURIComponent(q)}${inboxId ? `&inbox=${inboxId}` : ''}`;
  };
  const nav = (href: string, text: string, on: boolean) => html`<a href=${href} aria-current=${on ? 'page' : undefined}>${text}</a>`;
  return html`
    <header class="top">
      <h1><a href="#/">inboxd</a></h1>
      <nav aria-label="Views">
        ${nav('#/', 'Overview', route.view === 'home')}
        ${nav('#/threads', 'Threads', route.view === 'threads')}
        ${nav('#/runs', 'Runs', route.view === 'runs')}
        ${nav('#/workspace', 'Workspace', route.view === 'workspace')}
        ${admin ? nav('#/keys', 'Keys', route.view === 'keys') : ''}
        ${admin ? nav('#/audit', 'Audit', route.view === 'audit') : ''}
      </nav>
      <span class="who muted" title=${me.keyId}>${me.team.name} · ${me.role}${me.scope?.labelPrefix ? ` · ${me.scope.labelPrefix}*` : ''}${me.scope?.readOnly ? ' · read-only' : ''}</span>
      <button type="button" id="theme" aria-pressed=${theme === 'dark' ? 'true' : 'false'} onClick=${toggleTheme} title="Dark mode (t)">Dark <kbd>t</kbd></button>
      <button type="button" onClick=${() => setHelp(true)} title="Keyboard shortcuts (?)">Shortcuts <kbd>?</kbd></button>
      <button type="button" onClick=${signOut}>Forget key</button>
    </header>
    <div class="layout">
      <${Sidebar} label=${label} setLabel=${setLabel} currentInbox=${inboxId}
        searchText=${route.view === 'search' ? route.q : ''} onSearch=${search} />
      <main id="main" tabIndex="-1">
        ${route.view === 'home' ? html`<${Dashboard} setLabel=${setLabel} />` : ''}
        ${route.view === 'threads' ? html`<${AllThreads} />` : ''}
        ${route.view === 'search' ? html`<${SearchView} q=${route.q} inboxId=${route.inboxId} />` : ''}
        ${route.view === 'keys' ? html`<${Keys} />` : ''}
        ${route.view === 'audit' ? html`<${Audit} />` : ''}
        ${route.view === 'runs' ? (route.runId ? html`<${RunPage} key=${route.runId} runId=${route.runId} me=${me} />` : html`<${RunList} />`) : ''}
        ${route.view === 'workspace' ? html`<${WorkspacePage} me=${me} sub=${route.sub} />` : ''}
        ${route.view === 'inbox' ? html`<${InboxPage} key=${route.inboxId} route=${route} tab=${tab} setTab=${setTab} remote=${remote} setRemote=${setRemote} />` : ''}
      </main>
    </div>
    ${help ? html`<${Help} close=${() => setHelp(false)} />` : ''}`;
}

function InboxPage({
  route,
  tab,
  setTab,
  remote,
  setRemote,
}: {
  route: Extract<Route, { view: 'inbox' }>;
  tab: string;
  setTab: (t: string) => void;
  remote: boolean;
  setRemote: (r: boolean) => void;
}) {
  const inbox = useApi<Inbox>(`v1/inboxes/${route.inboxId}`);
  const live = useLiveMessages(inbox.data);
  const i = inbox.data;
  // Counts from the console aggregate, read again as mail arrives; a server without the route just shows none.
  const detail = useApi<InboxDetail>(`v1/console/inboxes/${route.inboxId}?limit=1`);
  // A live arrival changes the inbox's own count (messagesReceived) and the aggregate's: both are read again.
  useArrivals((id) => {
    if (id !== route.inboxId) return;
    inbox.reload();
    detail.reload();
  });
  const counts = detail.data?.messages?.counts;
  const deliveries = detail.data?.callbacks?.deliveries;
  // Opened from the inbox list with the keyboard: focus moves into the inbox, so j/k walk its messages next.
  useEffect(() => {
    if (i && (document.activeElement as HTMLElement | null)?.dataset['nav'] === 'inboxes') document.getElementById('main')?.focus();
  }, [i?.inboxId]);
  const sub = (name: string, href: string, on: boolean) => html`<a href=${href} aria-current=${on ? 'page' : undefined}>${name}</a>`;
  if (!i) return html`<${ErrorNote} error=${inbox.error} what="this inbox" />`;
  return html`<div class="inbox">
    <header class="inbox-head">
      <h2><code id="inbox-address">${i.address}</code> <${CopyButton} text=${i.address} what="address" /></h2>
      <p class="muted">${i.label ? html`label <span class="badge">${i.label}</span> · ` : ''}${
        // The aggregate counts the received mail stored now (a delete or a clear lowers it); messagesReceived is the
        // inbox's sequence (every message ever, sent copies too), the only figure from a server without the aggregate.
        counts
          ? `${counts.received} received · ${counts.verified} with a code or link`
          : `${i.messagesReceived} message${i.messagesReceived === 1 ? '' : 's'}`
      }${
        deliveries && (deliveries.failing || deliveries.delivered || deliveries.pending)
          ? ` · callbacks ${deliveries.delivered} delivered, ${deliveries.failing} failing`
          : ''
      } · expires <span title=${fullTime(i.expiresAt)}>${ago(i.expiresAt)}</span>
        ${i.callbackUrl ? html` · callback <code>${i.callbackUrl}</code>` : ''}</p>
      <nav class="subnav" aria-label="Inbox views">
        ${sub(`Messages (${live.items.length})`, `#/inbox/${i.inboxId}`, route.sub === 'messages')}
        ${sub('Threads', `#/inbox/${i.inboxId}/threads`, route.sub === 'threads')}
        ${sub('Callbacks', `#/inbox/${i.inboxId}/callbacks`, route.sub === 'callbacks')}
        ${sub('Faults', `#/inbox/${i.inboxId}/faults`, route.sub === 'faults')}
      </nav>
      <${InboxActions} inbox=${i} changed=${live.refresh} cleared=${() => (live.clear(), inbox.reload(), detail.reload())} />
    </header>
    ${
      route.sub === 'messages'
        ? html`<div class="split">
          <${MessageList} inbox=${i} list=${live} selected=${route.messageId} />
          ${
            route.messageId
              ? html`<${MessageView} key=${route.messageId} inboxId=${i.inboxId} messageId=${route.messageId} tab=${tab} setTab=${setTab} list=${live}
                  remote=${remote} setRemote=${setRemote} />`
              : html`<section class="message empty-pane"><p class="empty">Select a message (<kbd>j</kbd>/<kbd>k</kbd>, <kbd>Enter</kbd>).</p></section>`
          }
        </div>`
        : ''
    }
    ${
      route.sub === 'threads'
        ? html`<div class="split"><${InboxThreads} inboxId=${i.inboxId} />
          ${route.threadId ? html`<${ThreadView} key=${route.threadId} inboxId=${i.inboxId} threadId=${route.threadId} />` : html`<section class="message empty-pane"><p class="empty">Select a thread.</p></section>`}</div>`
        : ''
    }
    ${route.sub === 'callbacks' ? html`<${Callbacks} inboxId=${i.inboxId} />` : ''}
    ${route.sub === 'faults' ? html`<${FaultsPanel} inbox=${i} />` : ''}
  </div>`;
}

export const SHORTCUTS: Array<[string, string]> = [
  ['?', 'this help'],
  ['/', 'search mail'],
  ['j / k', 'next / previous item of the list (messages open as you move)'],
  ['Enter', 'open the focused item'],
  ['Esc', 'close the message, or this help'],
  ['c', 'copy the extracted code'],
  ['l', 'copy the extracted link'],
  ['1 … 6', 'message tabs: HTML, Text, Links, Headers, Raw, Attachments'],
  ['i', 'remote images in the HTML preview on / off'],
  ['r', 'reply to the open message'],
  ['u', 'mark the open message read / unread'],
  ['Delete or #', 'delete the open message (asks first)'],
  ['t', 'dark / light mode'],
  ['g o', 'overview'],
  ['g i', 'inbox list'],
  ['g t', 'recent threads'],
  ['g r', 'agent runs'],
  ['g w', 'workspace (today)'],
  ['g k', 'keys (admin)'],
  ['g a', 'audit log (admin)'],
];

function Help({ close }: { close: () => void }) {
  const ref = useModal(close);
  return html`<dialog ref=${ref} class="help" aria-labelledby="help-title">
    <h2 id="help-title">Keyboard shortcuts</h2>
    <table><tbody>${SHORTCUTS.map(([k, what]) => html`<tr><th scope="row"><kbd>${k}</kbd></th><td>${what}</td></tr>`)}</tbody></table>
    <p class="muted">Tab and Shift+Tab move through everything; arrow keys move between tabs.</p>
    <form method="dialog"><button type="submit" autofocus>Close</button></form>
  </dialog>`;
}

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

function useShortcuts(o: {
  setHelp: (v: boolean) => void;
  toggleTheme: () => void;
  setTab: (t: string) => void;
  remote: boolean;
  setRemote: (r: boolean) => void;
  inboxId: string | null;
}) {
  const state = useRef(o);
  state.current = o;
  useEffect(() => {
    let pendingG = false;
    const onKey = (e: KeyboardEvent) => {
      const s = state.current;
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      if (typing(e.target)) {
        if (e.key === 'Escape') (e.target as HTMLElement).blur();
        return;
      }
      if (document.querySelector('dialog[open]')) return;
      const click = (sel: string) => document.querySelector<HTMLElement>(sel)?.click();
      if (pendingG) {
        pendingG = false;
        const to: Record<string, string> = { o: '#/', t: '#/threads', k: '#/keys', a: '#/audit', r: '#/runs', w: '#/workspace' };
        if (e.key === 'i') document.querySelector<HTMLElement>('[data-nav="inboxes"]')?.focus();
        else if (to[e.key]) location.hash = to[e.key]!;
        else return;
        e.preventDefault();
        return;
      }
      const tabs = ['html', 'text', 'links', 'headers', 'raw', 'attachments'];
      switch (e.key) {
        case '?':
          s.setHelp(true);
          break;
        case '/':
          document.getElementById('search')?.focus();
          break;
        case 'j':
        case 'k':
          move(e.key === 'j' ? 1 : -1);
          break;
        case 'Escape':
          if (s.inboxId && /\/(m|thread)\//.test(location.hash)) {
            // Back to the list the item was opened from, with focus on that item.
            const thread = location.hash.includes('/thread/');
            const open = location.hash.split('/').pop() ?? '';
            location.hash = thread ? `#/inbox/${s.inboxId}/threads` : `#/inbox/${s.inboxId}`;
            const sel = thread ? `[data-thread-id="${CSS.escape(open)}"]` : `[data-message-id="${CSS.escape(open)}"]`;
            requestAnimationFrame(() => document.querySelector<HTMLElement>(sel)?.focus());
          } else return;
          break;
        case 'c':
          click('.message button[data-copy="code"]');
          break;
        case 'l':
          click('.message .verification button[data-copy="link"]');
          break;
        case 'i':
          click('#toggle-images');
          break;
        case 'r':
          click('.message #reply');
          break;
        case 'u':
          click('.message #mark-seen');
          break;
        case 'Delete':
        case '#':
          click('.message #delete-message');
          break;
        case 't':
          s.toggleTheme();
          break;
        case 'g':
          pendingG = true;
          setTimeout(() => (pendingG = false), 1500);
          break;
        default:
          if (/^[1-6]$/.test(e.key) && document.querySelector('.message [role="tablist"]')) {
            const want = tabs[Number(e.key) - 1]!;
            if (document.getElementById(`tab-${want}`)) s.setTab(want);
          } else return;
      }
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

/** j/k: the list that has focus, else the message list, else the first list on the page. */
function move(step: number): void {
  const active = document.activeElement as HTMLElement | null;
  const group =
    active?.dataset['nav'] ??
    (document.querySelector('[data-nav="messages"]')
      ? 'messages'
      : // The overview's recent mail is reached by Tab; there j/k walk the inbox list, as the overview says.
        (document.querySelector('main [data-nav]:not([data-nav="recent"])') as HTMLElement | null)?.dataset['nav']) ??
    'inboxes';
  const items = Array.from(document.querySelectorAll<HTMLElement>(`[data-nav="${group}"]`));
  if (!items.length) return;
  const at = active ? items.indexOf(active) : -1;
  const current = at >= 0 ? at : items.findIndex((el) => el.getAttribute('aria-current') === 'page');
  const next = items[Math.max(0, Math.min(items.length - 1, current < 0 ? 0 : current + step))]!;
  next.focus();
  if (group === 'messages') next.click();
}
