/// <reference lib="dom" />
// Agent runs (README "Driving a signup run from an agent"): the list (status, goal, services, age) and one run with
// its steps (state, attempts, notes) and its timeline — inbox created, mail received, code extracted, step started
// and reported — kept live: the inbox of the service at work is followed over its SSE stream (a mail event re-reads
// the timeline at once), and the run is read again every 2 s while it is active (step reports have no stream).
// Timeline events that name a message link to it in the inbox view.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, query, streamEvents } from './api.ts';
import type { Me } from './types.ts';
import { ago, ErrorNote, fullTime, html, say, Time, useApi } from './ui.ts';

interface RunStep {
  stepId: string;
  service: string;
  kind: string;
  status: 'pending' | 'active' | 'done' | 'failed' | 'skipped';
  attempts: number;
  notes: string[];
  startedAt: string | null;
  finishedAt: string | null;
  messageId: string | null;
}

interface RunService {
  name: string;
  preset: string | null;
  inboxId: string | null;
  address: string | null;
}

export interface Run {
  runId: string;
  label: string;
  goal: string;
  status: 'active' | 'succeeded' | 'failed' | 'abandoned';
  services: RunService[];
  steps: RunStep[];
  notes: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
}

interface TimelineEvent {
  seq: number;
  at: string;
  type: string;
  stepId: string | null;
  data: Record<string, unknown>;
}

interface Timeline {
  runId: string;
  items: TimelineEvent[];
  nextCursor: string | null;
}

const STATUSES = ['active', 'succeeded', 'failed', 'abandoned'] as const;
/** A run is read again this often while it is active and the page is visible. */
const POLL_MS = 2000;

/** Calls `f` every `ms` while the page is visible and `on` holds. */
function useEvery(ms: number, on: boolean, f: () => void): void {
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => document.visibilityState === 'visible' && f(), ms);
    return () => clearInterval(t);
  }, [ms, on, f]);
}

export function StatusBadge({ status }: { status: string }) {
  return html`<span class=${`badge state state-${status}`} data-status=${status}>${status.replace(/_/g, ' ')}</span>`;
}

function finished(r: Run): number {
  return r.steps.filter((s) => s.status === 'done' || s.status === 'skipped').length;
}

