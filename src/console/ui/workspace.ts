/// <reference lib="dom" />
// The workspace (README "Workspace preview"): the today view — reminders due, conversations waiting for our reply,
// drafts waiting for a decision — with approve / dismiss / snooze (POST /v1/workspace/today/:id/decision), a
// draft's review (its text and each safety rule's verdict, GET /v1/workspace/drafts/:id), the policy mode (admins
// change it; other keys see it disabled with the reason), the reminders and the actions log. Every action is
// disabled, with the reason, for a read-only key; a label-scoped key gets only its inboxes' items from the API.
import { useState } from 'preact/hooks';
import { api, query } from './api.ts';
import { StatusBadge } from './runs.ts';
import type { Me } from './types.ts';
import { ErrorNote, html, say, Time, useApi } from './ui.ts';

type Decision = 'approve' | 'dismiss' | 'snooze';

/** An item of GET /v1/workspace/today (the fields shown). */
interface TodayItem {
  id: string;
  kind: 'reminder_due' | 'draft_awaiting_decision' | 'awaiting_reply';
  title: string;
  why: string;
  dueAt: string | null;
  inboxId: string | null;
  messageId: string | null;
  decisions: Decision[];
}

interface Rule {
  name: string;
  description: string;
  appliesTo: string[];
}

interface Policy {
  mode: string;
  settings: { maxPerThreadPerDay: number; maxPerDay: number; maxLength: number; allowRecipientDomains: string[] };
  rules: Rule[];
  updatedAt: string | null;
  updatedBy: string | null;
}

interface Check {
  rule: string;
  passed: boolean;
  detail: string;
}

interface DraftReview {
  draft: {
    draftId: string;
    status: string;
    to: string | null;
    subject: string;
    text: string;
    inboxId: string | null;
    messageId: string | null;
  };
  evaluation: { mode: string; outcome: string; outcomes: Record<string, string>; reasons: string[]; checks: Check[] } | null;
}

interface Reminder {
  reminderId: string;
  kind: string;
  note: string;
  dueAt: string;
  status: string;
  inboxId: string | null;
  messageId: string | null;
  snoozedUntil: string | null;
}

interface Action {
  actionId: string;
  type: string;
  at: string;
  inboxId: string | null;
  messageId: string | null;
  draftId: string | null;
  note: string | null;
  reasons: string[];
}

const MODES: Array<[string, string]> = [
  ['draft_only', 'Draft only: replies are kept as drafts, nothing is sent (approving a draft does not send either)'],
  ['auto_send_safe', 'Auto-send safe: a reply is sent only when every safety rule passes'],
  ['full_auto', 'Full auto: sent unless a hard rule fails'],
];

const KINDS: Array<[TodayItem['kind'], string]> = [
  ['draft_awaiting_decision', 'Drafts waiting for a decision'],
  ['awaiting_reply', 'Waiting for a reply'],
  ['reminder_due', 'Reminders due'],
];

/** Why a key may not act here, or null: read-only keys change nothing. */
export function writeBlocked(me: Me): string | null {
  return me.scope?.readOnly ? 'This key is read-only: it can look, not decide' : null;
}

/** Why a key may not change the policy, or null (an unscoped admin key that may write). */
function policyBlocked(me: Me): string | null {
  if (me.role !== 'admin') return 'Only an admin key changes the policy; this is a member key';
  if (me.scope?.labelPrefix) return `Only an unscoped admin key changes the policy; this key is scoped to ${me.scope.labelPrefix}*`;
  if (me.scope?.readOnly) return 'This admin key is read-only';
  return null;
}

const messageLink = (inboxId: string | null, messageId: string | null) =>
  inboxId && messageId ? html`<a href=${`#/inbox/${inboxId}/m/${messageId}`}>the message</a>` : '';

export function WorkspacePage({ me, sub }: { me: Me; sub: string }) {
  const tab = (name: string, href: string, id: string) => html`<a href=${href} aria-current=${sub === id ? 'page' : undefined}>${name}</a>`;
  return html`<section class="workspace" aria-labelledby="ws-title">
    <h2 id="ws-title">Workspace <span class="badge">preview</span>${me.scope?.labelPrefix ? html` <span class="muted">labels ${me.scope.labelPrefix}*</span>` : ''}</h2>
    <nav class="subnav" aria-label="Workspace views">
      ${tab('Today', '#/workspace', 'today')} ${tab('Policy', '#/workspace/policy', 'policy')}
      ${tab('Reminders', '#/workspace/reminders', 'reminders')} ${tab('Actions', '#/workspace/actions', 'actions')}
    </nav>
    ${sub === 'today' ? html`<${Today} me=${me} />` : ''}
    ${sub === 'policy' ? html`<${PolicyView} me=${me} />` : ''}
    ${sub === 'reminders' ? html`<${Reminders} me=${me} />` : ''}
    ${sub === 'actions' ? html`<${Actions} />` : ''}
  </section>`;
}

