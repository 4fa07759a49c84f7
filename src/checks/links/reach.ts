// Reach mode of the links check: follows links, but only to hosts the operator allowed (--link-check-hosts globs).
// HEAD first, GET when the server answers HEAD with 405 or 501 (the GET reads at most READ_LIMIT bytes, then the
// connection is dropped); up to MAX_REDIRECTS redirects, each target judged again by the allow-list and the
// address rules. Every name is resolved here and the request connects to the very address that was judged, so a
// name that resolves somewhere internal later (DNS rebinding) is still refused. Loopback and private addresses only
// for hosts the allow-list names exactly (no wildcard); link-local and metadata addresses never.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ResolvedAddress, Resolver } from '../../lib/addresses.ts';
import { classifyAddress, pinnedLookup, systemResolver } from '../../lib/addresses.ts';

export const MAX_REDIRECTS = 5;
export const READ_LIMIT = 4096;

export interface ReachOptions {
  /** --link-check-hosts: host globs (`*.example.com`, `localhost`, `app.test:8080`). Empty = nothing is contacted. */
  allowHosts: readonly string[];
  resolver?: Resolver;
  /** Time to get a connection (DNS + TCP + TLS), ms. */
  connectTimeoutMs?: number;
  /** Time for one link, all redirects included, ms. */
  totalTimeoutMs?: number;
  /** Requests in flight to one host:port. */
  perHost?: number;
  /** Requests in flight in all. */
  concurrency?: number;
  /** Unique URLs followed per message at most (others are counted as skipped). */
  maxLinks?: number;
}

export interface Hop {
  url: string;
  method: 'HEAD' | 'GET';
  status: number;
}

export interface ReachResult {
  url: string;
  /** The last status seen (0 when no answer came). */
  status: number;
  hops: Hop[];
  redirects: number;
  /** Why the link counts as broken (status ≥ 400, timeout, refused, redirect loop…), or null. */
  broken: string | null;
  /** Why it was not followed at all (host not allowed, private address…), or null. */
  skipped: string | null;
}

interface HostRule {
  re: RegExp;
  /** The pattern names one host exactly (no wildcard): private addresses are allowed for it. */
  exact: boolean;
  withPort: boolean;
}

function compileRules(globs: readonly string[]): HostRule[] {
  return globs
    .map((g) => g.trim().toLowerCase())
    .filter(Boolean)
    .map((g) => {
      const withPort = /:\d+$/.test(g) && (!g.includes('::') || g.startsWith('['));
      const body = g
        .replace(/[.+^${}()|\\]/g, '\\$&')
        .replace(/\*/g, '[^:]*')
        .replace(/\?/g, '.');
      return { re: new RegExp(`^${body}$`), exact: !/[*?]/.test(g), withPort };
    });
}

function portOf(u: URL): string {
  return u.port || (u.protocol === 'https:' ? '443' : '80');
}

/** The allow-list rule a URL's host matches (null: not allowed). */
function allowedBy(u: URL, rules: HostRule[]): HostRule | null {
  const host = u.hostname.replace(/\.$/, '').toLowerCase();
  const bare = host.replace(/^\[|\]$/g, '');
  let best: HostRule | null = null;
  for (const r of rules) {
    const subjects = r.withPort ? [`${host}:${portOf(u)}`, `${bare}:${portOf(u)}`] : [host, bare];
    if (subjects.some((s) => r.re.test(s)) && (!best || (r.exact && !best.exact))) best = r;
  }
  return best;
}

class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

class Refused extends Error {}

export class LinkReacher {
  private readonly rules: HostRule[];
  private readonly resolve: Resolver;
  private readonly connectTimeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly perHost: number;
  private readonly global: Gate;
  readonly maxLinks: number;

  constructor(opts: ReachOptions) {
    this.rules = compileRules(opts.allowHosts);
    this.resolve = opts.resolver ?? systemResolver;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
    this.totalTimeoutMs = opts.totalTimeoutMs ?? 15_000;
    this.perHost = opts.perHost ?? 2;
    this.global = new Gate(opts.concurrency ?? 8);
    this.maxLinks = opts.maxLinks ?? 100;
  }

  /** Whether any host at all may be contacted. */
  get enabled(): boolean {
    return this.rules.length > 0;
  }

