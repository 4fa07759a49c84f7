// The sandbox task of the pure checks (src/workers/sandbox-tasks.ts loads this on first use): kept apart so a sandbox
// worker that never checks mail does not load the HTML and MIME parsers (a worker with a small heap starts as before).

import { parseMessage } from '../mail/parse.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { type PureCheckJob, runPureCheck } from './engine.ts';
import { PURE_CHECKS } from './pure.ts';
import type { CheckResult } from './types.ts';

export function runPureJob(job: PureCheckJob): Promise<CheckResult> {
  return runPureCheck(PURE_CHECKS, job);
}

/** The MIME parse of a message for the checks that run on the main thread (links, auth, spam): attachments' bytes left out. */
export async function parseForChecks(raw: Uint8Array): Promise<ParsedMessage> {
  const p = await parseMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  return { ...p, attachments: p.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) };
}
