/// <reference lib="dom" />
// Acting on mail (issue 32): create an inbox, delete it or clear it, delete a message, mark it read or unread, send
// and reply, release a captured message to an allowed address, simulate a scenario. Each goes through the public API
// with the key; what destroys asks first; what the key may not do is shown disabled with the reason.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api } from './api.ts';
import type { Inbox, Me, Message } from './types.ts';
import { html, notifyArrival, say, useModal } from './ui.ts';

let me: Me | null = null;
/** The key the console runs with (set at sign-in): decides what is offered. */
export function setAccess(m: Me | null): void {
  me = m;
}

/** Why this key may not change mail, or null when it may. */
export function writeBlocked(): string | null {
  return me?.scope?.readOnly ? 'This key is read-only: it can read mail but not change, send or delete it.' : null;
}

/** The label prefix a scoped key's inboxes must have, or ''. */
export function scopePrefix(): string {
  return me?.scope?.labelPrefix ?? '';
}

/** A button for an action that changes something: disabled, with the reason shown, when the key may not. */
export function ActButton({
  id,
  onClick,
  danger,
  children,
}: {
  id: string;
  onClick: () => void;
  danger?: boolean;
  children: ComponentChildren;
}) {
  const why = writeBlocked();
  return html`<button type="button" id=${id} class=${danger ? 'danger' : undefined} disabled=${!!why} title=${why ?? undefined}
    aria-describedby=${why ? 'why-read-only' : undefined} data-action=${id} onClick=${onClick}>${children}</button>`;
}

/** The reason the actions are off, once on every page (in the side bar; the buttons point at it with aria-describedby). */
export function ReadOnlyNote() {
  const why = writeBlocked();
  return why ? html`<p class="note read-only" id="why-read-only" role="note">${why}</p>` : null;
}

/**
 * A modal form: fields as children (read by name with FormData), an error from the API shown inside, and the dialog
 * closed on success. `submit` answers what to announce.
 */
export function FormDialog({
  title,
  submitLabel,
  danger,
  close,
  submit,
  children,
}: {
  title: string;
  submitLabel: string;
  danger?: boolean;
  close: () => void;
  submit: (f: FormData) => Promise<string>;
  children?: ComponentChildren;
}) {
  const ref = useModal(close);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      say(await submit(new FormData(e.target as HTMLFormElement)));
      ref.current?.close();
    } catch (err) {
      setError(err instanceof ApiError ? `${err.status}: ${err.message}` : (err as Error).message);
      setBusy(false);
    }
  };
  return html`<dialog ref=${ref} class="form-dialog" aria-labelledby="dialog-title">
    <form class="stack" onSubmit=${onSubmit}>
      <h2 id="dialog-title">${title}</h2>
      ${children}
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <p class="dialog-buttons">
        <button type="submit" class=${danger ? 'danger' : 'primary'} disabled=${busy}>${busy ? 'Working…' : submitLabel}</button>
        <button type="button" autofocus=${!!danger} onClick=${() => ref.current?.close()}>Cancel</button>
      </p>
    </form>
  </dialog>`;
}

const text = (f: FormData, k: string): string => String(f.get(k) ?? '').trim();
/** "a@x, b@y" → ["a@x", "b@y"]. */
const addresses = (s: string): string[] =>
  s
    .split(/[,;\n]/)
    .map((a) => a.trim())
    .filter(Boolean);

/** "New inbox": label (inside a scoped key's prefix), TTL, callback URL, a local part of one's choosing. */
export function NewInbox({ created }: { created: (i: Inbox) => void }) {
  const [open, setOpen] = useState(false);
  const prefix = scopePrefix();
  return html`<${ActButton} id="new-inbox" onClick=${() => setOpen(true)}>New inbox</${ActButton}>
    ${
      open
        ? html`<${FormDialog} title="New inbox" submitLabel="Create" close=${() => setOpen(false)} submit=${async (f: FormData) => {
            const body: Record<string, unknown> = {};
            if (text(f, 'label')) body['label'] = text(f, 'label');
            if (text(f, 'ttlMinutes')) body['ttlMinutes'] = Number(text(f, 'ttlMinutes'));
            if (text(f, 'callbackUrl')) body['callbackUrl'] = text(f, 'callbackUrl');
            if (text(f, 'localPart')) body['localPart'] = text(f, 'localPart');
            const i = await api<Inbox>('v1/inboxes', { method: 'POST', body });
            created(i);
            return `Created ${i.address}`;
          }}>
          <label for="ni-label">Label</label>
          <input id="ni-label" name="label" value=${prefix} autocomplete="off" required=${!!prefix}
            placeholder=${prefix ? `${prefix}…` : 'ci-run-42'} />
          ${prefix ? html`<p class="muted">This key only sees labels starting with <code>${prefix}</code>.</p>` : ''}
          <label for="ni-ttl">Lifetime (minutes, 1–10080)</label>
          <input id="ni-ttl" name="ttlMinutes" type="number" min="1" max="10080" value="60" />
          <label for="ni-callback">Callback URL (optional)</label>
          <input id="ni-callback" name="callbackUrl" type="url" placeholder="https://ci.example/hooks/mail" autocomplete="off" />
          <label for="ni-local">Local part (optional; random when empty)</label>
          <input id="ni-local" name="localPart" autocomplete="off" />
        </${FormDialog}>`
        : ''
    }`;
}

