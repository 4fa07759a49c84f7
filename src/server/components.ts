// The server's components in start order; src/server/lifecycle.ts stops them in reverse. Read from the bottom up,
// this list is the stop order: jobs end, SMTP and HTTP stop accepting, pending writes commit (their callbacks get
// queued), the workers stop, and the store closes last but for the worker threads.
import type http from 'node:http';
import { bootstrapAdminKey } from '../auth/keys.ts';
import { HEARTBEAT_MS } from '../cluster/service.ts';
import type { Config } from '../config.ts';
import { consoleMiddleware } from '../console/serve.ts';
import { createHttpApp } from '../http/app.ts';
import { createHttpServer } from '../http/listener.ts';
import { type AccessListener, startImap } from '../imap/server.ts';
import { MailAccess } from '../inboxes/mail-access.ts';
import { sweepOrphans } from '../ingest/orphans.ts';
import { TrustedProxies } from '../lib/proxy-protocol.ts';
import type { Logger } from '../log.ts';
import { metricsMiddleware } from '../metrics/route.ts';
import { StoreSizer } from '../metrics/store-size.ts';
import { OPERATIONS } from '../ops/registry.ts';
import { type Pop3Listener, startPop3 } from '../pop3/server.ts';
import type { SmtpListener } from '../smtp/listener.ts';
import { scheduleStaleSweeps } from '../store/blob-sweep.ts';
import { Compactor } from '../store/compaction.ts';
import { dbFile } from '../store/db.ts';
import { SCHEDULER_TICK_MS } from '../workspace/monitors.ts';
import { backgroundOnce, once, periodicJob, SWEEP_INTERVAL_MS, scheduledJob } from './jobs.ts';
import type { Component } from './lifecycle.ts';
import { closeHttp, listenAccess, listenHttp, listenSmtp, StartError } from './listen.ts';
import { reliefJob } from './relief.ts';
import type { StartOptions } from './start.ts';
import type { Wired } from './wire.ts';

export function components(config: Config, w: Omit<Wired, 'components'>, opts: StartOptions & { log: Logger }): Component[] {
  const { services, parts } = w;
  const { log } = opts;
  const { store, blobs, writer } = parts;
  const clusterOnly = store.dialect === 'postgres' ? (job: string, fn: () => Promise<unknown>) => store.singleton(job, fn) : undefined;
  const list: Component[] = [
    { name: 'sandbox', stop: () => parts.sandbox.close() },
    { name: 'ingest-workers', stop: () => parts.analyzer.close() },
    { name: 'store', stop: () => store.close() },
    { name: 'blobs', stop: () => blobs.close() },
  ];
  const pgBus = parts.pgBus;
  if (pgBus)
    list.push({
      name: 'pg-bus',
      start: () => pgBus.start().catch(startFailure('--database: cannot LISTEN for events')),
      stop: () => pgBus.stop(),
    });
  // Before SMTP starts, so mail for verified custom domains is accepted from the first connection.
  list.push({
    name: 'domains',
    async start() {
      await services.domains.load();
      // Instances sharing a database see domains verified or deleted on another: decisions read the domain's row.
      if (clusterOnly)
        services.served.shareWith({ lookup: (d) => services.domains.verifiedOwner(d), list: () => services.domains.verified() });
    },
  });
  // Before SMTP starts, so the first connection already sees the fault rules; stopped after it (fired faults are stored).
  list.push({ name: 'faults', start: () => services.faults.start(), stop: () => services.faults.stop() });
  list.push(
    { name: 'search', start: () => services.search.start(), stop: () => services.search.stop() },
    // Before SMTP starts: mail that arrives finds the team's label rules in memory.
    { name: 'label-rules', start: () => services.labelRules.start(), stop: () => services.labelRules.stop() },
    { name: 'outbound', start: () => services.outbound.start(), stop: () => services.outbound.stop() },
    { name: 'callbacks', start: () => services.callbacks.start(), stop: () => services.callbacks.stop() },
    // On-arrival checks stop after the callbacks (their message.checked events go nowhere once those have stopped).
    { name: 'checks', start: () => services.checks.start(), stop: () => services.checks.stop() },
    // Pending writes commit after SMTP and HTTP stop accepting and before the workers that hear of them stop.
    { name: 'writer', stop: () => writer.drained() },
    {
      name: 'admin-key',
      async start() {
        const boot = await bootstrapAdminKey(parts.keys, {
          adminKey: config.adminKey,
          dataDir: config.dataDir,
          now: services.clock.now(),
          log,
        });
        if (boot.generated)
          (opts.announce ?? ((l) => process.stderr.write(l + '\n')))(
            `inboxd: generated admin API key (shown once; also saved to ${boot.keyFile}):\n  ${boot.generated}`,
          );
      },
    },
    httpComponent(config, w, opts),
    smtpComponent(config, w, log),
    ...mailAccessComponents(config, w, log),
  );
  list.push(...jobs(config, w, log, clusterOnly));
  return list;
}

