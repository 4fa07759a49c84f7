/// <reference lib="dom" />
// The message's Checks tab (issue 28): the last report (or a button that runs the checks), counts per check, one
// section per check, and each finding linking to its line in the Source tab — the decoded HTML (or text) with line
// numbers, the same lines and columns the checks report.
import { useEffect, useRef, useState } from 'preact/hooks';
import { writeBlocked } from './actions.ts';
import { ApiError, api } from './api.ts';
import type { CheckFinding, CheckReport, Message } from './types.ts';
import { ErrorNote, html, say, Time, useApi } from './ui.ts';

/** A line the Source tab shows highlighted and scrolled to. */
export interface SourceLine {
  part: 'html' | 'text';
  line: number;
}

const count = (fs: CheckFinding[], sev: CheckFinding['severity']) => fs.filter((f) => f.severity === sev).length;

export function ChecksPart({ m, jump }: { m: Message; jump: (at: SourceLine) => void }) {
  const base = `v1/inboxes/${m.inboxId}/messages/${m.messageId}/checks`;
  const [report, setReport] = useState<CheckReport | null>(null);
  const [state, setState] = useState<'loading' | 'none' | 'running' | 'ready'>('loading');
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    const ctrl = new AbortController();
    api<CheckReport>(base, { signal: ctrl.signal }).then(
      (r) => {
        setReport(r);
        setState('ready');
      },
      (e: Error) => {
        if (ctrl.signal.aborted) return;
        if (e instanceof ApiError && e.status === 404 && !e.notOffered) setState('none');
        else {
          setError(e);
          setState('none');
        }
      },
    );
    return () => ctrl.abort();
  }, [base]);
  const run = async (options: Record<string, unknown> = {}) => {
    setState('running');
    setError(null);
    try {
      const r = await api<CheckReport>(base, { method: 'POST', body: options });
      setReport(r);
      setState('ready');
      say(`Checks ${r.summary.status}: ${r.summary.errors} errors, ${r.summary.warnings} warnings`);
    } catch (e) {
      setError(e as Error);
      setState(report ? 'ready' : 'none');
    }
  };
  const blocked = writeBlocked();
  const runButton = html`<button type="button" id="run-checks" onClick=${() => void run()} disabled=${state === 'running' || !!blocked}
    title=${blocked ?? undefined}>
    ${state === 'running' ? 'Checking…' : report ? 'Run again' : 'Run checks'}</button>
    <${CheckOptions} run=${run} busy=${state === 'running'} />`;
  if (state === 'loading') return html`<p class="empty">Loading…</p>`;
  if (!report)
    return html`<div class="checks">
      <p class="empty">No checks have run on this message yet.</p>
      <p>${runButton}</p>
      <${ErrorNote} error=${error} what="message checks" />
    </div>`;
  const s = report.summary;
  return html`<div class="checks" data-status=${s.status}>
    <p class="checks-head">
      <span class=${`badge check-${s.status}`}>${s.status}</span>
      <span>${s.errors} errors · ${s.warnings} warnings · ${s.info} info</span>
      <span class="muted">checked <${Time} iso=${report.checkedAt} />${report.cached ? ' (cached)' : ''}</span>
      ${runButton}
    </p>
    <${ErrorNote} error=${error} what="message checks" />
    <ul class="check-counts" aria-label="Findings per check">
      ${Object.entries(report.checks).map(
        ([name, c]) => html`<li><a href=${`#check-${name}`} onClick=${(e: Event) => {
          e.preventDefault();
          document.getElementById(`check-${name}`)?.scrollIntoView({ block: 'start' });
        }}>${name}</a> <span class=${`badge check-${c.status}`}>${c.status}</span>
          <span class="muted">${count(c.findings, 'error')} E · ${count(c.findings, 'warning')} W · ${count(c.findings, 'info')} I</span></li>`,
      )}
    </ul>
    ${Object.entries(report.checks).map(
      ([name, c]) => html`<section class="check" id=${`check-${name}`} data-check=${name} aria-label=${`${name} check`}>
        <h3>${name} <span class=${`badge check-${c.status}`}>${c.status}</span>${c.score !== undefined ? html` <span class="muted">score ${c.score}</span>` : ''}
          <span class="muted"> ${c.durationMs} ms</span></h3>
        ${c.reason ? html`<p class="note">${c.reason}</p>` : ''}
        ${
          c.findings.length === 0
            ? html`<p class="muted">No findings.</p>`
            : html`<ul class="findings">${c.findings.map((f) => html`<${FindingItem} f=${f} jump=${jump} />`)}</ul>`
        }
      </section>`,
    )}
  </div>`;
}

