// Search under a budget (issue #25): a query whose cost the query and the stored mail decide never holds the thread
// that serves HTTP and SMTP. Queries are bounded by construction (terms, words per term; over a limit: 400 naming it
// and the value) and run under --search-budget-ms enforced from outside the work (SQLite: a worker on its own
// read-only connection; over budget: 422 budget_exceeded, or a newest-first answer marked partial).
// The mail is hostile on purpose: long bodies of the same few short words, so a phrase of them makes the index check
// thousands of positions in every message.
// not @cluster: the budget and partial answers are the SQLite search worker's (PostgreSQL's is in pg-search)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { callErr, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const HOSTILE_BODY = Array.from({ length: 3000 }, (_, i) => `a-b-c w${i % 97}`).join(' ');

async function fill(s: TestServer, address: string, n: number, hostile: number): Promise<void> {
  let pending: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) {
    const body = i < hostile ? `code ${100000 + i} ${HOSTILE_BODY}` : `Your verification code is ${100000 + i}. Thanks, w${i % 50}`;
    const raw = Buffer.from(`From: a${i % 20}@example.com\r\nTo: ${address}\r\nSubject: Your code ${i}\r\n\r\n${body}\r\n`);
    pending.push(s.server.parts.ingest.accept({ raw, rcpts: [address], mailFrom: null, source: 'test' }));
    if (pending.length >= 250) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
}

/** Polls /health every 20 ms until stopped; the longest answer is what a blocked main thread would show. */
function pollHealth(s: TestServer): { stop(): Promise<{ polls: number; worstMs: number }> } {
  let running = true;
  let polls = 0;
  let worstMs = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await s.api('/health', { key: null });
      await r.arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - t0);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { polls, worstMs };
    },
  };
}

const q = (s: string) => encodeURIComponent(s);
/**
 * Four phrases of 16 words: each at the limit of words per term, 64 words in all (the query's limit), and costly on
 * the hostile mail (the index reads every position of a, b and c for each phrase).
 */
const COSTLY_QUERY = ['a b c', 'b c a', 'c a b', 'a c b'].map((w) => `"${`${w} `.repeat(5)}${w.split(' ')[0]}"`).join(' ');

describe('search with the default budget', () => {
  let s: TestServer;
  let inbox: Json;
  let readKey: string;
  before(async () => {
    s = await startTestServer();
    inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'budget' } }), 201);
    readKey = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } }), 201)).key;
    await fill(s, inbox.address, 3000, 1000);
  });
  after(() => s.stop());

  test('has:code after:30d over 3,000 messages answers while /health keeps answering within 500 ms', async () => {
    const health = pollHealth(s);
    await new Promise((r) => setTimeout(r, 50));
    const r = await json(await s.api(`/v1/search?q=${q('has:code after:30d')}`, { key: readKey }));
    const h = await health.stop();
    assert.equal(r.items.length, 20);
    assert.equal(r.partial, null);
    assert.ok(h.polls >= 2, `${h.polls} polls`);
    assert.ok(h.worstMs < 500, `/health took ${Math.round(h.worstMs)} ms during the search`);
  });

  test('costly phrases over hostile mail do not hold the main thread: /health answers within 500 ms meanwhile', async () => {
    const health = pollHealth(s);
    await new Promise((r) => setTimeout(r, 50));
    const answers = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const res = await s.api(`/v1/search?q=${q(COSTLY_QUERY)}`, { key: readKey });
        return { status: res.status, body: (await res.json()) as Json };
      }),
    );
    const h = await health.stop();
    for (const a of answers) assert.ok([200, 422, 503].includes(a.status), JSON.stringify(a));
    assert.ok(h.worstMs < 500, `/health took ${Math.round(h.worstMs)} ms while four costly searches ran`);
  });

  test('a 997-character hyphenated word is 400 naming the limit and how many words it is', async () => {
    for (const word of [`${'a-'.repeat(498)}a`, `${'a-b-c-'.repeat(165)}a`]) {
      const res = await s.api(`/v1/search?q=${q(word)}`, { key: readKey });
      const body = await json(res, 400);
      assert.match(body.detail, /searched as a phrase of 49\d words.*the limit is 16 words per term \(--search-max-term-words\)/);
      assert.equal(body.errors[0].path, 'q');
    }
  });

  test('NUL and other control characters in q are 400, not 500', async () => {
    for (const bad of ['invoice\u0000', '\u0000', 'a\u0007b', 'from:"x\u0000y"']) {
      const body = await json(await s.api(`/v1/search?q=${q(bad)}`, { key: readKey }), 400);
      assert.match(body.detail, /control character U\+00(00|07) is not allowed in a query/);
    }
    const body = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/search?q=${q('code\u0000')}`), 400);
    assert.match(body.detail, /U\+0000/);
  });

  test('the answer says whether it is partial', async () => {
    const r = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/search?q=${q('verification')}`));
    assert.equal(r.partial, null);
    assert.equal(r.items.length, 20);
  });
});

