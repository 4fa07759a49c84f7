// The DNS records a custom domain needs (CONTRACT §10), how what DNS answered is judged against them, and the view
// of each record with its last check that the API shows.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export type Purpose = 'verification' | 'mx' | 'spf' | 'dkim' | 'dmarc';
export type CheckStatus = 'unchecked' | 'found' | 'missing' | 'mismatch';

export interface ExpectedRecord {
  purpose: Purpose;
  type: 'TXT' | 'MX';
  /** Fully qualified, without the trailing dot. */
  name: string;
  value: string;
  /** MX only. */
  priority?: number;
}

export interface RecordCheck {
  status: CheckStatus;
  /** What DNS answered at that name (TXT chunks joined; MX as `priority host`). */
  foundValues: string[];
  /** Why the lookup itself failed (server unreachable, SERVFAIL…); null when DNS answered. */
  error: string | null;
  /** What to change when the record is missing or differs; null when it matched. */
  hint: string | null;
}

export const VERIFICATION_LABEL = '_inboxd-verification';

export function expectedRecords(d: {
  name: string;
  token: string;
  selector: string;
  publicKey: string;
  mxHost: string;
  spfHost: string;
}): ExpectedRecord[] {
  return [
    { purpose: 'verification', type: 'TXT', name: `${VERIFICATION_LABEL}.${d.name}`, value: `inboxd-verification=${d.token}` },
    { purpose: 'mx', type: 'MX', name: d.name, value: d.mxHost, priority: 10 },
    { purpose: 'spf', type: 'TXT', name: d.name, value: `v=spf1 ${spfTerm(d.spfHost)} ~all` },
    { purpose: 'dkim', type: 'TXT', name: `${d.selector}._domainkey.${d.name}`, value: `v=DKIM1; k=rsa; p=${d.publicKey}` },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${d.name}`, value: 'v=DMARC1; p=none' },
  ];
}

/** The SPF mechanism that authorises the sending host: `a:host`, or `ip4:`/`ip6:` when the relay is given by address. */
export function spfTerm(host: string): string {
  const kind = isIP(host);
  return kind === 4 ? `ip4:${host}` : kind === 6 ? `ip6:${host}` : `a:${host}`;
}

type Lookup = { values: string[]; error: string | null };

/** Looks names up with a bounded timeout; one Resolver per verify so a changed setting applies at once. */
export class DnsLookup {
  private readonly resolver: Resolver;
  private readonly server: string;

  constructor(opts: { server: string | null; timeoutMs: number }) {
    this.resolver = new Resolver({ timeout: opts.timeoutMs, tries: 2 });
    if (opts.server) this.resolver.setServers([opts.server]);
    this.server = opts.server ?? `the system resolver (${this.resolver.getServers().join(', ') || 'none configured'})`;
  }

  async txt(name: string): Promise<Lookup> {
    // A long TXT value (a DKIM key) arrives as several ≤255-byte strings; they form one value (RFC 7208 §3.3, RFC 6376 §3.6.2.2).
    return this.ask(name, async () => (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
  }

  async mx(name: string): Promise<Lookup> {
    return this.ask(name, async () => (await this.resolver.resolveMx(name)).map((r) => `${r.priority} ${r.exchange}`));
  }

  private async ask(name: string, fn: () => Promise<string[]>): Promise<Lookup> {
    try {
      return { values: await fn(), error: null };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // No such name / no record of that type: a definite "not there", not a failure of the lookup.
      if (code === 'ENODATA' || code === 'ENOTFOUND') return { values: [], error: null };
      return { values: [], error: `DNS lookup of ${name} failed (${code ?? 'error'}) asking ${this.server}: ${lookupHint(code)}` };
    }
  }
}

function lookupHint(code: string | undefined): string {
  if (code === 'ETIMEOUT' || code === 'ECONNREFUSED')
    return 'the DNS server did not answer; check --dns-server and that it is reachable, then verify again';
  if (code === 'ESERVFAIL') return 'the DNS server could not resolve the name (SERVFAIL); check the zone and try again';
  if (code === 'EREFUSED') return 'the DNS server refused the query; check that it serves or recurses for this zone';
  return 'try again, or check --dns-server';
}

/** TXT values as people paste them: surrounding quotes (some DNS panels add them) and spacing do not matter. */
function cleanTxt(v: string): string {
  return v
    .trim()
    .replace(/^"(.*)"$/s, '$1')
    .trim();
}

function dkimTags(v: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of cleanTxt(v).split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

const hostOf = (h: string) => h.trim().toLowerCase().replace(/\.$/, '');

/** Judges one record against what DNS answered (lookup already done). */
export function judge(rec: ExpectedRecord, found: Lookup, ctx: { mxHost: string; spfHost: string }): RecordCheck {
  const out = (status: CheckStatus, hint: string | null = null): RecordCheck => ({
    status,
    foundValues: found.values,
    error: found.error,
    hint,
  });
  if (found.error) return out('missing', 'the lookup failed; nothing was judged');
  if (found.values.length === 0) return out('missing', `no ${rec.type} record at ${rec.name}; publish the value shown`);
  switch (rec.purpose) {
    case 'verification':
      return found.values.some((v) => cleanTxt(v) === rec.value)
        ? out('found')
        : out('mismatch', `${rec.name} has TXT records but none is ${rec.value}`);
    case 'mx': {
      const hosts = found.values.map((v) => hostOf(v.slice(v.indexOf(' ') + 1)));
      return hosts.includes(hostOf(ctx.mxHost))
        ? out('found')
        : out('mismatch', `MX of ${rec.name} points to ${hosts.join(', ')}, not ${ctx.mxHost}`);
    }
    case 'spf': {
      const spf = found.values.map(cleanTxt).filter((v) => /^v=spf1(\s|$)/i.test(v));
      if (spf.length === 0) return out('missing', `${rec.name} has TXT records but no SPF (v=spf1) record`);
      if (spf.length > 1) return out('mismatch', `${rec.name} has ${spf.length} SPF records; merge them into one (RFC 7208 §3.2)`);
      const terms = spf[0]!.toLowerCase().split(/\s+/);
      const host = hostOf(ctx.spfHost);
      const names = [spfTerm(host), `+${spfTerm(host)}`, `include:${host}`, `+include:${host}`];
      if (host === hostOf(ctx.mxHost)) names.push('mx', '+mx');
      return terms.some((t) => names.includes(t))
        ? out('found')
        : out('mismatch', `the SPF record does not name ${ctx.spfHost}; add ${spfTerm(hostOf(ctx.spfHost))} to it`);
    }
    case 'dkim': {
      const want = dkimTags(rec.value).get('p');
      return found.values.some((v) => dkimTags(v).get('p') === want)
        ? out('found')
        : out('mismatch', `the DKIM record at ${rec.name} does not carry this domain's public key; publish the value shown`);
    }
    case 'dmarc':
      return found.values.some((v) => /^v=DMARC1(\s*;|$)/i.test(cleanTxt(v)))
        ? out('found')
        : out('mismatch', `${rec.name} has TXT records but none starts with v=DMARC1`);
  }
}

export async function lookUp(dns: DnsLookup, rec: ExpectedRecord): Promise<Lookup> {
  return rec.type === 'MX' ? dns.mx(rec.name) : dns.txt(rec.name);
}

export interface DomainRecordView extends ExpectedRecord, RecordCheck {
  /** `verified`: needed for the domain to be served · `signing`: needed for DKIM-signed outbound · null: advisory. */
  requiredFor: 'verified' | 'signing' | null;
}

const REQUIRED: Record<Purpose, DomainRecordView['requiredFor']> = {
  verification: 'verified',
  mx: 'verified',
  spf: 'signing',
  dkim: 'signing',
  dmarc: null,
};

const UNCHECKED: RecordCheck = { status: 'unchecked', foundValues: [], error: null, hint: null };

/** The records to publish, each with what it is needed for and its result at the last verify (`checksJson`). */
export function recordViews(expected: ExpectedRecord[], checksJson: string | null): DomainRecordView[] {
  const last = checksJson ? (JSON.parse(checksJson) as Partial<Record<Purpose, RecordCheck>>) : {};
  return expected.map((r) => ({ ...r, requiredFor: REQUIRED[r.purpose], ...(last[r.purpose] ?? UNCHECKED) }));
}
