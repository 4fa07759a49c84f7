// The outbox on a shared PostgreSQL (issue 20): two instances (two stores, two pools) read due rows at the same time
// and never get the same recipient; a claimed row comes due again only when its lease ends (an instance that died
// mid-send), and recipients are listed in the order they were written.
// not @cluster: builds its own two stores on PostgreSQL
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { silentLogger } from '../../../src/log.ts';
import { OutboxRepo } from '../../../src/outbound/outbox.ts';
import type { MailSender, RcptOutcome } from '../../../src/outbound/relay.ts';
import { OutboundWorker } from '../../../src/outbound/worker.ts';
import { openPgStore, type Store } from '../../../src/store/db.ts';
import { parsePgUrl } from '../../../src/store/pg.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.log(`# skipped: ${missing}`);

let pgs: PgServer;
let a: Store;
let b: Store;
const now = Date.now();

async function open(url: string): Promise<Store> {
  const target = parsePgUrl(url);
  if (typeof target === 'string') throw new Error(target);
  return openPgStore(target, { poolSize: 4 });
}

describe('outbox on PostgreSQL', { skip: missing ?? false }, () => {
  before(async () => {
    pgs = await startPostgres();
    a = await open(pgs.url);
    b = await open(pgs.url);
    const db = a.db;
    await sql`insert into teams (id, name, created_at) values ('team_1', 't', ${now})`.execute(db);
    await sql`insert into inboxes (id, team_id, address, ttl_minutes, expires_at, created_at)
      values ('inb_1', 'team_1', 'a@x.test', 60, ${now + 3_600_000}, ${now})`.execute(db);
    await sql`insert into contents (sha256, to_json, cc_json, subject, references_json, size, headers_json, attachment_count, extraction_json)
      values ('sha1', '[]', '[]', 's', '[]', 1, '{}', 0, '{}')`.execute(db);
    await sql`insert into message_rows (id, inbox_id, rcpt, seq, received_at, source, content_sha256)
      values ('msg_1', 'inb_1', 'a@x.test', 1, ${now}, 'send', 'sha1')`.execute(db);
    // Ids in reverse order of writing: the listing must follow the writing, not the ids.
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: `dlv_${String(99 - i).padStart(3, '0')}`,
      message_id: 'msg_1',
      inbox_id: 'inb_1',
      team_id: 'team_1',
      rcpt: `r${i}@relay.example`,
      kind: 'to' as const,
      route: 'relay' as const,
      mail_from: 'a@x.test',
      raw_sha256: 'sha1',
      sender_domain: 'x.test',
      state: 'queued' as const,
      attempts: 0,
      response: null,
      next_attempt_at: now - 1000,
      local_message_id: null,
      created_at: now,
      updated_at: now,
    }));
    await a.db.transaction().execute((trx) => new OutboxRepo(a.db).insert(trx, rows));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await pgs?.stop();
  });

  test('two instances claiming at once get disjoint rows, together all of them', async () => {
    const ra = new OutboxRepo(a.db);
    const rb = new OutboxRepo(b.db);
    assert.equal(ra.shared, true);
    const got: string[][] = [[], []];
    // Several rounds of simultaneous claims of 7 rows each, until nothing is due.
    for (let round = 0; round < 20; round++) {
      const [x, y] = await Promise.all([ra.due(now, 7, [], 60_000), rb.due(now, 7, [], 60_000)]);
      got[0]!.push(...x.map((r) => r.id));
      got[1]!.push(...y.map((r) => r.id));
      if (x.length === 0 && y.length === 0) break;
    }
    const all = [...got[0]!, ...got[1]!];
    assert.equal(new Set(all).size, all.length, 'no row claimed twice');
    assert.equal(all.length, 60);
    assert.ok(got[0]!.length > 0 && got[1]!.length > 0, 'both instances got work');
    // Claimed rows are not due again before the lease ends, and are due after it.
    assert.equal((await ra.due(now + 59_000, 100, [])).length, 0);
    assert.equal((await rb.due(now + 61_000, 100, [], 60_000)).length, 60);
  });

  test('a recorded outcome ends the claim', async () => {
    const r = new OutboxRepo(a.db);
    const [row] = await r.due(now + 200_000, 1, [], 60_000);
    assert.ok(row);
    await r.record([{ id: row.id, state: 'sent', attempts: 1, response: '250 ok', next_attempt_at: null, updated_at: now }]);
    const left = await new OutboxRepo(b.db).due(now + 400_000, 100, [], 60_000);
    assert.equal(left.length, 59);
    assert.ok(!left.some((x) => x.id === row.id));
  });

  test('a full worker gives back the rows it claimed but cannot start, at once', async () => {
    const db = a.db;
    for (const m of ['msg_2', 'msg_3', 'msg_4']) {
      await sql`insert into message_rows (id, inbox_id, rcpt, seq, received_at, source, content_sha256)
        values (${m}, 'inb_1', 'a@x.test', 2, ${now}, 'send', 'sha1')`.execute(db);
      await sql`insert into outbound_deliveries (id, message_id, inbox_id, team_id, rcpt, kind, route, mail_from, raw_sha256,
          sender_domain, state, attempts, next_attempt_at, created_at, updated_at)
        values (${`dlv_${m}`}, ${m}, 'inb_1', 'team_1', ${`${m}@relay.example`}, 'to', 'relay', 'a@x.test', 'sha1', 'x.test',
          'queued', 0, ${now - 5000}, ${now}, ${now})`.execute(db);
    }
    // A relay that holds every send until the test lets it go.
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      letGo = r;
    });
    let sends = 0;
    const sender: MailSender = {
      async send(_raw, _from, rcpts): Promise<RcptOutcome[]> {
        sends++;
        await held;
        return rcpts.map((rcpt) => ({ rcpt, accepted: true, permanent: false, response: '250 ok' }));
      },
      close() {},
    };
    const blobs = { get: async () => Buffer.from('raw') } as never;
    const worker = new OutboundWorker({
      outbox: new OutboxRepo(a.db),
      blobs,
      sender,
      dkimFor: () => null,
      log: silentLogger,
      now: () => now + 10_000_000,
      tuning: { maxConcurrent: 1 },
    });
    // Only the three new messages are due at this worker's clock with the 60 rows of msg_1 leased far ahead.
    await sql`update outbound_deliveries set next_attempt_at = ${now + 900_000_000} where message_id = 'msg_1' and state = 'queued'`.execute(
      db,
    );
    worker.poke();
    for (let i = 0; i < 200 && sends === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(sends, 1);
    // Waits (polling, no timing asserted) until nothing the worker claimed is left leased but unstarted.
    const leased = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from outbound_deliveries
            where message_id <> 'msg_1' and next_attempt_at > ${now + 10_000_000}`.execute(db)
        ).rows[0]!.n,
      );
    for (let i = 0; i < 200 && (await leased()) > 1; i++) await new Promise((r) => setTimeout(r, 10));
    // The two messages the worker had no place for are due again for the other instance, not leased for 10 minutes.
    const other = await new OutboxRepo(b.db).due(now + 10_000_000, 100, [], 60_000);
    assert.equal(other.length, 2);
    letGo();
    await worker.stop();
  });

  test('recipients are listed in the order they were written', async () => {
    const list = await new OutboxRepo(b.db).ofMessage('msg_1');
    assert.deepEqual(
      list.map((r) => r.rcpt),
      Array.from({ length: 60 }, (_, i) => `r${i}@relay.example`),
    );
  });
});
