// What one option entry is (OptionEntry / OptionDef) and the zod building blocks the entries are made of.
// An entry's schema turns the raw text (or `true` for a bare switch, or its default) into the typed value, and its
// first issue becomes the usage error; the Config type is read off these schemas (src/config/options.ts).
import net from 'node:net';
import { z } from 'zod';

/** A default as a person would type it: it goes through the option's own schema, and --help shows it as written. */
export type RawDefault = string | number | boolean;

interface OptionText {
  flag: `--${string}`;
  env: `INBOXD_${string}`;
  /** Placeholder shown in --help; absent for boolean switches. */
  arg?: string;
  help: string;
}

/**
 * What the table demands of an entry: a default, or an optional schema (the option is then unset unless given and
 * its Config field may be undefined). The compiler refuses an entry with neither.
 */
export type OptionEntry = OptionText & ({ schema: z.ZodType; default: RawDefault } | { schema: z.ZodOptional; default?: undefined });

/** One entry seen through its value type T: how generic code (parsing, help) reads the table without losing T. */
export type OptionDef<T = unknown> = OptionText & { schema: z.ZodType<T>; default?: RawDefault | undefined };

/**
 * Text as a number for the checks below: a number as written (`12`, `-1`, `2.5`), else left as it is, so "abc" or
 * "" is reported as not a number (plain coercion would read "" as 0 and say "expected number, received nan" of "abc").
 */
function asNumber(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : v;
}

/** A whole number from min to max; both bounds answer "must be MIN-MAX"; text that is no number "is not NOUN (MIN-MAX)". */
export function between(min: number, max: number, noun = 'a whole number') {
  const range = `must be ${min}-${max}`;
  return z.preprocess(
    asNumber,
    z
      .number({ error: `is not ${noun} (${min}-${max})` })
      .int('must be a whole number')
      .min(min, range)
      .max(max, range),
  );
}

/** A whole number of at least min (and at most max when given), each bound named on its own. */
export function atLeast(min: number, max?: number) {
  const n = z
    .number({ error: `is not a whole number (${min}${max === undefined ? ' or more' : `-${max}`})` })
    .int('must be a whole number')
    .min(min, min === 0 ? 'must be 0 or more' : `must be at least ${min}`);
  return z.preprocess(asNumber, max === undefined ? n : n.max(max, `must be at most ${max}`));
}

export const port = between(0, 65535, 'a port number');

/** A bare switch is `true`; a value or environment variable may spell it true/false, 1/0 or yes/no. */
export const flagBool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes'),
]);

export const hostname = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    'must be a domain name such as inboxd.test',
  );

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** An http(s) base URL without trailing slashes, so paths can be appended with one `/`. */
export const httpBase = httpUrl.transform((u) => u.replace(/\/+$/, ''));

/** Comma-separated items, each cleaned by `item`; empty items are dropped. */
export function commaList(item: (s: string) => string) {
  return z.string().transform((s) => s.split(',').map(item).filter(Boolean));
}

/**
 * A string that `parse` accepts; its error becomes the usage message without the flag prefix the parser puts on it
 * (loadConfig names the flag or variable itself).
 */
export function checkedBy(parse: (raw: string) => unknown, prefix: RegExp) {
  return z.string().superRefine((s, ctx) => {
    try {
      parse(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message.replace(prefix, '') });
    }
  });
}

/** `--dns-server` as the `ip` or `[ip]:port` form node's Resolver.setServers takes, or null when it is not one. */
export function dnsServerAddress(raw: string): string | null {
  const s = raw.trim();
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(s);
  const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(s);
  const m = v6 ?? v4;
  const ip = m ? m[1]! : s;
  const port = m?.[2] === undefined ? 53 : Number(m[2]);
  if (net.isIP(ip) === 0 || port < 1 || port > 65535) return null;
  return net.isIPv6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`;
}
