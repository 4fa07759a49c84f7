// The check engine: runs the requested checks over one message, each under its own time budget, and puts their
// results into one report. Pure checks (src/checks/pure.ts: they read only their input) run in the sandbox's worker
// threads (src/budget/sandbox.ts), so parsing a stranger's HTML never runs on the thread that answers SMTP and HTTP
// and a check that runs away is stopped by terminating its worker. Checks with a network dependency (links in reach
// mode, spam daemons, DNS) run here with an AbortSignal that fires at their budget; one that does not stop is left
// behind and answers `error`. A check that throws or times out never takes the others down.
import { createHash } from 'node:crypto';
import { parseMessage } from '../mail/parse.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { type CheckEntry, type CheckReport, summarize } from './report.ts';
import type { CheckDef, CheckInput, CheckOptions, CheckResult, SessionFacts } from './types.ts';

/** Bumped when the engine's report shape or shared rules change (part of every report's dataVersion). */
export const ENGINE_VERSION = '1';

/**
 * What a pure check receives in its worker: structured-clonable (no signal; attachment bytes left out). Without
 * `parsed` the worker parses the raw message itself, so the MIME parse of a stranger's mail stays off the main thread.
 */
export interface PureCheckJob {
  name: string;
  raw: Uint8Array;
  parsed: ParsedMessage | null;
  facts: SessionFacts | null;
  options: CheckOptions;
}

export type RunPure = (job: PureCheckJob, timeoutMs: number) => Promise<CheckResult>;

export interface EngineDeps {
  /** Every check, in the order reports list them (src/checks/registry.ts). */
  checks: readonly CheckDef[];
  /** Names of the checks that may run in a worker (src/checks/pure.ts). */
  pure: ReadonlySet<string>;
  /** Runs a pure check in the sandbox; without it pure checks run here under the same budget (tests, benches). */
  runPure?: RunPure | undefined;
  /**
   * Parses a message in the sandbox for the checks that run here (a stranger's MIME is never parsed on the thread that
   * serves SMTP and HTTP); without it the parse runs here (tests, benches).
   */
  parse?: ((raw: Buffer, timeoutMs: number) => Promise<ParsedMessage>) | undefined;
  /** Time budget of one check, in ms. */
  timeoutMs: number;
}

export interface EngineInput {
  messageId: string | null;
  raw: Buffer;
  /** The parsed message when the caller has it; null: parsed in the workers (and here only for checks that run here). */
  parsed: ParsedMessage | null;
  facts: SessionFacts | null;
  options: CheckOptions;
}

export class CheckEngine {
  private readonly byName: Map<string, CheckDef>;
  private readonly deps: EngineDeps;

  constructor(deps: EngineDeps) {
    this.deps = deps;
    this.byName = new Map(deps.checks.map((c) => [c.name, c]));
  }

