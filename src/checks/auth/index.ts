// The auth check (issue 28): SPF, DKIM, DMARC and ARC verdicts of a received message, from its raw bytes and the
// SMTP session facts recorded at ingest (client address, HELO, MAIL FROM), plus the sender requirements the large
// mailbox providers enforce (aligned DKIM, a DMARC record, RFC 8058 one-click unsubscribe on bulk mail, Message-ID
// and Date). Verdicts are computed when the check runs (see verify.ts). DNS: resolver.ts (custom domains, then the
// `--dns-fixtures` zone, then the configured resolver); a DNS server that cannot be reached gives `temperror`.
import type { CheckDef, CheckInput, CheckResult, Finding, Severity } from '../types.ts';
import { type KnownTxt, resolverChain } from './resolver.ts';
import { type AuthVerdicts, type Verdict, verifyMessage } from './verify.ts';
import { type FixtureZone, loadZoneFile } from './zone.ts';

export interface AuthCheckDeps {
  /** TXT records inboxd knows itself (its custom domains' DKIM keys). */
  known?: KnownTxt | null;
  /** The `--dns-fixtures` zone, loaded at start. */
  fixtures?: FixtureZone | null;
  /** `--dns-server` as `ip:port` (null: the system resolver). */
  dnsServer?: string | null;
  /** `--dns-timeout-ms`: one question's limit. */
  dnsTimeoutMs: number;
  /** The authserv-id of the Authentication-Results line (inboxd's hostname). */
  mta?: string;
}

const DOCS = 'README.md#auth';

/**
 * The auth check as the server builds it from its settings (`--dns-fixtures`, `--dns-server`, `--dns-timeout-ms`) and
 * the custom domains' DKIM key records (DomainService.dkimKeyRecord). The fixture file is read here, once: a file
 * that cannot be read or parsed throws an error naming the file and line, which stops the start.
 */
export function authCheckFromSettings(
  s: { dnsFixtures?: string | undefined; dnsServer: string | null; dnsTimeoutMs: number; hostname?: string },
  dkimKeyRecord: ((name: string) => Promise<string | null>) | null,
): CheckDef {
  return createAuthCheck({
    known: dkimKeyRecord
      ? async (name) => {
          const v = await dkimKeyRecord(name);
          return v ? [v] : null;
        }
      : null,
    fixtures: s.dnsFixtures ? loadZoneFile(s.dnsFixtures) : null,
    dnsServer: s.dnsServer,
    dnsTimeoutMs: s.dnsTimeoutMs,
    ...(s.hostname ? { mta: s.hostname } : {}),
  });
}

/** The verdict of all DKIM signatures together: a passing one wins (an aligned one first), then the first's. */
export function dkimSummary(v: AuthVerdicts): Verdict {
  if (v.dkim.length === 0) return 'none';
  if (v.dkim.some((s) => s.result === 'pass')) return 'pass';
  return v.dkim[0]!.result;
}

/** The meta strings `--fail-on auth.dkim!=pass` compares: pass/fail/softfail/neutral/none/temperror/permerror. */
function metaVerdict(v: Verdict): string {
  return v === 'policy' ? 'permerror' : v;
}

export function createAuthCheck(deps: AuthCheckDeps): CheckDef {
  return {
    name: 'auth',
    description: 'SPF, DKIM, DMARC and ARC verdicts from the SMTP session facts, and the bulk-sender requirements',
    async run(input: CheckInput): Promise<CheckResult> {
      const resolver = resolverChain({
        known: deps.known ?? null,
        fixtures: deps.fixtures ?? null,
        server: deps.dnsServer ?? null,
        timeoutMs: deps.dnsTimeoutMs,
        signal: input.signal,
      });
      const v = await verifyMessage(input.raw, input.facts, resolver, deps.mta ?? 'inboxd');
      if (input.signal.aborted) return { status: 'error', reason: 'the auth check ran out of time', findings: [] };
      const findings = [...verdictFindings(v, input.facts !== null, resolver.networkErrors), ...senderFindings(input, v)];
      const meta = {
        spf: metaVerdict(v.spf.result),
        dkim: metaVerdict(dkimSummary(v)),
        dmarc: metaVerdict(v.dmarc.result),
        arc: metaVerdict(v.arc.result),
        spfDomain: v.spf.domain,
        dkimSignatures: v.dkim,
        dmarcPolicy: v.dmarc.policy,
        headerFrom: v.headerFrom,
        facts: input.facts,
        authenticationResults: v.authenticationResults,
        dnsErrors: resolver.networkErrors.slice(0, 10),
      };
      return { status: findings.some((f) => f.severity === 'error') ? 'failed' : 'passed', findings, meta };
    },
  };
}

