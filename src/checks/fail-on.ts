// `--fail-on` expressions: when does a report fail a build. A small, safe grammar — no code is evaluated:
//
//   expressions := term ("," term)*
//   term        := metric op value
//   metric      := check "." name ("." name)*       e.g. compat.errors, links.broken, auth.dkim, summary.errors
//   op          := ">=" | "<=" | "!=" | "==" | "=" | ">" | "<"
//   value       := number | word | "quoted text"
//
// The build fails when ANY term holds. Metrics are derived from each check's result generically, so a new check needs
// no change here: `<check>.errors|warnings|info|findings` (counts by severity), `<check>.status`, `<check>.score`,
// `<check>.durationMs`, `<check>.rule.<rule-id>` (findings of that rule), and every number, string or boolean in
// its `meta`, nested objects by dotted path (`links.broken`, `auth.dkim`, `spam.threshold`). `summary.*` covers the
// whole report. Ordering operators need numbers; strings compare with == and != only.
import { didYouMean } from '../lib/suggest.ts';
import type { CheckReport } from './report.ts';

export type Op = '>=' | '<=' | '!=' | '==' | '>' | '<';

export interface FailTerm {
  source: string;
  metric: string;
  op: Op;
  value: number | string;
}

export interface TermResult {
  term: FailTerm;
  actual: number | string | null;
  failed: boolean;
}

export interface FailOnResult {
  failed: boolean;
  terms: TermResult[];
}

/** A bad expression or a metric the report has no value for: exit 2 ("could not check"). */
export class FailOnError extends Error {
  override name = 'FailOnError';
}

const TERM = /^\s*([A-Za-z][\w-]*(?:\.[\w-]+)+)\s*(>=|<=|!=|==|=|>|<)\s*(?:"([^"]*)"|'([^']*)'|([^\s"',]+))\s*$/;
const MAX_TERMS = 50;

export function parseFailOn(expr: string): FailTerm[] {
  const parts = splitTerms(expr);
  if (parts.length === 0) throw new FailOnError('--fail-on is empty; give e.g. html.errors>0,a11y.warnings>=3');
  if (parts.length > MAX_TERMS) throw new FailOnError(`--fail-on has ${parts.length} terms; at most ${MAX_TERMS}`);
  return parts.map((source) => {
    const m = TERM.exec(source);
    if (!m)
      throw new FailOnError(
        `--fail-on term '${source.trim()}' is not metric op value (e.g. compat.errors>0, spam.score>=5, auth.dkim!=pass; ops >= <= > < == !=)`,
      );
    const raw = m[3] ?? m[4] ?? m[5]!;
    const quoted = m[3] !== undefined || m[4] !== undefined;
    const num = !quoted && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : null;
    const op = (m[2] === '=' ? '==' : m[2]) as Op;
    if (num === null && op !== '==' && op !== '!=')
      throw new FailOnError(`--fail-on term '${source.trim()}': ${op} needs a number; compare text with == or !=`);
    return { source: source.trim(), metric: m[1]!, op, value: num ?? raw };
  });
}

/** Commas split terms, except inside quotes. */
function splitTerms(expr: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (const ch of expr) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === ',') {
      if (cur.trim() !== '') out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur);
  return out;
}

type Value = number | string;

