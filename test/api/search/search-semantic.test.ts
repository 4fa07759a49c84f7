// Semantic and hybrid search against a local server speaking the OpenAI /v1/embeddings API (deterministic vectors),
// and what happens when it fails: mail is stored and keyword results are given, the failure is logged, and the
// embedding is retried later.
// not @cluster: the embedding model's vector size is learnt in each instance's memory
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type FakeEmbeddings, startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let fake: FakeEmbeddings;
before(async () => {
  fake = await startFakeEmbeddings();
});
after(async () => {
  await fake.stop();
});

async function start(extra: string[] = []): Promise<TestServer> {
  return startTestServer([
    '--embeddings',
    `openai:test-embed@${fake.base}`,
    '--embeddings-retry-seconds',
    '1',
    '--model-timeout-ms',
    '300',
    ...extra,
  ]);
}

async function deliver(s: TestServer, to: string, subject: string, text: string): Promise<string> {
  const r = await sendMail(s.server.smtpPort, { to, subject, text });
  assert.match(r.response, /^250 /);
  return /stored as (msg_\w+)/.exec(r.response)![1]!;
}

/** Waits until the embeddings queue has embedded everything stored (polling; no timing is asserted). */
async function embedded(s: TestServer): Promise<void> {
  const q = s.server.services.search.embeddings!;
  for (let i = 0; i < 500; i++) {
    if ((await q.backlog()) === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`embeddings backlog never emptied: ${q.lastError}`);
}

const search = async (s: TestServer, q: string, mode: string) => json(await s.api(`/v1/search?q=${encodeURIComponent(q)}&mode=${mode}`));

describe('semantic and hybrid ranking', () => {
  let s: TestServer;
  const m: Record<string, string> = {};
  before(async () => {
    fake.mode = 'ok';
    s = await start();
    const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    m.overdue = await deliver(s, ib.address, 'Your account statement', 'There is an overdue outstanding balance, please pay soon.');
    m.password = await deliver(s, ib.address, 'Reset requested', 'Use the link to reset your password and login again.');
    m.phone = await deliver(s, ib.address, 'Quick question', 'Could you send me your mobile so I can call you?');
    m.invoice = await deliver(s, ib.address, 'Invoice 42', 'Invoice attached.');
    m.lunch = await deliver(s, ib.address, 'Friday', 'Calendar invitation for the team lunch.');
    await embedded(s);
  });
  after(async () => {
    await s.stop();
  });

  test('semantic mode finds mail by meaning with no word in common', async () => {
    const kw = await search(s, 'unpaid bill', 'keyword');
    assert.equal(kw.items.length, 0);
    const r = await search(s, 'unpaid bill', 'semantic');
    assert.equal(r.semantic, true);
    assert.equal(r.mode, 'semantic');
    assert.deepEqual(
      r.items
        .slice(0, 2)
        .map((i: Json) => i.messageId)
        .sort(),
      [m.overdue, m.invoice].sort(),
    );
    const p = await search(s, 'telephone number', 'semantic');
    assert.equal(p.items[0].messageId, m.phone);
    assert.ok(p.items[0].score > p.items.at(-1).score);
  });

  test('hybrid fuses keyword and semantic ranks: a message in both lists comes first', async () => {
    const r = await search(s, 'invoice', 'hybrid');
    assert.equal(r.mode, 'hybrid');
    assert.equal(r.semantic, true);
    const order = r.items.map((i: Json) => i.messageId);
    assert.equal(order[0], m.invoice, 'keyword and semantic match');
    assert.equal(order[1], m.overdue, 'semantic match only');
    assert.match(r.items[0].snippet, /«Invoice»/);
  });

  test('filters and scope apply to semantic results; paging', async () => {
    const r = await search(s, 'unpaid bill from:nobody@nowhere.example', 'semantic');
    assert.equal(r.items.length, 0);
    const first = await json(await s.api('/v1/search?q=unpaid&mode=semantic&limit=2'));
    assert.equal(first.items.length, 2);
    assert.ok(first.nextCursor);
    const second = await json(await s.api(`/v1/search?q=unpaid&mode=semantic&limit=2&cursor=${first.nextCursor}`));
    assert.ok(second.items.length > 0);
    const ids = [...first.items, ...second.items].map((i: Json) => i.messageId);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe('embeddings server failures', () => {
  for (const mode of ['fail', 'hang', 'wrong-size'] as const) {
    test(`${mode}: mail is stored, keyword results with semantic:false, logged, embedded once it recovers`, async () => {
      fake.mode = 'ok';
      const s = await start();
      try {
        const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
        // A first message sets the model's vector size (so wrong-size answers are recognised as wrong).
        await deliver(s, ib.address, 'Warm-up', 'hello there');
        await embedded(s);
        fake.mode = mode;
        const id = await deliver(s, ib.address, 'Payment reminder', 'An overdue balance is waiting for payment.');
        const r = await search(s, 'payment', 'hybrid');
        assert.equal(r.semantic, false);
        assert.equal(r.mode, 'keyword');
        assert.deepEqual(
          r.items.map((i: Json) => i.messageId),
          [id],
        );
        for (let i = 0; i < 200 && !s.logs.some((l) => l.includes('embedding messages failed')); i++)
          await new Promise((res) => setTimeout(res, 20));
        assert.ok(
          s.logs.some((l) => l.includes('embedding messages failed')),
          'the failure is logged',
        );
        assert.ok(s.logs.some((l) => l.includes('could not embed the query') || l.includes('query vector of the wrong size')));
        assert.ok((await s.server.services.search.embeddings!.backlog()) > 0, 'not embedded yet');
        fake.mode = 'ok';
        await embedded(s);
        const ok = await search(s, 'unpaid bill', 'semantic');
        assert.equal(ok.semantic, true);
        assert.equal(ok.items[0].messageId, id);
      } finally {
        fake.mode = 'ok';
        await s.stop();
      }
    });
  }

  test('without --embeddings: semantic and hybrid answer keyword results, never an error', async () => {
    const s = await startTestServer();
    try {
      const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      await deliver(s, ib.address, 'Payment reminder', 'payment due');
      for (const mode of ['semantic', 'hybrid']) {
        const r = await search(s, 'payment', mode);
        assert.equal(r.semantic, false);
        assert.equal(r.items.length, 1);
      }
      const badMode = await s.api('/v1/search?q=payment&mode=vector');
      assert.equal(badMode.status, 400);
    } finally {
      await s.stop();
    }
  });

  test('backfill: mail stored before --embeddings was set is embedded after a restart with it', async () => {
    fake.mode = 'ok';
    const dir = tempDir();
    try {
      let s = await startTestServer([], {}, { dataDir: dir });
      const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: { ttlMinutes: 600 } }), 201);
      const id = await deliver(s, ib.address, 'Old mail', 'The outstanding balance is overdue.');
      await s.stop();
      s = await startTestServer(
        ['--embeddings', `openai:test-embed@${fake.base}`, '--embeddings-retry-seconds', '1', '--model-timeout-ms', '300'],
        {},
        { dataDir: dir },
      );
      try {
        await embedded(s);
        const r = await search(s, 'unpaid bill', 'semantic');
        assert.equal(r.semantic, true);
        assert.deepEqual(
          r.items.map((i: Json) => i.messageId),
          [id],
        );
      } finally {
        await s.stop();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--embeddings is checked at start', async () => {
    const { loadConfig } = await import('../../../src/config.ts');
    assert.throws(() => loadConfig(['--embeddings', 'anthropic:x@http://127.0.0.1:1']), /anthropic has no embeddings API/);
    assert.throws(() => loadConfig(['--embeddings', 'openai:a@http://h:1,openai:b@http://h:2']), /exactly one/);
    assert.throws(() => loadConfig(['--embeddings', 'nonsense']), /--embeddings/);
  });
});
