// Waits answered over every transport share one encoding per wake-up: streamed GET waits (text/event-stream), MCP
// svc_wait_for_message (session SSE, with and without a progress token, and a JSON-only stateless call) and verify /
// svc_wait_and_extract, all woken by one large message of control characters (escaped sixfold in JSON). Every
// large JSON.stringify during the wake-up is counted: a handful for the whole crowd, not one (or two) per waiter.
// not @cluster: counts encodings on one instance's waiters (its one describe skips under INBOXD_TEST_CLUSTER)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, TEST_CLUSTER, type TestServer } from '../../helpers/server.ts';

type Json = Record<string, any>;
let s: TestServer;
const clients: Client[] = [];
before(async () => {
  // The limit counts characters as the JSON answer writes them: CONTROL (below) fits whole, escaped.
  s = await startTestServer(['--wait-max-body-chars', '240000']);
});
after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await s.stop();
});

/** Counts JSON.stringify calls whose output is longer than `min` (and contains `marker`) while `run` is in flight. */
async function countLarge<T>(min: number, marker: string, run: () => Promise<T>): Promise<{ large: number; result: T }> {
  const real = JSON.stringify;
  let large = 0;
  JSON.stringify = ((...args: Parameters<typeof real>) => {
    const out = real(...args);
    if (typeof out === 'string' && out.length > min && out.includes(marker)) large++;
    return out;
  }) as typeof real;
  try {
    const result = await run();
    return { large, result };
  } finally {
    JSON.stringify = real;
  }
}

/** Reads an SSE answer to the end and returns the data of its `result` event. */
async function sseResult(res: Response): Promise<Json> {
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await res.text();
  const m = /event: result\ndata: (.*)\n\n/.exec(text);
  assert.ok(m, `no result event in ${text.slice(0, 300)}`);
  return JSON.parse(m[1]!) as Json;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition never held');
}

const CONTROL = '\u0001\u0002\u0003\u001f'.repeat(10_000); // 40,000 characters, 240,000 once escaped