/** Every metric of a report, by dotted name. */
export function metricsOf(report: CheckReport): Map<string, Value> {
  const m = new Map<string, Value>();
  for (const [name, c] of Object.entries(report.checks)) {
    const count = { errors: 0, warnings: 0, info: 0 };
    const rules = new Map<string, number>();
    for (const f of c.findings) {
      if (f.severity === 'error') count.errors++;
      else if (f.severity === 'warning') count.warnings++;
      else count.info++;
      rules.set(f.rule, (rules.get(f.rule) ?? 0) + 1);
    }
    m.set(`${name}.errors`, count.errors);
    m.set(`${name}.warnings`, count.warnings);
    m.set(`${name}.info`, count.info);
    m.set(`${name}.findings`, c.findings.length);
    m.set(`${name}.status`, c.status);
    m.set(`${name}.durationMs`, c.durationMs);
    if (typeof c.score === 'number') m.set(`${name}.score`, c.score);
    for (const [rule, n] of rules) m.set(`${name}.rule.${rule}`, n);
    if (c.meta) flatten(`${name}`, c.meta, m, 0);
  }
  const s = report.summary;
  for (const k of ['errors', 'warnings', 'info', 'findings'] as const) m.set(`summary.${k}`, s[k]);
  m.set('summary.status', s.status);
  for (const [k, v] of Object.entries(s.checks)) m.set(`summary.${k}`, v);
  return m;
}

function flatten(prefix: string, obj: Record<string, unknown>, out: Map<string, Value>, depth: number): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = `${prefix}.${k}`;
    // Counts by severity and status are the engine's; meta cannot shadow them.
    if (out.has(key)) continue;
    if (typeof v === 'number' && Number.isFinite(v)) out.set(key, v);
    else if (typeof v === 'string') out.set(key, v);
    else if (typeof v === 'boolean') out.set(key, String(v));
    else if (v && typeof v === 'object' && !Array.isArray(v) && depth < 3) flatten(key, v as Record<string, unknown>, out, depth + 1);
    else if (Array.isArray(v)) out.set(`${key}.length`, v.length);
  }
}

/** The checks a set of terms refers to (so the CLI runs them even when --checks left them out). */
export function checksOf(terms: FailTerm[]): string[] {
  return [...new Set(terms.map((t) => t.metric.split('.')[0]!).filter((c) => c !== 'summary'))];
}

/** Evaluates the terms over a report; a metric that is not there is a FailOnError naming the nearest one. */
export function evaluateFailOn(terms: FailTerm[], report: CheckReport): FailOnResult {
  const metrics = metricsOf(report);
  const results: TermResult[] = [];
  for (const t of terms) {
    const check = t.metric.split('.')[0]!;
    const entry = report.checks[check];
    if (check !== 'summary' && !entry)
      throw new FailOnError(
        `--fail-on ${t.source}: the ${check} check was not run${didYouMean(check, [...Object.keys(report.checks), 'summary'])}; add it to --checks`,
      );
    let actual = metrics.get(t.metric);
    // Counts of a rule that found nothing are 0, not unknown.
    if (actual === undefined && /\.rule\./.test(t.metric)) actual = 0;
    if (actual === undefined) {
      if (entry && (entry.status === 'error' || entry.status === 'skipped'))
        throw new FailOnError(
          `--fail-on ${t.source}: the ${check} check answered ${entry.status}${entry.reason ? ` (${entry.reason})` : ''}`,
        );
      throw new FailOnError(
        `--fail-on ${t.source}: unknown metric ${t.metric}${didYouMean(t.metric, metrics.keys())} (known: ${[...metrics.keys()]
          .filter((k) => k.startsWith(`${check}.`) && !k.includes('.rule.'))
          .join(', ')})`,
      );
    }
    results.push({ term: t, actual, failed: compare(actual, t.op, t.value, t.source) });
  }
  return { failed: results.some((r) => r.failed), terms: results };
}

function compare(a: Value, op: Op, b: Value, source: string): boolean {
  if (typeof b === 'number') {
    const x = typeof a === 'number' ? a : Number(a);
    if (!Number.isFinite(x)) throw new FailOnError(`--fail-on ${source}: the metric is '${a}', not a number`);
    switch (op) {
      case '>':
        return x > b;
      case '>=':
        return x >= b;
      case '<':
        return x < b;
      case '<=':
        return x <= b;
      case '==':
        return x === b;
      case '!=':
        return x !== b;
    }
  }
  const s = String(a).toLowerCase();
  const t = String(b).toLowerCase();
  return op === '==' ? s === t : s !== t;
}
