// Starts a real inboxd (in this process) on free ports with its own temp data dir, for API tests.
// INBOXD_TEST_DATABASE=postgres runs it on PostgreSQL instead of SQLite: one real server per test process
// (test/helpers/postgres.ts, started on first use, stopped after the file's tests), a fresh database per test server.
// INBOXD_TEST_CLUSTER=1 (implies PostgreSQL) makes every test server two instances sharing that database and one
// bucket of a real S3-compatible server (Swift s3api, test/helpers/swift.ts, one per test process): `api()` sends
// every second request to the second instance, the way a load balancer spreads them; SMTP (`server.smtpPort`), `url`
// and `server.services` are the first instance's. So mail arrives at A while waits, reads and downloads run on B.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { type RunningServer, type StartOptions, startServer } from '../../src/server/start.ts';
import { type PgServer, postgresMissing, startPostgres } from './postgres.ts';
import { type SwiftServer, startSwift, swiftMissing } from './swift.ts';

export const ADMIN_KEY = 'ibx_TestAdminKey0000000000000000000';

export interface TestServer {
  url: string;
  key: string;
  dataDir: string;
  server: RunningServer;
  /** The second instance under INBOXD_TEST_CLUSTER=1 (null otherwise). */
  peer: RunningServer | null;
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
  /** PostgreSQL URL to start on (a cluster test shares one between servers); else as INBOXD_TEST_DATABASE says. */
  database?: string;
  /** Blob folder instead of <data-dir>/blobs (servers of one cluster share it). */
  blobDir?: string;
}

export const TEST_CLUSTER = process.env.INBOXD_TEST_CLUSTER === '1';
export const TEST_ON_POSTGRES = process.env.INBOXD_TEST_DATABASE === 'postgres' || TEST_CLUSTER;

let sharedPg: Promise<PgServer> | null = null;
const databaseOf = new Map<string, string>();
let databases = 0;

/** The test process's PostgreSQL (started on first use; stopped after the file's tests). */
export function testPostgres(): Promise<PgServer> {
  if (!sharedPg) {
    const missing = postgresMissing();
    if (missing) throw new Error(`INBOXD_TEST_DATABASE=postgres but ${missing}`);
    sharedPg = startPostgres();
  }
  return sharedPg;
}

/** A fresh, empty database on the test process's PostgreSQL; returns its URL. */
export async function freshDatabase(): Promise<string> {
  return (await testPostgres()).createDatabase(`t${process.pid}_${++databases}`);
}

let sharedSwift: Promise<SwiftServer> | null = null;
const bucketOf = new Map<string, string>();
let buckets = 0;

/** The test process's Swift (started on first use; stopped after the file's tests). */
function testSwift(): Promise<SwiftServer> {
  if (!sharedSwift) {
    const missing = swiftMissing();
    if (missing) throw new Error(`INBOXD_TEST_CLUSTER=1 but ${missing}`);
    sharedSwift = startSwift();
  }
  return sharedSwift;
}

/** `--blob-store` arguments and credentials for a fresh bucket (the same one again for a restart on `dataDir`). */
async function clusterBlobStore(dataDir: string): Promise<{ args: string[]; env: NodeJS.ProcessEnv }> {
  const swift = await testSwift();
  let url = bucketOf.get(dataDir);
  if (!url) {
    const name = `t${process.pid}-${++buckets}`;
    await swift.createBucket(name);
    url = `s3://${name}?endpoint=${swift.endpoint}&forcePathStyle=1`;
    bucketOf.set(dataDir, url);
  }
  return {
    args: ['--blob-store', url],
    env: { AWS_ACCESS_KEY_ID: swift.accessKeyId, AWS_SECRET_ACCESS_KEY: swift.secretAccessKey },
  };
}

/** Test servers not stopped yet: stopped before the shared PostgreSQL is (a file's own after hooks run later). */
const live = new Set<TestServer>();

after(async () => {
  if (!sharedPg && !sharedSwift) return;
  for (const t of [...live]) await t.stop().catch(() => undefined);
  await (await sharedPg?.catch(() => null))?.stop();
  await (await sharedSwift?.catch(() => null))?.stop();
});

export async function startTestServer(
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  opts: TestServerOptions = {},
): Promise<TestServer> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? tempDir();
  // A restart on the same data dir finds its mail again: on PostgreSQL, in the database that data dir was given.
  const database = opts.database ?? (TEST_ON_POSTGRES ? (databaseOf.get(dataDir) ?? (await freshDatabase())) : undefined);
  if (database) databaseOf.set(dataDir, database);
  const dbArgs = database ? ['--database', database, '--database-pool-size', '4'] : [];
  const blob = TEST_CLUSTER && !opts.blobDir && opts.database === undefined ? await clusterBlobStore(dataDir) : { args: [], env: {} };
  const logs: string[] = [];
  // INBOXD_TEST_LOG=errors: error lines also to stderr (to see why a request failed while running a suite).
  const echo = process.env.INBOXD_TEST_LOG === 'errors';
  const startOne = (dir: string, into: string[]) => {
    const config = loadConfig(
      ['--http-port', '0', '--smtp-port', '0', '--host', '127.0.0.1', '--data-dir', dir, ...dbArgs, ...blob.args, ...extraArgs],
      { INBOXD_ADMIN_KEY: ADMIN_KEY, ...blob.env, ...env },
    );
    const log = createLogger({
      level: 'debug',
      format: 'json',
      write: (l) => {
        into.push(l);
        if (echo && l.includes('"level":"error"')) process.stderr.write(`${l}\n`);
      },
    });
    return startServer(config, {
      log,
      announce: (l) => into.push(l),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.events ? { events: opts.events } : {}),
      ...(opts.outbound ? { outbound: opts.outbound } : {}),
      ...(opts.blobDir ? { blobDir: opts.blobDir } : {}),
    });
  };
  const server = await startOne(dataDir, logs);
  // The second instance of a cluster: its own data dir (lock, ports), the same database and bucket.
  // A test that names its database builds its own topology (test/api/store/pg-cluster.test.ts): one instance per call.
  const peerDir = TEST_CLUSTER && opts.database === undefined ? tempDir() : null;
  // Behind one balancer every instance has the same public name: B gets A's base URL (links, rawUrl, OAuth metadata).
  if (peerDir && !extraArgs.includes('--base-url')) extraArgs = [...extraArgs, '--base-url', server.services.baseUrl()];
  const peer = peerDir
    ? await startOne(peerDir, logs).catch(async (e) => {
        await server.stop();
        throw e;
      })
    : null;
  let turn = 0;
  const url = `http://127.0.0.1:${server.httpPort}`;
  const t: TestServer = {
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
      const base = peer && turn++ % 2 === 1 ? `http://127.0.0.1:${peer.httpPort}` : url;
      return fetch(base + pathname, { ...init, headers, body: body ?? null });
    },
    peer,
    async stop() {
      live.delete(t);
      await server.stop();
      if (peer) await peer.stop();
      if (peerDir) fs.rmSync(peerDir, { recursive: true, force: true });
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  live.add(t);
  return t;
}

/** Waiters (and SSE streams) on an inbox, over both instances of a cluster test server. */
export function listenerCount(t: TestServer, inboxId?: string): number {
  return t.server.parts.bus.listenerCount(inboxId) + (t.peer?.parts.bus.listenerCount(inboxId) ?? 0);
}
