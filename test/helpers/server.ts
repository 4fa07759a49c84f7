// Starts a real inboxd (in this process) on free ports with its own temp data dir, for API tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.ts';

export const ADMIN_KEY = 'ibx_TestAdminKey0000000000000000000';

export interface TestServer {
  url: string;
  key: string;
  dataDir: string;
  server: RunningServer;
  logs: string[];
  /** fetch against the server with the admin key unless headers say otherwise. */
  api(pathname: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'inboxd-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestServerOptions {
  clock?: { now(): number };
  /** Start on this existing data dir (a restart); it is then the caller's to remove, stop() leaves it. */
  dataDir?: string;
  /** Event timing knobs (short retry delays, heartbeats) so tests need not sleep for minutes. */
  events?: StartOptions['events'];
  /** Outbound relay knobs (retry schedule, timeouts) and the DKIM key lookup. */
  outbound?: StartOptions['outbound'];
}

export async function startTestServer(
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  opts: TestServerOptions = {},
): Promise<TestServer> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig(['--http-port', '0', '--smtp-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...extraArgs], {
    INBOXD_ADMIN_KEY: ADMIN_KEY,
    ...env,
  });
  const logs: string[] = [];
  const log = createLogger({ level: 'debug', format: 'json', write: (l) => logs.push(l) });
  const server = await startServer(config, {
    log,
    announce: (l) => logs.push(l),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.events ? { events: opts.events } : {}),
    ...(opts.outbound ? { outbound: opts.outbound } : {}),
  });
  const url = `http://127.0.0.1:${server.httpPort}`;
  return {
    url,
    key: ADMIN_KEY,
    dataDir,
    server,
    logs,
    api(pathname, init = {}) {
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? ADMIN_KEY : init.key;
      if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(url + pathname, { ...init, headers, body: body ?? null });
    },
    async stop() {
      await server.stop();
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
