// The sandbox task of the pure checks (src/workers/sandbox-tasks.ts loads this on first use): kept apart so a sandbox
// worker that never checks mail does not load the HTML and MIME parsers (a worker with a small heap starts as before).
import { type PureCheckJob, runPureCheck } from './engine.ts';
import { PURE_CHECKS } from './pure.ts';
import type { CheckResult } from './types.ts';

export function runPureJob(job: PureCheckJob): Promise<CheckResult> {
  return runPureCheck(PURE_CHECKS, job);
}
