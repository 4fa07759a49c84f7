// Two inboxd instances on one PostgreSQL and one S3 bucket (real OpenStack Swift, issue 20): the sweep of
// unreferenced objects lists the whole bucket, so it runs on one instance of the cluster (store.singleton, like the
// expiry sweep), not on every instance every hour.
// not @cluster: starts its own two instances on PostgreSQL and Swift
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postgresMissing } from '../../helpers/postgres.ts';
import { freshDatabase, startTestServer, type TestServer } from '../../helpers/server.ts';
import { type SwiftServer, startSwift, swiftMissing } from '../../helpers/swift.ts';

const missing = postgresMissing() ?? swiftMissing();
const skip = missing !== null && process.env.CI !== 'true' ? `skipped: ${missing}` : false;
if (skip) process.stdout.write(`# pg-s3-cluster: ${skip}\n`);

const BUCKET = 'inboxd-cluster';
let swift: SwiftServer;
let a: TestServer;
let b: TestServer;

/** The sweep's outcomes an instance logged (one per tick: whether it ran there). */
const ticks = (s: TestServer) =>
  s.logs.filter((l) => l.includes('"sweep of unreferenced blob store objects"')).map((l) => (JSON.parse(l) as { ran: boolean }).ran);
const until = async (fn: () => boolean) => {
  while (!fn()) await new Promise((r) => setTimeout(r, 25));
};

before(async () => {
  if (skip) return;
  swift = await startSwift();
  await swift.createBucket(BUCKET);
  const database = await freshDatabase();
  const args = ['--blob-store', `s3://${BUCKET}?endpoint=${swift.endpoint}&region=us-east-1&forcePathStyle=1`];
  const env = { AWS_ACCESS_KEY_ID: swift.accessKeyId, AWS_SECRET_ACCESS_KEY: swift.secretAccessKey };
  a = await startTestServer(args, env, { database });
  // A has taken the sweep's lead (its start-up sweep ran) before B starts.
  await until(() => ticks(a).length > 0);
  b = await startTestServer(args, env, { database });
});
after(async () => {
  await a?.stop();
  await b?.stop();
  await swift?.stop();
});

test('the stale-object sweep of a shared bucket runs on one instance; the other leaves it to the leader', {
  skip,
  timeout: 60_000,
}, async () => {
  await until(() => ticks(b).length > 0);
  assert.deepEqual(ticks(a), [true]);
  assert.deepEqual(ticks(b), [false]);
  const h = (await (await b.api('/health', { key: null })).json()) as Record<string, unknown>;
  assert.equal(h.database, 'postgres');
  assert.deepEqual(h.blobStore, { kind: 's3', bucket: BUCKET, reachable: true });
});
