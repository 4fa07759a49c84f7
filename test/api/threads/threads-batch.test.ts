// Threads of messages that arrive together and share one group commit. On PostgreSQL a batch reads the refs of all
// its Message-IDs at once (src/threads/assign.ts ThreadBatch); a reply written earlier in the same batch must still
// be seen by its parent, and a message linking two threads of the batch must merge them. Parents, replies and the
// linking message are sent at once, in a shuffled order, until the writer has put several in one transaction.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

type Mail = { id: string; subject: string; inReplyTo?: string; references?: string[] };

/** Chain c: a root, a reply, a reply to the reply, and a second root that the last message links in (a merge). */
function chain(round: number, c: number): Mail[] {
  const id = (n: string) => `r${round}c${c}${n}@batch.example`;
  return [
    { id: id('a'), subject: `Order ${round}-${c}` },
    { id: id('b'), subject: `Re: Order ${round}-${c}`, inReplyTo: id('a'), references: [id('a')] },
    { id: id('c'), subject: `Re: Order ${round}-${c}`, inReplyTo: id('b'), references: [id('a'), id('b')] },
    { id: id('x'), subject: `Invoice ${round}-${c}` },
    { id: id('d'), subject: `Re: Order ${round}-${c}`, inReplyTo: id('c'), references: [id('x'), id('a'), id('b'), id('c')] },
  ];
}

test('messages of one batch that refer to each other land in one thread per conversation', async () => {
  const writer = s.server.parts.writer;
  for (let round = 0; round < 6; round++) {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const chains = 6;
    const all = Array.from({ length: chains }, (_, c) => chain(round, c)).flat();
    // A fixed shuffle: replies often go before their parents.
    const order = all.map((m, i) => ({ m, k: (i * 7919) % all.length })).sort((x, y) => x.k - y.k);
    await Promise.all(
      order.map(({ m }) =>
        sendMail(s.server.smtpPort, {
          to: box.address,
          subject: m.subject,
          text: 'hello',
          messageId: `<${m.id}>`,
          ...(m.inReplyTo ? { inReplyTo: `<${m.inReplyTo}>` } : {}),
          ...(m.references ? { references: m.references.map((r) => `<${r}>`) } : {}),
        }),
      ),
    );
    const list = (await json(await s.api(`/v1/inboxes/${box.inboxId}/threads?limit=100`))).items as Json[];
    assert.equal(list.length, chains, `round ${round}: ${list.length} threads for ${chains} conversations`);
    for (const t of list) assert.equal(t.messageCount, 5, `round ${round}: a thread of ${t.messageCount} messages`);
    if (writer.maxBatch > 1) return;
  }
  assert.fail(`the writer never committed two messages together (largest batch ${writer.maxBatch})`);
});
