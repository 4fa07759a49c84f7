// A report written for a person (text), a program (json), a CI test view (JUnit XML) or code scanning (SARIF 2.1.0).
// Pure: the CLI (`inboxd check --format`) calls these on the report the server answered.
import type { FailOnResult } from './fail-on.ts';
import type { CheckReport } from './report.ts';
import type { Finding } from './types.ts';

export type ReportFormat = 'text' | 'json' | 'junit' | 'sarif';
export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'junit', 'sarif'];

/** What was checked, for file names in SARIF and JUnit (a message id or the file given). */
export interface Subject {
  name: string;
  /** The artifact findings point into (SARIF uri), e.g. msg_….html or mail.eml. */
  artifact: string;
}

const where = (f: Finding) =>
  f.location?.line !== undefined ? `${f.location.part ?? 'html'}:${f.location.line}:${f.location.column ?? 1}` : (f.location?.part ?? '');

export function formatText(r: CheckReport, verdict: FailOnResult | null, subject: Subject): string {
  const lines: string[] = [];
  const s = r.summary;
  lines.push(`${subject.name}: ${s.status} — ${s.errors} errors, ${s.warnings} warnings, ${s.info} info (${s.durationMs} ms)`);
  for (const [name, c] of Object.entries(r.checks)) {
    lines.push('', `${name}: ${c.status}${c.score !== undefined ? ` (score ${c.score})` : ''}${c.reason ? ` — ${c.reason}` : ''}`);
    for (const f of c.findings) lines.push(`  ${f.severity.padEnd(7)} ${where(f).padEnd(14)} ${f.rule}: ${f.title}`);
  }
  if (verdict) {
    lines.push('', 'fail-on:');
    for (const t of verdict.terms) lines.push(`  ${t.failed ? 'FAIL' : 'ok  '} ${t.term.source} (actual ${t.actual})`);
  }
  return lines.join('\n');
}

const xml = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** JUnit XML: a testsuite per check, a testcase per rule that found something (failure on errors), fail-on terms too. */
export function formatJunit(r: CheckReport, verdict: FailOnResult | null, subject: Subject): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  for (const [name, c] of Object.entries(r.checks)) {
    const byRule = new Map<string, Finding[]>();
    for (const f of c.findings) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
    const cases: string[] = [];
    let sf = 0;
    let se = 0;
    if (c.status === 'error') {
      se++;
      cases.push(
        `    <testcase classname="${xml(`inboxd.${name}`)}" name="${xml(name)}" time="${secs(c.durationMs)}">\n      <error message="${xml(c.reason ?? 'error')}"/>\n    </testcase>`,
      );
    } else if (c.status === 'skipped') {
      cases.push(
        `    <testcase classname="${xml(`inboxd.${name}`)}" name="${xml(name)}" time="0">\n      <skipped message="${xml(c.reason ?? 'skipped')}"/>\n    </testcase>`,
      );
    } else if (byRule.size === 0) {
      cases.push(`    <testcase classname="${xml(`inboxd.${name}`)}" name="${xml(name)}" time="${secs(c.durationMs)}"/>`);
    }
    for (const [rule, fs] of byRule) {
      const body = fs.map((f) => `${f.severity} ${where(f)} ${f.title}${f.detail ? ` — ${f.detail}` : ''}`).join('\n');
      const failing = fs.some((f) => f.severity === 'error');
      if (failing) sf++;
      cases.push(
        `    <testcase classname="${xml(`inboxd.${name}`)}" name="${xml(`${name}.${rule}`)}" time="0">\n` +
          (failing
            ? `      <failure message="${xml(fs[0]!.title)}" type="${xml(rule)}">${xml(body)}</failure>\n`
            : `      <system-out>${xml(body)}</system-out>\n`) +
          '    </testcase>',
      );
    }
    tests += cases.length;
    failures += sf;
    errors += se;
    suites.push(
      `  <testsuite name="${xml(`${subject.name} ${name}`)}" tests="${cases.length}" failures="${sf}" errors="${se}" skipped="${c.status === 'skipped' ? 1 : 0}" time="${secs(c.durationMs)}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  if (verdict) {
    const cases = verdict.terms.map(
      (t) =>
        `    <testcase classname="inboxd.fail-on" name="${xml(t.term.source)}" time="0">` +
        (t.failed
          ? `\n      <failure message="${xml(`${t.term.source} (actual ${t.actual})`)}" type="fail-on"/>\n    </testcase>`
          : '</testcase>'),
    );
    const f = verdict.terms.filter((t) => t.failed).length;
    tests += cases.length;
    failures += f;
    suites.push(
      `  <testsuite name="${xml(`${subject.name} fail-on`)}" tests="${cases.length}" failures="${f}" errors="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="inboxd check" tests="${tests}" failures="${failures}" errors="${errors}" time="${secs(r.summary.durationMs)}">\n${suites.join('\n')}\n</testsuites>`;
}

/** SARIF 2.1.0: one run, a rule per check/rule, a result per finding with its region in the HTML (or text). */
export function formatSarif(r: CheckReport, subject: Subject, version: string): string {
  const rules = new Map<string, { id: string; name: string; shortDescription: { text: string }; helpUri?: string }>();
  const results: unknown[] = [];
  for (const [name, c] of Object.entries(r.checks)) {
    if (c.status === 'error')
      results.push({
        ruleId: `${name}/check-error`,
        level: 'error',
        kind: 'fail',
        message: { text: `the ${name} check could not answer: ${c.reason ?? 'error'}` },
      });
    for (const f of c.findings) {
      const id = `${name}/${f.rule}`;
      if (!rules.has(id)) rules.set(id, { id, name: f.rule, shortDescription: { text: f.title }, ...(f.docs ? { helpUri: f.docs } : {}) });
      const loc = f.location;
      const artifact = loc?.part === 'text' ? subject.artifact.replace(/\.html$/, '.txt') : subject.artifact;
      results.push({
        ruleId: id,
        level: f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'note',
        message: { text: `${f.title}${f.detail ? `. ${f.detail}` : ''}` },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: artifact },
              ...(loc?.line !== undefined ? { region: { startLine: loc.line, startColumn: loc.column ?? 1 } } : {}),
            },
            ...(loc?.selector ? { logicalLocations: [{ name: loc.selector, kind: 'element' }] } : {}),
          },
        ],
        ...(f.tags ? { properties: { tags: f.tags } } : {}),
      });
    }
  }
  if (rules.size === 0 && results.length === 0) {
    // An empty run is valid SARIF; keep the rules array present for consumers that expect it.
  }
  for (const id of [...new Set(results.map((x) => (x as { ruleId: string }).ruleId))])
    if (!rules.has(id)) rules.set(id, { id, name: id.split('/')[1]!, shortDescription: { text: id } });
  return JSON.stringify(
    {
      $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'inboxd', version, rules: [...rules.values()] } },
          artifacts: [{ location: { uri: subject.artifact } }],
          results,
          properties: { summary: r.summary, contentHash: r.contentHash, dataVersion: r.dataVersion, messageId: r.messageId },
        },
      ],
    },
    null,
    2,
  );
}
