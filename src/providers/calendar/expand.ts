// Recurrence expansion of a calendar read, in the sandbox (src/budget/): the work a stranger's invitation or a
// remote calendar's data sets never runs on the thread that serves SMTP and HTTP. Expansion is bounded by
// construction (src/providers/calendar/meter.ts); the sandbox's time budget is the backstop for what that misses.
// A job over its budget is split in halves and retried, down to the one calendar object that is over it alone,
// which is skipped with a warning naming it, so one poisonous event never denies a team the rest of its calendar.
import { BudgetError, budgetProblem, type Sandbox } from '../../budget/sandbox.ts';
import type { Failure } from './ics.ts';
import { DEFAULT_LIMITS, type ExpandLimits } from './meter.ts';
import { type ExpandInput, type ExpandItem, type ExpandOutput, expandMany } from './tasks.ts';
import type { Range } from './types.ts';

export interface ExpandSettings {
  sandbox: Sandbox;
  limits: ExpandLimits;
  /** Time budget of one expansion job, ms (--calendar-read-budget-ms); a whole read may take 3× with retries. */
  budgetMs: number;
  /** Who the work is for (the team): the sandbox queue is shared fairly between owners. */
  owner: string;
}

/** How a provider expands calendar objects: in the sandbox on a server, in-process where no sandbox exists. */
export type Expander = (
  items: ExpandItem[],
  q: { zones?: Record<string, string>; range: Range; timeZone: string; calendarId: string },
) => Promise<ExpandOutput>;

export const BUDGET_HINT =
  'ask for a shorter range, or raise --calendar-read-budget-ms / --calendar-max-rule-steps if the calendar is legitimate';

export function sandboxExpander(s: ExpandSettings): Expander {
  return async (items, q) => {
    const deadline = Date.now() + 3 * s.budgetMs;
    const base: Omit<ExpandInput, 'items'> = {
      zones: q.zones ?? {},
      range: q.range,
      timeZone: q.timeZone,
      calendarId: q.calendarId,
      limits: s.limits,
    };
    const out: ExpandOutput = { events: [], warnings: [], failed: [], notExpanded: [] };
    const run = async (part: ExpandItem[]): Promise<void> => {
      if (part.length === 0) return;
      if (Date.now() > deadline) {
        out.notExpanded.push(...part.map((i) => i.eventId));
        return;
      }
      let r: ExpandOutput;
      try {
        r = await s.sandbox.run('calendar.expand', { ...base, items: part }, { owner: s.owner, timeoutMs: s.budgetMs });
      } catch (e) {
        if (!(e instanceof BudgetError) || e.kind === 'busy' || e.kind === 'closed')
          throw budgetProblem(e, 'reading the calendar', BUDGET_HINT);
        if (part.length > 1) {
          const half = Math.ceil(part.length / 2);
          await run(part.slice(0, half));
          await run(part.slice(half));
          return;
        }
        const only = part[0]!;
        const reason = `its expansion ${e.message}, over its budget`;
        out.failed.push({ eventId: only.eventId, uid: only.uid ?? null, reason, permanent: e.kind !== 'failed' } satisfies Failure);
        out.warnings.push(`skipped ${only.uid ? `event ${only.uid} in ` : ''}${only.eventId}: ${reason}`);
        return;
      }
      out.events.push(...r.events);
      out.warnings.push(...r.warnings);
      out.failed.push(...r.failed);
      out.notExpanded.push(...r.notExpanded);
    };
    await run(items);
    // Halves retried apart each had the whole allowance: the read's cap holds over the sum.
    if (out.events.length > s.limits.maxInstances) {
      out.events.sort((a, b) => a.startMs - b.startMs);
      out.events.length = s.limits.maxInstances;
      out.warnings.push(
        `this read reached its limit of ${s.limits.maxInstances} instances; later instances are missing (ask for a shorter range)`,
      );
    }
    if (out.notExpanded.length)
      out.warnings.push(
        `${out.notExpanded.length} calendar object(s) were not expanded: this read spent its budget (${s.limits.maxInstances} instances, ${25 * s.limits.maxRuleSteps} recurrence steps, ${3 * s.budgetMs} ms); ${BUDGET_HINT}`,
      );
    return out;
  };
}

/** Expansion on the calling thread, bounded by construction only: for code and tests that run without a server. */
export function inProcessExpander(limits: ExpandLimits = DEFAULT_LIMITS): Expander {
  return async (items, q) =>
    expandMany({ items, zones: q.zones ?? {}, range: q.range, timeZone: q.timeZone, calendarId: q.calendarId, limits });
}
