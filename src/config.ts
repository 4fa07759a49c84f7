// Every setting of the program, defined once: flag, environment variable, schema, default and help text in the
// option table (src/config/options.ts and its parts), with the Config type read off it and the env-only secrets
// (src/config/derived.ts). This module is the entry the rest of src/ imports.
export type { OptionDef, OptionEntry } from './config/define.ts';
export { dnsServerAddress } from './config/define.ts';
export { optionsHelp } from './config/help.ts';
export { type Config, loadConfig } from './config/load.ts';
export { OPTIONS, type OptionKey, type OptionValues } from './config/options.ts';
export { UsageError } from './config/usage-error.ts';
