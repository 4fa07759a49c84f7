// The mail domains this inboxd serves: the configured `--domain` list plus the custom domains verified over DNS
// (CONTRACT §10). One object answers "do we take mail for this domain?" for SMTP, provider webhooks and inbox
// creation, and "is this recipient ours?" for outbound local delivery (CONTRACT §9), so a domain that is verified or
// deleted changes all of them at once. Instances sharing one database (PostgreSQL) read a custom domain's state from
// it where it decides something (`*Fresh`, one indexed row), so a domain verified or deleted on one instance counts on
// all at once; the whole list (for listings and messages) is re-read every few seconds.

export class ServedDomains {
  private readonly configured: readonly string[];
  /** Verified custom domain → the team that owns it (null when added without one). */
  private readonly custom = new Map<string, string | null>();
  /** `--accept-any-domain`: inbound mail and new inboxes may use any well-formed domain. */
  readonly acceptAny: boolean;
  /** Reads the verified custom domains from the shared store (null: this instance alone knows them). */
  private loader: (() => Promise<Array<{ name: string; teamId: string | null }>>) | null = null;
  private lookup: ((domain: string) => Promise<string | null | false>) | null = null;
  private loading: Promise<void> | null = null;

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

  /** The `--domain` names. */
  configuredNames(): readonly string[] {
    return this.configured;
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

  /**
   * Several instances share the domains table: `lookup(domain)` reads one domain's state there (its team, null for
   * none, or false when it is not a verified domain); `list` re-reads them all (for `list()` and error messages).
   */
  shareWith(d: {
    lookup: (domain: string) => Promise<string | null | false>;
    list: () => Promise<Array<{ name: string; teamId: string | null }>>;
  }): void {
    this.lookup = d.lookup;
    this.loader = d.list;
  }

  /** True when custom domains live in a store other instances change too. */
  get shared(): boolean {
    return this.lookup !== null;
  }

  /** Replaces the custom domains with the shared store's verified ones (no-op on a store of its own). */
  sync(): Promise<void> {
    const load = this.loader;
    if (!load) return Promise.resolve();
    this.loading ??= load()
      .then((rows) => {
        this.custom.clear();
        for (const r of rows) this.custom.set(r.name.toLowerCase(), r.teamId);
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  /**
   * `isServed`, but a custom domain on a shared store is read there (one indexed row), so a domain verified or
   * deleted on another instance counts at once. If the store does not answer, what this instance knows counts.
   */
  async isServedFresh(domain: string): Promise<boolean> {
    const d = domain.toLowerCase();
    if (this.configured.includes(d) || !this.lookup) return this.isServed(d);
    const owner = await this.lookup(d).catch(() => undefined);
    if (owner === undefined) return this.isServed(d);
    if (owner === false) this.custom.delete(d);
    else this.custom.set(d, owner);
    return owner !== false;
  }

  /** `accepts`, reading a custom domain's state from a shared store (see `isServedFresh`). */
  async acceptsFresh(domain: string): Promise<boolean> {
    return domain !== '' && (this.acceptAny || (await this.isServedFresh(domain)));
  }

  /** For error messages: "a.test, b.test". */
  describe(): string {
    return this.list().join(', ');
  }
}
