// Threading under hostile and large input, through the real ingest path: References lists of 500 ids, 64 KiB subjects
// of stacked prefixes, merges of two big threads, thousands of phantoms. The thread rows must stay consistent with
// the messages, and every message must still be stored.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { json } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertThreadInvariants } from '../helpers/threads.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

function raw(to: string, h: { id: string; subject: string; inReplyTo?: string; references?: string[] }): Buffer {
  const lines = [`From: a@example.com`, `To: ${to}`, `Subject: ${h.subject}`, `Message-ID: <${h.id}>`];
  if (h.inReplyTo) lines.push(`In-Reply-To: <${h.inReplyTo}>`);
  if (h.references) lines.push(`References: ${h.references.map((r) => `<${r}>`).join('\r\n ')}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\nbody of ${h.id}\r\n`);
}

test('hostile threading input keeps threads consistent', async () => {
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const accept = (r: Buffer) => s.server.parts.ingest.accept({ raw: r, rcpts: [inbox.address], mailFrom: null, source: 'test' });
  const pending: Array<Promise<unknown>> = [];
  // Two chains of 1,000 messages each, every message referencing its 500 predecessors in its chain.
  for (const chain of ['a', 'b'])
    for (let i = 0; i < 1000; i++) {
      const refs = Array.from({ length: Math.min(i, 500) }, (_, j) => `${chain}${i - Math.min(i, 500) + j}@x`);
      pending.push(
        accept(
          raw(inbox.address, {
            id: `${chain}${i}@x`,
            subject: `Re: chain ${chain}`,
            inReplyTo: i ? `${chain}${i - 1}@x` : undefined,
            references: refs,
          }),
        ),
      );
    }
  // Messages referring only to never-seen ids (phantoms), and stacked prefixes.
  for (let i = 0; i < 500; i++)
    pending.push(
      accept(
        raw(inbox.address, {
          id: `p${i}@x`,
          subject: `${'Re: '.repeat(i % 2 ? 16_000 : 3)}noise ${i % 7}`,
          references: Array.from({ length: 100 }, (_, j) => `ghost-${i}-${j}@x`),
        }),
      ),
    );
  await Promise.all(pending);
  const before = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/threads?limit=500`));
  const chainA = before.items.find((t: { subject: string }) => t.subject === 'Re: chain a');
  const chainB = before.items.find((t: { subject: string }) => t.subject === 'Re: chain b');
  assert.equal(chainA.messageCount, 1000);
  assert.equal(chainB.messageCount, 1000);
  // One message joins the two big chains: one thread of 2,001.
  await accept(raw(inbox.address, { id: 'join@x', subject: 'Re: both', inReplyTo: 'a999@x', references: ['b999@x', 'a999@x'] }));
  const merged = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/threads?limit=1`));
  assert.equal(merged.items[0].messageCount, 2001);

  const db = s.server.parts.store.sqlite!;
  assertThreadInvariants(db);
  const total = (db.prepare('select count(*) n from message_rows where inbox_id = ?').get(inbox.inboxId) as { n: number }).n;
  assert.equal(total, 2501);
});