describe('one encoding per wake-up', { skip: TEST_CLUSTER && 'the waiters wake on the other instance' }, () => {
  test('streamed and MCP waits on one large control-character message', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const url = `/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=60`;
    const STREAMED = 6;
    const MCP = 4;
    for (let i = 0; i < MCP; i++) clients.push(await mcpClient(s.url, s.key));
    const progress: number[] = [];
    const { large, result } = await countLarge(100_000, '', async () => {
      const streamed = Array.from({ length: STREAMED }, () => s.api(url, { headers: { accept: 'text/event-stream' } }));
      const viaMcp = clients.map((c, i) =>
        c.callTool(
          { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 60 } },
          undefined,
          i === 0 ? { onprogress: (p) => progress.push(p.progress), timeout: 90_000 } : { timeout: 90_000 },
        ),
      );
      // A stateless call from a client that accepts JSON only: the answer is one JSON body, not a stream.
      const stateless = s.api('/mcp', {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'svc_wait_for_message', arguments: { inboxId: inbox.inboxId, timeoutSeconds: 60 } },
        }),
      });
      await until(() => s.server.services.waits.gate.count() === STREAMED + MCP + 1);
      const sent = await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, {
          method: 'POST',
          json: { scenario: 'custom', subject: 'Big', text: CONTROL },
        }),
        201,
      );
      return { sent, streamed: await Promise.all(streamed), viaMcp: await Promise.all(viaMcp), stateless: await stateless };
    });
    for (const r of result.streamed) {
      const a = await sseResult(r);
      assert.equal(a.messageId, result.sent.messageId);
      assert.equal(a.text, CONTROL);
    }
    for (const r of result.viaMcp as Json[]) {
      assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
      assert.equal(r.structuredContent.messageId, result.sent.messageId);
      assert.equal(r.structuredContent.text, CONTROL);
      assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
    }
    assert.equal(result.stateless.status, 200);
    const body = (await result.stateless.json()) as Json;
    assert.equal(body.id, 7);
    assert.equal(body.result.structuredContent.text, CONTROL);
    assert.equal(JSON.parse(body.result.content[0].text).messageId, result.sent.messageId);
    // The message's JSON once, and once more quoted for the MCP text block; nothing per waiter (11 waiters here).
    assert.ok(large <= 3, `${large} large serialisations for ${STREAMED + MCP + 1} waiters`);
    assert.equal(s.server.mcpPendingShared(), 0, 'every placeholder was written out');
  });

  test('verify and svc_wait_and_extract waiters share one encoding of the result', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const mcp = await mcpClient(s.url, s.key);
    clients.push(mcp);
    // A long link: the result carries it in candidates, primaryLink and the action (about 13,000 characters in all).
    const link = `https://example.com/verify?t=${'a'.repeat(6000)}`;
    const { large, result } = await countLarge(10_000, 'primaryAction', async () => {
      const verifies = Array.from({ length: 4 }, () =>
        s.api('/v1/agent/verify', {
          method: 'POST',
          headers: { accept: 'text/event-stream' },
          json: { inboxId: inbox.inboxId, timeoutSeconds: 60, since: new Date(0).toISOString() },
        }),
      );
      const plain = s.api('/v1/agent/verify', {
        method: 'POST',
        json: { inboxId: inbox.inboxId, timeoutSeconds: 60, since: new Date(0).toISOString() },
      });
      const tools = [0, 1].map(() =>
        mcp.callTool({
          name: 'svc_wait_and_extract',
          arguments: { inboxId: inbox.inboxId, timeoutSeconds: 60, since: new Date(0).toISOString() },
        }),
      );
      await until(() => s.server.services.waits.gate.count() === 7);
      await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, {
          method: 'POST',
          json: { scenario: 'custom', subject: 'Code', text: `Your code is 482913\n${link}\n${CONTROL}` },
        }),
        201,
      );
      return { verifies: await Promise.all(verifies), plain: await plain, tools: await Promise.all(tools) };
    });
    const answers = [...(await Promise.all(result.verifies.map(sseResult))), await json(result.plain)];
    for (const t of result.tools as Json[]) answers.push(t.structuredContent);
    for (const a of answers) {
      assert.equal(a.status, 'verified');
      assert.equal(a.verification.otp, '482913');
      assert.equal(a.verification.primaryLink, link);
    }
    // One encoding of the result and one quoted copy for the MCP text block, for 7 waiters.
    assert.ok(large <= 2, `${large} large serialisations of the verify result for 7 waiters`);
  });

  test('event streams of one inbox share the frame of a live message', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const STREAMS = 6;
    const subject = '\\"'.repeat(495); // 1,980 characters once escaped
    const aborts = Array.from({ length: STREAMS }, () => new AbortController());
    const { large } = await countLarge(1500, '"subject"', async () => {
      const streams = await Promise.all(
        aborts.map((a) => s.api(`/v1/inboxes/${inbox.inboxId}/events`, { headers: { accept: 'text/event-stream' }, signal: a.signal })),
      );
      const readers = streams.map(async (r) => {
        const dec = new TextDecoder();
        let text = '';
        for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
          text += dec.decode(chunk, { stream: true });
          if (/event: message\.received\ndata: .*\n\n/.test(text)) break;
        }
        return text;
      });
      await until(() => s.server.services.eventStreams.count() === STREAMS);
      await json(
        await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'custom', subject, text: 'hi' } }),
        201,
      );
      for (const text of await Promise.all(readers)) {
        const data = /event: message\.received\ndata: (.*)\n\n/.exec(text);
        assert.ok(data);
        assert.equal(JSON.parse(data[1]!).subject, subject);
      }
    });
    for (const a of aborts) a.abort();
    // This test's simulate request, the frame once, and the simulate answer (it echoes the subject): not one per stream.
    assert.ok(large <= 3, `${large} large serialisations for ${STREAMS} streams`);
  });
});
