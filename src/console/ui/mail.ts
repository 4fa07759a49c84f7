/// <reference lib="dom" />
// One inbox: its live message list (SSE), and the message view (verification panel, HTML preview, text, links,
// headers, raw, attachments).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { MessageActions } from './actions.ts';
import { ApiError, api, apiBlob, pathOf, query, streamEvents } from './api.ts';
import { ChecksPart, type SourceLine, SourcePart } from './checks.ts';
import {
  cidRefs,
  htmlBytes,
  INLINE_IMAGE_MAX,
  INLINE_IMAGE_TYPES,
  isInlinePart,
  linksOf,
  normalizeCid,
  previewCsp,
  previewDocument,
  remoteImageCount,
  WIDTHS,
  withClipMark,
  withInlineImages,
} from './preview.ts';
import type { Attachment, Delivery, Inbox, Message, MessageSummary, Page } from './types.ts';
import { bytes, CopyButton, Direction, ErrorNote, html, notifyArrival, party, safeHref, say, Tabs, Time, useApi, who } from './ui.ts';

type Live = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** The inbox's messages: the first page from the list route, then every new one as it arrives over SSE. */
export interface LiveMessages {
  items: MessageSummary[];
  live: Live;
  why: string;
  error: Error | null;
  /** Loads the next page of older messages; null when there is none. */
  more: (() => void) | null;
  /** After an action of this page: a message deleted, the inbox cleared, a field changed, the first page read again. */
  remove: (id: string) => void;
  clear: () => void;
  patch: (id: string, fields: Partial<MessageSummary>) => void;
  refresh: () => void;
}

