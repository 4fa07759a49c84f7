// Starting a server: open the storage, wire the graph, start its components in order; stop them in reverse.
import type { Config } from '../config.ts';
import type { CallbackTuning } from '../events/callbacks.ts';
import type { PgBusTuning } from '../events/pg-bus.ts';
import type { SseTuning } from '../events/sse.ts';
import type { HttpLimits } from '../http/app.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../log.ts';
import { createLogger } from '../log.ts';
import { parseToolsets } from '../mcp/toolsets.ts';
import type { DkimFor } from '../outbound/relay.ts';
import type { WorkerTuning } from '../outbound/worker.ts';
import { renderChromiumProblem } from '../render/service.ts';
import type { Services } from '../services.ts';
import { VERSION } from '../version.ts';
import { Lifecycle } from './lifecycle.ts';
import { StartError, writePorts } from './listen.ts';
import { openStorage } from './storage.ts';
import { type Parts, type Wired, wire } from './wire.ts';

export { StartError } from './listen.ts';

export interface RunningServer {
  httpPort: number;
  smtpPort: number;
  /** Null unless --pop3-port / --imap-port was given. */
  pop3Port: number | null;
  imapPort: number | null;
  services: Services;
  /** Storage, writer, repositories and bus below the services (tests inspect them). */
  parts: Parts;
  /** The MCP endpoint's shared tool results not written out yet (tests). */
  mcpPendingShared(): number;
  /** The MCP endpoint's idle sweep, run now (tests). */
  mcpSweepIdle(): Promise<void>;
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
  try {
    parseToolsets(config.mcpToolsets, '--mcp-toolsets'); // an unknown name is bad config, before anything opens
  } catch (e) {
    throw new StartError((e as Error).message, 2);
  }
  const chromium = renderChromiumProblem(config.renderChromium);
  if (chromium) throw new StartError(chromium, 2);
  const storage = await openStorage(config, log, opts.blobDir);
  let wired: Wired;
  try {
    wired = wire(config, storage, { ...opts, log, clock });
  } catch (e) {
    storage.blobs.close();
    await storage.store.close();
    storage.lock.release();
    throw e;
  }
  const lifecycle = new Lifecycle(wired.components, log);
  await lifecycle.start().catch((e: unknown) => {
    storage.lock.release();
    throw e;
  });
  const { site, services, parts } = wired;
  writePorts(config.dataDir, {
    http: site.httpPort,
    smtp: site.smtpPort,
    ...(site.pop3Port !== null ? { pop3: site.pop3Port } : {}),
    ...(site.imapPort !== null ? { imap: site.imapPort } : {}),
  });
  log.info('inboxd started', {
    version: VERSION,
    http: site.httpPort,
    smtp: site.smtpPort,
    pop3: site.pop3Port,
    imap: site.imapPort,
    host: config.host,
    dataDir: config.dataDir,
    baseUrl: site.baseUrl,
    domains: config.domains,
  });
  let stopping: Promise<void> | null = null;
  return {
    httpPort: site.httpPort,
    smtpPort: site.smtpPort,
    pop3Port: site.pop3Port,
    imapPort: site.imapPort,
    services,
    parts,
    mcpPendingShared: wired.mcp.pendingShared,
    mcpSweepIdle: wired.mcp.sweepIdle,
    stop() {
      stopping ??= (async () => {
        log.info('inboxd stopping');
        wired.shutdown.abort();
        await lifecycle.stop();
        storage.lock.release();
        log.info('inboxd stopped');
      })();
      return stopping;
    },
  };
}
