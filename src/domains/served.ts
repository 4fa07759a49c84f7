// The mail domains this inboxd serves: the configured `--domain` list plus the custom domains verified over DNS
// (CONTRACT §10). One object answers "do we take mail for this domain?" for SMTP, provider webhooks and inbox
// creation, and "is this recipient ours?" for outbound local delivery (CONTRACT §9), so a domain that is verified or
// deleted changes all of them at once.

export class ServedDomains {
  private readonly configured: readonly string[];
  /** Verified custom domain → the team that owns it (null when added without one). */
  private readonly custom = new Map<string, string | null>();
  /** `--accept-any-domain`: inbound mail and new inboxes may use any well-formed domain. */
  readonly acceptAny: boolean;

  constructor(configured: readonly string[], acceptAny = false) {
    if (configured.length === 0) throw new Error('at least one mail domain is needed');
    this.configured = configured.map((d) => d.toLowerCase());
    this.acceptAny = acceptAny;
  }

  /** The domain generated addresses use and SMTP names itself by. */
  get primary(): string {
    return this.configured[0]!;
  }

  /** Configured domains first, then verified custom domains. */
  list(): string[] {
    return [...this.configured, ...[...this.custom.keys()].sort()];
  }

  /** True for a configured or verified custom domain (never because of --accept-any-domain). */
  isServed(domain: string): boolean {
    const d = domain.toLowerCase();
    return this.configured.includes(d) || this.custom.has(d);
  }

  /** Whether inbound mail (SMTP, webhooks) and new inboxes may use this domain. */
  accepts(domain: string): boolean {
    return domain !== '' && (this.acceptAny || this.isServed(domain));
  }

  /** True for a `--domain` one (custom domains cannot take these over). */
  isConfigured(domain: string): boolean {
    return this.configured.includes(domain.toLowerCase());
  }

  /** The team a verified custom domain belongs to; null for configured domains (every team may use them). */
  ownerOf(domain: string): string | null {
    return this.custom.get(domain.toLowerCase()) ?? null;
  }

  /** A custom domain passed verification: it is served from now on (inboxes at it only for `teamId`, when given). */
  addCustom(domain: string, teamId: string | null = null): void {
    this.custom.set(domain.toLowerCase(), teamId);
  }

  /** A custom domain was deleted (or lost verification): it is no longer served. */
  removeCustom(domain: string): void {
    this.custom.delete(domain.toLowerCase());
  }

  /** For error messages: "a.test, b.test". */
  describe(): string {
    return this.list().join(', ');
  }
}