  /** Why this URL may not be contacted (before DNS), or null. */
  refuse(u: URL): string | null {
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${u.protocol} URLs are not followed`;
    const rule = allowedBy(u, this.rules);
    if (!rule) return `${u.host} is not in --link-check-hosts`;
    return null;
  }

  /** The addresses that may be connected to: every resolved one the rules allow (refused when none is). */
  private async addresses(u: URL): Promise<ResolvedAddress[]> {
    const rule = allowedBy(u, this.rules)!;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const family = net.isIP(host);
    const found: ResolvedAddress[] = family ? [{ address: host, family: family === 6 ? 6 : 4 }] : await this.resolve(host);
    if (found.length === 0) throw new Error(`${host} has no addresses`);
    let why = '';
    const ok: ResolvedAddress[] = [];
    for (const a of found) {
      const c = classifyAddress(a.address);
      if (c === 'public' || (c === 'private' && rule.exact)) {
        ok.push(a);
        continue;
      }
      why ||=
        c === 'never'
          ? `${host} resolves to ${a.address}, a link-local, metadata or reserved address that is never contacted`
          : `${host} resolves to the private address ${a.address}; name the host exactly (no wildcard) in --link-check-hosts to allow it`;
    }
    // one refused address refuses the name: a rebinding name may answer public and private addresses alike
    if (why || ok.length === 0) throw new Refused(why || `${host} has no addresses`);
    return ok;
  }

  /** Follows the given URLs (unique), each within the per-host and global limits. */
  async reachAll(urls: URL[], signal: AbortSignal): Promise<ReachResult[]> {
    const hosts = new Map<string, Gate>();
    return Promise.all(
      urls.map((u) => {
        const key = `${u.hostname}:${portOf(u)}`;
        let gate = hosts.get(key);
        if (!gate) hosts.set(key, (gate = new Gate(this.perHost)));
        return gate.run(() => this.global.run(() => this.reach(u, signal)));
      }),
    );
  }

  async reach(start: URL, outer: AbortSignal): Promise<ReachResult> {
    const result: ReachResult = { url: start.href, status: 0, hops: [], redirects: 0, broken: null, skipped: null };
    const first = this.refuse(start);
    if (first) {
      result.skipped = first;
      return result;
    }
    const timer = AbortSignal.timeout(this.totalTimeoutMs);
    const signal = AbortSignal.any([outer, timer]);
    const seen = new Set<string>();
    let url = start;
    try {
      for (;;) {
        outer.throwIfAborted();
        if (seen.has(url.href)) {
          result.broken = `redirect loop: ${url.href} was already visited`;
          return result;
        }
        seen.add(url.href);
        let hop = await this.request(url, 'HEAD', signal);
        if (hop.status === 405 || hop.status === 501) {
          result.hops.push(hop);
          hop = await this.request(url, 'GET', signal);
        }
        result.hops.push(hop);
        result.status = hop.status;
        if (hop.status >= 300 && hop.status < 400 && hop.location !== undefined) {
          if (result.redirects >= MAX_REDIRECTS) {
            result.broken = `more than ${MAX_REDIRECTS} redirects`;
            return result;
          }
          result.redirects++;
          let next: URL;
          try {
            next = new URL(hop.location, url);
          } catch {
            result.broken = `redirect to a malformed URL (${hop.location.slice(0, 120)})`;
            return result;
          }
          const why = this.refuse(next);
          if (why) {
            result.skipped = `redirects to ${next.href}, which is not followed: ${why}`;
            return result;
          }
          url = next;
          continue;
        }
        if (hop.status >= 400) result.broken = `HTTP ${hop.status}`;
        return result;
      }
    } catch (err) {
      if (outer.aborted) throw outer.reason;
      if (err instanceof Refused) result.skipped = err.message;
      else if (timer.aborted) result.broken = `no complete answer within ${this.totalTimeoutMs} ms`;
      else result.broken = (err as Error).message;
      return result;
    }
  }

  private async request(u: URL, method: 'HEAD' | 'GET', signal: AbortSignal): Promise<Hop & { location?: string }> {
    const connectAbort = new AbortController();
    const connectTimer = setTimeout(
      () => connectAbort.abort(new Error(`no connection to ${u.host} within ${this.connectTimeoutMs} ms`)),
      this.connectTimeoutMs,
    );
    try {
      const addrs = await Promise.race([
        this.addresses(u),
        new Promise<never>((_, reject) =>
          connectAbort.signal.addEventListener('abort', () => reject(connectAbort.signal.reason), { once: true }),
        ),
      ]);
      const both = AbortSignal.any([signal, connectAbort.signal]);
      return await new Promise((resolve, reject) => {
        const mod = u.protocol === 'https:' ? https : http;
        const req = mod.request(
          u,
          {
            method,
            signal: both,
            agent: false,
            headers: { 'user-agent': 'inboxd-link-check/1', accept: '*/*' },
            // connect to the address that was judged, never to a second lookup's answer
            lookup: pinnedLookup(addrs),
          },
          (res) => {
            clearTimeout(connectTimer);
            const status = res.statusCode ?? 0;
            const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
            const done = () => {
              req.destroy();
              resolve({ url: u.href, method, status, ...(location !== undefined ? { location } : {}) });
            };
            if (method === 'HEAD') return done();
            let read = 0;
            res.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (read >= READ_LIMIT) done();
            });
            res.on('end', done);
            res.on('error', done);
          },
        );
        req.on('socket', (s) => {
          if (!s.connecting) clearTimeout(connectTimer);
          else s.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
        });
        req.on('error', (e) => reject(both.aborted ? both.reason : e));
        req.end();
      });
    } finally {
      clearTimeout(connectTimer);
    }
  }
}