function snoozeUntil(choice: string): string {
  const d = new Date();
  if (choice === 'hour') d.setTime(d.getTime() + 3600_000);
  else {
    d.setDate(d.getDate() + (choice === 'week' ? 7 : 1));
    d.setHours(9, 0, 0, 0);
  }
  return d.toISOString();
}

function Today({ me }: { me: Me }) {
  const today = useApi<{ now: string; items: TodayItem[] }>('v1/workspace/today');
  const policy = useApi<Policy>('v1/workspace/policy');
  const [open, setOpen] = useState<string | null>(null);
  const [results, setResults] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const blocked = writeBlocked(me);
  const mode = policy.data?.mode;

  const decide = async (item: TodayItem, decision: Decision, until?: string) => {
    if (decision === 'approve' && item.kind !== 'reminder_due') {
      const what =
        mode === 'draft_only'
          ? 'The policy is draft_only: the reply stays a draft and nothing is sent.'
          : `The reply goes through the policy (${mode ?? 'unknown mode'}) and is sent when its rules allow.`;
      if (!confirm(`Approve the reply “${item.title}”?\n\n${what}`)) return;
    }
    setBusy(item.id);
    try {
      const r = await api<{ state: string; reply?: { reasons?: string[] } }>(`v1/workspace/today/${item.id}/decision`, {
        method: 'POST',
        body: { decision, ...(until ? { until } : {}) },
      });
      const reasons = r.reply?.reasons?.length ? ` (${r.reply.reasons.join('; ')})` : '';
      setResults((m) => ({ ...m, [item.id]: `${r.state}${reasons}` }));
      say(`${item.title}: ${r.state}${reasons}`);
      today.reload();
    } catch (e) {
      setResults((m) => ({ ...m, [item.id]: `failed: ${(e as Error).message}` }));
      say(`Could not decide: ${(e as Error).message}`);
    } finally {
      setBusy(null);
    }
  };

  const items = today.data?.items ?? [];
  const decided = Object.entries(results);
  return html`<div class="today">
    <p class="muted">Policy mode: ${mode ? html`<strong data-mode=${mode}>${mode}</strong>` : '…'} (<a href="#/workspace/policy">policy</a>)
      ${blocked ? html` · <span class="reason">${blocked}</span>` : ''}</p>
    <${ErrorNote} error=${today.error} what="the today view (GET /v1/workspace/today)" />
    ${decided.length ? html`<ul class="decided" aria-label="Decisions">${decided.map(([id, state]) => html`<li data-decided=${id}><code>${id}</code>: ${state}</li>`)}</ul>` : ''}
    ${today.data && items.length === 0 ? html`<p class="empty">Nothing waits for you today.</p>` : ''}
    ${KINDS.map(([kind, title]) => {
      const list = items.filter((i) => i.kind === kind);
      if (!list.length) return '';
      return html`<h3>${title} <span class="muted">(${list.length})</span></h3>
        <ul class="today-items">${list.map(
          (i) => html`<li key=${i.id} class="today-item" data-today-id=${i.id} data-kind=${i.kind}>
            <div class="row1"><strong>${i.title}</strong> ${i.dueAt ? html`<span class="muted">due <${Time} iso=${i.dueAt} /></span>` : ''}</div>
            <div class="muted">${i.why} ${messageLink(i.inboxId, i.messageId)}</div>
            <div class="actions">
              ${
                i.decisions.includes('approve')
                  ? html`<button type="button" data-decision="approve" disabled=${!!blocked || busy === i.id}
                title=${blocked ?? (i.kind === 'reminder_due' ? 'Mark the reminder done' : 'Reply through the policy gate')} onClick=${() => decide(i, 'approve')}>
                ${i.kind === 'reminder_due' ? 'Done' : 'Approve'}</button>`
                  : ''
              }
              ${
                i.decisions.includes('dismiss')
                  ? html`<button type="button" data-decision="dismiss" disabled=${!!blocked || busy === i.id}
                title=${blocked ?? 'Dismiss without a reply'} onClick=${() => decide(i, 'dismiss')}>Dismiss</button>`
                  : ''
              }
              ${i.decisions.includes('snooze') ? html`<${Snooze} disabled=${!!blocked || busy === i.id} title=${blocked} onSnooze=${(u: string) => decide(i, 'snooze', u)} />` : ''}
              ${
                i.kind === 'draft_awaiting_decision'
                  ? html`<button type="button" class="link-button" data-review=${i.id} aria-expanded=${open === i.id ? 'true' : 'false'}
                onClick=${() => setOpen(open === i.id ? null : i.id)}>${open === i.id ? 'Hide the draft' : 'Draft and rules'}</button>`
                  : ''
              }
            </div>
            ${open === i.id ? html`<${DraftPanel} id=${i.id} rules=${policy.data?.rules ?? []} />` : ''}
          </li>`,
        )}</ul>`;
    })}
  </div>`;
}

