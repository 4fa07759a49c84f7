// The DNS the auth check asks (issue 28), in this order:
//   1. inboxd's own custom domains: the DKIM key record of a domain inboxd signs for (it holds that key pair), so mail
//      inboxd itself signed verifies with no DNS at all;
//   2. the `--dns-fixtures` zone file: authoritative for the names it lists and the names below them;
//   3. the configured resolver (`--dns-server`, or the system's), each question bounded by `--dns-timeout-ms`.
// It has the shape mailauth expects (`dns.promises.resolve`): answers or an error with a DNS error code. "No such
// name/record" is ENOTFOUND/ENODATA (a definite answer: `none`, `neutral`); an unreachable or silent server is
// ETIMEOUT/ECONNREFUSED/ESERVFAIL, which mailauth reports as `temperror` — never as `fail`.
import { Resolver } from 'node:dns/promises';
import type { FixtureZone, RecordType } from './zone.ts';

export type DnsResolve = (name: string, type: string) => Promise<unknown>;

/** TXT records inboxd knows for a name itself (its custom domains' DKIM keys), or null to ask further. */
export type KnownTxt = (name: string) => Promise<string[] | null>;

export interface ResolverChainOptions {
  known?: KnownTxt | null;
  fixtures?: FixtureZone | null;
  /** `ip:port` of the DNS server (null: the system resolver's). */
  server?: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function dnsError(code: string, name: string, type: string): NodeJS.ErrnoException {
  const e = new Error(`${type} ${name}: ${code}`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

/** A resolver for one check run: questions asked again within the run are answered from memory. */
export function resolverChain(opts: ResolverChainOptions): DnsResolve & { asked: string[]; networkErrors: string[] } {
  let system: Resolver | null = null;
  const memo = new Map<string, Promise<unknown>>();
  const asked: string[] = [];
  const networkErrors: string[] = [];
  const fromZone = (zone: FixtureZone, name: string, type: string): unknown => {
    if (!['TXT', 'A', 'AAAA', 'MX', 'CNAME', 'PTR'].includes(type)) throw dnsError('ENODATA', name, type);
    const recs = zone.records(name, type as RecordType);
    if (recs.length === 0) throw dnsError(zone.has(name) ? 'ENODATA' : 'ENOTFOUND', name, type);
    if (type === 'TXT') return recs.map((r) => r.data);
    if (type === 'MX') return recs.map((r) => ({ priority: Number(r.data[0]), exchange: r.data[1] }));
    return recs.map((r) => r.data[0]);
  };
  const ask = async (name: string, type: string): Promise<unknown> => {
    if (opts.signal?.aborted) throw dnsError('ECANCELLED', name, type);
    if (type === 'TXT' && opts.known) {
      const known = await opts.known(name);
      if (known) return known.map((v) => [v]);
    }
    if (opts.fixtures?.covers(name)) return fromZone(opts.fixtures, name, type);
    if (!system) {
      system = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
      if (opts.server) system.setServers([opts.server]);
      opts.signal?.addEventListener('abort', () => system?.cancel(), { once: true });
    }
    try {
      return await system.resolve(name, type as 'TXT');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'ESERVFAIL';
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') networkErrors.push(`${type} ${name}: ${code}`);
      throw dnsError(code, name, type);
    }
  };
  const fn = ((name: string, type: string) => {
    const key = `${type} ${name.toLowerCase()}`;
    let p = memo.get(key);
    if (!p) {
      asked.push(key);
      p = ask(name, type);
      memo.set(key, p);
    }
    return p;
  }) as DnsResolve & { asked: string[]; networkErrors: string[] };
  fn.asked = asked;
  fn.networkErrors = networkErrors;
  return fn;
}
