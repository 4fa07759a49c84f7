import { AccessService } from '../auth/access.ts';
import { AccountService } from '../auth/account.ts';
import { AuditLog } from '../auth/audit-log.ts';
import { SharedHolds, SharedWindows } from '../auth/cluster-limits.ts';
import { KeyAuth } from '../auth/keys.ts';
import { LimitRepo } from '../auth/limit-repo.ts';
import { McpSessionRepo } from '../auth/mcp-session-repo.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { BillingClient } from '../billing/stripe.ts';
import { Sandbox } from '../budget/sandbox.ts';
import { CheckEngine } from '../checks/engine.ts';
import { checkRegistry, PURE_CHECK_NAMES } from '../checks/registry.ts';
import { CheckRepo } from '../checks/repo.ts';
import { CheckService } from '../checks/service.ts';
import { InstanceRepo } from '../cluster/repo.ts';
import { ClusterService } from '../cluster/service.ts';
import { type Config, dnsServerAddress } from '../config.ts';
import { ConsoleService } from '../console/service.ts';
import { ServedDomains } from '../domains/served.ts';
import { DomainService, relayHostOf } from '../domains/service.ts';
import { type EventBus, LocalEventBus } from '../events/bus.ts';
import { callbackBody } from '../events/callback-body.ts';
import { CallbackService } from '../events/callbacks.ts';
import { InboundWebhooks } from '../events/inbound.ts';
import { PgEventBus } from '../events/pg-bus.ts';
import { EventStreams } from '../events/sse.ts';
import { FaultRepo } from '../faults/repo.ts';
import { FaultService } from '../faults/service.ts';
import { MessageService } from '../inboxes/messages.ts';
import { InboxService } from '../inboxes/service.ts';
import { MailWaits } from '../inboxes/wait.ts';
import { createAnalyzer } from '../ingest/analyzer.ts';
import { Ingest } from '../ingest/ingest.ts';
import { IngestWriter } from '../ingest/writer.ts';
import { LabelRuleRepo } from '../labels/repo.ts';
import { LabelRuleService } from '../labels/service.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { Sealer } from '../lib/sealed.ts';
import type { Logger } from '../log.ts';
import type { McpEndpoint } from '../mcp/endpoint.ts';
import { lazyMcpEndpoint } from '../mcp/lazy.ts';
import { Metrics } from '../metrics/metrics.ts';
import { OPERATIONS } from '../ops/registry.ts';
import { OutboxRepo } from '../outbound/outbox.ts';
import { Relay } from '../outbound/relay.ts';
import { OutboundService } from '../outbound/service.ts';
import type { ProviderAccounts } from '../providers/accounts.ts';
import { RenderService } from '../render/service.ts';
import { parseEmbeddings } from '../search/embeddings.ts';
import { SearchService } from '../search/service.ts';
import type { Services } from '../services.ts';
import { DeliveryRepo } from '../store/deliveries.ts';
import { StorageHealth } from '../store/health.ts';
import { InboxRepo } from '../store/inboxes.ts';
import { AccessRepo, KeyRepo } from '../store/keys.ts';
import { MessageRepo } from '../store/messages.ts';
import { SessionFactsRepo } from '../store/session-facts.ts';
import { ThreadService } from '../threads/service.ts';
import { components } from './components.ts';
import type { Component } from './lifecycle.ts';
import type { StartOptions } from './start.ts';
import type { Storage } from './storage.ts';
import { loadTlsMaterial, type TlsMaterial } from './tls.ts';
import { wireAgents } from './wire-agents.ts';

/** What the server learns only once it listens: the public base URL (when --base-url is unset) and its host. */
export interface Site {
  baseUrl: string;
  trustedHosts: string[];
  httpPort: number;
  smtpPort: number;
  /** Bound only when --pop3-port / --imap-port is given. */
  pop3Port: number | null;
  imapPort: number | null;
}

/** The graph below the services: storage, the writer, repositories, the bus. Tests and components reach them here. */
export interface Parts extends Storage {
  writer: IngestWriter;
  bus: EventBus;
  pgBus: PgEventBus | null;
  messages: MessageRepo;
  keys: KeyRepo;
  deliveries: DeliveryRepo;
  analyzer: ReturnType<typeof createAnalyzer>;
  /** The one path every message takes (SMTP, simulate, webhooks, local sends); tests inject mail through it. */
  ingest: Ingest;
  sandbox: Sandbox;
  /** Connected mailbox and calendar accounts (sealed credentials), shared by the mailbox and calendar services. */
  providers: ProviderAccounts;
  /** TLS material of the mail listeners (SMTP STARTTLS, POP3/IMAP STLS): --smtp-tls auto or --smtp-tls-cert/key. */
  tls: TlsMaterial | null;
}

