// argv + environment → Config. Precedence: command-line flag > environment variable > default. A bad value is a
// UsageError (main exits 2) whose one-line message names the flag or variable it came from.
import { didYouMean } from '../lib/suggest.ts';
import { type DerivedValues, derivedValues } from './derived.ts';
import { OPTION_DEFS, OPTION_KEYS, type OptionKey, type OptionValues } from './options.ts';
import { UsageError } from './usage-error.ts';

/** Every setting of the program: one field per option of the table, plus the derived fields (src/config/derived.ts). */
export type Config = OptionValues & DerivedValues;

/** A raw value and the flag or variable it came from. */
interface Given {
  raw: unknown;
  from: string;
}

const BY_FLAG = new Map<string, OptionKey>(OPTION_KEYS.map((key) => [OPTION_DEFS[key].flag, key]));

/** Parses flags (`--flag value` or `--flag=value`) and environment into a Config. Throws UsageError. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const given = fromArgv(argv);
  const values: Partial<OptionValues> = {};
  for (const key of OPTION_KEYS) {
    const def = OPTION_DEFS[key];
    const raw = env[def.env];
    setValue(values, key, given.get(key) ?? (raw !== undefined && raw !== '' ? { raw, from: def.env } : undefined));
  }
  if (!hasEveryOption(values)) throw new Error('config: an option was left out');
  const from = (key: OptionKey): string => given.get(key)?.from ?? OPTION_DEFS[key].env;
  return { ...values, ...derivedValues(values, env, from) };
}

function fromArgv(argv: string[]): Map<OptionKey, Given> {
  const given = new Map<OptionKey, Given>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument '${a}' (see inboxd --help)`);
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const key = BY_FLAG.get(flag);
    if (!key) throw new UsageError(`unknown option '${flag}'${didYouMean(flag, BY_FLAG.keys())} (see inboxd --help)`);
    const def = OPTION_DEFS[key];
    let raw: unknown;
    if (eq > 0) raw = a.slice(eq + 1);
    else if (def.arg === undefined) raw = true;
    else {
      raw = argv[++i];
      if (raw === undefined) throw new UsageError(`${flag} needs a value (${def.arg})`);
    }
    given.set(key, { raw, from: flag });
  }
  return given;
}

/** Generic in K so the compiler checks that the schema of K yields the value type of K. */
function setValue<K extends OptionKey>(into: Partial<OptionValues>, key: K, src: Given | undefined): void {
  const def = OPTION_DEFS[key];
  if (!src) {
    into[key] = def.schema.parse(def.default);
    return;
  }
  const r = def.schema.safeParse(src.raw);
  if (!r.success) {
    const msg = r.error.issues[0]?.message ?? 'invalid value';
    // A --blob-store URL refused for carrying a secret is not echoed (it would land in logs).
    const shown = key === 'blobStore' ? '' : `${JSON.stringify(src.raw)} `;
    throw new UsageError(`${src.from}: ${shown}${msg.startsWith('Invalid') ? '— ' + msg.toLowerCase() : msg}`);
  }
  into[key] = r.data;
}

/** The loop above visits every key; this makes the compiler see it (and checks it, rather than asserting it). */
function hasEveryOption(values: Partial<OptionValues>): values is OptionValues {
  return OPTION_KEYS.every((key) => Object.hasOwn(values, key));
}
