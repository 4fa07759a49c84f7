// Composition root: opens the store, wires the services, starts the listeners, and stops them in order.
import { ServedDomains } from './domains/served.ts';
import { sweepOrphans } from './ingest/orphans.ts';
import { DomainService, relayHostOf } from './domains/service.ts';
import { Sealer } from './lib/sealed.ts';
import { ProviderAccounts } from './providers/accounts.ts';
import { dnsServerAddress } from './config.ts';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { bootstrapAdminKey, KeyAuth } from './auth/keys.ts';
import type { Config } from './config.ts';
import { createHttpApp, type HttpLimits } from './http/app.ts';
import { createHttpServer } from './http/listener.ts';
import { mcpMiddleware } from './mcp/endpoint.ts';
import { consoleMiddleware } from './console/serve.ts';
import { createLogger, type Logger } from './log.ts';
import { OPERATIONS } from './ops/registry.ts';
import type { Clock, Services } from './services.ts';
import { AuditRepo } from './store/audit.ts';
import { openBlobStore } from './store/blob-open.ts';
import { scheduleStaleSweeps } from './store/blob-sweep.ts';
import { Compactor } from './store/compaction.ts';
import { dbFile, openPgStore, openStore } from './store/db.ts';
import { parsePgUrl, type PgTarget } from './store/pg-url.ts';
import { AccessRepo, KeyRepo } from './store/keys.ts';
import { AccessService } from './auth/access.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { RehearsalStore } from './agent/rehearsal.ts';
import { AgentService } from './agent/service.ts';
import { BillingClient } from './billing/stripe.ts';
import { type EventBus, LocalEventBus } from './events/bus.ts';
import { PgEventBus, type PgBusTuning } from './events/pg-bus.ts';
import { CallbackService, type CallbackTuning } from './events/callbacks.ts';
import { EventStreams, type SseTuning } from './events/sse.ts';
import { callbackBody } from './ops/events.ts';
import { DeliveryRepo } from './store/deliveries.ts';
import { InboxService } from './inboxes/service.ts';
import { Ingest } from './ingest/ingest.ts';
import { createAnalyzer } from './ingest/analyzer.ts';
import { Sandbox } from './budget/sandbox.ts';
import { IngestWriter } from './ingest/writer.ts';
import { startSmtp, type SmtpAuthHooks, type SmtpListener } from './smtp/listener.ts';
import { InboxRepo } from './store/inboxes.ts';
import { MessageRepo } from './store/messages.ts';
import { ThreadRepo } from './threads/repo.ts';
import { VERSION } from './version.ts';
import { type DataDirLock, DataDirError, lockDataDir, prepareDataDir } from './data-dir.ts';
import { RunService } from './runs/service.ts';
import { Metrics } from './metrics/metrics.ts';
import { metricsMiddleware } from './metrics/route.ts';
import { StoreSizer } from './metrics/store-size.ts';
import { MailWaits } from './inboxes/wait.ts';
import { MessageService } from './inboxes/messages.ts';
import { monitorScheduler, SCHEDULER_TICK_MS } from './workspace/monitors.ts';
import { OutboxRepo } from './outbound/outbox.ts';
import { type DkimFor, Relay } from './outbound/relay.ts';
import { OutboundService } from './outbound/service.ts';
import { workspaceMailer } from './outbound/workspace-mailer.ts';
import type { WorkerTuning } from './outbound/worker.ts';
import { SearchService } from './search/service.ts';
import { parseEmbeddings } from './search/embeddings.ts';
import { AiService } from './ai/service.ts';