export interface Wired {
  services: Services;
  parts: Parts;
  site: Site;
  /** Aborted when the server begins to stop (Services.shutdown). */
  shutdown: AbortController;
  /** The MCP endpoint (its sessions and shared results), mounted on the HTTP app. */
  mcp: McpEndpoint;
  components: Component[];
}

export function wire(config: Config, storage: Storage, opts: StartOptions & { log: Logger; clock: Clock }): Wired {
  const { log, clock } = opts;
  const { store, blobs } = storage;
  const baseUrl = config.baseUrl ?? `http://localhost:${config.httpPort}`;
  // Links to inboxd itself (the rehearsal page) are trusted even on localhost; parsed once, not per message.
  const site: Site = { baseUrl, trustedHosts: [new URL(baseUrl).hostname], httpPort: 0, smtpPort: 0, pop3Port: null, imapPort: null };
  const tls = loadTlsMaterial(config, log, clock.now());
  const keys = new KeyRepo(store.db);
  const accessRepo = new AccessRepo(store.db);
  const messages = new MessageRepo(store.db);
  // Several instances on one PostgreSQL hear each other's mail through LISTEN/NOTIFY (src/events/pg-bus.ts).
  const pgBus = store.newPgClient ? new PgEventBus({ db: store.db, connect: store.newPgClient, log, tuning: opts.events?.pgBus }) : null;
  const bus: EventBus = pgBus ?? new LocalEventBus((e) => log.error('event listener failed', { err: e as Error }));
  const writer = new IngestWriter({ db: store.db, blobs, messages, log, syncWal: config.noFsync ? undefined : () => store.syncWal() });
  // Parsing and extraction run in worker threads.
  const analyzer = createAnalyzer({ threads: config.ingestThreads, log });
  // Untrusted work (caller patterns and schemas, recurrence rules, monitors) runs in its own worker threads under a
  // time and heap budget, started on first use.
  const sandbox = new Sandbox({
    threads: config.sandboxThreads,
    timeoutMs: config.sandboxTimeoutMs,
    maxHeapMb: config.sandboxMaxHeapMb,
    maxQueued: config.sandboxMaxQueued,
    ownerShare: 0.25,
    log,
  });
  // Label rules (src/labels/): ingest asks them for the labels of arriving mail; built below, reached through this.
  let labelRules: LabelRuleService | null = null;
  const ingest = new Ingest({
    labeler: () => labelRules,
    writer,
    bus,
    log,
    now: () => clock.now(),
    trustedHosts: () => site.trustedHosts,
    analyzer,
    limits: () => config,
  });
  const served = new ServedDomains(config.domains, config.acceptAnyDomain);
  const labelRuleService = new LabelRuleService({
    repo: new LabelRuleRepo(store.db),
    log,
    now: () => clock.now(),
    maxRules: config.maxLabelRules,
    shared: store.dialect === 'postgres',
  });
  labelRules = labelRuleService;
  const threads = new ThreadService(store.db, () => clock.now());
  const inboxes = new InboxService({
    repo: new InboxRepo(store.db),
    messages,
    writer,
    bus,
    store,
    config,
    clock,
    log,
    served,
    threads: threads.upkeep,
  });
  const shutdown = new AbortController();
  // On PostgreSQL the limits hold across the instances of a cluster (src/auth/cluster-limits.ts, README "Scaling out").
  const limitRepo = pgBus ? new LimitRepo(store.db) : null;
  const windows = limitRepo ? new SharedWindows({ repo: limitRepo, log, now: () => clock.now() }) : null;
  const holds = limitRepo ? new SharedHolds({ repo: limitRepo, log }) : null;
  if (holds) {
    holds.start();
    shutdown.signal.addEventListener('abort', () => void holds.stop().catch(() => undefined));
  }
  const search = new SearchService({
    db: store.db,
    writer,
    bus,
    log,
    singleton: store.dialect === 'postgres' ? (job, fn) => store.singleton(job, fn) : undefined,
    sandbox,
    sqliteFile: store.sqlite?.name,
    limits: { budgetMs: config.searchBudgetMs, maxTerms: config.searchMaxTerms, maxTermWords: config.searchMaxTermWords },
    embeddings: config.embeddings
      ? {
          cfg: { link: parseEmbeddings(config.embeddings), timeoutMs: config.modelTimeoutMs, apiKey: config.openaiApiKey },
          retryMs: config.embeddingsRetrySeconds * 1000,
        }
      : undefined,
  });
  const deliveries = new DeliveryRepo(store.db);
  // cluster: this process's instance id names its heartbeat row (GET /v1/cluster) and labels its metrics.
  const instanceId = newId('ins');
  const metrics = new Metrics({ instance: instanceId });
  const callbacks = new CallbackService({
    repo: deliveries,
    bus,
    render: callbackBody,
    policy: { allowHttp: config.allowHttpCallbacks, allowPrivate: config.allowPrivateCallbacks },
    now: () => clock.now(),
    log,
    tuning: {
      maxConcurrent: config.callbackConcurrency,
      maxPerTarget: config.callbackConcurrencyPerHost,
      maxStalled: config.callbackSlowLane,
      ...opts.events?.callbacks,
    },
    onAttempt: (outcome) => metrics.callbackAttempt(outcome),
  });
  // checks: the engine runs pure checks in the sandbox's workers, each under --check-timeout-ms (src/checks/).
  const checks = new CheckService({
    engine: new CheckEngine({
      checks: checkRegistry({
        linkCheckHosts: config.linkCheckHosts,
        dnsFixtures: config.dnsFixtures,
        dnsServer: config.dnsServer === undefined ? null : dnsServerAddress(config.dnsServer),
        dnsTimeoutMs: config.dnsTimeoutMs,
        hostname: new URL(site.baseUrl).hostname,
        // built below; only called once a check runs
        dkimKeyRecord: (name) => domains.dkimKeyRecord(name),
        spamd: config.spamd,
        rspamd: config.rspamd,
        spamTimeoutMs: config.spamTimeoutMs,
      }),
      pure: PURE_CHECK_NAMES,
      runPure: (job, timeoutMs) => sandbox.run('checks.pure', job, { owner: 'checks', timeoutMs }),
      parse: (raw, timeoutMs) => sandbox.run('checks.parse', raw, { owner: 'checks', timeoutMs }),
      timeoutMs: config.checkTimeoutMs,
    }),
    repo: new CheckRepo(store.db),
    facts: new SessionFactsRepo(store.db),
    messages,
    blobs,
    bus,
    log,
    now: () => clock.now(),
    queueLimit: config.checkQueue,
    onFindings: (check, severity, n) => metrics.checkFound(check, severity, n),
  });
  const sealer = new Sealer(config.secretKey);
  const domains = new DomainService({
    db: store.db,
    served,
    inboxes,
    messages,
    writer,
    sealer,
    clock,
    log,
    settings: {
      mxHost: () => config.mxHost ?? new URL(site.baseUrl).hostname,
      spfHost: () => relayHostOf(config) ?? config.mxHost ?? new URL(site.baseUrl).hostname,
      dnsServer: config.dnsServer === undefined ? null : dnsServerAddress(config.dnsServer),
      dnsTimeoutMs: config.dnsTimeoutMs,
    },
  });
  const outbox = new OutboxRepo(store.db);
  const outbound = new OutboundService({
    sendCount: windows ? { windows, scope: 'send' } : null,
    ingest,
    outbox,
    blobs,
    served,
    sender: config.smtpRelay
      ? new Relay({
          url: config.smtpRelay,
          user: config.smtpRelayUser,
          password: config.smtpRelayPassword,
          timeoutMs: opts.outbound?.relayTimeoutMs,
          tlsInsecure: config.smtpRelayTlsInsecure,
        })
      : null,
    // Signed when the sending domain is a verified custom domain whose DKIM and SPF records matched (src/domains/).
    dkimFor: opts.outbound?.dkimFor ?? ((domain, teamId) => domains.dkimFor(domain, teamId)),
    log,
    now: () => clock.now(),
    maxMessageBytes: () => config.maxMessageBytes,
    maxSendsPerMinute: config.maxSendsPerMinute,
    relayFromDomains: config.relayFromDomains,
    releaseAllow: config.releaseAllow,
    tuning: opts.outbound?.tuning,
  });
  // auth: the audit log, keys and tokens, the caller's account (team, usage, billing).
  const auditLog = new AuditLog({ db: store.db, retention: { days: config.auditRetentionDays, maxRows: config.auditMaxRows } });
  const access = new AccessService({ keys, repo: accessRepo, clock, audit: auditLog });
  const billing = new BillingClient({ apiBase: config.billingApiBase, secretKey: config.billingSecretKey, price: config.billingPrice });
  const account = new AccountService({ db: store.db, keys, access: accessRepo, billing });
  // events: mail from providers' inbound webhooks, checked like SMTP mail and handed to ingest.
  const inboundWebhooks = new InboundWebhooks({
    db: store.db,
    served,
    refusesMail: (address, tally) => inboxes.refusesMail(address, tally),
    ingest,
    settings: config,
    clock,
    log,
  });
  // console: the dashboard's and the inbox page's aggregates.
  const consoleAggregates = new ConsoleService({ db: store.db, inboxes, messages, deliveries, threads, clock });
  // system: what /health reports about the store (its file-system answer is cached per server).
  const storageHealth = new StorageHealth({
    db: store.db,
    dialect: store.dialect,
    blobs,
    blobStoreUrl: config.blobStore,
    dataDir: config.dataDir,
    minFreeMb: config.healthMinFreeMb,
    now: () => Date.now(),
  });
  const cluster = new ClusterService({
    repo: new InstanceRepo(store.db),
    instanceId,
    startedAt: Date.now(),
    now: () => Date.now(),
    leading: () => store.leading(),
    storage: () => storageHealth.check(),
    models: () =>
      services.ai
        .status()
        .filter((m) => m.provider !== 'builtin')
        .map((m) => ({ model: `${m.provider}/${m.model}@${m.host}`, ready: m.ready, lastProbe: m.lastProbe })),
  });
  // inboxes: long-poll waits share one set of waiter caps, one wake queue and one answer cache.
  const waits = new MailWaits({
    messages,
    bus,
    limits: config,
    shared: holds,
    maxBodyChars: config.waitMaxBodyChars,
    shutdown: shutdown.signal,
  });
  const inboxMessages = new MessageService({
    messages,
    blobs,
    writer,
    threads: threads.upkeep,
    log,
    deliveriesOf: (messageId) => outbound.deliveriesOf(messageId),
  });
  const agents = wireAgents(config, {
    windows,
    db: store.db,
    dialect: store.dialect,
    blobs,
    messages,
    writer,
    ingest,
    inboxes,
    waits,
    threads,
    search,
    outbound,
    served,
    sealer,
    sandbox,
    keys,
    access,
    auditLog,
    site,
    clock,
    log,
    shutdown: shutdown.signal,
  });
  const { rehearsals, agent, runs, ai, workspace, monitors, mailbox, calendar, providers } = agents;
  // faults: the rules the SMTP listener asks at each stage, and the timeline of what fired.
  const inboxRepo = new InboxRepo(store.db);
  const faults = new FaultService({
    repo: new FaultRepo(store.db),
    inboxByAddress: async (address) => {
      const i = await inboxRepo.byAddress(address);
      return i ? { id: i.id, teamId: i.team_id, label: i.label } : undefined;
    },
    recentMessages: (inboxId, since, limit) => messages.after(inboxId, { time: since - 1 }, limit),
    shared: store.dialect === 'postgres',
    shortcuts: config.smtpFaultShortcuts === 'on',
    now: () => clock.now(),
    log,
  });
  const services: Services = {
    config,
    labelRules: labelRuleService,
    outbound,
    workspace,
    monitors,
    mailbox,
    calendar,
    served,
    domains,
    log,
    clock,
    storageHealth,
    keyAuth: new KeyAuth(keys, accessRepo, () => clock.now()),
    access,
    account,
    auditLog,
    rateLimiter: new RateLimiter(config.rateLimit, () => clock.now(), undefined, windows ? { windows, scope: 'rate' } : null),
    rehearsals,
    agent,
    runs,
    inboxes,
    faults,
    waits,
    inboxMessages,
    threads,
    search,
    eventStreams: new EventStreams({ db: store.db, bus, log, tuning: opts.events?.sse }),
    callbacks,
    checks,
    render: new RenderService({
      chromium: config.renderChromium,
      timeoutMs: config.renderTimeoutMs,
      queue: config.renderQueue,
      messages,
      blobs,
      log,
      compare: (a, b) => sandbox.run('render.compare', { a, b }, { owner: 'render', timeoutMs: 10_000 }),
    }),
    inboundWebhooks,
    console: consoleAggregates,
    metrics,
    cluster,
    ai,
    baseUrl: () => site.baseUrl,
    smtpTls: tls
      ? { source: tls.source, fingerprint: tls.fingerprint, validTo: tls.validTo, certificate: tls.cert, requireTls: config.smtpRequireTls }
      : null,
    startedAt: clock.now(),
    shutdown: shutdown.signal,
  };
  Object.assign(metrics.sources, {
    waits: () => waits.gate.count(),
    sseClients: () => services.eventStreams.count(),
    callbacksPending: () => deliveries.pendingCount(),
    outbound: () => outbox.countByState(),
    faultsFired: () => faults.fired,
    ingestWorkers: () => analyzer.running,
  });
  const parts: Parts = {
    ...storage,
    writer,
    bus,
    pgBus,
    messages,
    keys,
    deliveries,
    analyzer,
    ingest,
    sandbox,
    providers,
    tls,
  };
  // On PostgreSQL the MCP sessions are the cluster's (the database and the bus's signals), not this process's.
  const mcp = lazyMcpEndpoint(services, OPERATIONS, pgBus ? { repo: new McpSessionRepo(store.db), signals: pgBus } : undefined);
  return { services, parts, site, shutdown, mcp, components: components(config, { services, parts, site, shutdown, mcp }, opts) };
}
