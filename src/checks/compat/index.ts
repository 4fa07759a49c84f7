// compat: which HTML and CSS features of the mail are unsupported or partly supported in which mail clients, from
// caniemail's data built into the executable (./data, MIT). A client is `<family>.<platform>` (`outlook.windows`,
// `gmail.android`) judged by its LATEST tested version only; `u` (unknown) stays unknown. One finding per feature
// occurrence, at its line and column in the decoded HTML, naming the selected clients where it breaks:
// error = unsupported in at least one, warning = partly supported, info = support unknown.
//
// score (0–100) is Mailpit's "supported" percentage computed the same way but over our client set: for each feature
// found, its unsupported share (and, separately, its partial share) of the selected clients, weighted by
// occurrences ÷ element count (at most 1); score = 100 − the largest weighted partial share − the largest weighted
// unsupported share. Unlike Mailpit, a client counts once (not once per tested version) and unknown results are left
// out of the shares instead of counting as partial.
import type { CheckDef, CheckInput, CheckResult, Finding, Severity } from '../types.ts';
import type { CompactFeature } from './compact.ts';
import { cellOf } from './compact.ts';
import { CANIEMAIL, CANIEMAIL_DATA_DATE, CANIEMAIL_DATA_VERSION } from './data.ts';
import type { Occurrence } from './detect.ts';
import { detectFeatures } from './detect.ts';

export { CANIEMAIL_DATA_DATE, CANIEMAIL_DATA_VERSION };

/** Findings per rule (feature) before one closing "and N more" finding. */
export const MAX_FINDINGS_PER_RULE = 50;

/**
 * Features whose lack in a client leaves the mail as it looks (reported as info, never an error): the doctype
 * (caniemail's own note: "no impact"), and the accessibility attributes the a11y check asks for (`lang`, `dir`,
 * `role`) — a client that strips them shows the same mail, so compat must not fail a mail for following a11y's advice.
 */
const HARMLESS_WHEN_IGNORED: ReadonlySet<string> = new Set(['html-doctype', 'html-lang', 'html-dir', 'html-role']);

/** Every client id the data knows, with its display name (for discovery and `--clients` help). */
export const COMPAT_CLIENTS: ReadonlyArray<{ id: string; name: string }> = CANIEMAIL.clients;

const KNOWN = new Set(Object.keys(CANIEMAIL.features));

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/**
 * The client indexes a selection names: ids (`outlook.windows`), a family alone (`gmail` = `gmail.*`) or globs
 * (`gmail.*`, `*.ios`); an entry may hold several, comma-separated. Empty = every client. Throws a message listing the families when a pattern matches none.
 */
export function selectClients(patterns: readonly string[]): number[] {
  const wanted = patterns
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter(Boolean);
  if (wanted.length === 0) return CANIEMAIL.clients.map((_, i) => i);
  const picked = new Set<number>();
  for (const p of wanted) {
    const re = globToRegExp(p.includes('.') || p.includes('*') ? p : `${p}.*`);
    let any = false;
    CANIEMAIL.clients.forEach((c, i) => {
      if (re.test(c.id)) {
        picked.add(i);
        any = true;
      }
    });
    if (!any) {
      const families = [...new Set(CANIEMAIL.clients.map((c) => c.id.split('.')[0]))].join(', ');
      throw new Error(
        `client "${p}" matches no client in the caniemail data; use <family>.<platform> ids or globs such as gmail.*, outlook.windows (families: ${families})`,
      );
    }
  }
  return [...picked].sort((a, b) => a - b);
}

