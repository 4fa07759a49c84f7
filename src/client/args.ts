// Flag parsing for the client commands: `--flag value`, `--flag=value`, boolean switches, repeatable flags and
// positional arguments. Anything else is a usage error (exit 2) that names the flag.
import { didYouMean } from '../lib/suggest.ts';

export interface FlagSpec {
  /** Placeholder shown in --help; absent for a boolean switch. */
  arg?: string;
  help: string;
  /** May be given more than once (values collected in order). */
  repeat?: boolean;
}

export interface Parsed {
  flags: Map<string, string[]>;
  positional: string[];
  help: boolean;
}

/** Exit codes of the client commands (README "Client commands"). */
export const EXIT = { ok: 0, error: 1, usage: 2, timeout: 3, noValue: 4 } as const;

/** A failure with its exit code and the kind of failure, printed as `inboxd <cmd>: <kind>: <message>`. */
export class ClientError extends Error {
  readonly exitCode: 1 | 2 | 3 | 4;
  readonly kind: string;
  constructor(kind: string, message: string, exitCode: 1 | 2 | 3 | 4) {
    super(message);
    this.name = 'ClientError';
    this.kind = kind;
    this.exitCode = exitCode;
  }
}

export const usage = (message: string) => new ClientError('usage', message, EXIT.usage);

/** The flags every client command takes. */
export const COMMON_FLAGS: Record<string, FlagSpec> = {
  '--url': { arg: 'URL', help: 'the running inboxd (env INBOXD_URL; default http://localhost:8025)' },
  '--key': {
    arg: 'KEY',
    help: 'API key or access token (env INBOXD_KEY; prefer the variable: a flag shows in the process list)',
  },
};

export function parseArgs(argv: string[], specs: Record<string, FlagSpec>, cmd: string): Parsed {
  const all = { ...COMMON_FLAGS, ...specs };
  const flags = new Map<string, string[]>();
  const positional: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      help = true;
      continue;
    }
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '--') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const spec = all[name];
    if (!spec) throw usage(`unknown option '${name}'${didYouMean(name, Object.keys(all))} (inboxd ${cmd} --help lists them)`);
    let value: string;
    if (spec.arg === undefined) {
      if (eq > 0) throw usage(`${name} is a switch and takes no value`);
      value = 'true';
    } else if (eq > 0) value = a.slice(eq + 1);
    else {
      const next = argv[++i];
      if (next === undefined) throw usage(`${name} needs a value (${spec.arg})`);
      value = next;
    }
    if (spec.arg !== undefined && value === '') throw usage(`${name} needs a value (${spec.arg})`);
    const list = flags.get(name) ?? [];
    if (list.length > 0 && !spec.repeat) throw usage(`${name} was given twice`);
    list.push(value);
    flags.set(name, list);
  }
  return { flags, positional, help };
}

export function one(p: Parsed, name: string): string | undefined {
  return p.flags.get(name)?.[0];
}

export function many(p: Parsed, name: string): string[] {
  return p.flags.get(name) ?? [];
}

export function has(p: Parsed, name: string): boolean {
  return p.flags.has(name);
}

/** A whole number of seconds in [min, max]. */
export function seconds(p: Parsed, name: string, min: number, max: number): number | undefined {
  const v = one(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw usage(`${name} must be a whole number of seconds, ${min}-${max} (got '${v}')`);
  return Number(v);
}

export function flagsHelp(specs: Record<string, FlagSpec>): string {
  const rows = Object.entries({ ...specs, ...COMMON_FLAGS }).map(([name, s]) => [
    `  ${name}${s.arg ? ` ${s.arg}` : ''}`,
    s.help + (s.repeat ? ' (repeatable)' : ''),
  ]);
  rows.push(['  --help', 'this text']);
  const width = Math.max(...rows.map((r) => r[0]!.length)) + 2;
  return rows.map(([l, r]) => l!.padEnd(width) + r).join('\n');
}

export function exitHelp(timeout: boolean, print = true): string {
  return [
    'Exit codes:',
    '  0  ok (the message arrived, the request was done)',
    '  1  error: the server answered with an error (auth 401/403, not found, 5xx) or could not be reached',
    '  2  usage: a bad flag or argument, no API key, or the server refused the arguments (400)',
    ...(timeout ? ['  3  timeout: nothing arrived in time'] : []),
    ...(print ? ['  4  no value: the answer has no value for --print (e.g. --print otp on mail with only a link)'] : []),
  ].join('\n');
}

export const ENV_HELP = `Environment:
  INBOXD_URL   base URL of the running inboxd (default http://localhost:8025)
  INBOXD_KEY   API key (ibx_…) or access token (ibt_…)`;