function finding(rule: string, severity: Severity, title: string, detail: string, evidence?: string): Finding {
  return { check: 'auth', rule, severity, title, detail, location: { part: 'headers' }, docs: DOCS, ...(evidence ? { evidence } : {}) };
}

const TEMP_DETAIL = 'DNS could not be asked (offline, or the server did not answer), so this is not a failure of the message';

function verdictFindings(v: AuthVerdicts, hasFacts: boolean, dnsErrors: string[]): Finding[] {
  const out: Finding[] = [];
  const dnsNote = dnsErrors.length ? ` (${dnsErrors.slice(0, 3).join('; ')})` : '';
  // SPF
  const spf = v.spf;
  if (!hasFacts)
    out.push(
      finding(
        'spf-no-session',
        'info',
        'SPF not evaluated: no SMTP session',
        'SPF needs the client address and HELO of the SMTP session; this message was not received over SMTP (simulate, webhook or API), so only DKIM and DMARC are judged',
      ),
    );
  else if (spf.result === 'fail')
    out.push(
      finding(
        'spf-fail',
        'error',
        `SPF fail for ${spf.domain}`,
        `the sending address is not allowed by the SPF record of ${spf.domain}`,
        spf.comment ?? undefined,
      ),
    );
  else if (spf.result === 'softfail')
    out.push(
      finding(
        'spf-softfail',
        'warning',
        `SPF softfail for ${spf.domain}`,
        'the SPF record says the client is probably not allowed (~all)',
        spf.comment ?? undefined,
      ),
    );
  else if (spf.result === 'permerror')
    out.push(
      finding('spf-permerror', 'error', `SPF record of ${spf.domain} is broken`, spf.comment ?? 'the SPF record cannot be evaluated'),
    );
  else if (spf.result === 'temperror')
    out.push(
      finding(
        'spf-temperror',
        'warning',
        'SPF could not be checked (temperror)',
        `${TEMP_DETAIL}${dnsNote}; add the records to --dns-fixtures to check air-gapped`,
      ),
    );
  else if (spf.result === 'none' || spf.result === 'neutral')
    out.push(
      finding(
        `spf-${spf.result}`,
        'warning',
        `no SPF verdict for ${spf.domain ?? 'the sender'} (${spf.result})`,
        'publish an SPF record that lists the sending hosts',
      ),
    );
  // DKIM
  if (v.dkim.length === 0)
    out.push(
      finding(
        'dkim-none',
        'warning',
        'the message is not DKIM-signed',
        'large mailbox providers require a DKIM signature of the From domain for bulk senders',
      ),
    );
  for (const s of v.dkim.slice(0, 20)) {
    const what = `DKIM signature d=${s.domain} s=${s.selector}`;
    if (s.result === 'fail')
      out.push(
        finding(
          'dkim-fail',
          'error',
          `${what} fails`,
          'the signature does not match the message (changed after signing, or a different key)',
          s.comment ?? undefined,
        ),
      );
    else if (s.result === 'temperror')
      out.push(
        finding(
          'dkim-temperror',
          'warning',
          `${what} could not be checked (temperror)`,
          `${TEMP_DETAIL}${dnsNote}; add the key record to --dns-fixtures`,
        ),
      );
    else if (s.result !== 'pass')
      out.push(
        finding(
          `dkim-${metaVerdict(s.result)}`,
          s.result === 'permerror' || s.result === 'policy' ? 'error' : 'warning',
          `${what}: ${s.result}`,
          s.comment ?? 'the signature could not be verified',
        ),
      );
  }
  // ARC
  if (v.arc.result === 'fail') out.push(finding('arc-fail', 'warning', 'ARC chain fails', v.arc.comment ?? 'the ARC chain is broken'));
  // DMARC
  const d = v.dmarc;
  if (d.result === 'fail')
    out.push(
      finding(
        'dmarc-fail',
        d.policy === 'reject' || d.policy === 'quarantine' ? 'error' : 'warning',
        `DMARC fail for ${d.domain} (policy ${d.policy ?? 'none'})`,
        'neither an aligned SPF pass nor an aligned DKIM pass; receivers apply the policy',
      ),
    );
  else if (d.result === 'temperror')
    out.push(finding('dmarc-temperror', 'warning', 'DMARC could not be checked (temperror)', `${TEMP_DETAIL}${dnsNote}`));
  else if (d.result === 'permerror')
    out.push(finding('dmarc-permerror', 'error', `DMARC record of ${d.domain} is broken`, d.comment ?? 'fix the record'));
  else if (d.skipped)
    out.push(
      finding(
        'dmarc-not-evaluated',
        'warning',
        'DMARC not evaluated',
        `the From header cannot be judged (${d.skipped}); use exactly one From address`,
      ),
    );
  return out;
}

