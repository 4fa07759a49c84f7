// The one list of message checks, in the order reports show them: the pure ones (src/checks/pure.ts, run in sandbox
// workers) and the ones built with a narrow network dependency (a link fetcher, a spam daemon client, a resolver).
// A new check is one line in one of the two lists; the engine, every surface and `--fail-on` pick it up from here.
import { PURE_CHECKS } from './pure.ts';
import type { CheckDef } from './types.ts';

/** The narrow dependencies checks with network access are constructed with (each check adds its own field). */
export interface CheckDeps {
  /** Config values a check reads (e.g. --link-check-hosts, --spamd); typed loosely so this file stays one list. */
  config: Readonly<Record<string, unknown>>;
}

export function checkRegistry(_deps: CheckDeps): CheckDef[] {
  return [
    ...PURE_CHECKS,
    // Checks with a network dependency, one line each, e.g. linksCheck(deps), authCheck(deps), spamCheck(deps).
  ];
}

export const PURE_CHECK_NAMES: ReadonlySet<string> = new Set(PURE_CHECKS.map((c) => c.name));