export function RunList() {
  const [status, setStatus] = useState('');
  const list = useApi<{ items: Run[]; nextCursor: string | null }>(`v1/agent/runs${query({ status, limit: 100 })}`);
  useEvery(POLL_MS * 2, true, list.reload);
  const runs = list.data?.items ?? [];
  return html`<section class="runs" aria-labelledby="runs-title">
    <h2 id="runs-title">Agent runs</h2>
    <p class="muted">Signup runs of agents (<code>svc_start_run</code>): newest first, read again every 4 s.</p>
    <p><label for="run-status">Status</label>
      <select id="run-status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">any</option>
        ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></p>
    <${ErrorNote} error=${list.error} what="agent runs (GET /v1/agent/runs)" />
    ${list.data && runs.length === 0 ? html`<p class="empty">No runs${status ? ` with status ${status}` : ''} in this key’s scope.</p>` : ''}
    ${
      runs.length
        ? html`<table class="grid runs-table"><thead><tr><th>Status</th><th>Goal</th><th>Service list</th><th>Steps</th><th>Started</th></tr></thead>
          <tbody>${runs.map(
            (r) => html`<tr key=${r.runId} data-run-id=${r.runId}>
              <td><${StatusBadge} status=${r.status} /></td>
              <td><a href=${`#/runs/${r.runId}`} data-nav="runs">${r.goal}</a></td>
              <td>${r.services.map((s) => s.name).join(', ')}</td>
              <td>${finished(r)} / ${r.steps.length}</td>
              <td><span title=${fullTime(r.createdAt)}>${ago(r.createdAt)}</span></td>
            </tr>`,
          )}</tbody></table>`
        : ''
    }
  </section>`;
}

/** The whole timeline, oldest first (pages of 200, at most 2,000 events). */
async function readTimeline(runId: string, signal: AbortSignal): Promise<TimelineEvent[]> {
  const out: TimelineEvent[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 10; i++) {
    const page: Timeline = await api<Timeline>(`v1/agent/runs/${runId}/timeline${query({ limit: 200, cursor })}`, { signal });
    out.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return out;
}

export function RunPage({ runId, me }: { runId: string; me: Me }) {
  const run = useApi<Run>(`v1/agent/runs/${runId}`);
  const [events, setEvents] = useState<TimelineEvent[] | null>(null);
  const [tlError, setTlError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const r = run.data;
  const active = r?.status === 'active';
  const reload = run.reload;
  useEffect(() => {
    const ctrl = new AbortController();
    readTimeline(runId, ctrl.signal).then(
      (items) => {
        setEvents(items);
        setTlError(null);
      },
      (e: Error) => !ctrl.signal.aborted && setTlError(e),
    );
    return () => ctrl.abort();
  }, [runId, tick]);
  const both = useCallback(() => {
    reload();
    setTick((t) => t + 1);
  }, [reload]);
  useEvery(POLL_MS, active, both);
  // The inbox of the service at work (the first unfinished step's) is followed live: its mail shows at once.
  const current = r?.steps.find((s) => s.status !== 'done' && s.status !== 'skipped');
  const liveInbox = active && current ? (r?.services.find((s) => s.name === current.service)?.inboxId ?? null) : null;
  const [live, setLive] = useState<string>('');
  useEffect(() => {
    if (!liveInbox) return;
    const stop = streamEvents(`v1/inboxes/${liveInbox}/events`, {
      lastEventId: null,
      onEvent: () => both(),
      onState: (s) => setLive(s),
    });
    return () => {
      stop();
      setLive('');
    };
  }, [liveInbox]);

  const [busy, setBusy] = useState(false);
  const readOnly = !!me.scope?.readOnly;
  const abandon = async () => {
    if (!r || !confirm(`Mark the run “${r.goal}” abandoned? An agent can set it active again.`)) return;
    setBusy(true);
    try {
      await api(`v1/agent/runs/${r.runId}`, { method: 'PATCH', body: { status: 'abandoned', ifVersion: r.version } });
      say('Run marked abandoned');
      both();
    } catch (e) {
      say(`Could not change the run: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  if (!r) return html`<${ErrorNote} error=${run.error} what="this run" />${run.loading ? html`<p class="muted">Loading the run…</p>` : ''}`;
  const inboxOf = (service: unknown) => r.services.find((s) => s.name === service)?.inboxId ?? null;
  return html`<section class="run" aria-labelledby="run-title" data-run-id=${r.runId}>
    <p><a href="#/runs">← Agent runs</a></p>
    <h2 id="run-title">${r.goal} <${StatusBadge} status=${r.status} /></h2>
    <p class="muted"><span>${r.runId}</span><span> · label <span class="badge">${r.label}</span></span>
      <span> · started <${Time} iso=${r.createdAt} /></span>
      <span> · updated <span title=${fullTime(r.updatedAt)}>${ago(r.updatedAt)}</span></span>
      <span> · expires <span title=${fullTime(r.expiresAt)}>${ago(r.expiresAt)}</span></span>
      ${active ? html`<span> · <span class=${`live live-${live || 'polling'}`}>${live === 'live' ? 'live' : 'following'}</span></span>` : ''}</p>
    ${r.notes ? html`<p class="notes">${r.notes}</p>` : ''}
    ${
      r.status === 'active'
        ? html`<p><button type="button" onClick=${abandon} disabled=${readOnly || busy}
            title=${readOnly ? 'This key is read-only: it cannot change a run' : 'PATCH /v1/agent/runs/:id {status: abandoned}'}>Mark abandoned</button>
            ${readOnly ? html` <span class="muted reason">read-only key: no changes</span>` : ''}</p>`
        : ''
    }
    <h3>Steps</h3>
    <table class="grid steps"><thead><tr><th>Service</th><th>Step</th><th>State</th><th>Attempts</th><th>Notes</th><th>Finished</th></tr></thead>
      <tbody>${r.steps.map((s) => {
        const svc = r.services.find((x) => x.name === s.service);
        return html`<tr key=${s.stepId} data-step-id=${s.stepId}>
          <td>${s.service}${svc?.address ? html`<br /><code class="muted">${svc.address}</code>` : ''}</td>
          <td>${s.kind.replace(/_/g, ' ')}</td>
          <td><${StatusBadge} status=${s.status} /></td>
          <td>${s.attempts}</td>
          <td>${s.notes.length ? s.notes.join(' · ') : ''}${
            s.messageId && svc?.inboxId ? html` <a href=${`#/inbox/${svc.inboxId}/m/${s.messageId}`}>the message</a>` : ''
          }</td>
          <td><${Time} iso=${s.finishedAt} /></td>
        </tr>`;
      })}</tbody></table>
    <h3>Timeline</h3>
    <${ErrorNote} error=${tlError} what="the run’s timeline" />
    ${events && events.length === 0 ? html`<p class="empty">Nothing happened yet.</p>` : ''}
    <ol class="timeline" aria-live="polite">
      ${(events ?? []).map((e) => html`<${EventRow} key=${e.seq} e=${e} inboxOf=${inboxOf} />`)}
    </ol>
  </section>`;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
}

function EventRow({ e, inboxOf }: { e: TimelineEvent; inboxOf: (service: unknown) => string | null }) {
  const d = e.data;
  const messageId = typeof d['messageId'] === 'string' ? d['messageId'] : null;
  const inboxId = typeof d['inboxId'] === 'string' ? d['inboxId'] : inboxOf(d['service']);
  const what = describe(e);
  const link =
    messageId && inboxId
      ? html` <a href=${`#/inbox/${inboxId}/m/${messageId}`} class="to-message">open the message</a>`
      : e.type === 'inbox.created' && inboxId
        ? html` <a href=${`#/inbox/${inboxId}`}>open the inbox</a>`
        : '';
  return html`<li class=${`event event-${e.type.replace('.', '-')}`} data-type=${e.type}>
    <${Time} iso=${e.at} /> <span class="badge">${e.type}</span>${e.stepId ? html` <code>${e.stepId}</code>` : ''}
    <span class="what">${what}</span>${link}
  </li>`;
}

function describe(e: TimelineEvent): string {
  const d = e.data;
  switch (e.type) {
    case 'run.started':
      return `${text(d['goal'])} (${(d['services'] as string[] | undefined)?.join(', ') ?? ''})`;
    case 'inbox.created':
      return `${text(d['service']) || 'inbox'}: ${text(d['address'])}`;
    case 'step.started':
      return `attempt ${text(d['attempt'])}`;
    case 'message.received':
      return `${text(d['from'])} — ${text(d['subject'])}`;
    case 'code.extracted':
      return [d['otp'] ? `code ${text(d['otp'])}` : '', d['linkHost'] ? `link to ${text(d['linkHost'])}` : ''].filter(Boolean).join(', ');
    case 'step.done':
    case 'step.failed':
    case 'step.skipped':
      return d['note'] ? text(d['note']) : '';
    case 'run.finished':
      return `${text(d['status'])}: ${text(d['reason'])}`;
    case 'session.patched':
      return `changed ${(d['changed'] as string[] | undefined)?.join(', ') ?? ''}`;
    case 'access.issued':
      return `a token for ${text(d['labelPrefix'])}`;
    default:
      return '';
  }
}
