// Cost of thread assignment per message (src/threads/assign.ts), the work ingest adds inside its transaction for
// every message of an inbox: three mixes into a fresh store, in transactions of 256 like the ingest writer's, each
// timed around assign() alone. For scale, one message_rows insert (what ingest runs per recipient anyway) under the
// same conditions. No SMTP, no HTTP: the SQL and JS of threading only.
//   node scripts/bench/threads.ts [--messages 10000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ThreadFields, threadFieldsOf } from '../../src/mail/threads.ts';
import { openStore } from '../../src/store/db.ts';
import { ThreadAssigner } from '../../src/threads/assign.ts';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '10000' } } });
const N = Number(values.messages);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-bench-threads-'));
const store = await openStore(path.join(dir, 'inboxd.db'));
const db = store.db;
await db.insertInto('teams').values({ id: 'team', name: 'bench', plan: 'bench', created_at: 0 }).execute();
const to = JSON.stringify([{ name: '', address: 'inbox@inboxd.test' }]);
const content = (c: { id: string | null; irt?: string | null; refs?: string[]; subject: string; from: string }) =>
  threadFieldsOf({
    message_id_header: c.id,
    in_reply_to: c.irt ?? null,
    references_json: JSON.stringify(c.refs ?? []),
    subject: c.subject,
    from_address: c.from,
    to_json: to,
    cc_json: '[]',
  });
const mixes: Record<string, (i: number) => ThreadFields> = {
  'verification mail (own Message-ID only, a new thread each)': (i) =>
    content({ id: `<v${i}@svc.example>`, subject: 'Your code', from: 'no-reply@svc.example' }),
  'conversation (In-Reply-To + 10 References, 20 threads)': (i) => {
    const chain = i % 20;
    const k = Math.floor(i / 20);
    const depth = Math.min(k, 10);
    return content({
      id: `<c${chain}-${k}@x>`,
      irt: k ? `<c${chain}-${k - 1}@x>` : null,
      refs: Array.from({ length: depth }, (_, j) => `<c${chain}-${k - depth + j}@x>`),
      subject: k ? `Re: chain ${chain}` : `chain ${chain}`,
      from: `p${k % 2}@example.com`,
    });
  },
  'subject fallback (Re: without headers, 100 subjects)': (i) =>
    content({ id: null, subject: i % 100 ? `Re: topic ${i % 100}` : `topic ${i % 100}`, from: 'x@example.com' }),
};

const us = (ns: bigint, n: number) => (Number(ns) / 1e3 / n).toFixed(1);
let mixNo = 0;
for (const [name, make] of Object.entries(mixes)) {
  const inbox = `inb_bench${mixNo++}`;
  await db
    .insertInto('inboxes')
    .values({
      id: inbox,
      team_id: 'team',
      address: `${inbox}@inboxd.test`,
      label: null,
      service: null,
      ttl_minutes: 60,
      expires_at: Number.MAX_SAFE_INTEGER,
      callback_url: null,
      callback_secret: null,
      created_at: 0,
      created_by_key: null,
    })
    .execute();
  const assigner = new ThreadAssigner();
  const fields = Array.from({ length: N }, (_, i) => make(i));
  let spent = 0n;
  for (let b = 0; b < N; b += 256)
    await db.transaction().execute(async (trx) => {
      for (let i = b; i < Math.min(N, b + 256); i++) {
        const t0 = process.hrtime.bigint();
        await assigner.assign(trx, { inboxId: inbox, teamId: 'team', messageId: `msg_${mixNo}_${i}`, receivedAt: i }, fields[i]!);
        spent += process.hrtime.bigint() - t0;
      }
    });
  console.log(`${name}: ${us(spent, N)} µs/message`);
}

await db
  .insertInto('contents')
  .values({
    sha256: 'bench',
    from_address: null,
    from_name: null,
    to_json: '[]',
    cc_json: '[]',
    subject: '',
    date: null,
    message_id_header: null,
    in_reply_to: null,
    references_json: '[]',
    size: 0,
    text_body: null,
    html_body: null,
    headers_json: '[]',
    attachment_count: 0,
    otp: null,
    primary_link: null,
    extraction_json: '{}',
  })
  .execute();
let spent = 0n;
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    await trx
      .insertInto('message_rows')
      .values({
        id: `r${i}`,
        inbox_id: 'inb_bench0',
        rcpt: 'x',
        seq: i,
        received_at: i,
        mail_from: null,
        source: 'bench',
        content_sha256: 'bench',
      })
      .execute();
    spent += process.hrtime.bigint() - t0;
  }
});
console.log(`for scale, one message_rows insert: ${us(spent, N)} µs`);
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