function httpComponent(config: Config, w: Omit<Wired, 'components'>, opts: StartOptions & { log: Logger }): Component {
  const { services, site } = w;
  let server: http.Server | undefined;
  return {
    name: 'http',
    async start() {
      // Connection caps and header timeouts are in src/http/listener.ts; answers (waits, SSE) may take as long as they need.
      server = createHttpServer(
        createHttpApp(
          services,
          OPERATIONS,
          [w.mcp.middleware, metricsMiddleware(services), consoleMiddleware({ log: opts.log })],
          opts.http,
        ).callback(),
        {
          maxConnections: config.maxHttpConnections,
          maxConnectionsPerIp: config.maxHttpConnectionsPerIp,
          headerTimeoutMs: config.httpHeaderTimeoutSeconds * 1000,
          smtpMaxConnections: config.smtpMaxConnections,
          trustedProxies: new TrustedProxies(config.trustedProxies),
        },
        opts.log,
      );
      site.httpPort = await listenHttp(server, config.httpPort, config.host);
      if (!config.baseUrl) {
        site.baseUrl = `http://localhost:${site.httpPort}`;
        site.trustedHosts = [new URL(site.baseUrl).hostname];
      }
    },
    stop: () => (server ? closeHttp(server) : undefined),
  };
}

function smtpComponent(config: Config, w: Omit<Wired, 'components'>, log: Logger): Component {
  const { services, parts, site } = w;
  let smtp: SmtpListener | undefined;
  return {
    name: 'smtp',
    async start() {
      const inboxes = services.inboxes;
      smtp = await listenSmtp(
        {
          host: config.host,
          port: config.smtpPort,
          served: services.served,
          maxMessageBytes: config.maxMessageBytes,
          tls: parts.tls,
          requireTls: config.smtpRequireTls,
          hostname: services.served.primary,
          maxConnections: config.smtpMaxConnections,
          maxConnectionsPerIp: config.smtpMaxConnectionsPerIp,
          auth: config.smtpAuth,
          maxSessionMs: config.smtpMaxSessionSeconds * 1000,
          maxCommands: config.smtpMaxCommands,
          metrics: services.metrics.smtp,
          faults: services.faults,
          trustedProxies: new TrustedProxies(config.trustedProxies),
          policy: {
            refusesMail: (address, tally) => inboxes.refusesMail(address, tally),
            auth: {
              authenticate: (secret) => services.keyAuth.authenticate(secret),
              refusesSender: (p, address) => inboxes.refusesSender(p, address),
            },
          },
        },
        parts.ingest,
        log,
      );
      site.smtpPort = smtp.port;
      const listener = smtp;
      const sizer = new StoreSizer({
        dbFile: dbFile(config.dataDir),
        blobDir: parts.blobs.root,
        database: { dialect: parts.store.dialect, bytes: () => parts.store.sizeBytes() },
      });
      Object.assign(services.metrics.sources, { smtpConnections: () => listener.connections(), storeSize: () => sizer.measure() });
    },
    stop: () => smtp?.close(),
  };
}

