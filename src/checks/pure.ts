// The checks that read nothing but their input (no network, no store): the engine runs them in the sandbox's worker
// threads, and the worker's task table imports this list (so keep it to pure code). A new pure check is one line here.
import { a11yCheck } from './a11y/index.ts';
import { compatCheck } from './compat/index.ts';
import { htmlCheck } from './html/index.ts';
import { textCheck } from './text/index.ts';
import type { CheckDef } from './types.ts';

export const PURE_CHECKS: readonly CheckDef[] = [compatCheck, htmlCheck, a11yCheck, textCheck];
