// The built-in engine: offline, deterministic, always the last link of the model chain. It fills a preset or a
// caller's schema from the message alone and never invents a value (null where the message is silent).

import type { ParsedMessage } from '../../mail/types.ts';
import { commerceChecks, locateRest, type Reviewed } from '../review.ts';
import { extractInvoice, extractReceipt } from './commerce.ts';
import { fillCustom } from './custom.ts';
import { Provenance, sourceTextFor } from './provenance.ts';
import { extractTwoFa } from './twofa.ts';
import { type MessageView, viewOf } from './view.ts';

export type PresetName = '2fa' | 'invoice' | 'receipt';

export function builtinPreset(
  msg: ParsedMessage,
  preset: PresetName,
  v: MessageView = viewOf(msg),
  p?: Provenance,
): Record<string, unknown> {
  if (preset === 'invoice') return { ...extractInvoice(v, p) };
  if (preset === 'receipt') return { ...extractReceipt(v, p) };
  return { ...extractTwoFa(msg, v) };
}

export function builtinCustom(msg: ParsedMessage, schema: Record<string, unknown>, v: MessageView = viewOf(msg), p?: Provenance): unknown {
  return fillCustom(msg, v, schema, p);
}

/** The engine's answer with where each value was read and, for invoices and receipts, the reader's checks. */
function reviewed(msg: ParsedMessage, preset: PresetName | null, schema: Record<string, unknown> | null): Reviewed {
  const v = viewOf(msg);
  const p = new Provenance(v);
  const data = preset ? builtinPreset(msg, preset, v, p) : builtinCustom(msg, schema ?? {}, v, p);
  locateRest(data, p);
  const checks = preset === 'invoice' || preset === 'receipt' ? commerceChecks(preset, data, v) : [];
  return { data, checks, sources: p.sources, sourceText: sourceTextFor(p.text, p.sources) };
}

export { builtinInput } from './input.ts';

export interface BuiltinJob {
  msg: ParsedMessage;
  preset: PresetName | null;
  schema: Record<string, unknown> | null;
}

/** The sandbox task (src/workers/sandbox-tasks.ts): the built-in engine over a hostile message, under a time budget. */
export function runBuiltinJob(job: BuiltinJob): Reviewed {
  // Structured clone turns Buffers into Uint8Arrays.
  const attachments = job.msg.attachments.map((a) => ({
    ...a,
    content: Buffer.isBuffer(a.content) ? a.content : Buffer.from(a.content as Uint8Array),
  }));
  const msg = { ...job.msg, attachments };
  return reviewed(msg, job.preset, job.schema);
}
