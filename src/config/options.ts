// The table of options: every flag with its environment variable, schema, default and help, in --help order
// (the four parts in src/config/options/ follow one another). The value types of Config are read off it here, so a
// new option is one entry in one of those files and the compiler checks every use of its field.
import type { z } from 'zod';
import type { OptionDef } from './define.ts';
import { BASIC_OPTIONS } from './options/basics.ts';
import { CONNECTION_OPTIONS } from './options/connections.ts';
import { INTEGRATION_OPTIONS } from './options/integrations.ts';
import { WORKER_OPTIONS } from './options/workers.ts';

export const OPTIONS = { ...BASIC_OPTIONS, ...WORKER_OPTIONS, ...CONNECTION_OPTIONS, ...INTEGRATION_OPTIONS };

export type OptionKey = keyof typeof OPTIONS;

/** The value of each option after parsing: its schema's output (undefined included when it has no default). */
export type OptionValues = { [K in OptionKey]: z.output<(typeof OPTIONS)[K]['schema']> };

/**
 * The same table seen per key through one generic shape: code that handles "any option K" (parsing, help) gets an
 * OptionDef<OptionValues[K]> and so keeps each key's own value type. The compiler checks that OPTIONS fits it.
 */
export const OPTION_DEFS: { readonly [K in OptionKey]: OptionDef<OptionValues[K]> } = OPTIONS;

function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(OPTIONS, key);
}

/** Every key, in table (and --help) order. */
export const OPTION_KEYS: readonly OptionKey[] = Object.keys(OPTIONS).filter(isOptionKey);