  /** The parsed message for the checks that run on this thread: parsed in the sandbox when there is one. */
  private async parseHere(raw: Buffer): Promise<ParsedMessage> {
    if (!this.deps.parse) return parseMessage(raw);
    const p = await this.deps.parse(raw, this.deps.timeoutMs);
    // Back from a worker: attachment bytes were left out there (no check here reads them), dates are still Dates.
    return { ...p, attachments: p.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) };
  }

  /** The checks this server has, in report order. */
  list(): readonly CheckDef[] {
    return this.deps.checks;
  }

  names(): string[] {
    return this.deps.checks.map((c) => c.name);
  }

  get(name: string): CheckDef | undefined {
    return this.byName.get(name);
  }

  /** The rule and data versions of these checks: a report is reused only under the same one. */
  dataVersion(names: readonly string[]): string {
    return [`engine@${ENGINE_VERSION}`, ...names.map((n) => `${n}@${this.byName.get(n)?.version ?? '0'}`)].join(',');
  }

  /** Runs the named checks (all in parallel, each under its budget) and returns the report. */
  async run(input: EngineInput, names: readonly string[], signal: AbortSignal, now: () => number = Date.now): Promise<CheckReport> {
    const started = performance.now();
    const checkedAt = new Date(now()).toISOString();
    const here = names.some((n) => !(this.deps.pure.has(n) && this.deps.runPure));
    const parsed = input.parsed ?? (here ? await this.parseHere(input.raw) : null);
    const results = await Promise.all(names.map((n) => this.one(n, input, parsed, signal)));
    const checks: Record<string, CheckEntry> = {};
    names.forEach((n, i) => {
      checks[n] = results[i]!;
    });
    return {
      messageId: input.messageId,
      contentHash: createHash('sha256').update(input.raw).digest('hex'),
      dataVersion: this.dataVersion(names),
      checkedAt,
      options: { checks: [...names], clients: input.options.clients, links: input.options.links },
      checks,
      summary: summarize(checks, Math.round(performance.now() - started)),
    };
  }

  private async one(name: string, input: EngineInput, parsed: ParsedMessage | null, outer: AbortSignal): Promise<CheckEntry> {
    const def = this.byName.get(name);
    const t0 = performance.now();
    const took = () => Math.round((performance.now() - t0) * 10) / 10;
    if (!def) return { status: 'error', reason: `no check named ${name}`, findings: [], durationMs: 0 };
    const budget = this.deps.timeoutMs;
    try {
      let r: CheckResult;
      if (this.deps.pure.has(name) && this.deps.runPure) {
        // Attachment bytes stay here: the raw message already carries them, and checks read parts' metadata only.
        const lean = parsed && { ...parsed, attachments: parsed.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) };
        r = await this.deps.runPure({ name, raw: input.raw, parsed: lean, facts: input.facts, options: input.options }, budget);
      } else {
        const p = parsed!;
        r = await withBudget(
          def,
          { raw: input.raw, parsed: p, html: p.html, text: p.text, facts: input.facts, options: input.options },
          budget,
          outer,
        );
      }
      return { ...r, durationMs: took() };
    } catch (e) {
      const err = e as Error & { kind?: string };
      const reason =
        err.kind === 'time' || err.name === 'TimeoutError'
          ? `the ${name} check took more than its budget of ${budget} ms (--check-timeout-ms) and was stopped`
          : err.kind === 'busy'
            ? `the server is busy with other checks (${err.message}); try again`
            : err.kind === 'memory'
              ? `the ${name} check needed more memory than the sandbox allows (--sandbox-max-heap-mb)`
              : `the ${name} check failed: ${err.message}`;
      return { status: 'error', reason, findings: [], durationMs: took() };
    }
  }
}

class BudgetExceeded extends Error {
  override name = 'TimeoutError';
}

/** Runs a check here with a signal that fires at its budget; a check that ignores the signal is left behind. */
async function withBudget(def: CheckDef, base: Omit<CheckInput, 'signal'>, budgetMs: number, outer: AbortSignal): Promise<CheckResult> {
  const ac = new AbortController();
  const onOuter = () => ac.abort(outer.reason);
  outer.addEventListener('abort', onOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort(new BudgetExceeded(`over ${budgetMs} ms`));
      reject(new BudgetExceeded(`over ${budgetMs} ms`));
    }, budgetMs);
    timer.unref();
  });
  try {
    return await Promise.race([def.run({ ...base, signal: ac.signal }), over]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}

/** Runs one pure check where it is called (the sandbox worker's task, src/workers/sandbox-tasks.ts). */
export async function runPureCheck(checks: readonly CheckDef[], job: PureCheckJob): Promise<CheckResult> {
  const def = checks.find((c) => c.name === job.name);
  if (!def) throw new Error(`no pure check named ${job.name}`);
  const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
  const parsed = job.parsed ?? (await parseMessage(raw));
  return def.run({
    raw,
    parsed,
    html: parsed.html,
    text: parsed.text,
    facts: job.facts,
    options: job.options,
    signal: new AbortController().signal,
  });
}
