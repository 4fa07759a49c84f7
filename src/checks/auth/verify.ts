// SPF, DKIM, ARC and DMARC of one message with mailauth's parts (the same sequence as its `authenticate()`, without
// BIMI and ARC sealing), on the facts the SMTP session recorded. Computed when the check runs, not at ingest: the
// inputs (raw bytes, client address, HELO, MAIL FROM) are stored, so the verdicts are the same, and ingest stays
// free of DNS. A verdict can change with time only if DNS changes, which is what a re-run should show.
import { isIP } from 'node:net';
import type { spf } from 'mailauth/lib/spf/index.js';
import type { DnsResolve } from './resolver.ts';

export type Verdict = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

export interface DkimSignature {
  domain: string;
  selector: string;
  result: Verdict;
  aligned: boolean;
  comment: string | null;
}

export interface AuthVerdicts {
  spf: { result: Verdict; domain: string | null; comment: string | null };
  dkim: DkimSignature[];
  arc: { result: Verdict; comment: string | null };
  dmarc: { result: Verdict; policy: string | null; domain: string | null; comment: string | null; skipped: string | null };
  /** The From domain(s) DMARC judged. */
  headerFrom: string[];
  authenticationResults: string;
}

export function normalVerdict(r: string | undefined): Verdict {
  switch (r) {
    case 'pass':
    case 'fail':
    case 'softfail':
    case 'neutral':
    case 'none':
    case 'temperror':
    case 'permerror':
    case 'policy':
      return r;
    case 'temperr':
      return 'temperror';
    default:
      return 'none';
  }
}

export interface VerifyFacts {
  clientIp: string | null;
  helo: string | null;
  mailFrom: string | null;
}

// mailauth (with joi and its public-suffix list) is loaded with the first message checked, not at start.
let mailauth:
  | Promise<
      [
        typeof import('mailauth/lib/arc/index.js'),
        typeof import('mailauth/lib/dkim/verify.js'),
        typeof import('mailauth/lib/dmarc/index.js'),
        typeof import('mailauth/lib/spf/index.js'),
      ]
    >
  | undefined;

export async function verifyMessage(raw: Buffer, facts: VerifyFacts | null, resolver: DnsResolve, mta: string): Promise<AuthVerdicts> {
  mailauth ??= Promise.all([
    import('mailauth/lib/arc/index.js'),
    import('mailauth/lib/dkim/verify.js'),
    import('mailauth/lib/dmarc/index.js'),
    import('mailauth/lib/spf/index.js'),
  ]);
  const [{ arc }, { dkimVerify }, { evaluateDmarc }, { spf }] = await mailauth;
  const sender = facts?.mailFrom || undefined;
  const dkimResult = await dkimVerify(raw, { resolver: resolver as never, sender });
  let spfResult: Awaited<ReturnType<typeof spf>> | null = null;
  if (facts?.clientIp) {
    const helo = facts.helo || facts.clientIp;
    spfResult = await spf({
      sender: sender ?? '',
      ip: facts.clientIp,
      // An address given as HELO goes in brackets (as mailauth's authenticate() does); a literal already has them.
      helo: isIP(helo) ? `[${helo}]` : helo,
      mta,
      resolver: resolver as never,
      maxElapsedTime: 20_000,
    } as never);
  }
  const arcResult = await arc(dkimResult.arc as never, { resolver: resolver as never, ip: facts?.clientIp ?? undefined } as never);
  let dmarc: AuthVerdicts['dmarc'] = { result: 'none', policy: null, domain: null, comment: null, skipped: null };
  const signatures = dkimResult.results ?? [];
  if (dkimResult.headerFrom?.length) {
    const evaluated = await evaluateDmarc({
      headerFrom: dkimResult.headerFrom,
      fromFields: dkimResult.fromFields,
      spfDomains: spfResult?.status.result === 'pass' && spfResult.domain ? [spfResult.domain] : [],
      dkimDomains: signatures
        .filter((r) => r.status.result === 'pass')
        .map((r) => ({ id: r.id, domain: r.signingDomain, aligned: r.status.aligned, underSized: r.status.underSized })),
      arcResult,
      resolver,
    } as never);
    const res = evaluated.response;
    if (res) {
      dmarc = {
        result: normalVerdict(res.status.result),
        policy: res.policy ?? res.p ?? null,
        domain: res.domain ?? null,
        comment: res.status.comment || null,
        skipped: null,
      };
      if (evaluated.dkimAligned)
        for (const row of signatures)
          if (row.status.result === 'pass')
            row.status.aligned = evaluated.dkimAligned.has(String(row.signingDomain).toLowerCase()) ? row.signingDomain : false;
    } else if (evaluated.reason) dmarc = { ...dmarc, skipped: evaluated.reason };
  }
  const info = [
    ...signatures.map((r) => (r as { info?: string }).info),
    (spfResult as { info?: string } | null)?.info,
    (arcResult as { info?: string }).info,
  ].filter(Boolean);
  return {
    spf: spfResult
      ? { result: normalVerdict(spfResult.status.result), domain: spfResult.domain ?? null, comment: spfResult.status.comment || null }
      : { result: 'none', domain: null, comment: 'no SMTP session facts: the message was not received over SMTP' },
    dkim: signatures.map((r) => ({
      domain: r.signingDomain ?? '',
      selector: r.selector ?? '',
      // RFC 6376 §3.7: a body that no longer matches its hash fails the signature (mailauth's lenient mode says neutral).
      result: r.status.result === 'neutral' && r.status.comment === 'body hash did not verify' ? 'fail' : normalVerdict(r.status.result),
      aligned: Boolean(r.status.aligned),
      comment: r.status.comment || null,
    })),
    arc: { result: normalVerdict(arcResult.status?.result), comment: arcResult.status?.comment || null },
    dmarc,
    headerFrom: dkimResult.headerFrom ?? [],
    authenticationResults: `${mta}; ${info.join('; ')}`,
  };
}
