/// <reference lib="dom" />
// An inbox's Faults view (README "Fault rules"): the rules in force for it — global ones, those of label prefixes its
// label starts with, its own — with how often each fired, and the faults that fired for its mail (its timeline).
// Only what the key can see: the server filters both lists by the key's scope.
import { query } from './api.ts';
import type { Inbox } from './types.ts';
import { ErrorNote, html, Time, useApi } from './ui.ts';

interface FaultRule {
  ruleId: string;
  scope: { kind: 'global' } | { kind: 'prefix'; labelPrefix: string } | { kind: 'inbox'; inboxId: string; address: string | null };
  name: string | null;
  stage: string;
  match: Record<string, string | undefined>;
  action: { type: string; code?: number; enhanced?: string; text?: string; ms?: number; bytesPerSecond?: number };
  mode: { type: string; n?: number; p?: number };
  fired: number;
}

/** A fault that fired (the fields shown). */
interface FaultEvent {
  eventId: string;
  source: string;
  stage: string;
  action: string;
  code: number | null;
  reply: string | null;
  recipient: string | null;
  client: string | null;
}

interface TimelineItem {
  type: 'fault' | 'message';
  at: string;
  fault?: FaultEvent;
  message?: { messageId: string; subject: string | null; from: string | null };
}

/** Whether a rule applies to mail for this inbox (its scope; a `match.label` glob is shown, not evaluated). */
export function inForce(r: FaultRule, inbox: Inbox): boolean {
  if (r.scope.kind === 'global') return true;
  if (r.scope.kind === 'prefix') return (inbox.label ?? '').startsWith(r.scope.labelPrefix);
  return r.scope.inboxId === inbox.inboxId;
}

const scopeText = (r: FaultRule) =>
  r.scope.kind === 'global' ? 'global' : r.scope.kind === 'prefix' ? `label ${r.scope.labelPrefix}*` : 'this inbox';

function actionText(a: FaultRule['action']): string {
  if (a.type === 'reply') return `reply ${a.code ?? ''}${a.enhanced ? ` ${a.enhanced}` : ''}${a.text ? ` ${a.text}` : ''}`;
  if (a.type === 'delay') return `delay ${a.ms} ms`;
  if (a.type === 'throttle') return `throttle ${a.bytesPerSecond} B/s`;
  return a.type;
}

function modeText(m: FaultRule['mode']): string {
  if (m.type === 'first' || m.type === 'every') return `${m.type} ${m.n}`;
  if (m.type === 'probability') return `p=${m.p}`;
  return m.type;
}

export function FaultsPanel({ inbox }: { inbox: Inbox }) {
  const rules = useApi<{ items: FaultRule[] }>('v1/faults');
  const timeline = useApi<{ items: TimelineItem[]; truncated: boolean }>(`v1/inboxes/${inbox.inboxId}/timeline${query({ limit: 200 })}`);
  const shown = (rules.data?.items ?? []).filter((r) => inForce(r, inbox));
  const fired = (timeline.data?.items ?? []).filter((t) => t.type === 'fault' && t.fault).reverse();
  return html`<section class="faults" aria-label="Fault rules">
    <h3>Rules in force <span class="muted">for this inbox${inbox.label ? html` and its label <span class="badge">${inbox.label}</span>` : ''}</span>
      <button type="button" onClick=${() => (rules.reload(), timeline.reload())}>Refresh</button></h3>
    <${ErrorNote} error=${rules.error} what="fault rules" />
    ${
      rules.data && shown.length === 0
        ? html`<p class="empty">No fault rules apply: mail to this inbox is answered normally. Set them with <code>PUT /v1/inboxes/:id/faults</code>
          or <code>inboxd faults set</code>.</p>`
        : ''
    }
    ${
      shown.length
        ? html`<table class="fault-rules"><thead><tr><th>scope</th><th>name</th><th>stage</th><th>match</th><th>action</th><th>mode</th><th>fired</th></tr></thead>
          <tbody>${shown.map(
            (
              r,
            ) => html`<tr data-rule=${r.ruleId} data-scope=${r.scope.kind}><td>${scopeText(r)}</td><td>${r.name ?? ''}</td><td>${r.stage}</td>
              <td><code>${
                Object.entries(r.match ?? {})
                  .filter(([, v]) => v)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(' ') || 'any'
              }</code></td>
              <td>${actionText(r.action)}</td><td>${modeText(r.mode)}</td><td class="fired">${r.fired}</td></tr>`,
          )}</tbody></table>`
        : ''
    }
    <h3>Faults that fired <span class="muted">(kept 24 h, newest first)</span></h3>
    <${ErrorNote} error=${timeline.error} what="the inbox timeline" />
    ${timeline.data && fired.length === 0 ? html`<p class="empty">No fault fired for mail to this inbox.</p>` : ''}
    ${
      fired.length
        ? html`<ul class="fault-events">${fired.map(
            (t) => html`<li data-event=${t.fault!.eventId}><${Time} iso=${t.at} /> <span class="badge">${t.fault!.stage}</span>
              ${t.fault!.action} ${t.fault!.code ? html`<code>${t.fault!.code}${t.fault!.reply ? ` ${t.fault!.reply}` : ''}</code> ` : ''}
              <span class="muted">${t.fault!.recipient ?? ''}${t.fault!.client ? ` · client ${t.fault!.client}` : ''}${t.fault!.source === 'shortcut' ? ' · address shortcut' : ''}</span></li>`,
          )}</ul>${timeline.data?.truncated ? html`<p class="note">Older events exist.</p>` : ''}`
        : ''
    }
  </section>`;
}