export function useLiveMessages(inbox: Inbox | null): LiveMessages {
  const [items, setItems] = useState<MessageSummary[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [live, setLive] = useState<Live>('connecting');
  const [why, setWhy] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const inboxId = inbox?.inboxId ?? null;
  useEffect(() => {
    if (!inbox) return;
    setItems([]);
    setLive('connecting');
    setError(null);
    let stop: (() => void) | null = null;
    let gone = false;
    const ctrl = new AbortController();
    // The stream resumes after the sequence the inbox had when we asked; a message that lands between the two calls
    // comes twice and is kept once.
    const seq = String(inbox.messagesReceived);
    api<Page<MessageSummary>>(`v1/inboxes/${inbox.inboxId}/messages?limit=100`, { signal: ctrl.signal }).then(
      (page) => {
        if (gone) return;
        setItems((cur) => merge(cur, page.items));
        setNext(page.nextCursor);
        stop = streamEvents(`v1/inboxes/${inbox.inboxId}/events`, {
          lastEventId: seq,
          onEvent: (e) => {
            if (e.event !== 'message.received') return;
            try {
              const m = JSON.parse(e.data) as MessageSummary;
              setItems((cur) => merge(cur, [m]));
              notifyArrival(inbox.inboxId);
              say(`New message: ${m.subject || '(no subject)'}`);
            } catch {
              // A frame that is not JSON: ignore it, the next one is independent.
            }
          },
          onState: (s, w) => {
            setLive(s);
            setWhy(w ?? '');
          },
        });
      },
      (e: Error) => {
        if (!gone) setError(e);
      },
    );
    return () => {
      gone = true;
      ctrl.abort();
      stop?.();
    };
  }, [inboxId]);
  const more =
    inbox && next
      ? () => {
          api<Page<MessageSummary>>(`v1/inboxes/${inbox.inboxId}/messages${query({ limit: 100, cursor: next })}`).then(
            (page) => {
              setItems((cur) => merge(cur, page.items));
              setNext(page.nextCursor);
            },
            (e: Error) => setError(e),
          );
        }
      : null;
  const remove = (id: string) => setItems((cur) => cur.filter((m) => m.messageId !== id));
  const clear = () => {
    setItems([]);
    setNext(null);
  };
  const patch = (id: string, fields: Partial<MessageSummary>) =>
    setItems((cur) => cur.map((m) => (m.messageId === id ? { ...m, ...fields } : m)));
  // A sent copy is not on the inbox's event stream: after a send the first page is read again.
  const refresh = () => {
    if (!inbox) return;
    api<Page<MessageSummary>>(`v1/inboxes/${inbox.inboxId}/messages?limit=100`).then(
      (page) => setItems((cur) => merge(cur, page.items)),
      (e: Error) => setError(e),
    );
  };
  return { items, live, why, error, more, remove, clear, patch, refresh };
}

function merge(cur: MessageSummary[], add: MessageSummary[]): MessageSummary[] {
  const seen = new Set(cur.map((m) => m.messageId));
  const fresh = add.filter((m) => !seen.has(m.messageId));
  if (!fresh.length) return cur;
  return [...fresh, ...cur].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
}

export function MessageList({ inbox, list, selected }: { inbox: Inbox; list: LiveMessages; selected: string | null }) {
  const { items, live, why, error, more } = list;
  return html`<section class="list" aria-label="Messages">
    <div class="list-head">
      <h2>Messages</h2>
      <span class=${`live live-${live}`} role="status" title=${why}>${live === 'live' ? 'live' : live}${why ? `: ${why}` : ''}</span>
    </div>
    <${ErrorNote} error=${error} what="the messages" />
    ${
      items.length === 0 && !error
        ? html`<p class="empty">No mail yet. Send mail to <code>${inbox.address}</code>; it appears here as it arrives.</p>`
        : html`<ul class="items" data-list="messages">
          ${items.map(
            (m) => html`<li key=${m.messageId}>
              <a href=${`#/inbox/${inbox.inboxId}/m/${m.messageId}`} class=${`item${m.messageId === selected ? ' current' : ''}`}
                data-nav="messages" data-message-id=${m.messageId} data-direction=${m.direction ?? 'inbound'}
                data-seen=${m.seen === undefined ? undefined : String(m.seen)}
                aria-current=${m.messageId === selected ? 'page' : undefined}>
                <span class="row1"><span class="from">${m.seen === false ? html`<span class="unread" title="Unread">●</span> ` : ''}${party(m)}</span><${Time} iso=${m.receivedAt} /></span>
                <span class="subject">${m.subject || '(no subject)'}</span>
                <span class="row3">
                  <${Direction} m=${m} />
                  ${m.verification.otp ? html`<span class="badge code">code ${m.verification.otp}</span>` : ''}
                  ${m.verification.primaryLink ? html`<span class="badge link">link</span>` : ''}
                  ${m.attachmentCount ? html`<span class="badge">${m.attachmentCount} att.</span>` : ''}
                  ${m.direction !== 'outbound' && m.via !== 'smtp' ? html`<span class="badge muted" title="How it arrived">via ${m.via}</span>` : ''}
                </span>
              </a>
            </li>`,
          )}
        </ul>`
    }
    ${more ? html`<p class="pager"><button type="button" onClick=${more}>Older messages</button></p>` : ''}
  </section>`;
}

export function MessageView({
  inboxId,
  messageId,
  tab,
  setTab,
  remote,
  setRemote,
  list,
}: {
  inboxId: string;
  messageId: string;
  tab: string;
  setTab: (t: string) => void;
  remote: boolean;
  setRemote: (r: boolean) => void;
  list: LiveMessages;
}) {
  const msg = useApi<Message>(`v1/inboxes/${inboxId}/messages/${messageId}`);
  const [line, setLine] = useState<SourceLine | null>(null);
  const [seen, setSeen] = useState<boolean | null>(null);
  const m = msg.data;
  if (!m) {
    return html`<section class="message" aria-label="Message">
      ${msg.error ? html`<${ErrorNote} error=${msg.error} what="this message" />` : html`<p class="empty">Loading…</p>`}
    </section>`;
  }
  const refs = cidRefs(m.html);
  // Parts the HTML shows inline are not attachments to list; they appear in the preview.
  const listed = m.attachments.filter((a) => !isInlinePart(a, refs));
  const inline = m.attachments.filter((a) => isInlinePart(a, refs));
  const sent = m.direction === 'outbound';
  const tabs = [
    ...(m.html ? [{ id: 'html', label: 'HTML' }] : []),
    { id: 'text', label: 'Text' },
    { id: 'links', label: 'Links' },
    { id: 'headers', label: 'Headers' },
    { id: 'raw', label: 'Raw' },
    { id: 'attachments', label: `Attachments (${listed.length})` },
    { id: 'checks', label: 'Checks' },
    { id: 'source', label: 'Source' },
  ];
  const current = tabs.some((t) => t.id === tab) ? tab : tabs[0]!.id;
  return html`<section class="message" aria-label="Message" data-message=${m.messageId}>
    <header class="message-head">
      <h2 id="message-subject" tabIndex="-1">${m.subject || '(no subject)'}</h2>
      <dl class="meta">
        <dt>From</dt><dd>${who(m.from)}</dd>
        <dt>To</dt><dd>${m.to.map(who).join(', ') || '—'}</dd>
        ${
          sent
            ? html`<dt>Sent</dt><dd><${Time} iso=${m.receivedAt} /> · ${bytes(m.size)} · <${Direction} m=${m} /> ${deliverySummary(m.deliveries)}</dd>
              <dt>Delivery</dt><dd><${Deliveries} items=${m.deliveries} /></dd>`
            : html`<dt>Received</dt><dd><${Time} iso=${m.receivedAt} /> · ${bytes(m.size)} · via ${m.via} <${Direction} m=${m} /></dd>
              ${m.deliveries?.length ? html`<dt>Released</dt><dd>${deliverySummary(m.deliveries)} <${Deliveries} items=${m.deliveries} /></dd>` : ''}`
        }
      </dl>
      <${MessageActions} m=${m} seen=${seen ?? m.seen ?? false}
        setSeen=${(v: boolean) => (setSeen(v), list.patch(m.messageId, { seen: v }))}
        deleted=${() => {
          list.remove(m.messageId);
          location.hash = `#/inbox/${inboxId}`;
        }}
        changed=${() => (msg.reload(), list.refresh())} />
      <button type="button" id="download-eml" class="download-eml" onClick=${() => void download(pathOf(m.rawUrl), `${m.messageId}.eml`)}>Download .eml</button>
    </header>
    ${sent ? '' : html`<${VerificationPanel} m=${m} />`}
    <${Tabs} tabs=${tabs} current=${current} onSelect=${setTab} label="Message parts">
      ${current === 'html' && m.html ? html`<${HtmlPreview} html=${m.html} inline=${inline} remote=${remote} setRemote=${setRemote} />` : ''}
      ${current === 'text' ? html`<${TextPart} text=${m.text} source=${m.textSource} hasHtml=${!!m.html} otp=${m.verification.otp} />` : ''}
      ${current === 'links' ? html`<${LinksPart} m=${m} />` : ''}
      ${current === 'headers' ? html`<${HeadersPart} m=${m} />` : ''}
      ${current === 'raw' ? html`<${RawPart} m=${m} />` : ''}
      ${current === 'attachments' ? html`<${AttachmentsPart} items=${listed} inline=${inline} />` : ''}
      ${
        current === 'checks'
          ? html`<${ChecksPart} m=${m} jump=${(at: SourceLine) => {
              setLine(at);
              setTab('source');
            }} />`
          : ''
      }
      ${current === 'source' ? html`<${SourcePart} m=${m} at=${line} />` : ''}
    </${Tabs}>
  </section>`;
}

function VerificationPanel({ m }: { m: Message }) {
  const { otp, primaryLink } = m.verification;
  if (!otp && !primaryLink) {
    return html`<div class="verification none" aria-label="Extracted">Nothing to extract: no code or verification link found.</div>`;
  }
  const href = safeHref(primaryLink);
  return html`<div class="verification" aria-label="Extracted">
    ${
      otp
        ? html`<div class="extract"><span class="label">Code</span><output class="otp" id="otp">${otp}</output>
          <${CopyButton} text=${otp} what="code" hotkey="c" /></div>`
        : ''
    }
    ${
      primaryLink
        ? html`<div class="extract"><span class="label">Link</span>
          ${href ? html`<a class="primary-link" href=${href} target="_blank" rel="noopener noreferrer">${primaryLink}</a>` : html`<span class="primary-link">${primaryLink}</span>`}
          <${CopyButton} text=${primaryLink} what="link" hotkey="l" /></div>`
        : ''
    }
  </div>`;
}

const NO_IMAGES = new Map<string, string>();

/** The message's inline images as data: URLs by Content-ID; null while they are being fetched. */
function useInlineImages(parts: Attachment[]): Map<string, string> | null {
  const wanted = parts
    .filter((a) => a.contentId && INLINE_IMAGE_TYPES.has(a.contentType.toLowerCase()) && a.size <= INLINE_IMAGE_MAX)
    .slice(0, 50);
  const key = wanted.map((a) => a.attachmentId).join(',');
  const [images, setImages] = useState<{ key: string; map: Map<string, string> } | null>(null);
  useEffect(() => {
    if (!wanted.length) return;
    const ctrl = new AbortController();
    Promise.all(
      wanted.map(async (a): Promise<[string, string] | null> => {
        try {
          const blob = await apiBlob(pathOf(a.url), ctrl.signal);
          if (blob.size > INLINE_IMAGE_MAX) return null;
          // The type is the one the list named (an allowed image type), whatever the response said.
          const url = await new Promise<string>((resolve, reject) => {
            const r = new FileReader();
            r.onload = () => resolve(String(r.result));
            r.onerror = () => reject(r.error);
            r.readAsDataURL(new Blob([blob], { type: a.contentType.toLowerCase() }));
          });
          return [normalizeCid(a.contentId!), url];
        } catch {
          return null;
        }
      }),
    ).then((pairs) => {
      if (!ctrl.signal.aborted) setImages({ key, map: new Map(pairs.filter((p): p is [string, string] => p !== null)) });
    });
    return () => ctrl.abort();
  }, [key]);
  if (!wanted.length) return NO_IMAGES;
  return images?.key === key ? images.map : null;
}

type Width = keyof typeof WIDTHS;

function HtmlPreview({
  html: body,
  inline,
  remote,
  setRemote,
}: {
  html: string;
  inline: Attachment[];
  remote: boolean;
  setRemote: (r: boolean) => void;
}) {
  const images = useInlineImages(inline);
  const [width, setWidth] = useState<Width>('desktop');
  const [showImages, setShowImages] = useState(true);
  const [dark, setDark] = useState(false);
  const blocked = useMemo(() => remoteImageCount(body), [body]);
  const size = useMemo(() => htmlBytes(body), [body]);
  // The clip mark goes into the mail's own HTML before the cid: images (which grow it) are put in.
  const clipped = useMemo(() => withClipMark(body), [body]);
  const doc = useMemo(
    () => (images ? previewDocument(withInlineImages(clipped.html, images), remote, { images: showImages, dark }) : ''),
    [clipped, remote, images, showImages, dark],
  );
  if (!images) return html`<div class="preview"><p class="empty">Loading the inline images…</p></div>`;
  const px = WIDTHS[width];
  return html`<div class="preview">
    <div class="preview-bar">
      <span>Sandboxed preview: scripts, forms and links inside it are off.</span>
      <button type="button" aria-pressed=${remote ? 'true' : 'false'} onClick=${() => setRemote(!remote)} id="toggle-images"
        title="Load remote images (i)">${remote ? 'Remote images on' : `Remote images off${blocked ? ` (${blocked} blocked)` : ''}`} <kbd>i</kbd></button>
    </div>
    <div class="preview-bar client-view" role="group" aria-label="Render as clients would">
      <span role="radiogroup" aria-label="Width">${(Object.keys(WIDTHS) as Width[]).map(
        (w) => html`<button type="button" role="radio" aria-checked=${w === width ? 'true' : 'false'} data-width=${w}
          onClick=${() => setWidth(w)}>${w}${WIDTHS[w] ? ` ${WIDTHS[w]}px` : ''}</button>`,
      )}</span>
      <button type="button" id="preview-images" aria-pressed=${showImages ? 'true' : 'false'} onClick=${() => setShowImages(!showImages)}
        title="A client with images off shows alt text">Images ${showImages ? 'on' : 'off'}</button>
      <button type="button" id="preview-dark" aria-pressed=${dark ? 'true' : 'false'} onClick=${() => setDark(!dark)}
        title="The mail's own dark-mode CSS applies (prefers-color-scheme: dark)">${dark ? 'Dark' : 'Light'}</button>
      <span class=${`clip${clipped.at !== null ? ' over' : ''}`} id="clip-size"
        title="Gmail clips HTML over 102 KB and hides the rest behind “View entire message”">HTML ${bytes(size)} of Gmail's 102 KB${
          clipped.at !== null ? ': clipped, the cut is marked in the preview' : ''
        }</span>
    </div>
    <div class=${`preview-stage width-${width}`}>
      <iframe key=${`${remote}-${showImages}-${dark}`} title="Message HTML (sandboxed)" sandbox="" csp=${previewCsp(remote, showImages)}
        referrerpolicy="no-referrer" srcdoc=${doc} class="preview-frame" data-width=${width}
        style=${`${px ? `width:${px}px;` : ''}color-scheme:${dark ? 'dark' : 'light'}`}></iframe>
    </div>
  </div>`;
}

function TextPart({
  text,
  source,
  hasHtml,
  otp,
}: {
  text: string | null;
  source: 'part' | 'html' | null | undefined;
  hasHtml: boolean;
  otp: string | null;
}) {
  if (!text) {
    return html`<p class="empty">This message has no text part${hasHtml ? ' (this server does not derive one from the HTML: see the HTML tab)' : ''}.</p>`;
  }
  // The extracted code is marked where it appears in the text.
  const parts = otp ? text.split(otp) : [text];
  return html`${
    source === 'html'
      ? html`<p class="note derived" role="note">Derived from the HTML part: this message has no text part, so this is the text inboxd reads from its HTML.</p>`
      : ''
  }<pre class=${`text${source === 'html' ? ' derived' : ''}`}>${parts.map((p, i) => (i === 0 ? p : html`<mark class="otp-mark">${otp}</mark>${p}`))}</pre>`;
}

/** "2 sent, 1 queued": the recipients by delivery state. */
function deliverySummary(items: Delivery[] | undefined): string {
  if (!items?.length) return '';
  const by = new Map<string, number>();
  for (const d of items) by.set(d.state, (by.get(d.state) ?? 0) + 1);
  return [...by].map(([state, n]) => `${n} ${state}`).join(', ');
}

/** Each recipient of a sent message: its delivery state, route, attempts and the last answer. */
function Deliveries({ items }: { items: Delivery[] | undefined }) {
  if (!items) return html`<span class="muted">This server does not report delivery states.</span>`;
  if (!items.length) return html`<span class="muted">No recipients.</span>`;
  return html`<ul class="deliveries">${items.map(
    (d) => html`<li data-address=${d.address} data-state=${d.state}><code>${d.address}</code>
      <span class=${`badge state state-${d.state}`}>${d.state}</span>
      <span class="muted">${d.kind} · ${d.route}${d.attempts ? ` · ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : ''}${d.response ? ` · ${d.response}` : ''}</span>
      ${d.nextAttemptAt ? html`<span class="muted"> · next attempt <${Time} iso=${d.nextAttemptAt} /></span>` : ''}</li>`,
  )}</ul>`;
}

function LinksPart({ m }: { m: Message }) {
  const links = useMemo(() => (m.html ? linksOf(m.html) : []), [m.html]);
  const fromText = useMemo(
    () => (m.text ? Array.from(new Set(m.text.match(/https?:\/\/[^\s<>"')\]]+/g) ?? [])).slice(0, 200) : []),
    [m.text],
  );
  const all = links.length ? links : fromText.map((href) => ({ href, text: '' }));
  if (!all.length) return html`<p class="empty">No links.</p>`;
  return html`<ul class="links">${all.map(
    (l) => html`<li><code>${l.href}</code>${l.text ? html` <span class="muted">${l.text}</span>` : ''}
      ${l.href === m.verification.primaryLink ? html`<span class="badge link">primary</span>` : ''} <${CopyButton} text=${l.href} what="link" /></li>`,
  )}</ul>`;
}

function HeadersPart({ m }: { m: Message }) {
  return html`<table class="headers"><tbody>${m.headers.map((h) => html`<tr><th scope="row">${h.name}</th><td>${h.value}</td></tr>`)}</tbody></table>`;
}

const RAW_SHOWN = 2 * 1024 * 1024;

function RawPart({ m }: { m: Message }) {
  const [raw, setRaw] = useState<{ text: string; cut: boolean } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    const ctrl = new AbortController();
    apiBlob(pathOf(m.rawUrl), ctrl.signal).then(
      async (b) => setRaw({ text: await b.slice(0, RAW_SHOWN).text(), cut: b.size > RAW_SHOWN }),
      (e: Error) => !ctrl.signal.aborted && setError(e),
    );
    return () => ctrl.abort();
  }, [m.rawUrl]);
  return html`<div>
    <p><button type="button" onClick=${() => void download(pathOf(m.rawUrl), `${m.messageId}.eml`)}>Download .eml</button></p>
    <${ErrorNote} error=${error} what="the raw message" />
    ${raw ? html`<pre class="raw">${raw.text}</pre>${raw.cut ? html`<p class="note">Shown: the first 2 MB. Download for the rest.</p>` : ''}` : ''}
  </div>`;
}

function AttachmentsPart({ items, inline }: { items: Attachment[]; inline: Attachment[] }) {
  const shown = inline.length
    ? html`<p class="muted inline-parts">${inline.length} inline image${inline.length === 1 ? '' : 's'} shown in the HTML preview.</p>`
    : '';
  if (!items.length) return html`<p class="empty">No attachments.</p>${shown}`;
  return html`<ul class="attachments">${items.map(
    (a) => html`<li><button type="button" onClick=${() => void download(pathOf(a.url), a.filename ?? a.attachmentId)}>Download</button>
      <span>${a.filename ?? '(no name)'}</span> <span class="muted">${a.contentType} · ${bytes(a.size)}${a.disposition === 'inline' ? ' · inline' : ''}</span></li>`,
  )}</ul>${shown}`;
}

/** Downloads go through fetch (the key is a header, not a cookie), then a short-lived blob: URL. */
async function download(path: string, name: string): Promise<void> {
  try {
    const blob = await apiBlob(path);
    // Served as a download of opaque bytes, never rendered in the console's origin.
    const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(`Downloading ${name}`);
  } catch (e) {
    say(`Download failed: ${e instanceof ApiError ? e.message : String(e)}`);
  }
}
