// The work the sandbox worker knows how to do: pure functions of a structured-clonable input, named here once.
// A capability that runs caller-controlled work (a pattern, a schema, a recurrence rule, a monitor over mail) adds
// its function to TASKS and calls `sandbox.run(name, input)` (src/budget/sandbox.ts). The functions run in a worker
// thread that is terminated when it takes longer than its budget, so they may loop or backtrack without harm.
// This file is bundled into the worker (scripts/build.ts): import only pure code and node built-ins — and the search
// task, which opens its own read-only SQLite connection in the worker (src/search/worker-task.ts).
import { runBuiltinJob } from '../ai/builtin/index.ts';
import { runVerifyJob } from '../ai/review.ts';
import { runSchemaJob } from '../ai/schema.ts';
import type { PureCheckJob } from '../checks/engine.ts';
import { calendarChanges, calendarUids, expandMany } from '../providers/calendar/tasks.ts';
import { comparePng } from '../render/png.ts';
import { sqliteSearch } from '../search/worker-task.ts';

/** Tests one caller pattern (JavaScript syntax, backtracking engine) against values; the sandbox bounds its time. */
function regexTest(input: { pattern: string; flags?: string; values: string[] }): boolean[] {
  const re = new RegExp(input.pattern, input.flags ?? 'u');
  return input.values.map((v) => {
    re.lastIndex = 0;
    return re.test(v);
  });
}

export const TASKS = {
  'regex.test': regexTest,
  /** A caller's JSON Schema (already checked by src/ai/schema-check.ts) compiled and applied to answers. */
  'schema.validate': runSchemaJob,
  /** The built-in extraction engine over a (hostile) message. */
  'ai.builtin': runBuiltinJob,
  /** A model's answer against the mail: sources, support by the text, the reader's checks (src/ai/review.ts). */
  'ai.verify': runVerifyJob,
  'calendar.expand': expandMany,
  'calendar.uids': calendarUids,
  'calendar.changes': calendarChanges,
  'search.sqlite': sqliteSearch,
  /** One pure message check (html, a11y, text, …) over a stranger's mail (src/checks/engine.ts). */
  'checks.pure': async (job: PureCheckJob) => (await import('../checks/pure-task.ts')).runPureJob(job),
  'checks.parse': async (raw: Uint8Array) => (await import('../checks/pure-task.ts')).parseForChecks(raw),
  /** Two PNG renderings of mail compared pixel by pixel (src/render/png.ts): up to 1920 × 10,000 pixels each. */
  'render.compare': (input: { a: Uint8Array; b: Uint8Array }) => comparePng(Buffer.from(input.a), Buffer.from(input.b)),
} satisfies Record<string, (input: never) => unknown>;

export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskOutput<N extends TaskName> = Awaited<ReturnType<(typeof TASKS)[N]>>;