/** "Run with options": which checks, which clients (globs), links static or reach. POST …/checks with them. */
function CheckOptions({ run, busy }: { run: (o: Record<string, unknown>) => Promise<void>; busy: boolean }) {
  const list = useApi<{ items: Array<{ name: string; description: string }> }>('v1/checks');
  const blocked = writeBlocked();
  return html`<details class="check-options">
    <summary>Run with options…</summary>
    <form class="stack" onSubmit=${(e: Event) => {
      e.preventDefault();
      const f = new FormData(e.target as HTMLFormElement);
      const checks = f.getAll('check').map(String);
      const clients = String(f.get('clients') ?? '')
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      const mode = String(f.get('linkMode') ?? 'static');
      void run({
        ...(checks.length ? { checks } : {}),
        ...(clients.length ? { clients } : {}),
        links: { mode, includeVerificationLinks: f.get('includeVerificationLinks') === 'on' },
      });
    }}>
      <fieldset><legend>Checks (none ticked: the default set)</legend>
        ${(list.data?.items ?? []).map(
          (c) => html`<label class="tick" title=${c.description}><input type="checkbox" name="check" value=${c.name} /> ${c.name}</label>`,
        )}
      </fieldset>
      <label for="check-clients">Clients (globs, comma-separated)</label>
      <input id="check-clients" name="clients" placeholder="gmail.*, outlook.windows" autocomplete="off" />
      <label for="check-links">Links</label>
      <select id="check-links" name="linkMode"><option value="static">static (no network)</option><option value="reach">reach (allowed hosts only)</option></select>
      <label class="tick"><input type="checkbox" name="includeVerificationLinks" /> reach: follow verification links too (may spend a token)</label>
      <p><button type="submit" id="run-checks-options" disabled=${busy || !!blocked} title=${blocked ?? undefined}>Run with these options</button></p>
    </form>
  </details>`;
}

function FindingItem({ f, jump }: { f: CheckFinding; jump: (at: SourceLine) => void }) {
  const loc = f.location;
  const part = loc?.part === 'text' ? 'text' : loc?.part === 'html' ? 'html' : null;
  return html`<li class=${`finding sev-${f.severity}`} data-rule=${f.rule}>
    <span class=${`badge sev-${f.severity}`}>${f.severity}</span>
    <strong>${f.title}</strong>
    ${
      part && loc?.line
        ? html` <a href="#" class="jump" data-line=${loc.line} data-part=${part}
            onClick=${(e: Event) => {
              e.preventDefault();
              jump({ part, line: loc.line! });
            }}>${part}:${loc.line}${loc.column ? `:${loc.column}` : ''}</a>`
        : ''
    }
    <div class="muted">${f.detail}</div>
    ${f.clients?.length ? html`<div class="muted">Clients: ${f.clients.join(', ')}</div>` : ''}
    ${f.evidence ? html`<code class="evidence">${f.evidence}</code>` : ''}
    <div class="muted rule">${f.check}/${f.rule}</div>
  </li>`;
}

/** Lines shown at most (a very long HTML is cut, with a note). */
const MAX_LINES = 20_000;

export function SourcePart({ m, at }: { m: Message; at: SourceLine | null }) {
  const [part, setPart] = useState<'html' | 'text'>(at?.part ?? (m.html ? 'html' : 'text'));
  useEffect(() => {
    if (at) setPart(at.part);
  }, [at]);
  const source = part === 'html' ? m.html : m.text;
  const lines = (source ?? '').split('\n');
  const box = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (!at || at.part !== part) return;
    const li = box.current?.querySelector<HTMLElement>(`#src-${part}-L${at.line}`);
    li?.scrollIntoView({ block: 'center' });
    li?.focus();
  }, [at, part]);
  return html`<div class="source">
    <p class="source-parts">
      ${m.html ? html`<button type="button" aria-pressed=${part === 'html'} onClick=${() => setPart('html')}>HTML</button>` : ''}
      ${m.text ? html`<button type="button" aria-pressed=${part === 'text'} onClick=${() => setPart('text')}>Text</button>` : ''}
      <span class="muted">decoded ${part === 'html' ? 'HTML' : 'text'} part, ${lines.length} lines</span>
    </p>
    ${
      source === null
        ? html`<p class="empty">This message has no ${part} part.</p>`
        : html`<ol class="source-lines" ref=${box} aria-label=${`${part} source`}>
          ${lines
            .slice(0, MAX_LINES)
            .map(
              (l, i) =>
                html`<li id=${`src-${part}-L${i + 1}`} tabIndex="-1" class=${at && at.part === part && at.line === i + 1 ? 'hit' : undefined}><code>${l}</code></li>`,
            )}
        </ol>${lines.length > MAX_LINES ? html`<p class="note">Shown: the first ${MAX_LINES} lines.</p>` : ''}`
    }
  </div>`;
}
