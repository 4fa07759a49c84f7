// A bounded list of findings for one check: at most PER_RULE findings of one rule are kept, and the rest are counted
// into one closing "and N more" finding of that rule, so a mail with 7,000 problems of one kind (smtp4dev #1550)
// answers with 50 and a count instead of freezing the console.
import type { CheckResult, Finding, FindingLocation, Severity } from './types.ts';

export const PER_RULE = 50;

export interface FindingInput {
  rule: string;
  severity: Severity;
  title: string;
  detail: string;
  location?: FindingLocation | undefined;
  evidence?: string | undefined;
  docs?: string | undefined;
  clients?: string[] | undefined;
  tags?: string[] | undefined;
}

export class Findings {
  private readonly check: string;
  private readonly list: Finding[] = [];
  private readonly perRule = new Map<string, { kept: number; dropped: number; severity: Severity; title: string }>();

  constructor(check: string) {
    this.check = check;
  }

  add(f: FindingInput): void {
    const r = this.perRule.get(f.rule) ?? { kept: 0, dropped: 0, severity: f.severity, title: f.title };
    this.perRule.set(f.rule, r);
    if (r.kept >= PER_RULE) {
      r.dropped++;
      return;
    }
    r.kept++;
    const out: Finding = { check: this.check, rule: f.rule, severity: f.severity, title: f.title, detail: f.detail };
    if (f.location) out.location = f.location;
    if (f.evidence !== undefined) out.evidence = f.evidence;
    if (f.docs !== undefined) out.docs = f.docs;
    if (f.clients) out.clients = f.clients;
    if (f.tags) out.tags = f.tags;
    this.list.push(out);
  }

  /** How many findings of a rule were seen (kept and dropped). */
  count(rule: string): number {
    const r = this.perRule.get(rule);
    return r ? r.kept + r.dropped : 0;
  }

  /** The findings, each capped rule closed by its "and N more" finding. */
  done(): Finding[] {
    const out = [...this.list];
    for (const [rule, r] of this.perRule)
      if (r.dropped > 0)
        out.push({
          check: this.check,
          rule,
          severity: r.severity,
          title: `and ${r.dropped} more: ${r.title}`,
          detail: `${r.kept + r.dropped} findings of rule ${rule}; the first ${r.kept} are listed`,
          tags: ['truncated'],
        });
    return out;
  }

  /** `failed` when there is an error finding, `passed` otherwise (warnings and info do not fail a check). */
  result(meta?: Record<string, unknown>): CheckResult {
    const findings = this.done();
    const status = findings.some((f) => f.severity === 'error') ? 'failed' : 'passed';
    return meta ? { status, findings, meta } : { status, findings };
  }
}
