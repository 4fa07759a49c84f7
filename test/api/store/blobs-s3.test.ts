// --blob-store s3://… against a real S3-compatible server: OpenStack Swift with s3api (test/helpers/swift.ts). Mail
// arrives over real SMTP; its raw bytes and attachments must be objects in the bucket (looked at with the SDK), the
// 250 must mean the PUTs answered 200, and an S3 outage must turn into temporary SMTP errors, never lost mail.
// not @cluster: runs against its own Swift bucket and checks the SQLite store's S3 mode
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { loadConfig, UsageError } from '../../../src/config.ts';
import { sweepStaleBlobs } from '../../../src/store/blob-sweep.ts';
import { S3BlobStore } from '../../../src/store/s3-blobs.ts';
import { parseS3Url } from '../../../src/store/s3-url.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, TEST_ON_POSTGRES, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail, sendRaw } from '../../helpers/smtp.ts';
import { type SwiftServer, startSwift, swiftMissing } from '../../helpers/swift.ts';

const BUCKET = 'inboxd-test';

test('--blob-store refuses a URL that carries a secret, without echoing it, and needs the credentials in the environment', () => {
  const load =
    (url: string, env: NodeJS.ProcessEnv = { AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' }) =>
    () =>
      loadConfig(['--blob-store', url], env);
  for (const url of [
    's3://AKIAEXAMPLE:SuperSecret123@inboxd-test?endpoint=http://127.0.0.1:9',
    's3://inboxd-test?endpoint=http://127.0.0.1:9&secretAccessKey=SuperSecret123',
    's3://inboxd-test?endpoint=http://AKIAEXAMPLE:SuperSecret123@127.0.0.1:9',
  ]) {
    assert.throws(load(url), (e: Error) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, /must not carry credentials.*AWS_ACCESS_KEY_ID/);
      assert.doesNotMatch(e.message, /SuperSecret123/);
      return true;
    });
  }
  assert.throws(load('s3://inboxd-test?endpoint=http://127.0.0.1:9', {}), /needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  assert.throws(load('s3://inboxd-test?bucketRegion=x'), /unknown parameter "bucketRegion"/);
  assert.throws(load('file:///tmp/blobs'), /only s3:\/\//);
  const ok = loadConfig(['--blob-store', 's3://inboxd-test/lab1?endpoint=http://127.0.0.1:9&region=eu-1'], {
    AWS_ACCESS_KEY_ID: 'k',
    AWS_SECRET_ACCESS_KEY: 's',
  });
  assert.equal(ok.blobStore, 's3://inboxd-test/lab1?endpoint=http://127.0.0.1:9&region=eu-1');
  assert.deepEqual(ok.blobStoreCredentials, { accessKeyId: 'k', secretAccessKey: 's' });
});

const missing = swiftMissing();
if (missing && process.env.CI === 'true') test('the S3 tests need OpenStack Swift', () => assert.fail(missing));

describe('S3 blob store on OpenStack Swift (s3api)', { skip: missing ?? false }, () => {
  let swift: SwiftServer;
  let s: TestServer;
  let inbox: Json;
  const setting = () => `s3://${BUCKET}?endpoint=${swift.endpoint}&region=us-east-1&forcePathStyle=1`;
  const creds = () => ({ AWS_ACCESS_KEY_ID: swift.accessKeyId, AWS_SECRET_ACCESS_KEY: swift.secretAccessKey });
  const keyOf = (sha: string) => `blobs/${sha.slice(0, 2)}/${sha}`;
  const objectExists = async (sha: string) => {
    try {
      await swift.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: keyOf(sha) }));
      return true;
    } catch (e) {
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw e;
    }
  };
  const objectKeys = async () =>
    ((await swift.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'blobs/' }))).Contents ?? []).map((o) => o.Key!);
  const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');
  const messages = async (id: string) => (await json(await s.api(`/v1/inboxes/${id}/messages`))).items as Json[];
  const rawOf = async (inboxId: string, messageId: string) => {
    const res = await s.api(`/v1/inboxes/${inboxId}/messages/${messageId}/raw`);
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(Number(res.headers.get('content-length')), bytes.length);
    return bytes;
  };

  /** Asks /health until `done` holds (each answer is cached a few seconds; the test's timeout bounds the wait). */
  const healthUntil = async (done: (r: { status: number; body: Json }) => boolean) => {
    for (;;) {
      const res = await s.api('/health', { key: null });
      const r = { status: res.status, body: (await res.json()) as Json };
      if (done(r)) return r;
      await new Promise((ok) => setTimeout(ok, 250));
    }
  };

  before(async () => {
    swift = await startSwift();
    await swift.createBucket(BUCKET);
    s = await startTestServer(['--blob-store', setting()], creds());
    inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  });
  after(async () => {
    await s?.stop();
    await swift?.stop();
  });

  test('raw .eml and attachment downloads come from the bucket; nothing goes to the data dir', async () => {
    const attachment = crypto.randomBytes(200 * 1024);
    const sent = await sendMail(s.server.smtpPort, {
      to: inbox.address,
      subject: 'Your code',
      text: 'Your code is 731904.',
      attachments: [{ filename: 'report.bin', content: attachment }],
    });
    assert.match(sent.response, /^250 /);
    const [msg] = await messages(inbox.inboxId);
    assert.ok(msg);
    const raw = await rawOf(inbox.inboxId, msg.messageId);
    assert.match(raw.toString('latin1'), /Subject: Your code/);
    assert.ok(await objectExists(sha256(raw)), 'raw message object in the bucket');
    const atts = (await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments`))).items as Json[];
    assert.equal(atts.length, 1);
    const res = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg.messageId}/attachments/${atts[0]!.attachmentId}`);
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), attachment);
    assert.equal(atts[0]!.sha256, sha256(attachment));
    assert.ok(await objectExists(sha256(attachment)), 'attachment object in the bucket');
    const segments = path.join(s.dataDir, 'blobs', 'segments');
    assert.deepEqual(fs.existsSync(segments) ? fs.readdirSync(segments) : [], [], 'no segment files');
    assert.equal(s.server.parts.blobs.kind, 's3');
    assert.equal((await s.api('/health', { key: null })).status, 200);
  });

  test('the same raw message twice is one object (content addressing unchanged)', async () => {
    const raw = Buffer.from(`From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: twice ${crypto.randomUUID()}\r\n\r\nsame bytes\r\n`);
    const before = (await objectKeys()).length;
    for (let i = 0; i < 2; i++) assert.match((await sendRaw(s.server.smtpPort, raw, inbox.address)).response, /^250 /);
    const keys = await objectKeys();
    assert.equal(keys.length, before + 1);
    assert.equal(keys.filter((k) => k === keyOf(sha256(raw))).length, 1);
    const copies = (await messages(inbox.inboxId)).filter((m) => String(m.subject).startsWith('twice'));
    assert.equal(copies.length, 2);
    for (const m of copies) assert.deepEqual(await rawOf(inbox.inboxId, m.messageId), raw);
  });

  test('a byte range is a ranged GET: exactly those bytes, and their length', async () => {
    const [msg] = await messages(inbox.inboxId);
    const raw = await rawOf(inbox.inboxId, msg!.messageId);
    const { stream, size } = await s.server.parts.blobs.open(sha256(raw), { start: 5, end: 24 });
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    assert.equal(size, 20);
    assert.deepEqual(Buffer.concat(chunks), raw.subarray(5, 25));
  });

  test('/health names the database engine and the blob store, and that the bucket answered', async () => {
    const res = await s.api('/health', { key: null });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Json;
    assert.equal(body.database, TEST_ON_POSTGRES ? 'postgres' : 'sqlite');
    assert.deepEqual(body.blobStore, { kind: 's3', bucket: BUCKET, reachable: true });
  });

  test('an object deleted behind inboxd’s back: the download is a clean 500 naming the message, the parsed message stays', async () => {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const raw = Buffer.from(`From: a@example.com\r\nSubject: lost ${crypto.randomUUID()}\r\n\r\nbody\r\n`);
    await sendRaw(s.server.smtpPort, raw, box.address);
    await swift.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: keyOf(sha256(raw)) }));
    const [m] = await messages(box.inboxId);
    const res = await s.api(`/v1/inboxes/${box.inboxId}/messages/${m!.messageId}/raw`);
    assert.equal(res.status, 500);
    const detail = (await res.json()).detail as string;
    assert.match(detail, new RegExp(`raw message of ${m!.messageId} is missing from the blob store`));
    // What is true in S3 mode: the object's key and bucket, not the data dir's blobs/ folder.
    assert.match(detail, new RegExp(`object ${keyOf(sha256(raw))} in bucket ${BUCKET} \\(${swift.endpoint}\\)`));
    assert.doesNotMatch(detail, /data dir/);
    assert.equal((await s.api(`/v1/inboxes/${box.inboxId}/messages/${m!.messageId}`)).status, 200);
  });

  test('deleting the last message that uses a blob deletes its object; a shared one stays', async () => {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const other = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const raw = Buffer.from(`From: a@example.com\r\nSubject: gc ${crypto.randomUUID()}\r\n\r\nbody\r\n`);
    await sendRaw(s.server.smtpPort, raw, [box.address, other.address]);
    const sha = sha256(raw);
    assert.ok(await objectExists(sha));
    const [m1] = await messages(box.inboxId);
    assert.equal((await s.api(`/v1/inboxes/${box.inboxId}/messages/${m1!.messageId}`, { method: 'DELETE' })).status, 200);
    assert.ok(await objectExists(sha), 'still used by the other inbox');
    assert.equal((await s.api(`/v1/inboxes/${other.inboxId}`, { method: 'DELETE' })).status, 200);
    // On PostgreSQL (a database other instances may share) an object written within the 15-minute delete grace is
    // left for the stale sweep: another instance may be about to commit rows using the same bytes.
    if (TEST_ON_POSTGRES) assert.ok(await objectExists(sha), 'kept within the shared delete grace');
    else assert.ok(!(await objectExists(sha)), 'object deleted with the last message');
  });

  test('with a shared database, an object written within the delete grace is left for the sweep', async () => {
    const store = new S3BlobStore({
      location: parseS3Url(setting()),
      credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
      root: s.dataDir,
      deleteGraceMs: 15 * 60_000,
    });
    try {
      const bytes = crypto.randomBytes(100);
      await store.stage([{ sha256: sha256(bytes), bytes }]);
      await store.delete(sha256(bytes));
      assert.ok(await objectExists(sha256(bytes)), 'just written: kept (another instance may be about to commit rows using it)');
    } finally {
      store.close();
    }
  });

  test('objects nothing references (PUT done, commit failed) are swept once they are old; referenced ones stay', async () => {
    const orphan = crypto.randomBytes(1000);
    await swift.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyOf(sha256(orphan)), Body: orphan }));
    const deps = {
      blobs: s.server.parts.blobs,
      db: s.server.parts.store.db,
      collect: (shas: string[]) => s.server.parts.writer.collect(shas),
    };
    const fresh = await sweepStaleBlobs(deps, { now: Date.now() });
    assert.equal(fresh.removed, 0, 'nothing younger than an hour is touched');
    assert.ok(await objectExists(sha256(orphan)));
    const [msg] = await messages(inbox.inboxId);
    const kept = sha256(await rawOf(inbox.inboxId, msg!.messageId));
    const later = await sweepStaleBlobs(deps, { now: Date.now() + 2 * 3600_000 });
    assert.ok(later.checked >= 2);
    // The sweep finds it either way; on PostgreSQL the delete grace (written just now, by the wall clock) keeps it.
    if (TEST_ON_POSTGRES) assert.ok(await objectExists(sha256(orphan)), 'kept within the shared delete grace');
    else assert.ok(!(await objectExists(sha256(orphan))), 'orphan swept');
    assert.ok(await objectExists(kept), 'referenced object kept');
  });

  test('S3 endpoint down: SMTP answers 451 (temporary), nothing acknowledged is lost, mail flows again when it is back', async () => {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const mail = (subject: string) => sendMail(s.server.smtpPort, { to: box.address, subject, text: `${subject} ${crypto.randomUUID()}` });
    assert.match((await mail('before')).response, /^250 /);
    await swift.stopProxy();
    try {
      await assert.rejects(mail('during'), (e: { responseCode?: number; response?: string }) => {
        assert.equal(e.responseCode, 451, e.response);
        return true;
      });
      // /health turns degraded once its cached answer (a few seconds) runs out, naming the bucket.
      const down = await healthUntil((r) => r.status === 503);
      assert.equal(down.body.status, 'degraded');
      assert.deepEqual(down.body.blobStore, { kind: 's3', bucket: BUCKET, reachable: false });
      assert.match(down.body.reason, new RegExp(`bucket "${BUCKET}" \\(${swift.endpoint}\\) did not answer a HEAD: .*451`));
    } finally {
      await swift.startProxy();
    }
    assert.equal((await healthUntil((r) => r.status === 200)).body.blobStore.reachable, true);
    assert.match((await mail('after')).response, /^250 /);
    const subjects = (await messages(box.inboxId)).map((m) => m.subject).sort();
    assert.deepEqual(subjects, ['after', 'before']);
    for (const m of await messages(box.inboxId))
      assert.match((await rawOf(box.inboxId, m.messageId)).toString(), new RegExp(`Subject: ${m.subject}`));
    assert.ok(
      s.logs.some((l) => l.includes('could not store message')),
      'the failure is logged',
    );
  });

  test('start-up check: a wrong secret and a missing bucket fail with what to do', async () => {
    const dataDir = tempDir();
    try {
      await assert.rejects(
        startTestServer(['--blob-store', setting()], { ...creds(), AWS_SECRET_ACCESS_KEY: 'wrong-secret' }, { dataDir }),
        /refused the credentials \(SignatureDoesNotMatch\); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
      );
      await assert.rejects(
        startTestServer(['--blob-store', setting().replace(BUCKET, 'no-such-bucket')], creds(), { dataDir }),
        /the bucket "no-such-bucket" does not exist .* create it first/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
