// The spam check (issue 28): a score from a SpamAssassin daemon (`--spamd host:port`, SPAMC protocol) or rspamd
// (`--rspamd URL`, /checkv2), with the engine's own threshold, verdict and rules; rules that only reflect the test
// set-up are tagged `environmental` (environmental.ts). With no daemon configured, a built-in content lint answers
// (`meta.engine: "builtin"`). A configured daemon that cannot be asked makes the check `error`, naming the address
// and the flag — never a silent fall-back to the lint.
import type { CheckDef, CheckInput, CheckResult, Finding } from '../types.ts';
import { BUILTIN_THRESHOLD, builtinLint } from './builtin.ts';
import { isEnvironmental } from './environmental.ts';
import { RspamdClient } from './rspamd.ts';
import { EngineUnavailable, type EngineVerdict, parseHostPort, spamdReport } from './spamd.ts';

export interface SpamCheckDeps {
  /** `--spamd host:port` (default port 783). */
  spamd?: string | null;
  /** `--rspamd URL` (the worker's base URL, e.g. http://127.0.0.1:11334). Used when both are set. */
  rspamd?: string | null;
  /** `--spam-timeout-ms`: the whole exchange with the daemon. */
  timeoutMs: number;
}

const MAX_RULE_FINDINGS = 50;
const DOCS = 'README.md#spam';

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export function createSpamCheck(deps: SpamCheckDeps): CheckDef {
  const rspamd = deps.rspamd ? new RspamdClient(deps.rspamd, deps.timeoutMs) : null;
  const spamd = !rspamd && deps.spamd ? parseHostPort(deps.spamd, 783) : null;
  if (!rspamd && deps.spamd && !spamd) throw new Error(`--spamd ${deps.spamd}: expected HOST:PORT, e.g. 127.0.0.1:783`);
  return {
    name: 'spam',
    description: 'spam score and rules from spamd or rspamd (or a built-in content lint), environmental rules tagged',
    async run(input: CheckInput): Promise<CheckResult> {
      if (!rspamd && !spamd) return builtinResult(input);
      let v: EngineVerdict;
      try {
        v = rspamd
          ? await rspamd.check(
              input.raw,
              {
                clientIp: input.facts?.clientIp ?? null,
                helo: input.facts?.helo ?? null,
                mailFrom: input.facts?.mailFrom ?? null,
                rcpts: [...input.parsed.to, ...input.parsed.cc].map((a) => a.address).filter(Boolean),
              },
              input.signal,
            )
          : await spamdReport(input.raw, { ...spamd!, timeoutMs: deps.timeoutMs, signal: input.signal });
      } catch (e) {
        if (e instanceof EngineUnavailable)
          return { status: 'error', reason: e.message, findings: [], meta: { engine: rspamd ? 'rspamd' : 'spamd' } };
        throw e;
      }
      return engineResult(v);
    },
  };
}

function engineResult(v: EngineVerdict): CheckResult {
  const rules = [...v.rules].sort((a, b) => Math.abs(b.score) - Math.abs(a.score) || a.name.localeCompare(b.name));
  let environmental = 0;
  const findings: Finding[] = [];
  for (const r of rules) {
    const env = isEnvironmental(v.engine, r.name);
    if (env) environmental += r.score;
    if (findings.length >= MAX_RULE_FINDINGS) continue;
    findings.push({
      check: 'spam',
      rule: r.name,
      severity: r.score >= 1 && !env ? 'warning' : 'info',
      title: `${r.name} ${r.score >= 0 ? '+' : ''}${round(r.score)}`,
      detail: r.description || 'no description',
      docs: DOCS,
      ...(env ? { tags: ['environmental'] } : {}),
    });
  }
  if (rules.length > MAX_RULE_FINDINGS)
    findings.push({
      check: 'spam',
      rule: 'more-rules',
      severity: 'info',
      title: `and ${rules.length - MAX_RULE_FINDINGS} more rules`,
      detail: 'only the rules with the largest scores are listed',
    });
  if (v.isSpam)
    findings.unshift({
      check: 'spam',
      rule: 'spam-verdict',
      severity: 'error',
      title: `${v.engine} says spam: ${round(v.score)} (threshold ${round(v.threshold)})`,
      detail: `the score reaches ${v.engine}'s threshold${v.action ? ` (action: ${v.action})` : ''}; see the rules with the largest scores`,
      docs: DOCS,
    });
  return {
    status: v.isSpam ? 'failed' : 'passed',
    score: round(v.score),
    findings,
    meta: {
      engine: v.engine,
      score: round(v.score),
      threshold: round(v.threshold),
      isSpam: v.isSpam,
      ...(v.action ? { action: v.action } : {}),
      scoreWithoutEnvironmental: round(v.score - environmental),
      rules: rules.map((r) => r.name),
    },
  };
}

function builtinResult(input: CheckInput): CheckResult {
  const rules = builtinLint(input);
  const score = round(rules.reduce((s, r) => s + r.score, 0));
  const isSpam = score >= BUILTIN_THRESHOLD;
  const findings: Finding[] = rules.map((r) => ({
    check: 'spam',
    rule: r.name,
    severity: r.score >= 1.5 ? 'warning' : 'info',
    title: `${r.name} +${r.score}`,
    detail: r.description,
    docs: DOCS,
    ...(r.evidence ? { evidence: r.evidence } : {}),
  }));
  if (isSpam)
    findings.unshift({
      check: 'spam',
      rule: 'spam-verdict',
      severity: 'error',
      title: `the built-in lint says spam: ${score} (threshold ${BUILTIN_THRESHOLD})`,
      detail: 'configure --spamd or --rspamd for a real filter’s verdict',
      docs: DOCS,
    });
  return {
    status: isSpam ? 'failed' : 'passed',
    score,
    findings,
    meta: {
      engine: 'builtin',
      score,
      threshold: BUILTIN_THRESHOLD,
      isSpam,
      scoreWithoutEnvironmental: score,
      rules: rules.map((r) => r.name),
    },
  };
}
