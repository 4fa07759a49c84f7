// links: the mail's links judged without network by default (static.ts), and in reach mode, on request, followed to
// the hosts the operator allowed with --link-check-hosts (reach.ts). The message's one-time verification link
// (what the extractor picks as the primary link, or any link it scores as a verification candidate) is never
// requested unless the caller asks (`includeVerificationLinks`): a GET can spend the token the test needs next.
import { extractVerification } from '../../mail/extract/index.ts';
import type { CheckDef, CheckInput, CheckResult, Finding } from '../types.ts';
import type { ReachOptions } from './reach.ts';
import { LinkReacher } from './reach.ts';
import type { LinkRef } from './static.ts';
import { htmlLinks, isTestMail, judgeLinks, textLinks } from './static.ts';

export const MAX_FINDINGS_PER_RULE = 50;
const VERIFICATION_CONFIDENCE = 0.5;

/** Keeps at most MAX_FINDINGS_PER_RULE findings per rule, replacing the rest by one "and N more" finding. */
function capPerRule(findings: Finding[]): Finding[] {
  const count = new Map<string, number>();
  const out: Finding[] = [];
  for (const f of findings) {
    const n = (count.get(f.rule) ?? 0) + 1;
    count.set(f.rule, n);
    if (n <= MAX_FINDINGS_PER_RULE) out.push(f);
  }
  for (const [rule, n] of count) {
    if (n <= MAX_FINDINGS_PER_RULE) continue;
    const like = findings.find((f) => f.rule === rule)!;
    out.push({
      check: 'links',
      rule,
      severity: like.severity,
      title: `and ${n - MAX_FINDINGS_PER_RULE} more like "${like.title}"`,
      detail: `${n - MAX_FINDINGS_PER_RULE} further links break the rule ${rule}; they are not listed one by one.`,
    });
  }
  return out;
}

/**
 * The message's verification links as the extractor sees them (primary link, its unwrapped target, strong
 * candidates). The extractor distrusts IP literals and single-label hosts unless told otherwise; here every linked
 * host is trusted, because in CI the one-time link usually points at the app under test on localhost or a private IP.
 */
function verificationLinks(input: CheckInput, hosts: string[]): Set<string> {
  const x = extractVerification(input.parsed, { trustedHosts: hosts });
  const out = new Set<string>();
  for (const v of [x.primaryLink, x.primaryLinkUnwrapped]) if (v) out.add(v);
  for (const c of x.candidates)
    if (c.kind === 'link' && c.confidence >= VERIFICATION_CONFIDENCE) {
      out.add(c.value);
      if (c.unwrapped) out.add(c.unwrapped);
    }
  return out;
}

const withoutHash = (u: URL) => {
  const c = new URL(u.href);
  c.hash = '';
  return c.href;
};

export function createLinksCheck(reach: ReachOptions = { allowHosts: [] }): CheckDef {
  const reacher = new LinkReacher(reach);
  return {
    name: 'links',
    description:
      'malformed, insecure, internal, mismatched and shortened links (static); in reach mode, links to --link-check-hosts hosts are followed (HEAD, then GET on 405/501, ≤5 redirects)',
    async run(input: CheckInput): Promise<CheckResult> {
      input.signal.throwIfAborted();
      const html = input.html ?? input.parsed.html;
      const text = input.text ?? input.parsed.text;
      const refs: LinkRef[] = [...(html ? htmlLinks(html) : []), ...(text ? textLinks(text) : [])];
      const judged = judgeLinks(refs, { testMail: isTestMail(input.parsed) });
      const findings = [...judged.findings];
      const meta = { mode: input.options.links.mode, links: refs.length, checked: 0, broken: 0, redirects: 0, skipped: 0 };

      if (input.options.links.mode === 'reach') {
        const unique = new Map<string, { url: URL; ref: LinkRef }>();
        for (const f of judged.followable) {
          const key = withoutHash(f.url);
          if (!unique.has(key)) unique.set(key, f);
        }
        const hosts = [...new Set([...unique.values()].map((f) => f.url.hostname))];
        const verification = input.options.links.includeVerificationLinks ? new Set<string>() : verificationLinks(input, hosts);
        const toFollow: Array<{ url: URL; ref: LinkRef }> = [];
        const notAllowed = new Map<string, string>();
        for (const [key, f] of unique) {
          if (verification.has(f.ref.href.trim()) || verification.has(f.url.href) || verification.has(key)) {
            meta.skipped++;
            findings.push({
              check: 'links',
              rule: 'link-verification-skipped',
              severity: 'info',
              title: 'Verification link not requested',
              detail:
                'This is the message’s one-time verification (magic) link; requesting it could spend its token. Ask for it explicitly (includeVerificationLinks) to follow it too.',
              location: f.ref.location,
              evidence: f.url.origin + f.url.pathname.slice(0, 60),
            });
            continue;
          }
          const why = reacher.refuse(f.url);
          if (why) {
            meta.skipped++;
            notAllowed.set(f.url.host, why);
            continue;
          }
          if (toFollow.length >= reacher.maxLinks) {
            meta.skipped++;
            continue;
          }
          toFollow.push(f);
        }
        if (notAllowed.size > 0) {
          const hosts = [...notAllowed.keys()];
          findings.push({
            check: 'links',
            rule: 'link-not-followed',
            severity: 'info',
            title: `${hosts.length} host(s) not in --link-check-hosts were not contacted`,
            detail: `Reach mode only requests hosts the operator allowed with --link-check-hosts (${reacher.enabled ? 'these are not on the list' : 'the list is empty'}): ${hosts.slice(0, 20).join(', ')}${hosts.length > 20 ? ` and ${hosts.length - 20} more` : ''}.`,
          });
        }
        const results = await reacher.reachAll(
          toFollow.map((f) => f.url),
          input.signal,
        );
        results.forEach((r, i) => {
          const { ref } = toFollow[i]!;
          if (r.skipped) {
            meta.skipped++;
            findings.push({
              check: 'links',
              rule: 'link-not-followed',
              severity: 'info',
              title: `Link not followed: ${r.skipped.slice(0, 120)}`,
              detail: r.skipped,
              location: ref.location,
              evidence: r.url.slice(0, 200),
            });
            return;
          }
          meta.checked++;
          meta.redirects += r.redirects;
          if (!r.broken) return;
          meta.broken++;
          const chain = r.hops.map((h) => `${h.method} ${h.url} → ${h.status}`).join('; ');
          findings.push({
            check: 'links',
            rule: 'link-broken',
            severity: 'error',
            title: `Broken ${ref.kind === 'img' ? 'image' : ref.kind === 'resource' ? 'resource' : 'link'}: ${r.broken}`,
            detail: `${r.url}: ${r.broken}.${chain ? ` Requests: ${chain}.` : ''}`,
            location: ref.location,
            evidence: r.url.slice(0, 200),
          });
        });
      }

      const capped = capPerRule(findings);
      const failed = capped.some((f) => f.severity === 'error');
      return { status: failed ? 'failed' : 'passed', findings: capped, meta };
    },
  };
}

/** The links check with no host allowed: static rules only, reach mode contacts nothing. */
export const linksCheck: CheckDef = createLinksCheck();

export default linksCheck;
