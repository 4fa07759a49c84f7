// Two inboxd instances on one PostgreSQL take mail for the same inboxes at once, the recipients listed in opposite
// orders (issue 20). Every message takes its inboxes' row locks (the sequence number); taken in recipient order, two
// such transactions could each hold one lock and wait for the other's: PostgreSQL aborts one as a deadlock and the
// sender hears 451. The write queue locks a batch's inboxes in id order first, so every message is accepted.
// not @cluster: starts its own two instances on PostgreSQL
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { postgresMissing } from '../../helpers/postgres.ts';
import { freshDatabase, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const skip = postgresMissing() !== null && process.env.CI !== 'true' ? `skipped: ${postgresMissing()}` : false;
if (skip) process.stdout.write(`# pg-ingest-order: ${skip}\n`);

const ROUNDS = 12;
const PER_ROUND = 4;
let a: TestServer;
let b: TestServer;
let blobDir: string;

before(async () => {
  if (skip) return;
  const database = await freshDatabase();
  blobDir = tempDir('inboxd-blobs-');
  a = await startTestServer([], {}, { database, blobDir });
  b = await startTestServer([], {}, { database, blobDir });
});
after(async () => {
  await a?.stop();
  await b?.stop();
  if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
});

test('multi-recipient mail in opposite recipient orders on two instances: no deadlock, every message stored', {
  skip,
  timeout: 300_000,
}, async () => {
  const addresses: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await a.api('/v1/inboxes', { method: 'POST', json: { label: `order-${i}` } });
    assert.equal(r.status, 201);
    const x = (await r.json()) as { inboxId: string; address: string };
    addresses.push(x.address);
    ids.push(x.inboxId);
  }
  const forward = addresses;
  const backward = [...addresses].reverse();
  const failures: string[] = [];
  let sent = 0;
  const send = async (s: TestServer, to: string[], tag: string) => {
    try {
      const r = await sendMail(s.server.smtpPort, { to, subject: tag, text: `body ${tag}` });
      if (!/^250/.test(r.response)) failures.push(`${tag}: ${r.response}`);
      else sent++;
    } catch (e) {
      failures.push(`${tag}: ${(e as Error).message}`);
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const jobs: Promise<void>[] = [];
    for (let k = 0; k < PER_ROUND; k++) {
      jobs.push(send(a, k % 2 ? forward : backward, `a-${round}-${k}`));
      jobs.push(send(b, k % 2 ? backward : forward, `b-${round}-${k}`));
    }
    await Promise.all(jobs);
  }
  assert.deepEqual(failures, [], 'no 451 (deadlock) or other refusal');
  assert.equal(sent, ROUNDS * PER_ROUND * 2);
  for (const id of ids) {
    const r = await b.api(`/v1/inboxes/${id}/messages?limit=1`);
    assert.equal(r.status, 200);
    const page = (await r.json()) as { items: Array<{ seq?: number }> };
    assert.equal(page.items.length, 1);
  }
  const rows = await a.server.parts.store.db
    .selectFrom('message_rows')
    .select(({ fn }) => ['inbox_id', fn.countAll<number>().as('n'), fn.max('seq').as('top')])
    .groupBy('inbox_id')
    .execute();
  for (const r of rows) {
    assert.equal(Number(r.n), sent, `every message in inbox ${r.inbox_id}`);
    assert.equal(Number(r.top), sent, 'sequence numbers without gaps');
  }
});