/** POP3 and IMAP (src/pop3/, src/imap/), each only when its port is given; STLS/STARTTLS with the SMTP TLS files. */
function mailAccessComponents(config: Config, w: Omit<Wired, 'components'>, log: Logger): Component[] {
  if (config.pop3Port === undefined && config.imapPort === undefined) return [];
  const { services, parts, site } = w;
  const access = new MailAccess({
    authenticate: (secret) => services.keyAuth.authenticate(secret),
    inboxes: services.inboxes,
    messageService: services.inboxMessages,
    messages: parts.messages,
    blobs: parts.blobs,
    writer: parts.writer,
    subscribe: (inboxId, fn) => parts.bus.subscribe(inboxId, fn),
    now: () => services.clock.now(),
  });
  const limits = {
    host: config.host,
    // the SMTP listener's certificate (--smtp-tls-cert/key, or --smtp-tls auto): POP3 STLS and IMAP STARTTLS serve the same
    tls: parts.tls ? { cert: parts.tls.cert, key: parts.tls.key } : null,
    maxConnections: config.smtpMaxConnections,
    maxConnectionsPerIp: config.smtpMaxConnectionsPerIp,
    trustedProxies: new TrustedProxies(config.trustedProxies),
  };
  const list: Component[] = [];
  const pop3Port = config.pop3Port;
  if (pop3Port !== undefined) {
    let pop3: Pop3Listener | undefined;
    list.push({
      name: 'pop3',
      async start() {
        pop3 = await listenAccess('--pop3-port', pop3Port, config.host, () =>
          startPop3(
            { ...limits, port: pop3Port, maxCommands: config.smtpMaxCommands, maxSessionMs: config.smtpMaxSessionSeconds * 1000 },
            access,
            log,
          ),
        );
        site.pop3Port = pop3.port;
      },
      stop: () => pop3?.close(),
    });
  }
  const imapPort = config.imapPort;
  if (imapPort !== undefined) {
    let imap: AccessListener | undefined;
    list.push({
      name: 'imap',
      async start() {
        imap = await listenAccess('--imap-port', imapPort, config.host, () =>
          startImap({ ...limits, port: imapPort, maxCommandsPerMinute: config.smtpMaxCommands }, access, log),
        );
        site.imapPort = imap.port;
      },
      stop: () => imap?.close(),
    });
  }
  return list;
}

type Singleton = ((job: string, fn: () => Promise<unknown>) => Promise<boolean>) | undefined;

