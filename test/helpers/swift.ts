// A real S3-compatible server for tests (issue 20): OpenStack Swift from Debian with its s3api middleware, a
// single-replica "Swift all in one" whose rings, devices and configs all live in a temp dir, on free loopback ports.
// Five processes, every one spawned here in the foreground (no daemonising swift-init) and stopped by its own pid:
// memcached (tempauth needs the cache filter: without it every request answers 500), the account, container and
// object servers, and the proxy that speaks S3. S3 credentials: access key `test:tester`, secret `testing`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../scripts/bench/lib.ts';

/** Where the Debian packages put the programs (SWIFT_BIN_DIR overrides it: the skip/fail behaviour is tested so). */
const BIN = process.env.SWIFT_BIN_DIR ?? '/usr/bin';
const bin = (name: string) => path.join(BIN, name);
const BINARIES = [
  'swift-ring-builder',
  'swift-proxy-server',
  'swift-object-server',
  'swift-container-server',
  'swift-account-server',
  'memcached',
].map(bin);
export const SWIFT_PACKAGES = 'swift swift-proxy swift-object swift-container swift-account memcached';

export interface SwiftServer {
  /** http://127.0.0.1:PORT (the proxy, speaking S3). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** An SDK client with the test credentials, to look into buckets. */
  client: S3Client;
  createBucket(name: string): Promise<void>;
  /** Stops the proxy (the S3 endpoint goes away; the storage servers keep their data). */
  stopProxy(): Promise<void>;
  /** Starts it again on the same port and waits until it answers. */
  startProxy(): Promise<void>;
  stop(): Promise<void>;
}

/** Why Swift cannot be started here, or null. With CI=true a test must fail on this, not skip. */
export function swiftMissing(): string | null {
  const absent = BINARIES.filter((b) => !fs.existsSync(b));
  return absent.length === 0 ? null : `S3 tests need OpenStack Swift (missing ${absent.join(', ')}): apt-get install ${SWIFT_PACKAGES}`;
}

function backendConf(dir: string, kind: string, port: number, user: string): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
devices = ${path.join(dir, 'srv')}
mount_check = false
swift_dir = ${dir}
workers = 0
user = ${user}
log_level = WARNING

[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}

[${kind}-replicator]
[${kind}-updater]
[${kind}-auditor]
`;
}

function proxyConf(dir: string, port: number, memcachePort: number, user: string): string {
  const filters = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy_logging', 'listing_formats', 'copy', 's3api']
    .map((f) => `[filter:${f === 'proxy_logging' ? 'proxy-logging' : f}]\nuse = egg:swift#${f}\n`)
    .join('\n');
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
swift_dir = ${dir}
workers = 0
user = ${user}
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
allow_account_management = true
account_autocreate = true
# Swift's defaults (0.5 s to connect to a backend, 10 s for its answer) turn a busy CI machine into 503s ("Please
# reduce your request rate") for requests that would succeed a moment later.
conn_timeout = 5
node_timeout = 60

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachePort}

${filters}`;
}

async function waitFor(what: string, check: () => Promise<boolean>, procs: ChildProcess[], logDir: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const dead = procs.find((p) => p.exitCode !== null || p.signalCode !== null);
    if (dead) throw new Error(`${what}: a Swift process exited early (${dead.spawnargs.join(' ')}); logs in ${logDir}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s; logs in ${logDir}`);
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

async function stopProcess(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return;
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  process.kill(p.pid, 'SIGTERM');
  const killer = setTimeout(() => p.pid !== undefined && p.exitCode === null && process.kill(p.pid, 'SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

export async function startSwift(): Promise<SwiftServer> {
  const why = swiftMissing();
  if (why) throw new Error(why);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-swift-'));
  const user = os.userInfo().username;
  fs.mkdirSync(path.join(dir, 'srv', 'sdb1'), { recursive: true });
  const [accountPort, containerPort, objectPort, proxyPort, memcachePort] = (await Promise.all([1, 2, 3, 4, 5].map(freePort))) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const backends = [
    ['account', accountPort],
    ['container', containerPort],
    ['object', objectPort],
  ] as const;
  // The rings (what `swift-ring-builder X.builder create 8 1 1; add r1z1-127.0.0.1:PORT/sdb1 100; rebalance` makes),
  // built in one Python process with the interpreter swift-ring-builder runs on: nine CLI calls cost seconds each
  // on a busy machine.
  const python = fs
    .readFileSync(bin('swift-ring-builder'), 'utf8')
    .split('\n')[0]!
    .replace(/^#!\s*/, '')
    .split(/\s+/)[0]!;
  const rings = `
