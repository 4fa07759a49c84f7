// The one list of message checks, in the order reports show them: the pure ones (src/checks/pure.ts, run in sandbox
// workers) and the ones built with a narrow network dependency (a link fetcher, a spam daemon client, a resolver).
// A new check is one line in one of the two lists; the engine, every surface and `--fail-on` pick it up from here.
import { authCheckFromSettings } from './auth/index.ts';
import { createLinksCheck } from './links/index.ts';
import { PURE_CHECKS } from './pure.ts';
import { createSpamCheck } from './spam/index.ts';
import type { CheckDef } from './types.ts';

/** The narrow dependencies the checks with network access are built with (from the server's config). */
export interface CheckDeps {
  /** --link-check-hosts: the only hosts reach mode may contact. */
  linkCheckHosts: readonly string[];
  /** --dns-fixtures, --dns-server (as ip:port, null = the system resolver), --dns-timeout-ms. */
  dnsFixtures?: string | undefined;
  dnsServer: string | null;
  dnsTimeoutMs: number;
  /** inboxd's hostname (the authserv-id of Authentication-Results). */
  hostname?: string | undefined;
  /** The DKIM key record of a custom domain inboxd holds the key of (DomainService.dkimKeyRecord), or null. */
  dkimKeyRecord: ((name: string) => Promise<string | null>) | null;
  /** --spamd, --rspamd, --spam-timeout-ms. */
  spamd?: string | undefined;
  rspamd?: string | undefined;
  spamTimeoutMs: number;
}

export function checkRegistry(deps: CheckDeps): CheckDef[] {
  return [
    ...PURE_CHECKS,
    createLinksCheck({ allowHosts: deps.linkCheckHosts }),
    authCheckFromSettings(
      {
        dnsFixtures: deps.dnsFixtures,
        dnsServer: deps.dnsServer,
        dnsTimeoutMs: deps.dnsTimeoutMs,
        ...(deps.hostname ? { hostname: deps.hostname } : {}),
      },
      deps.dkimKeyRecord,
    ),
    createSpamCheck({ spamd: deps.spamd ?? null, rspamd: deps.rspamd ?? null, timeoutMs: deps.spamTimeoutMs }),
  ];
}

export const PURE_CHECK_NAMES: ReadonlySet<string> = new Set(PURE_CHECKS.map((c) => c.name));