function jobs(config: Config, w: Omit<Wired, 'components'>, log: Logger, clusterOnly: Singleton): Component[] {
  const { services, parts, shutdown } = w;
  const { store, blobs, writer } = parts;
  const now = () => services.clock.now();
  const list: Component[] = [];
  // On a shared database the list of verified domains (for listings and messages) is re-read every 5 s.
  if (clusterOnly)
    list.push(
      periodicJob({
        name: 'domain-sync',
        intervalMs: 5_000,
        log,
        failure: 'could not re-read the verified domains',
        run: () => services.served.sync(),
      }),
    );
  // Expired inboxes, old audit events and expired agent runs (with their timelines) go in one periodic sweep; then the
  // space the swept mail held in the segment files is reclaimed, in steps between ingest batches (on every instance
  // with local segments: their index is its own). On PostgreSQL the sweep runs on one instance (store.singleton).
  const sweep = () =>
    store.singleton('expiry-sweep', () =>
      services.inboxes
        .sweep()
        .then(() => services.auditLog.prune(now()))
        .then(() => services.runs.deleteExpired(now(), 1000)),
    );
  const compactor = blobs.segments
    ? new Compactor({
        segments: blobs.segments,
        sqlite: blobs.segments.db,
        run: (fn) => writer.run(fn),
        // The moves commit in the index: the main database's WAL, or blobs/index.db's on PostgreSQL.
        syncWal: config.noFsync
          ? async () => undefined
          : blobs.segments.ownIndex
            ? () => blobs.segments!.syncIndex()
            : () => store.syncWal(),
        onDone: (r) => r.segmentsRemoved > 0 && log.info('blob segments compacted', { ...r }),
      })
    : null;
  list.push(
    periodicJob({
      name: 'expiry-sweep',
      intervalMs: SWEEP_INTERVAL_MS,
      log,
      failure: 'expiry sweep failed',
      first: sweep,
      run: () => sweep().then(() => compactor?.run()),
      idle: async () => compactor?.idle(),
    }),
    // Content and blobs left unreferenced by a stop between a delete and its collection: found once, in the background.
    backgroundOnce('orphan-sweep', () =>
      store
        .singleton('orphan-sweep', async () => {
          const r = await sweepOrphans(store.db, writer, shutdown.signal, blobs.segments?.ownIndex ? blobs.segments.db : undefined);
          if (r.candidates > 0) log.info('unreferenced content and blobs collected', { ...r });
        })
        .catch((e: Error) => log.error('sweep of unreferenced content failed', { err: e })),
    ),
    // Objects an S3 store holds for batches that never committed: swept at start and hourly (src/store/blob-sweep.ts).
    scheduledJob('stale-blob-sweep', () =>
      scheduleStaleSweeps(
        { blobs, db: store.db, collect: (shas) => writer.collect(shas) },
        {
          now,
          signal: shutdown.signal,
          onDone: (r) => r.removed > 0 && log.info('unreferenced blob store objects removed', { ...r }),
          onError: (e) => log.error('sweep of unreferenced blob store objects failed', { err: e }),
          // A bucket is shared by the cluster: one instance sweeps it. Blob files in a data dir are that instance's own.
          ...(blobs.kind === 's3' && clusterOnly ? { singleton: clusterOnly } : {}),
          onTick: (ran) => log.debug('sweep of unreferenced blob store objects', { ran }),
        },
      ),
    ),
    monitorsJob(w, log, clusterOnly),
    // Fault events (an inbox's timeline) are kept a day (README "Fault rules").
    periodicJob({
      name: 'fault-events-prune',
      intervalMs: 600_000,
      log,
      failure: 'pruning fault events failed',
      run: () => services.faults.prune(),
    }),
    // The memory of a burst of mail given back once it has gone quiet (src/server/relief.ts).
    reliefJob({ ingest: w.parts.ingest, analyzer: w.parts.analyzer, log }),
  );
  // The cluster view (GET /v1/cluster): this instance's heartbeat row, after the jobs above started (its first beat
  // names the ones it leads); the last one, at stop, marks it stopped.
  const cluster = services.cluster;
  list.push(
    periodicJob({
      name: 'heartbeat',
      intervalMs: HEARTBEAT_MS,
      log,
      failure: 'instance heartbeat failed (GET /v1/cluster shows this instance stale)',
      first: () => cluster.beat().catch((e: Error) => log.warn('instance heartbeat failed', { err: e })),
      run: () => cluster.beat(),
      idle: () => cluster.stop().catch((e: Error) => log.warn('could not mark this instance stopped', { err: e })),
    }),
  );
  return list;
}

/** Workspace monitors run on their schedule (on PostgreSQL each tick on one instance); stop waits for runs in flight. */
function monitorsJob(w: Omit<Wired, 'components'>, log: Logger, clusterOnly: Singleton): Component {
  const monitors = w.services.monitors;
  if (!clusterOnly) return { name: 'monitors', start: () => monitors.start(SCHEDULER_TICK_MS), stop: () => monitors.stop() };
  const tick = once(clusterOnly, 'workspace-monitors', () => monitors.tick());
  const job = periodicJob({ name: 'monitors', intervalMs: SCHEDULER_TICK_MS, log, failure: 'workspace monitor tick failed', run: tick });
  return { ...job, stop: async () => (await job.stop?.(), monitors.stop()) };
}

function startFailure(prefix: string): (e: Error) => never {
  return (e) => {
    throw new StartError(`${prefix}: ${e.message}`, 1);
  };
}