type Open = null | 'send' | 'simulate' | 'clear' | 'delete';

export const SCENARIOS = ['otp', 'magic_link', 'otp_and_link', 'welcome', 'attachment_only', 'custom'];

/** The inbox header's actions: send, simulate, clear, delete (the last two ask first). */
export function InboxActions({ inbox, changed, cleared }: { inbox: Inbox; changed: () => void; cleared: () => void }) {
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const base = `v1/inboxes/${inbox.inboxId}`;
  return html`<div class="actions" role="group" aria-label="Inbox actions">
    <${ActButton} id="send" onClick=${() => setOpen('send')}>Send</${ActButton}>
    <${ActButton} id="simulate" onClick=${() => setOpen('simulate')}>Simulate</${ActButton}>
    <${ActButton} id="clear-inbox" danger onClick=${() => setOpen('clear')}>Clear</${ActButton}>
    <${ActButton} id="delete-inbox" danger onClick=${() => setOpen('delete')}>Delete inbox</${ActButton}>
    ${
      open === 'send'
        ? html`<${FormDialog} title=${`Send from ${inbox.address}`} submitLabel="Send" close=${close} submit=${async (f: FormData) => {
            const r = await api<{ recipients: Array<{ route: string }> }>(`${base}/send`, {
              method: 'POST',
              body: {
                to: addresses(text(f, 'to')),
                ...(text(f, 'cc') ? { cc: addresses(text(f, 'cc')) } : {}),
                subject: text(f, 'subject'),
                text: String(f.get('text') ?? ''),
              },
            });
            changed();
            notifyArrival(inbox.inboxId);
            const relay = r.recipients.filter((x) => x.route === 'relay').length;
            return `Sent: ${r.recipients.length - relay} local, ${relay} through the relay`;
          }}>
          <label for="send-to">To</label><input id="send-to" name="to" required autocomplete="off" placeholder="a@example.com, b@example.com" />
          <label for="send-cc">Cc</label><input id="send-cc" name="cc" autocomplete="off" />
          <label for="send-subject">Subject</label><input id="send-subject" name="subject" autocomplete="off" />
          <label for="send-text">Text</label><textarea id="send-text" name="text" rows="6"></textarea>
          <p class="muted">Addresses inboxd serves are delivered locally; others go through the operator's relay (501 without one).</p>
        </${FormDialog}>`
        : ''
    }
    ${
      open === 'simulate'
        ? html`<${FormDialog} title="Simulate a message" submitLabel="Deliver" close=${close} submit=${async (f: FormData) => {
            const scenario = text(f, 'scenario');
            const body: Record<string, unknown> = { scenario };
            if (text(f, 'service')) body['service'] = text(f, 'service');
            if (scenario === 'custom') {
              body['subject'] = text(f, 'subject');
              body['text'] = String(f.get('text') ?? '');
            }
            const r = await api<{ subject: string }>(`${base}/simulate`, { method: 'POST', body });
            return `Delivered: ${r.subject}`;
          }}>
          <label for="sim-scenario">Scenario</label>
          <select id="sim-scenario" name="scenario">${SCENARIOS.map((s) => html`<option value=${s}>${s}</option>`)}</select>
          <label for="sim-service">Service preset (optional)</label><input id="sim-service" name="service" placeholder="github" autocomplete="off" />
          <label for="sim-subject">Subject (custom)</label><input id="sim-subject" name="subject" autocomplete="off" />
          <label for="sim-text">Text (custom)</label><textarea id="sim-text" name="text" rows="4"></textarea>
        </${FormDialog}>`
        : ''
    }
    ${
      open === 'clear'
        ? html`<${FormDialog} title="Clear this inbox?" submitLabel="Delete all messages" danger close=${close} submit=${async () => {
            const r = await api<{ deleted: number }>(`${base}/messages`, { method: 'DELETE' });
            cleared();
            notifyArrival(inbox.inboxId);
            return `Deleted ${r.deleted} message${r.deleted === 1 ? '' : 's'}`;
          }}>
          <p>Every message of <code>${inbox.address}</code> (received and sent) is deleted, with its files. The inbox stays.</p>
        </${FormDialog}>`
        : ''
    }
    ${
      open === 'delete'
        ? html`<${FormDialog} title="Delete this inbox?" submitLabel="Delete inbox" danger close=${close} submit=${async () => {
            await api(base, { method: 'DELETE' });
            location.hash = '#/';
            return `Deleted ${inbox.address}`;
          }}>
          <p><code>${inbox.address}</code> and all its mail are deleted; waits on it end, mail to it is no longer kept.</p>
        </${FormDialog}>`
        : ''
    }
  </div>`;
}