import json, sys
from swift.common.ring import RingBuilder
for kind, port in json.loads(sys.argv[2]):
    b = RingBuilder(8, 1, 1)
    b.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': port, 'device': 'sdb1', 'weight': 100})
    b.rebalance()
    b.save('%s/%s.builder' % (sys.argv[1], kind))
    b.get_ring().save('%s/%s.ring.gz' % (sys.argv[1], kind))
`;
  execFileSync(python, ['-c', rings, dir, JSON.stringify(backends)], { stdio: 'pipe' });
  for (const [kind, port] of backends) fs.writeFileSync(path.join(dir, `${kind}-server.conf`), backendConf(dir, kind, port, user));
  fs.writeFileSync(path.join(dir, 'proxy-server.conf'), proxyConf(dir, proxyPort, memcachePort, user));

  const procs: ChildProcess[] = [];
  const launch = (name: string, file: string, args: string[]) => {
    const out = fs.openSync(path.join(dir, `${name}.log`), 'a');
    const p = spawn(file, args, { stdio: ['ignore', out, out] });
    fs.closeSync(out);
    procs.push(p);
    return p;
  };
  const memcachedArgs = ['-l', '127.0.0.1', '-p', String(memcachePort), '-U', '0', ...(process.getuid?.() === 0 ? ['-u', 'root'] : [])];
  launch('memcached', bin('memcached'), memcachedArgs);
  for (const [kind] of backends) launch(kind, bin(`swift-${kind}-server`), [path.join(dir, `${kind}-server.conf`)]);
  const startProxyProcess = () => launch('proxy', bin('swift-proxy-server'), [path.join(dir, 'proxy-server.conf')]);
  let proxy = startProxyProcess();
  const endpoint = `http://127.0.0.1:${proxyPort}`;
  const healthy = async () => (await fetch(`${endpoint}/healthcheck`, { signal: AbortSignal.timeout(2000) })).ok;

  const stopAll = async () => {
    await Promise.all(procs.map(stopProcess));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'Swift',
      async () => (await Promise.all([...backends.map(([, p]) => listening(p)), listening(memcachePort)])).every(Boolean) && healthy(),
      procs,
      dir,
    );
  } catch (e) {
    await stopAll();
    throw e;
  }

  const accessKeyId = 'test:tester';
  const secretAccessKey = 'testing';
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    client,
    async createBucket(name) {
      // Retried on a 5xx or an answer that is not S3 XML (a backend still starting on a loaded machine), never on a
      // readable 4xx.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(new CreateBucketCommand({ Bucket: name }));
          return;
        } catch (e) {
          // A retry after a 503 may find the bucket made by the attempt that timed out.
          if (attempt > 1 && (e as { name?: string }).name === 'BucketAlreadyOwnedByYou') return;
          const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
          const transient = status >= 500 || status === 0 || /XML parse error|deserializ/i.test(String(e));
          if (!transient || attempt === 5)
            throw new Error(`Swift: creating bucket ${name} failed (attempt ${attempt}; files in ${dir})`, { cause: e });
          await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
        }
      }
    },
    async stopProxy() {
      await stopProcess(proxy);
    },
    async startProxy() {
      proxy = startProxyProcess();
      await waitFor('Swift proxy', healthy, [proxy], dir);
    },
    async stop() {
      client.destroy();
      await stopAll();
    },
  };
}
