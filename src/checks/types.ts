// The shapes every message check shares (issue 28): a check is a function over one stored message and the facts
// recorded while it arrived; it returns a status and findings. The engine (src/checks/engine.ts) runs the requested
// checks under a budget, caches the report per message content and data version, and every surface (REST, MCP,
// CLI, console, SSE/callbacks) shows the same report.
import type { ParsedMessage } from '../mail/types.ts';

export type Severity = 'error' | 'warning' | 'info';

export interface FindingLocation {
  /** Which part of the message the finding points into. */
  part?: 'html' | 'text' | 'headers' | 'envelope';
  /** 1-based line and column in that part's source (the decoded HTML or text as the source view shows it). */
  line?: number;
  column?: number;
  /** A CSS-like selector of the element, when there is one (e.g. `table:nth-of-type(2) > tr > td`). */
  selector?: string;
}

export interface Finding {
  check: string;
  /** Stable rule id within the check, e.g. `css-display-flex`, `http-link`, `dkim-fail`. */
  rule: string;
  severity: Severity;
  title: string;
  detail: string;
  location?: FindingLocation;
  /** Client ids the finding concerns (compat), e.g. `outlook.windows`, `gmail.android`. */
  clients?: string[];
  /** A short excerpt of what was found (bounded, never a whole body). */
  evidence?: string;
  /** Where to read more (a caniemail page, an RFC, a README section). */
  docs?: string;
  /** Tags a build may filter on, e.g. `environmental` for spam rules that only reflect the test set-up. */
  tags?: string[];
}

export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'error';

export interface CheckResult {
  status: CheckStatus;
  /** A check's own score when it has one (spam score, compat percentage). */
  score?: number;
  /** Why a check was skipped or errored, in words a person at 2 a.m. can act on. */
  reason?: string;
  findings: Finding[];
  /** Check-specific figures (`{threshold, engine}` for spam, `{dkim, spf, dmarc, arc}` for auth, counts for links). */
  meta?: Record<string, unknown>;
}

/** What the SMTP session knew when the message arrived (recorded at ingest; null for simulated or API mail). */
export interface SessionFacts {
  clientIp: string | null;
  helo: string | null;
  mailFrom: string | null;
  tls: boolean;
  authUser: string | null;
  receivedAt: string;
}

export interface LinkOptions {
  /** `static` (default: no network) or `reach` (follow links to allowed hosts only). */
  mode: 'static' | 'reach';
  /** In reach mode, also follow the message's one-time verification links (a GET can spend the token). */
  includeVerificationLinks: boolean;
}

export interface CheckOptions {
  /** Client ids or globs for compat (`gmail.*`, `outlook.windows`); empty = the default set. */
  clients: string[];
  links: LinkOptions;
}

export interface CheckInput {
  raw: Buffer;
  parsed: ParsedMessage;
  /** The decoded HTML part and text part (null when absent). */
  html: string | null;
  text: string | null;
  facts: SessionFacts | null;
  options: CheckOptions;
  signal: AbortSignal;
}

/** What a rule checks, why it matters and how to fix it (`svc_explain_finding`, the console). */
export interface RuleInfo {
  title: string;
  why: string;
  fix: string;
  docs?: string;
}

export interface CheckDef {
  name: string;
  /** One line for discovery and `--help`. */
  description: string;
  /** The version of the check's rules or data (e.g. a data date): part of the report cache key. */
  version?: string;
  /** The rules the check may report, by rule id (optional: an unknown rule is explained from the finding itself). */
  rules?: Record<string, RuleInfo>;
  run(input: CheckInput): Promise<CheckResult>;
}
