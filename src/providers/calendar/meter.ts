// Recurrence expansion bounded by construction (issue #25). ical.js's RecurIterator.next() loops inside itself until
// a candidate passes the rule's BY* filters, with no bound for DAILY/HOURLY/MINUTELY/SECONDLY rules: a rule whose
// filters never match (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) never returns, and UNTIL is only checked after a match.
// Every candidate goes through `check_contracting_rules`, so that one method is metered here: a rule that examines
// `maxRuleSteps` candidates without producing an instance is taken as never matching, an event may examine 5× that,
// one read 25× that. The meter throws out of ical.js's loop; the iterator is thrown away with its event.
import ICAL from 'ical.js';

export interface ExpandLimits {
  /** Instances one read returns at most, all events together (--calendar-max-instances). */
  maxInstances: number;
  /** Instances of one event in one read at most (--calendar-max-event-instances). */
  maxEventInstances: number;
  /** Candidates a rule may examine without finding an instance (--calendar-max-rule-steps). */
  maxRuleSteps: number;
}

export const DEFAULT_LIMITS: ExpandLimits = { maxInstances: 5_000, maxEventInstances: 2_000, maxRuleSteps: 20_000 };

/** Why the meter stopped a rule: `never` does not depend on the range read (the event is remembered as skipped). */
export class RuleStop extends Error {
  readonly kind: 'never' | 'event' | 'read';
  constructor(kind: 'never' | 'event' | 'read', message: string) {
    super(message);
    this.kind = kind;
  }
}

export class StepMeter {
  readonly limits: ExpandLimits;
  private misses = 0;
  private eventSteps = 0;
  private readSteps = 0;
  instancesLeft: number;
  constructor(limits: ExpandLimits) {
    this.limits = limits;
    this.instancesLeft = limits.maxInstances;
  }
  /** A new event starts: its own step allowance. */
  startEvent(): void {
    this.misses = 0;
    this.eventSteps = 0;
  }
  /** The rule produced an instance. */
  hit(): void {
    this.misses = 0;
  }
  step(): void {
    const max = this.limits.maxRuleSteps;
    if (++this.misses > max)
      throw new RuleStop('never', `its recurrence rule found no instance in ${max} steps (a date that never exists, such as 30 February?)`);
    if (++this.eventSteps > 5 * max)
      throw new RuleStop('event', `its recurrence took more than ${5 * max} steps; only the instances found so far are listed`);
    if (++this.readSteps > 25 * max) throw new RuleStop('read', `this read took more than ${25 * max} recurrence steps`);
  }
}

let active: StepMeter | null = null;
type Iter = { check_contracting_rules(): boolean };
const proto = (ICAL as unknown as { RecurIterator: { prototype: Iter } }).RecurIterator.prototype;
const check = proto.check_contracting_rules;
proto.check_contracting_rules = function (this: Iter): boolean {
  active?.step();
  return check.call(this);
};

/** Runs `fn` with `meter` counting every candidate ical.js examines (expansion is synchronous: one meter at a time). */
export function metered<T>(meter: StepMeter, fn: () => T): T {
  const prev = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = prev;
  }
}

const PERIOD_SECONDS: Record<string, number> = { SECONDLY: 1, MINUTELY: 60, HOURLY: 3600, DAILY: 86_400 };

/**
 * The whole number of seconds DTSTART of a rule may move forward and still produce the same instances from the
 * target on: FREQ of a fixed length (SECONDLY…DAILY, in wall-clock time as ical.js counts), no COUNT (moving would
 * change what is counted), moved by whole INTERVALs so the grid and every BY* filter stay the same. 0 = do not move.
 * So a FREQ=SECONDLY rule that began years ago costs the seconds near the range, not every second since.
 */
export function fastForwardSeconds(
  rule: { freq: string; interval?: number; count?: number | null },
  fromWallMs: number,
  targetWallMs: number,
): number {
  const unit = PERIOD_SECONDS[rule.freq];
  if (!unit || rule.count) return 0;
  const period = unit * Math.max(1, rule.interval ?? 1);
  const gap = Math.floor((targetWallMs - fromWallMs) / 1000);
  if (gap <= period) return 0;
  return Math.floor(gap / period) * period;
}
