// What the domains capability reads from the configuration: the hosts its DNS records name and the DNS server and
// timeout verify uses (DomainSettings), and the relay host that SPF must name when one is set.
export interface DomainSettings {
  /** The MX target (--mx-host, else the host of the base URL). */
  mxHost(): string;
  /** The host SPF must name: the relay's (--smtp-relay) when set, else the MX host. */
  spfHost(): string;
  dnsServer: string | null;
  dnsTimeoutMs: number;
}

/** The host of `--smtp-relay` (the outbound work adds that setting), for the SPF record; null without a relay. */
export function relayHostOf(config: object): string | null {
  const relay = (config as { smtpRelay?: unknown }).smtpRelay;
  if (typeof relay !== 'string' || relay === '') return null;
  try {
    return new URL(relay).hostname.replace(/^\[|\]$/g, '').toLowerCase() || null;
  } catch {
    return null;
  }
}
