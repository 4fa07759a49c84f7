// The report of one run of checks over one message, as every surface shows it (REST, MCP, CLI, console, SSE and
// callbacks), and its summary. Types and pure functions only: the CLI (src/client/) reads reports with them too.
import type { CheckResult, CheckStatus, Finding } from './types.ts';

export interface CheckEntry extends CheckResult {
  durationMs: number;
}

export interface ReportSummary {
  /** failed: a check failed; error: none failed but one could not answer; passed otherwise. */
  status: 'passed' | 'failed' | 'error';
  errors: number;
  warnings: number;
  info: number;
  findings: number;
  checks: Record<CheckStatus, number>;
  durationMs: number;
}

export interface CheckReport {
  /** Null for supplied mail (POST /v1/checks). */
  messageId: string | null;
  /** sha256 of the raw message: reports are cached per content and data version. */
  contentHash: string;
  /** The engine's and each check's rule/data versions: a new version runs the checks again. */
  dataVersion: string;
  checkedAt: string;
  /** The checks run, in order, and the options they ran with. */
  options: { checks: string[]; clients: string[]; links: { mode: 'static' | 'reach'; includeVerificationLinks: boolean } };
  /** Set when the report came from the cache (the time it was first computed is checkedAt). */
  cached?: boolean;
  checks: Record<string, CheckEntry>;
  summary: ReportSummary;
}

export function summarize(checks: Record<string, CheckEntry>, durationMs: number): ReportSummary {
  const s: ReportSummary = {
    status: 'passed',
    errors: 0,
    warnings: 0,
    info: 0,
    findings: 0,
    checks: { passed: 0, failed: 0, skipped: 0, error: 0 },
    durationMs,
  };
  for (const c of Object.values(checks)) {
    s.checks[c.status]++;
    for (const f of c.findings) {
      s.findings++;
      if (f.severity === 'error') s.errors++;
      else if (f.severity === 'warning') s.warnings++;
      else s.info++;
    }
  }
  s.status = s.checks.failed > 0 ? 'failed' : s.checks.error > 0 ? 'error' : 'passed';
  return s;
}

/** Every finding of the report, check by check. */
export function allFindings(r: CheckReport): Finding[] {
  return Object.values(r.checks).flatMap((c) => c.findings);
}