describe('limits and budget set by flags', () => {
  let s: TestServer;
  let inbox: Json;
  before(async () => {
    s = await startTestServer(['--search-max-terms', '3', '--search-max-term-words', '8', '--search-budget-ms', '10']);
    inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'tight' } }), 201);
    await fill(s, inbox.address, 400, 400);
  });
  after(() => s.stop());

  test('more terms than --search-max-terms is 400 naming the limit', async () => {
    const body = await json(await s.api(`/v1/search?q=${q('one two three four')}`), 400);
    assert.match(body.detail, /more than 3 terms; the limit is 3 \(--search-max-terms\)/);
    // At the limit the query is read (whatever the tiny budget then makes of it).
    assert.notEqual((await s.api(`/v1/search?q=${q('one two three')}`)).status, 400);
  });

  test('a term of more words than --search-max-term-words is 400 naming the count and the limit', async () => {
    let body = await json(await s.api(`/v1/search?q=${q('a-b-c-d-e-f-g-h-i')}`), 400);
    assert.match(body.detail, /phrase of 9 words.*the limit is 8 words per term/);
    body = await json(await s.api(`/v1/search?q=${q('"one two three four five six seven eight nine"')}`), 400);
    assert.match(body.detail, /phrase of 9 words/);
    // A Chinese or Japanese run counts its character pairs: 10 characters are 9 pairs.
    body = await json(await s.api(`/v1/search?q=${q('東京都渋谷区神南一丁')}`), 400);
    assert.match(body.detail, /phrase of 9 words/);
    assert.notEqual((await s.api(`/v1/search?q=${q('東京都渋谷区神南一')}`)).status, 400);
  });

  test('over a very low --search-budget-ms: 422 budget_exceeded naming what to narrow, or a partial answer', async () => {
    for (const query of ['a-b-c-a-b-c-a-b', '"c a b c a b c a"', 'code -"a b c a b c a b"']) {
      let res = await s.api(`/v1/search?q=${q(query)}`);
      // 503 + Retry-After: the search waited for a free search thread its whole (10 ms) budget; it says to retry.
      for (let i = 0; i < 5 && res.status === 503; i++) {
        assert.equal(res.headers.get('retry-after'), '1');
        assert.match(((await res.json()) as Json).detail, /waited for a free search thread/);
        res = await s.api(`/v1/search?q=${q(query)}`);
      }
      const body = (await res.json()) as Json;
      if (res.status === 200) {
        assert.ok(body.partial?.reason, `${query}: a 200 over budget must be marked partial: ${JSON.stringify(body).slice(0, 300)}`);
        assert.match(body.partial.reason, /time budget/);
      } else {
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(body.code, 'budget_exceeded');
        assert.match(body.detail, /over its budget|time budget/);
        assert.match(body.detail, /--search-budget-ms/);
      }
    }
  });

  test('the MCP tool answers the same errors', async () => {
    const c = await mcpClient(s.url, s.key);
    try {
      assert.match(await callErr(c, 'svc_search_messages', { query: 'one two three four' }), /--search-max-terms/);
      assert.match(await callErr(c, 'svc_search_messages', { query: 'x\u0000' }), /control character U\+0000/);
      assert.match(await callErr(c, 'svc_search_messages', { query: 'a-b-c-a-b-c-a-b' }), /budget|--search-budget-ms/);
    } finally {
      await c.close();
    }
  });
});