function header(input: CheckInput, name: string): string | null {
  const h = input.parsed.headers.find(([n]) => n === name);
  return h ? h[1] : null;
}

function senderFindings(input: CheckInput, v: AuthVerdicts): Finding[] {
  const out: Finding[] = [];
  const passing = v.dkim.filter((s) => s.result === 'pass');
  if (passing.length > 0 && !passing.some((s) => s.aligned))
    out.push(
      finding(
        'sender-dkim-aligned',
        'warning',
        'no DKIM signature aligned with the From domain',
        `the signatures that pass (${passing.map((s) => s.domain).join(', ')}) are not of the From domain (${v.headerFrom.join(', ')}); Gmail and Yahoo require an aligned one for bulk mail`,
      ),
    );
  if (v.dmarc.result === 'none' && !v.dmarc.skipped && v.headerFrom.length > 0)
    out.push(
      finding(
        'sender-dmarc-missing',
        'warning',
        `no DMARC record for ${v.headerFrom.join(', ')}`,
        'bulk senders must publish a DMARC record (at least v=DMARC1; p=none) at _dmarc.<From domain>',
      ),
    );
  const precedence = (header(input, 'precedence') ?? '').trim().toLowerCase();
  const listUnsub = header(input, 'list-unsubscribe');
  const bulk = precedence === 'bulk' || precedence === 'list' || header(input, 'list-id') !== null || listUnsub !== null;
  if (bulk) {
    const post = (header(input, 'list-unsubscribe-post') ?? '').replace(/\s+/g, '');
    const https = listUnsub !== null && /<https:\/\/[^>]+>/i.test(listUnsub);
    if (!listUnsub || !https || post.toLowerCase() !== 'list-unsubscribe=one-click')
      out.push(
        finding(
          'sender-one-click-unsubscribe',
          'warning',
          'bulk mail without RFC 8058 one-click unsubscribe',
          `bulk mail (${precedence ? `Precedence: ${precedence}` : header(input, 'list-id') !== null ? 'List-Id' : 'List-Unsubscribe'}) needs List-Unsubscribe with an https URI and List-Unsubscribe-Post: List-Unsubscribe=One-Click${!listUnsub ? ' (List-Unsubscribe is missing)' : !https ? ' (List-Unsubscribe has no https URI)' : ' (List-Unsubscribe-Post is missing or wrong)'}`,
          listUnsub ? listUnsub.slice(0, 200) : undefined,
        ),
      );
  }
  if (!header(input, 'message-id'))
    out.push(
      finding(
        'sender-message-id',
        'warning',
        'no Message-ID header',
        'RFC 5322 says every message should have one; Gmail rejects or junks mail without it',
      ),
    );
  if (!header(input, 'date')) out.push(finding('sender-date', 'warning', 'no Date header', 'RFC 5322 requires a Date header'));
  return out;
}