/** An open message's actions: read state, reply, release, delete. */
export function MessageActions({
  m,
  seen,
  setSeen,
  deleted,
  changed,
}: {
  m: Message;
  seen: boolean;
  setSeen: (s: boolean) => void;
  deleted: () => void;
  changed: () => void;
}) {
  const [open, setOpen] = useState<null | 'reply' | 'release' | 'delete'>(null);
  const close = () => setOpen(null);
  const base = `v1/inboxes/${m.inboxId}/messages/${m.messageId}`;
  const mark = async () => {
    try {
      const r = await api<{ seen: boolean }>(base, { method: 'PATCH', body: { seen: !seen } });
      setSeen(r.seen);
      say(r.seen ? 'Marked read' : 'Marked unread');
    } catch (e) {
      say(`Could not change the read state: ${(e as Error).message}`);
    }
  };
  const sent = m.direction === 'outbound';
  return html`<div class="actions" role="group" aria-label="Message actions">
    <${ActButton} id="mark-seen" onClick=${() => void mark()}>${seen ? 'Mark unread' : 'Mark read'}</${ActButton}>
    ${sent ? '' : html`<${ActButton} id="reply" onClick=${() => setOpen('reply')}>Reply</${ActButton}>`}
    <${ActButton} id="release" onClick=${() => setOpen('release')}>Release…</${ActButton}>
    <${ActButton} id="delete-message" danger onClick=${() => setOpen('delete')}>Delete</${ActButton}>
    ${
      open === 'reply'
        ? html`<${FormDialog} title=${`Reply to ${m.from?.address ?? 'the sender'}`} submitLabel="Send reply" close=${close}
            submit=${async (f: FormData) => {
              await api(`v1/inboxes/${m.inboxId}/reply`, {
                method: 'POST',
                body: { messageId: m.messageId, text: String(f.get('text') ?? ''), replyAll: f.get('replyAll') === 'on' },
              });
              changed();
              notifyArrival(m.inboxId);
              return 'Reply sent';
            }}>
          <p class="muted">Subject: Re: ${m.subject}</p>
          <label for="reply-text">Text</label><textarea id="reply-text" name="text" rows="6" required></textarea>
          <label class="tick"><input type="checkbox" name="replyAll" /> Reply to all</label>
        </${FormDialog}>`
        : ''
    }
    ${
      open === 'release'
        ? html`<${FormDialog} title="Release this message" submitLabel="Release" close=${close} submit=${async (f: FormData) => {
            const r = await api<{ recipients?: unknown[] }>(`${base}/release`, { method: 'POST', body: { to: addresses(text(f, 'to')) } });
            changed();
            return `Released to ${r.recipients?.length ?? addresses(text(f, 'to')).length} address(es): queued`;
          }}>
          <p class="muted">The captured bytes, unchanged, go through the relay to addresses the operator allows
            (<code>--release-allow</code>); anything else is refused with the allowed list.</p>
          <label for="release-to">To</label><input id="release-to" name="to" required autocomplete="off" placeholder="dev@staging.example.com" />
        </${FormDialog}>`
        : ''
    }
    ${
      open === 'delete'
        ? html`<${FormDialog} title="Delete this message?" submitLabel="Delete message" danger close=${close} submit=${async () => {
            await api(base, { method: 'DELETE' });
            deleted();
            notifyArrival(m.inboxId);
            return 'Message deleted';
          }}>
          <p>“${m.subject || '(no subject)'}” is deleted with its raw file and attachments.</p>
        </${FormDialog}>`
        : ''
    }
  </div>`;
}
