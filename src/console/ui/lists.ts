/// <reference lib="dom" />
// The side bar (inboxes with a label filter and the search box), the dashboard, threads, search results and the
// callback delivery log.
import { useEffect, useState } from 'preact/hooks';
import { NewInbox, ReadOnlyNote } from './actions.ts';
import { query } from './api.ts';
import type { CallbackAttempt, Inbox, Page, SearchAnswer, Summary, Thread, ThreadDetail } from './types.ts';
import { ago, Direction, ErrorNote, fullTime, html, party, Snippet, Time, useApi, useArrivals, who } from './ui.ts';

export function Sidebar({
  label,
  setLabel,
  currentInbox,
  searchText,
  onSearch,
}: {
  label: string;
  setLabel: (l: string) => void;
  currentInbox: string | null;
  searchText: string;
  onSearch: (q: string) => void;
}) {
  const [draft, setDraft] = useState(label);
  useEffect(() => setDraft(label), [label]);
  const [q, setQ] = useState(searchText);
  // The box shows the query of the page the history is at: Back to an earlier search shows that query, Back to a
  // page without one empties it.
  useEffect(() => setQ(searchText), [searchText]);
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useApi<Page<Inbox>>(`v1/inboxes${query({ label, limit: 100, cursor })}`);
  // New inboxes (a CI run just started) show up without a click: the list is read again every 10 s while visible.
  const reload = page.reload;
  useEffect(() => {
    const t = setInterval(() => document.visibilityState === 'visible' && reload(), 10_000);
    return () => clearInterval(t);
  }, [reload]);
  // Mail that arrives live in the open inbox changes its count here at once.
  useArrivals(() => reload());
  return html`<nav class="sidebar" aria-label="Inboxes">
    <form role="search" class="search" onSubmit=${(e: Event) => {
      e.preventDefault();
      if (q.trim()) onSearch(q.trim());
    }}>
      <label for="search">Search mail <kbd>/</kbd></label>
      <input id="search" type="search" value=${q} placeholder='code from:github "reset"' autocomplete="off"
        onInput=${(e: Event) => setQ((e.target as HTMLInputElement).value)} />
    </form>
    <form class="filter" onSubmit=${(e: Event) => {
      e.preventDefault();
      setCursor(null);
      setLabel(draft.trim());
    }}>
      <label for="label-filter">Label</label>
      <input id="label-filter" value=${draft} placeholder="exact label, Enter" autocomplete="off"
        onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)} />
      ${label ? html`<button type="button" class="link-button" onClick=${() => (setDraft(''), setLabel(''))}>clear</button>` : ''}
    </form>
    <h2 class="side-title">Inboxes${label ? html` <span class="muted">label ${label}</span>` : ''}</h2>
    <${ReadOnlyNote} />
    <p class="side-actions"><${NewInbox} created=${(i: Inbox) => {
      reload();
      location.hash = `#/inbox/${i.inboxId}`;
    }} /></p>
    <${ErrorNote} error=${page.error} what="the inboxes" />
    ${page.data && page.data.items.length === 0 ? html`<p class="empty">No inboxes${label ? ' with this label' : ''}.</p>` : ''}
    <ul class="items" data-list="inboxes">
      ${(page.data?.items ?? []).map(
        (i) => html`<li key=${i.inboxId}><a class=${`item${i.inboxId === currentInbox ? ' current' : ''}`} href=${`#/inbox/${i.inboxId}`}
          data-nav="inboxes" data-inbox-id=${i.inboxId} aria-current=${i.inboxId === currentInbox ? 'page' : undefined}>
          <span class="address">${i.address}</span>
          <span class="row3">${i.label ? html`<span class="badge">${i.label}</span>` : ''}
            <span class="muted">${i.messagesReceived} msg · expires <span title=${fullTime(i.expiresAt)}>${ago(i.expiresAt)}</span></span></span>
        </a></li>`,
      )}
    </ul>
    <p class="pager">
      ${cursor ? html`<button type="button" onClick=${() => setCursor(null)}>First page</button>` : ''}
      ${page.data?.nextCursor ? html`<button type="button" onClick=${() => setCursor(page.data!.nextCursor)}>Older inboxes</button>` : ''}
      <button type="button" onClick=${page.reload}>Refresh</button>
    </p>
  </nav>`;
}

/** GET /v1/console/summary: counts, the busiest labels (a click filters the inbox list) and the newest mail. */
export function Dashboard({ setLabel }: { setLabel: (l: string) => void }) {
  const s = useApi<Summary>('v1/console/summary');
  const d = s.data;
  // The counts follow new mail: read again on a live arrival, and every 5 s while the page is visible (mail to an
  // inbox that is not open has no stream here).
  const reload = s.reload;
  useArrivals(() => reload());
  useEffect(() => {
    const t = setInterval(() => document.visibilityState === 'visible' && reload(), 5_000);
    return () => clearInterval(t);
  }, [reload]);
  const tile = (value: number | undefined, key: string, sub?: string) =>
    value === undefined
      ? ''
      : html`<div class="tile"><span class="value">${value}</span><span class="key">${key}</span>${sub ? html`<span class="key">${sub}</span>` : ''}</div>`;
  return html`<section class="dashboard" aria-label="Summary">
    <h2>Overview${d?.scope?.labelPrefix ? html` <span class="muted">labels ${d.scope.labelPrefix}*</span>` : ''}</h2>
    <p class="muted">Pick an inbox on the left (<kbd>j</kbd>/<kbd>k</kbd>, <kbd>Enter</kbd>), search with <kbd>/</kbd>,
      and press <kbd>?</kbd> for every shortcut.</p>
    <${ErrorNote} error=${s.error} what="the dashboard summary (GET /v1/console/summary)" />
    ${
      d
        ? html`<div class="tiles">
            ${tile(d.inboxes?.total, 'inboxes', d.inboxes ? `${d.inboxes.withCallback} with a callback` : undefined)}
            ${tile(d.messages?.receivedToday, 'received today', d.messages ? `${d.messages.received} in all` : undefined)}
            ${tile(d.messages?.verifiedToday, 'with a code or link today', d.messages ? `${d.messages.verified} in all` : undefined)}
            ${tile(d.callbacks?.failing, 'callbacks failing', d.callbacks ? `${d.callbacks.delivered} delivered, ${d.callbacks.pending} pending` : undefined)}
          </div>
          ${
            d.topLabels?.length
              ? html`<h3>Top labels</h3><table class="grid"><thead><tr><th>Label</th><th>Inboxes</th><th>Messages</th></tr></thead><tbody>
                ${d.topLabels.map(
                  (l) => html`<tr><td><button type="button" class="link-button" onClick=${() => setLabel(l.label)}>${l.label}</button></td>
                    <td>${l.inboxes}</td><td>${l.messages}</td></tr>`,
                )}</tbody></table>`
              : ''
          }
          ${
            d.recentActivity?.length
              ? html`<h3>Recent mail</h3><ul class="items" data-list="recent">${d.recentActivity.map(
                  (m) => html`<li key=${m.messageId}><a class="item" data-nav="recent" href=${`#/inbox/${m.inboxId}/m/${m.messageId}`}>
                    <span class="row1"><span class="from">${party(m)}</span><${Time} iso=${m.receivedAt} /></span>
                    <span class="subject">${m.subject || '(no subject)'}</span>
                    <span class="row3"><${Direction} m=${m} /><span class="muted">${m.address}</span>${m.label ? html`<span class="badge">${m.label}</span>` : ''}
                      ${m.verification?.otp ? html`<span class="badge code">code ${m.verification.otp}</span>` : ''}
                      ${m.verification?.primaryLink ? html`<span class="badge link">link</span>` : ''}</span>
                  </a></li>`,
                )}</ul>`
              : ''
          }`
        : ''
    }
  </section>`;
}

function ThreadItems({ items, inboxId }: { items: Thread[]; inboxId?: string }) {
  if (!items.length) return html`<p class="empty">No threads yet.</p>`;
  return html`<ul class="items" data-list="threads">${items.map((t) => {
    const ib = t.inbox?.inboxId ?? t.inboxId ?? inboxId ?? '';
    return html`<li key=${t.threadId}><a class="item" data-nav="threads" data-thread-id=${t.threadId} href=${`#/inbox/${ib}/thread/${t.threadId}`}>
      <span class="row1"><span class="subject">${t.subject || '(no subject)'}</span><${Time} iso=${t.lastMessageAt} /></span>
      <span class="row3"><span class="badge">${t.messageCount} msg</span>${t.inbox ? html`<span class="badge">${t.inbox.address}</span>` : ''}
        <span class="muted">${(t.participants ?? []).map(who).join(', ')}</span></span>
      ${t.snippet ? html`<span class="muted snippet">${t.snippet}</span>` : ''}
    </a></li>`;
  })}</ul>`;
}

export function InboxThreads({ inboxId }: { inboxId: string }) {
  const page = useApi<Page<Thread>>(`v1/inboxes/${inboxId}/threads?limit=100`);
  return html`<section class="list" aria-label="Threads"><h2>Threads</h2>
    <${ErrorNote} error=${page.error} what="threads" />
    ${page.data ? html`<${ThreadItems} items=${page.data.items} inboxId=${inboxId} />` : ''}</section>`;
}

export function AllThreads() {
  const page = useApi<Page<Thread>>('v1/console/threads?limit=100');
  return html`<section class="wide" aria-label="Recent threads"><h2>Recent threads</h2>
    <${ErrorNote} error=${page.error} what="recent threads across inboxes (GET /v1/console/threads)" />
    ${page.data ? html`<${ThreadItems} items=${page.data.items} />` : ''}</section>`;
}

export function ThreadView({ inboxId, threadId }: { inboxId: string; threadId: string }) {
  const t = useApi<ThreadDetail>(`v1/inboxes/${inboxId}/threads/${threadId}`);
  return html`<section class="message" aria-label="Thread">
    <${ErrorNote} error=${t.error} what="this thread" />
    ${
      t.data
        ? html`<h2 id="message-subject" tabIndex="-1">${t.data.subject || '(no subject)'}</h2>
          <p class="muted">${t.data.messageCount ?? t.data.messages.length} messages · ${(t.data.participants ?? []).map(who).join(', ')}</p>
          <ol class="items thread">${t.data.messages.map(
            (m) => html`<li key=${m.messageId}><a class="item" data-nav="thread-messages" data-direction=${m.direction ?? 'inbound'}
              href=${`#/inbox/${inboxId}/m/${m.messageId}`}>
              <span class="row1"><span class="from">${party(m)}</span><${Time} iso=${m.receivedAt} /></span>
              <span class="subject">${m.subject}</span><span class="row3"><${Direction} m=${m} /></span></a></li>`,
          )}</ol>`
        : ''
    }
  </section>`;
}

export function SearchView({ q, inboxId }: { q: string; inboxId: string | null }) {
  const path = inboxId ? `v1/inboxes/${inboxId}/search${query({ q, limit: 50 })}` : `v1/search${query({ q, limit: 50 })}`;
  const r = useApi<SearchAnswer>(path);
  return html`<section class="wide" aria-label="Search results">
    <h2>Search <q>${q}</q>${inboxId ? html` <span class="muted">in ${inboxId}</span>` : ''}</h2>
    <${ErrorNote} error=${r.error} what="search" />
    ${r.data ? html`<p class="muted">${r.data.items.length} result${r.data.items.length === 1 ? '' : 's'} · ${r.data.mode}${r.data.semantic ? ' (semantic)' : ''}</p>` : ''}
    ${r.loading ? html`<p class="empty">Searching…</p>` : ''}
    <ul class="items" data-list="search">${(r.data?.items ?? []).map(
      (
        m,
      ) => html`<li key=${m.messageId}><a class="item" data-nav="search" data-message-id=${m.messageId} data-direction=${m.direction ?? 'inbound'}
        href=${`#/inbox/${m.inboxId}/m/${m.messageId}`}>
        <span class="row1"><span class="from">${party(m)}</span><${Time} iso=${m.receivedAt} /></span>
        <span class="subject">${m.subject || '(no subject)'}</span>
        <span class="row3"><${Direction} m=${m} /><span class="muted inbox-address" title="The inbox it is in">${m.inboxAddress ?? m.inboxId}</span></span>
        <${Snippet} text=${m.snippet} />
      </a></li>`,
    )}</ul>
  </section>`;
}

export function Callbacks({ inboxId }: { inboxId: string }) {
  const page = useApi<Page<CallbackAttempt>>(`v1/inboxes/${inboxId}/callbacks?limit=200`);
  const items = page.data?.items ?? [];
  return html`<section class="wide" aria-label="Callback deliveries"><h2>Callback deliveries</h2>
    <${ErrorNote} error=${page.error} what="the callback log" />
    ${page.data && !items.length ? html`<p class="empty">No callback attempts (the inbox has no callbackUrl, or no mail yet).</p>` : ''}
    ${
      items.length
        ? html`<table class="grid"><thead><tr><th>At</th><th>Message</th><th>Attempt</th><th>Status</th><th>Time</th><th>Next retry</th></tr></thead>
          <tbody>${items.map(
            (
              c,
            ) => html`<tr class=${c.delivered ? 'ok' : 'bad'}><td><${Time} iso=${c.at} /></td><td><a href=${`#/inbox/${inboxId}/m/${c.messageId}`}>${c.messageId}</a></td>
              <td>${c.attempt}</td><td>${c.delivered ? `delivered (${c.statusCode})` : (c.statusCode ?? c.error ?? 'failed')}</td>
              <td>${c.durationMs} ms</td><td><${Time} iso=${c.nextRetryAt} /></td></tr>`,
          )}</tbody></table>`
        : ''
    }
    <p><button type="button" onClick=${page.reload}>Refresh</button></p>
  </section>`;
}
