/// <reference lib="dom" />
// Keys and the audit log: admin keys only (the server answers 403 to others; the console does not offer the views).
import { useState } from 'preact/hooks';
import { ApiError, api, query } from './api.ts';
import type { AuditItem, Key, Page } from './types.ts';
import { CopyButton, ErrorNote, html, say, Time, useApi } from './ui.ts';

export function Keys() {
  const team = useApi<{ team: { name: string }; keys: Key[] }>('v1/team');
  const [created, setCreated] = useState<{ keyId: string; key: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [form, setForm] = useState({ label: '', role: 'member', labelPrefix: '', readOnly: false });

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const scope = { ...(form.labelPrefix ? { labelPrefix: form.labelPrefix } : {}), ...(form.readOnly ? { readOnly: true } : {}) };
      const k = await api<Key & { key: string }>('v1/team/keys', {
        method: 'POST',
        body: { label: form.label, role: form.role, ...(Object.keys(scope).length ? { scope } : {}) },
      });
      setCreated({ keyId: k.keyId, key: k.key });
      setForm({ label: '', role: 'member', labelPrefix: '', readOnly: false });
      team.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  const revoke = async (keyId: string) => {
    setConfirm(null);
    try {
      await api(`v1/team/keys/${keyId}`, { method: 'DELETE' });
      say(`Revoked ${keyId}`);
      team.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  const input = (k: 'label' | 'labelPrefix') => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });

  return html`<section class="wide" aria-label="API keys">
    <h2>API keys${team.data ? html` <span class="muted">of ${team.data.team.name}</span>` : ''}</h2>
    <${ErrorNote} error=${team.error} what="the keys" />
    ${error ? html`<p class="error" role="alert">${error instanceof ApiError ? error.message : String(error)}</p>` : ''}
    ${
      created
        ? html`<div class="secret" role="status"><p>New key <code>${created.keyId}</code>, shown only now; store it:</p>
          <p><code class="otp">${created.key}</code> <${CopyButton} text=${created.key} what="key" />
          <button type="button" onClick=${() => setCreated(null)}>Done</button></p></div>`
        : ''
    }
    ${
      team.data
        ? html`<table class="grid"><thead><tr><th>Key</th><th>Label</th><th>Role</th><th>Scope</th><th>Created</th><th>Last used</th><th></th></tr></thead>
          <tbody>${team.data.keys.map(
            (k) => html`<tr class=${k.revokedAt ? 'revoked' : ''}><td><code>${k.keyId}</code> <span class="muted">${k.prefix}…</span></td>
              <td>${k.label}</td><td>${k.role}</td>
              <td>${[k.scope.labelPrefix ? `labels ${k.scope.labelPrefix}*` : 'all labels', k.scope.readOnly ? 'read-only' : ''].filter(Boolean).join(', ')}</td>
              <td><${Time} iso=${k.createdAt} /></td><td><${Time} iso=${k.lastUsedAt} /></td>
              <td>${
                k.revokedAt
                  ? html`revoked <${Time} iso=${k.revokedAt} />`
                  : confirm === k.keyId
                    ? html`<button type="button" class="danger" onClick=${() => void revoke(k.keyId)}>Confirm revoke</button>
                      <button type="button" onClick=${() => setConfirm(null)}>Cancel</button>`
                    : html`<button type="button" onClick=${() => setConfirm(k.keyId)}>Revoke</button>`
              }</td></tr>`,
          )}</tbody></table>`
        : ''
    }
    <form class="create-key" onSubmit=${create}>
      <h3>New key</h3>
      <label>Label <input required maxLength="200" value=${form.label} onInput=${input('label')} /></label>
      <label>Role <select value=${form.role} onChange=${(e: Event) => setForm({ ...form, role: (e.target as HTMLSelectElement).value })}>
        <option value="member">member</option><option value="admin">admin</option></select></label>
      <label>Label prefix <input value=${form.labelPrefix} placeholder="optional, e.g. ci-" onInput=${input('labelPrefix')} /></label>
      <label class="check"><input type="checkbox" checked=${form.readOnly}
        onChange=${(e: Event) => setForm({ ...form, readOnly: (e.target as HTMLInputElement).checked })} /> read-only</label>
      <button type="submit">Create key</button>
    </form>
  </section>`;
}

export function Audit() {
  const [action, setAction] = useState('');
  const [draft, setDraft] = useState('');
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useApi<Page<AuditItem>>(`v1/audit${query({ action, cursor, limit: 100 })}`);
  return html`<section class="wide" aria-label="Audit log">
    <h2>Audit log</h2>
    <form class="filter" onSubmit=${(e: Event) => (e.preventDefault(), setCursor(null), setAction(draft.trim()))}>
      <label for="audit-action">Action</label>
      <input id="audit-action" value=${draft} placeholder="key.* (Enter)" onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)} />
    </form>
    <${ErrorNote} error=${page.error} what="the audit log" />
    ${
      page.data
        ? html`<table class="grid"><thead><tr><th>At</th><th>Action</th><th>Target</th><th>Outcome</th><th>By key</th><th>From</th></tr></thead>
          <tbody>${page.data.items.map(
            (
              a,
            ) => html`<tr><td><${Time} iso=${a.at} /></td><td>${a.action}</td><td><code>${a.target ?? '—'}</code></td><td>${a.outcome}</td>
              <td><code>${a.actorKeyId ?? '—'}</code></td><td>${a.sourceIp ?? '—'}</td></tr>`,
          )}</tbody></table>
          ${!page.data.items.length ? html`<p class="empty">No events.</p>` : ''}
          <p class="pager">${cursor ? html`<button type="button" onClick=${() => setCursor(null)}>Newest</button>` : ''}
          ${page.data.nextCursor ? html`<button type="button" onClick=${() => setCursor(page.data!.nextCursor)}>Older</button>` : ''}</p>`
        : ''
    }
  </section>`;
}