/** A start-up failure with the one line to print and the exit code (CONTRACT §1: 2 = bad config, 1 = runtime). */
export class StartError extends Error {
  override name = 'StartError';
  readonly exitCode: number;
  constructor(message: string, exitCode: 1 | 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

export interface RunningServer {
  httpPort: number;
  smtpPort: number;
  services: Services;
  /** Stops accepting, finishes in-flight work, closes the store. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  clock?: Clock;
  /** Where the generated admin key is announced (stderr by default). */
  announce?: (line: string) => void;
  /** Event timing knobs for tests and benchmarks (retry delays, timeouts, heartbeat); never user settings. */
  events?: { callbacks?: CallbackTuning; sse?: SseTuning; pgBus?: PgBusTuning };
  /** Outbound: relay retry schedule and timeouts (tests), and the DKIM key of a sending domain (src/domains/). */
  outbound?: { tuning?: WorkerTuning; relayTimeoutMs?: number; dkimFor?: DkimFor };
  /** Request-body time limits (tests shorten them); the defaults are in src/http/app.ts. */
  http?: HttpLimits;
  /** The blob folder instead of <data-dir>/blobs: several in-process instances on one PostgreSQL share it (tests). */
  blobDir?: string;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger({ level: config.logLevel, format: config.logFormat });
  const clock = opts.clock ?? { now: () => Date.now() };
  let lock: DataDirLock;
  try {
    prepareDataDir(config.dataDir);
    lock = lockDataDir(config.dataDir);
  } catch (e) {
    throw new StartError(e instanceof DataDirError ? e.message : `--data-dir ${config.dataDir}: ${(e as Error).message}`, 1);
  }

  const store = await (config.database === undefined
    ? openStore(dbFile(config.dataDir))
    : openPgStore(parsePgUrl(config.database) as PgTarget, {
        poolSize: config.databasePoolSize,
        password: config.databasePassword,
        warn: (msg) => log.warn(msg),
      })
  ).catch((e: Error) => {
    lock.release();
    throw new StartError(e.message, 1);
  });
  const closeStore = () => store.close();
  const cleanup: Array<() => Promise<void>> = [closeStore];
  try {
    // Without SQLite (PostgreSQL) local blobs are per-sha files (the segment index lives in SQLite); in-process cluster
    // tests share one folder (opts.blobDir).
    const blobs = await openBlobStore({
      root: opts.blobDir ?? path.join(config.dataDir, 'blobs'),
      setting: config.blobStore,
      credentials: config.blobStoreCredentials,
      sqlite: store.sqlite,
      fsync: !config.noFsync,
      maxSegmentBytes: config.segmentSizeMb * 1024 * 1024,
      shared: !store.sqlite,
    }).catch((e: Error) => {
      throw new StartError(e.message, 1);
    });
    cleanup.push(async () => blobs.close());
    await blobs.sweepTemp();
    const recovered = blobs.recover();
    if (recovered.lost.length > 0 || recovered.truncated > 0)
      log.warn('recovered the blob store after an unclean stop', {
        unacknowledgedBlobsDropped: recovered.lost.length,
        tailBytesCut: recovered.truncated,
      });
    const keys = new KeyRepo(store.db);
    const accessRepo = new AccessRepo(store.db);
    const messages = new MessageRepo(store.db);
    // Several instances on one PostgreSQL hear each other's mail through LISTEN/NOTIFY (src/events/pg-bus.ts).
    const pgBus = store.newPgClient ? new PgEventBus({ db: store.db, connect: store.newPgClient, log, tuning: opts.events?.pgBus }) : null;
    const bus: EventBus = pgBus ?? new LocalEventBus((e) => log.error('event listener failed', { err: e as Error }));
    if (pgBus) {
      await pgBus.start().catch((e: Error) => {
        throw new StartError(`--database: cannot LISTEN for events: ${e.message}`, 1);
      });
      cleanup.splice(cleanup.indexOf(closeStore), 0, () => pgBus.stop());
    }
    const writer = new IngestWriter({
      db: store.db,
      blobs,
      messages,
      log,
      syncWal: config.noFsync ? undefined : () => store.syncWal(),
    });
    // Parsing and extraction run in worker threads; the analyzer is closed after pending writes (see stop order).
    const analyzer = createAnalyzer({ threads: config.ingestThreads, log });
    cleanup.push(() => analyzer.close());
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
    cleanup.push(() => sandbox.close());
    let baseUrl = config.baseUrl ?? `http://localhost:${config.httpPort}`;
    // Links to inboxd itself (the rehearsal page) are trusted even on localhost; parsed once, not per message.
    let trustedHosts = [new URL(baseUrl).hostname];
    const ingest = new Ingest({
      writer,
      bus,
      log,
      now: () => clock.now(),
      trustedHosts: () => trustedHosts,
      analyzer,
      limits: () => config,
    });
    const served = new ServedDomains(config.domains, config.acceptAnyDomain);
    const threads = new ThreadRepo(store.db, () => clock.now());
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
    const metrics = new Metrics();
    const callbacks = new CallbackService({
      repo: deliveries,
      bus,
      render: (inbox, message, at) => callbackBody(inbox, message, at, baseUrl),
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
        mxHost: () => config.mxHost ?? new URL(baseUrl).hostname,
        spfHost: () => relayHostOf(config) ?? config.mxHost ?? new URL(baseUrl).hostname,
        dnsServer: config.dnsServer === undefined ? null : dnsServerAddress(config.dnsServer),
        dnsTimeoutMs: config.dnsTimeoutMs,
      },
    });
    // Before SMTP starts, so mail for verified custom domains is accepted from the first connection.
    await domains.load();
    // Instances sharing a database see domains verified or deleted on another: decisions read the domain's row, and
    // the list (for listings and messages) is re-read every 5 s.
    if (store.dialect === 'postgres') {
      served.shareWith({ lookup: (d) => domains.verifiedOwner(d), list: () => domains.verified() });
      const domainSync = setInterval(
        () => void served.sync().catch((e: Error) => log.warn('could not re-read the verified domains', { err: e })),
        5_000,
      );
      domainSync.unref();
      cleanup.unshift(async () => clearInterval(domainSync));
    }
    const outbox = new OutboxRepo(store.db);
    const outbound = new OutboundService({
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
      tuning: opts.outbound?.tuning,
    });
    // inboxes: long-poll waits share one set of waiter caps, one wake queue and one answer cache.
    const waits = new MailWaits({ messages, bus, limits: config, maxBodyChars: config.waitMaxBodyChars, shutdown: shutdown.signal });
    const inboxMessages = new MessageService({ messages, blobs, writer, threads: threads.upkeep, log });
    // agent: verify and open, extraction, simulated mail, the rehearsal page, the self-test.
    const rehearsals = new RehearsalStore(() => clock.now());
    const agent = new AgentService({
      db: store.db,
      messages,
      writer,
      ingest,
      inboxes,
      waits,
      baseUrl: () => baseUrl,
      now: () => clock.now(),
      shutdown: shutdown.signal,
      maxMessageBytes: () => config.maxMessageBytes,
      rehearsals,
    });
    // runs: agent runs over the inboxes and waits; svc_issue_access mints its tokens and audits them.
    const audit = new AuditRepo(store.db, { days: config.auditRetentionDays, maxRows: config.auditMaxRows });
    const access = new AccessService({ keys, repo: accessRepo, config, clock });
    const runs = new RunService({ db: store.db, inboxes, waits, now: () => clock.now(), keys, tokens: access, audit });
    // ai: the model chain (--models) for structured extraction; caller schemas and the built-in engine in the sandbox.
    const ai = new AiService({
      ...(config.models ? { models: config.models } : {}),
      timeoutMs: config.modelTimeoutMs,
      maxInputChars: config.modelMaxInputChars,
      sandbox,
      schemaBudgetMs: config.schemaBudgetMs,
      schemaLimits: { depth: config.schemaMaxDepth },
      env: { INBOXD_OPENAI_API_KEY: config.openaiApiKey, INBOXD_ANTHROPIC_API_KEY: config.anthropicApiKey },
    });
    for (const w of ai.warnings()) log.warn(w);
    const services: Services = {
      config,
      outbound,
      workspaceMailer: workspaceMailer({ inboxes, messages, outbound, scopedDelivery: config.smtpAuth === 'required' }),
      served,
      domains,
      log,
      clock,
      store,
      blobs,
      keys,
      keyAuth: new KeyAuth(keys, accessRepo, () => clock.now()),
      access,
      accessRepo,
      rateLimiter: new RateLimiter(config.rateLimit, () => clock.now()),
      rehearsals,
      agent,
      runs,
      billing: new BillingClient({ apiBase: config.billingApiBase, secretKey: config.billingSecretKey, price: config.billingPrice }),
      audit,
      inboxes,
      waits,
      inboxMessages,
      messages,
      threads,
      search,
      ingest,
      writer,
      bus,
      eventStreams: new EventStreams({ db: store.db, bus, log, tuning: opts.events?.sse }),
      callbacks,
      deliveries,
      metrics,
      sealer,
      sandbox,
      ai,
      providers: new ProviderAccounts({ db: store.db, sealer, now: () => clock.now() }),
      registry: OPERATIONS,
      baseUrl: () => baseUrl,
      startedAt: clock.now(),
      shutdown: shutdown.signal,
    };
    const boot = await bootstrapAdminKey(keys, { adminKey: config.adminKey, dataDir: config.dataDir, now: clock.now(), log });
    if (boot.generated) {
      (opts.announce ?? ((l) => process.stderr.write(l + '\n')))(
        `inboxd: generated admin API key (shown once; also saved to ${boot.keyFile}):\n  ${boot.generated}`,
      );
    }

    // Connection caps and header timeouts are in src/http/listener.ts; answers (waits, SSE) may take as long as they need.
    const httpServer = createHttpServer(
      createHttpApp(services, [mcpMiddleware(services), metricsMiddleware(services), consoleMiddleware({ log })], opts.http).callback(),
      {
        maxConnections: config.maxHttpConnections,
        maxConnectionsPerIp: config.maxHttpConnectionsPerIp,
        headerTimeoutMs: config.httpHeaderTimeoutSeconds * 1000,
        smtpMaxConnections: config.smtpMaxConnections,
      },
      log,
    );
    const httpPort = await listen(httpServer, config.httpPort, config.host, '--http-port');
    cleanup.unshift(() => closeHttp(httpServer));
    if (!config.baseUrl) {
      baseUrl = `http://localhost:${httpPort}`;
      trustedHosts = [new URL(baseUrl).hostname];
    }

    // Stop order (cleanup runs front to back): sweeper, SMTP, HTTP, pending writes, callbacks, store, ingest workers.
    cleanup.splice(cleanup.indexOf(closeStore), 0, () => writer.drained());
    const smtp = await startSmtpOrFail(
      config,
      served,
      ingest,
      log,
      (address, tally) => inboxes.refusesMail(address, tally),
      {
        authenticate: (secret) => services.keyAuth.authenticate(secret),
        refusesSender: (p, address) => inboxes.refusesSender(p, address),
      },
      metrics,
    );
    cleanup.unshift(() => smtp.close());
    const storeSizer = new StoreSizer({
      dbFile: dbFile(config.dataDir),
      blobDir: blobs.root,
      database: { dialect: store.dialect, bytes: () => store.sizeBytes() },
    });
    Object.assign(metrics.sources, {
      smtpConnections: () => smtp.connections(),
      waits: () => waits.gate.count(),
      sseClients: () => services.eventStreams.count(),
      callbacksPending: () => deliveries.pendingCount(),
      storeSize: () => storeSizer.measure(),
      outbound: () => outbox.countByState(),
    });

    // Expired inboxes, old audit events and expired agent runs (with their timelines) go in one periodic sweep.
    // On PostgreSQL these run on one instance of the cluster (store.singleton: an advisory lock per job).
    const sweep = () =>
      store.singleton('expiry-sweep', () =>
        inboxes
          .sweep()
          .then(() => services.audit.prune(clock.now()))
          .then(() => runs.deleteExpired(clock.now(), 1000)),
      );
    await sweep();
    // Then the space the swept and deleted mail held in the segment files is reclaimed, in steps between ingest batches.
    // SQLite only by design: segments exist only where their index lives in SQLite.
    const compactor =
      blobs.segments && store.sqlite
        ? new Compactor({
            segments: blobs.segments,
            sqlite: store.sqlite,
            run: (fn) => writer.run(fn),
            syncWal: config.noFsync ? async () => undefined : () => store.syncWal(),
            onDone: (r) => r.segmentsRemoved > 0 && log.info('blob segments compacted', { ...r }),
          })
        : null;
    const compact = () => compactor?.run() ?? Promise.resolve();
    // Content and blobs left unreferenced by a stop between a delete and its collection: found once, in the background.
    const orphanSweep = store
      .singleton('orphan-sweep', async () => {
        const r = await sweepOrphans(store.db, writer, shutdown.signal);
        if (r.candidates > 0) log.info('unreferenced content and blobs collected', { ...r });
      })
      .catch((e: Error) => log.error('sweep of unreferenced content failed', { err: e }));
    // Objects an S3 store holds for batches that never committed: swept at start and hourly (src/store/blob-sweep.ts).
    const stopStaleSweeps = scheduleStaleSweeps(
      { blobs, db: store.db, collect: (shas) => writer.collect(shas) },
      {
        now: clock.now,
        signal: shutdown.signal,
        onDone: (r) => r.removed > 0 && log.info('unreferenced blob store objects removed', { ...r }),
        onError: (e) => log.error('sweep of unreferenced blob store objects failed', { err: e }),
        // A bucket is shared by the cluster: one instance sweeps it. Blob files in a data dir are that instance's own.
        ...(blobs.kind === 's3' && store.dialect === 'postgres' ? { singleton: (job, fn) => store.singleton(job, fn) } : {}),
        onTick: (ran) => log.debug('sweep of unreferenced blob store objects', { ran }),
      },
    );
    const sweeper = setInterval(
      () =>
        void sweep()
          .then(compact)
          .catch((e: Error) => log.error('expiry sweep failed', { err: e })),
      SWEEP_INTERVAL_MS,
    );
    sweeper.unref();
    cleanup.unshift(async () => {
      clearInterval(sweeper);
      await orphanSweep;
      await stopStaleSweeps();
      await compactor?.idle();
    });

    // Workspace monitors run on their schedule; stopped before the store closes.
    const monitors = monitorScheduler(services);
    if (store.dialect === 'sqlite') monitors.start(SCHEDULER_TICK_MS);
    else {
      const tick = setInterval(
        () =>
          void store
            .singleton('workspace-monitors', () => monitors.tick())
            .catch((e: Error) => log.error('workspace monitor tick failed', { err: e })),
        SCHEDULER_TICK_MS,
      );
      tick.unref();
      cleanup.splice(cleanup.indexOf(closeStore), 0, async () => clearInterval(tick));
    }
    cleanup.splice(cleanup.indexOf(closeStore), 0, () => monitors.stop());

    // Last, so a failed start leaves no attempt running; messages stored meanwhile are found by its start-up check.
    // Stopped after pending writes (their deliveries get queued) and before the store closes.
    await callbacks.start();
    cleanup.splice(cleanup.indexOf(closeStore), 0, () => callbacks.stop());
    await outbound.start();
    cleanup.splice(cleanup.indexOf(closeStore), 0, () => outbound.stop());
    // Queued index rows (claims, mail older than the index) and the embeddings queue run in the background.
    await search.start();
    cleanup.splice(cleanup.indexOf(closeStore), 0, () => search.stop());

    writePorts(config.dataDir, { http: httpPort, smtp: smtp.port });
    log.info('inboxd started', {
      version: VERSION,
      http: httpPort,
      smtp: smtp.port,
      host: config.host,
      dataDir: config.dataDir,
      baseUrl,
      domains: config.domains,
    });

    let stopping: Promise<void> | null = null;
    return {
      httpPort,
      smtpPort: smtp.port,
      services,
      stop() {
        stopping ??= (async () => {
          log.info('inboxd stopping');
          shutdown.abort();
          for (const fn of cleanup) await fn().catch((e: Error) => log.error('error while stopping', { err: e }));
          lock.release();
          log.info('inboxd stopped');
        })();
        return stopping;
      },
    };
  } catch (e) {
    for (const fn of cleanup) await fn().catch(() => undefined);
    lock.release();
    throw e;
  }
}

const SWEEP_INTERVAL_MS = 30_000;

async function startSmtpOrFail(
  config: Config,
  served: ServedDomains,
  ingest: Ingest,
  log: Logger,
  refusesMail: (address: string, tally: { total?: number }) => Promise<string | null>,
  hooks: SmtpAuthHooks,
  metrics: Metrics,
): Promise<SmtpListener> {
  for (const [flag, file] of [
    ['--smtp-tls-cert', config.smtpTlsCert],
    ['--smtp-tls-key', config.smtpTlsKey],
  ] as const) {
    if (file !== undefined && !fs.existsSync(file)) throw new StartError(`${flag} ${file}: no such file`, 2);
  }
  try {
    return await startSmtp(
      {
        host: config.host,
        port: config.smtpPort,
        served,
        maxMessageBytes: config.maxMessageBytes,
        tlsCert: config.smtpTlsCert,
        tlsKey: config.smtpTlsKey,
        hostname: served.primary,
        maxConnections: config.smtpMaxConnections,
        maxConnectionsPerIp: config.smtpMaxConnectionsPerIp,
        auth: config.smtpAuth,
        maxSessionMs: config.smtpMaxSessionSeconds * 1000,
        maxCommands: config.smtpMaxCommands,
        metrics: metrics.smtp,
      },
      ingest,
      log,
      refusesMail,
      hooks,
    );
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EACCES')
      throw new StartError(
        `--smtp-port ${config.smtpPort}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); try --smtp-port 2525`,
        1,
      );
    if (err.code === 'EADDRINUSE')
      throw new StartError(
        `--smtp-port ${config.smtpPort}: the port is already in use on ${config.host}; choose another or use 0 for a free one`,
        1,
      );
    throw new StartError(`--smtp-port ${config.smtpPort}: cannot start the SMTP listener: ${err.message}`, 1);
  }
}

function listen(server: http.Server, port: number, host: string, flag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (e.code === 'EADDRINUSE')
        reject(new StartError(`${flag} ${port}: the port is already in use on ${host}; choose another or use 0 for a free one`, 1));
      else if (e.code === 'EACCES')
        reject(new StartError(`${flag} ${port}: permission denied (ports below 1024 need privileges); try a port above 1024`, 1));
      else reject(new StartError(`${flag} ${port}: cannot listen on ${host}: ${e.message}`, 1));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // In-flight requests get a grace period; long waits and streams are cut after it.
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

export function writePorts(dataDir: string, ports: { http: number; smtp: number }): void {
  const file = path.join(dataDir, 'ports.json');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(ports) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}
