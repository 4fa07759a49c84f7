// The built-in engine: offline, deterministic, always the last link of the model chain. It fills a preset or a
// caller's schema from the message alone and never invents a value (null where the message is silent).

import type { ParsedMessage } from '../../mail/types.ts';
import { extractInvoice, extractReceipt } from './commerce.ts';
import { fillCustom } from './custom.ts';
import { extractTwoFa } from './twofa.ts';
import { viewOf } from './view.ts';

export type PresetName = '2fa' | 'invoice' | 'receipt';

export function builtinPreset(msg: ParsedMessage, preset: PresetName): Record<string, unknown> {
  const v = viewOf(msg);
  if (preset === 'invoice') return { ...extractInvoice(v) };
  if (preset === 'receipt') return { ...extractReceipt(v) };
  return { ...extractTwoFa(msg, v) };
}

export function builtinCustom(msg: ParsedMessage, schema: Record<string, unknown>): unknown {
  return fillCustom(msg, viewOf(msg), schema);
}