function Snooze({ disabled, title, onSnooze }: { disabled: boolean; title: string | null; onSnooze: (until: string) => void }) {
  const [choice, setChoice] = useState('day');
  return html`<span class="snooze"><button type="button" data-decision="snooze" disabled=${disabled} title=${title ?? 'Snooze until then'}
      onClick=${() => onSnooze(snoozeUntil(choice))}>Snooze</button>
    <select aria-label="Snooze until" value=${choice} disabled=${disabled} onChange=${(e: Event) => setChoice((e.target as HTMLSelectElement).value)}>
      <option value="hour">1 hour</option><option value="day">tomorrow 09:00</option><option value="week">next week</option>
    </select></span>`;
}

function DraftPanel({ id, rules }: { id: string; rules: Rule[] }) {
  const r = useApi<DraftReview>(`v1/workspace/drafts/${id}`);
  const hard = new Set(rules.filter((x) => x.appliesTo.includes('full_auto')).map((x) => x.name));
  const about = new Map(rules.map((x) => [x.name, x.description]));
  const d = r.data;
  if (!d) return html`<${ErrorNote} error=${r.error} what="this draft (GET /v1/workspace/drafts/:id)" />`;
  const ev = d.evaluation;
  return html`<div class="draft-review" data-draft-id=${id}>
    <p><strong>To</strong> ${d.draft.to ?? '(no recipient)'} · <strong>Subject</strong> ${d.draft.subject}</p>
    <pre class="draft-text">${d.draft.text}</pre>
    ${
      ev
        ? html`<p>Under <strong>${ev.mode}</strong> approving it would be <${StatusBadge} status=${ev.outcome} />; under each mode:
            ${Object.entries(ev.outcomes).map(([m, o]) => html` ${m} → <span class="badge">${o}</span>`)}</p>
          <table class="grid rules"><thead><tr><th>Rule</th><th>Kind</th><th>Verdict</th><th>Why</th></tr></thead><tbody>
          ${ev.checks.map(
            (c) => html`<tr data-rule=${c.rule} data-passed=${String(c.passed)}>
              <td title=${about.get(c.rule) ?? ''}><code>${c.rule}</code></td><td>${hard.has(c.rule) ? 'hard' : 'safe'}</td>
              <td>${c.passed ? html`<span class="badge state state-done">✓ passes</span>` : html`<span class="badge state state-failed">✗ fails</span>`}</td>
              <td>${c.detail}</td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">This draft answers no stored message: no rule applies and it cannot be sent.</p>`
    }
  </div>`;
}

function PolicyView({ me }: { me: Me }) {
  const p = useApi<Policy>('v1/workspace/policy');
  const [choice, setChoice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const blocked = policyBlocked(me);
  const d = p.data;
  if (!d) return html`<${ErrorNote} error=${p.error} what="the policy (GET /v1/workspace/policy)" />`;
  const mode = choice ?? d.mode;
  const save = async () => {
    setBusy(true);
    try {
      await api('v1/workspace/policy', { method: 'PUT', body: { mode } });
      say(`Policy mode set to ${mode}`);
      // The choice stays shown until the policy is read again with it.
      p.reload();
    } catch (e) {
      say(`Could not set the policy: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return html`<div class="policy">
    <fieldset disabled=${!!blocked || busy}>
      <legend>Mode</legend>
      ${MODES.map(
        ([m, what]) => html`<label class="mode"><input type="radio" name="mode" value=${m} checked=${mode === m}
          onChange=${() => setChoice(m)} /> <code>${m}</code> — ${what}</label>`,
      )}
      <button type="button" id="save-policy" onClick=${save} disabled=${mode === d.mode}>Save the mode</button>
    </fieldset>
    ${blocked ? html`<p class="reason" role="note">${blocked}.</p>` : ''}
    <p class="muted">Limits: ${d.settings.maxPerThreadPerDay} per thread and ${d.settings.maxPerDay} per team in 24 h,
      at most ${d.settings.maxLength} characters${d.settings.allowRecipientDomains.length ? `, only to ${d.settings.allowRecipientDomains.join(', ')}` : ''}.
      ${d.updatedAt ? html` Set <${Time} iso=${d.updatedAt} /> by <code>${d.updatedBy}</code>.` : ' Never changed (the default).'}</p>
    <h3>Safety rules</h3>
    <table class="grid"><thead><tr><th>Rule</th><th>Binds</th><th>A reply is refused when</th></tr></thead><tbody>
      ${d.rules.map((r) => html`<tr><td><code>${r.name}</code></td><td>${r.appliesTo.join(', ')}</td><td>${r.description}</td></tr>`)}
    </tbody></table>
  </div>`;
}

function Reminders({ me }: { me: Me }) {
  const [status, setStatus] = useState('open');
  const list = useApi<{ items: Reminder[] }>(`v1/workspace/reminders${query({ status, limit: 100 })}`);
  const blocked = writeBlocked(me);
  const complete = async (r: Reminder) => {
    try {
      await api(`v1/workspace/reminders/${r.reminderId}/complete`, { method: 'PATCH', body: {} });
      say('Reminder completed');
      list.reload();
    } catch (e) {
      say(`Could not complete it: ${(e as Error).message}`);
    }
  };
  const items = list.data?.items ?? [];
  return html`<div class="reminders">
    <p><label for="rem-status">Status</label>
      <select id="rem-status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">any</option>${['open', 'snoozed', 'completed', 'dismissed'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select></p>
    <${ErrorNote} error=${list.error} what="the reminders" />
    ${list.data && !items.length ? html`<p class="empty">No reminders${status ? ` (${status})` : ''}.</p>` : ''}
    ${
      items.length
        ? html`<table class="grid"><thead><tr><th>Due</th><th>Reminder</th><th>Kind</th><th>Status</th><th></th></tr></thead><tbody>
          ${items.map(
            (
              r,
            ) => html`<tr data-reminder-id=${r.reminderId}><td><${Time} iso=${r.dueAt} /></td><td>${r.note} ${messageLink(r.inboxId, r.messageId)}</td>
              <td>${r.kind}</td><td><${StatusBadge} status=${r.status} /></td>
              <td>${
                r.status === 'open' || r.status === 'snoozed'
                  ? html`<button type="button" disabled=${!!blocked} title=${blocked ?? 'Mark it done'}
                onClick=${() => complete(r)}>Done</button>`
                  : ''
              }</td></tr>`,
          )}</tbody></table>`
        : ''
    }
  </div>`;
}

function Actions() {
  const list = useApi<{ items: Action[] }>(`v1/workspace/actions${query({ limit: 100 })}`);
  const items = list.data?.items ?? [];
  return html`<div class="actions-log">
    <${ErrorNote} error=${list.error} what="the actions log" />
    ${list.data && !items.length ? html`<p class="empty">No actions logged yet.</p>` : ''}
    ${
      items.length
        ? html`<table class="grid"><thead><tr><th>When</th><th>Action</th><th>What</th><th>Why</th></tr></thead><tbody>
          ${items.map(
            (
              a,
            ) => html`<tr data-action-id=${a.actionId} data-type=${a.type}><td><${Time} iso=${a.at} /></td><td><${StatusBadge} status=${a.type} /></td>
              <td>${a.note ?? ''} ${messageLink(a.inboxId, a.messageId)}${a.draftId ? html` <code>${a.draftId}</code>` : ''}</td>
              <td>${a.reasons.join('; ')}</td></tr>`,
          )}</tbody></table>`
        : ''
    }
  </div>`;
}