/** 1-based line and column of each offset, from one table of line starts. */
function locator(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

interface Verdict {
  severity: Severity | null;
  unsupported: string[];
  partial: string[];
  unknown: string[];
  /** Share (0–100) of the selected clients with a y/a/n result that do not / partly support the feature. */
  unsupportedShare: number;
  partialShare: number;
  detail: string;
}

function judge(slug: string, f: CompactFeature, clients: number[]): Verdict {
  const unsupported: string[] = [];
  const partial: string[] = [];
  const unknown: string[] = [];
  const lines: string[] = [];
  let y = 0;
  for (const i of clients) {
    const cell = cellOf(f, i);
    if (!cell) continue;
    const c = CANIEMAIL.clients[i]!;
    const label = `${c.name} (${cell.version})${cell.notes.length ? `: ${cell.notes.join(' ')}` : ''}`;
    if (cell.support === 'y') y++;
    else if (cell.support === 'n') {
      unsupported.push(c.id);
      lines.push(`not supported in ${label}`);
    } else if (cell.support === 'a') {
      partial.push(c.id);
      lines.push(`partly supported in ${label}`);
    } else unknown.push(c.id);
  }
  if (unknown.length) lines.push(`support unknown in ${unknown.length} client(s): ${unknown.join(', ')}`);
  const judged = y + unsupported.length + partial.length;
  // A feature a client ignores without changing how the mail looks (caniemail's own note on the HTML5 doctype: "no
  // impact") is reported as info, so a clean mail is not failed for declaring `<!doctype html>`.
  const severity: Severity | null = HARMLESS_WHEN_IGNORED.has(slug)
    ? unsupported.length || partial.length || unknown.length
      ? 'info'
      : null
    : unsupported.length
      ? 'error'
      : partial.length
        ? 'warning'
        : unknown.length
          ? 'info'
          : null;
  let detail = `${f.title} (${slug}): ${lines.join('; ')}.`;
  if (detail.length > 2000) detail = `${detail.slice(0, 1997)}…`;
  return {
    severity,
    unsupported,
    partial,
    unknown,
    unsupportedShare: judged && !HARMLESS_WHEN_IGNORED.has(slug) ? (unsupported.length / judged) * 100 : 0,
    partialShare: judged && !HARMLESS_WHEN_IGNORED.has(slug) ? (partial.length / judged) * 100 : 0,
    detail,
  };
}

function titleOf(f: CompactFeature, v: Verdict): string {
  const names = (ids: string[]) => {
    const shown = ids.slice(0, 4).map((id) => CANIEMAIL.clients.find((c) => c.id === id)!.name);
    return ids.length > 4 ? `${shown.join(', ')} and ${ids.length - 4} more` : shown.join(', ');
  };
  if (v.severity === 'error') return `${f.title} is not supported in ${names(v.unsupported)}`;
  if (v.severity === 'warning') return `${f.title} is only partly supported in ${names(v.partial)}`;
  if (v.unsupported.length || v.partial.length)
    return `${f.title} is ignored by ${names([...v.unsupported, ...v.partial])} (without effect on the mail)`;
  return `${f.title}: support unknown in ${names(v.unknown)}`;
}

/** Runs the matcher over one HTML document for the given client selection. */
export function checkCompat(html: string, clientPatterns: readonly string[], signal?: AbortSignal): CheckResult {
  const clients = selectClients(clientPatterns);
  const { occurrences, nodes } = detectFeatures(html, KNOWN, signal);
  const at = locator(html);
  const bySlug = new Map<string, Occurrence[]>();
  const seen = new Set<string>();
  for (const o of occurrences) {
    const key = `${o.slug}@${o.offset}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const list = bySlug.get(o.slug);
    if (list) list.push(o);
    else bySlug.set(o.slug, [o]);
  }
  const findings: Finding[] = [];
  const counts = { errors: 0, warnings: 0, unknown: 0 };
  const features = { errors: 0, warnings: 0, unknown: 0 };
  let worstPartial = 0;
  let worstUnsupported = 0;
  const weight = (n: number) => (nodes > 0 ? Math.min(1, n / nodes) : 1);
  for (const [slug, list] of bySlug) {
    const f = CANIEMAIL.features[slug]!;
    const v = judge(slug, f, clients);
    worstPartial = Math.max(worstPartial, v.partialShare * weight(list.length));
    worstUnsupported = Math.max(worstUnsupported, v.unsupportedShare * weight(list.length));
    if (!v.severity) continue;
    const key = v.severity === 'error' ? 'errors' : v.severity === 'warning' ? 'warnings' : 'unknown';
    counts[key] += list.length;
    features[key]++;
    const breaks = v.severity === 'info' && !HARMLESS_WHEN_IGNORED.has(slug) ? v.unknown : [...v.unsupported, ...v.partial, ...v.unknown];
    const title = titleOf(f, v);
    for (const o of list.slice(0, MAX_FINDINGS_PER_RULE)) {
      findings.push({
        check: 'compat',
        rule: slug,
        severity: v.severity,
        title,
        detail: v.detail,
        location: { part: 'html', ...at(o.offset), ...(o.selector ? { selector: o.selector } : {}) },
        clients: breaks,
        evidence: o.evidence,
        docs: f.url,
      });
    }
    if (list.length > MAX_FINDINGS_PER_RULE) {
      const rest = list.length - MAX_FINDINGS_PER_RULE;
      findings.push({
        check: 'compat',
        rule: slug,
        severity: v.severity,
        title: `${f.title}: and ${rest} more occurrence(s)`,
        detail: `${rest} further use(s) of ${f.title} were found and not listed one by one. ${v.detail}`,
        clients: breaks,
        docs: f.url,
      });
    }
  }
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  findings.sort((a, b) => rank[a.severity] - rank[b.severity] || (a.location?.line ?? 1e9) - (b.location?.line ?? 1e9));
  const score = Math.round(Math.max(0, 100 - worstPartial - worstUnsupported) * 100) / 100;
  return {
    status: counts.errors > 0 ? 'failed' : 'passed',
    score,
    findings,
    meta: {
      ...counts,
      features,
      nodes,
      clients: clients.map((i) => CANIEMAIL.clients[i]!.id),
      partial: Math.round(worstPartial * 100) / 100,
      unsupported: Math.round(worstUnsupported * 100) / 100,
      dataVersion: CANIEMAIL_DATA_VERSION,
    },
  };
}

export const compatCheck: CheckDef = {
  name: 'compat',
  // the data's date is part of the version: a report cached against older data is not reused
  version: `1+caniemail.${CANIEMAIL_DATA_DATE.slice(0, 10)}`,
  description: `HTML/CSS features the mail uses that mail clients do not or only partly support (caniemail data of ${CANIEMAIL_DATA_DATE.slice(0, 10)})`,
  async run(input: CheckInput): Promise<CheckResult> {
    input.signal.throwIfAborted();
    const html = input.html ?? input.parsed.html;
    if (!html)
      return { status: 'skipped', reason: 'the message has no HTML part; client compatibility concerns HTML mail only', findings: [] };
    try {
      selectClients(input.options.clients);
    } catch (err) {
      return { status: 'error', reason: (err as Error).message, findings: [] };
    }
    return checkCompat(html, input.options.clients, input.signal);
  },
};

export default compatCheck;
