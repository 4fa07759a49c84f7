// Send and reply (CONTRACT §9) without a relay: a two-inbox conversation on one inboxd delivered locally through the
// ingest path; the sender's copy (direction outbound) never counts as received mail; every bad input of issue 13.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { HoldingReceiver } from '../../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks', '--max-message-bytes', '4096']);
});
after(async () => {
  await s.stop();
});

async function inbox(body: Json = {}): Promise<Json> {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
}
const send = (id: string, body: Json, key?: string) =>
  s.api(`/v1/inboxes/${id}/send`, { method: 'POST', json: body, ...(key ? { key } : {}) });
const reply = (id: string, body: Json, key?: string) =>
  s.api(`/v1/inboxes/${id}/reply`, { method: 'POST', json: body, ...(key ? { key } : {}) });
const list = async (id: string) => (await json(await s.api(`/v1/inboxes/${id}/messages`))).items as Json[];
const raw = async (id: string, msg: string) => (await s.api(`/v1/inboxes/${id}/messages/${msg}/raw`)).text();

describe('a two-inbox conversation, no relay', () => {
  test('send, wait, reply, wait: local delivery, threading headers, the sender copy kept apart', async () => {
    const receiver = new HoldingReceiver(false);
    await receiver.start();
    try {
      const alice = await inbox({ label: 'conv', callbackUrl: `${receiver.url}/alice` });
      const bob = await inbox({ label: 'conv', callbackUrl: `${receiver.url}/bob` });

      const sent = await json(
        await send(alice.inboxId, { to: `Bob <${bob.address}>`, subject: 'Grüße — your code', text: 'Your code is 482913' }),
        202,
      );
      assert.match(sent.messageId, /^msg_/);
      assert.equal(sent.from, alice.address);
      assert.match(sent.rfcMessageId, new RegExp(`^<[^@]+@${alice.address.split('@')[1].replace('.', '\\.')}>$`));
      assert.equal(sent.recipients.length, 1);
      assert.deepEqual(
        { address: sent.recipients[0].address, route: sent.recipients[0].route, state: sent.recipients[0].state },
        { address: bob.address, route: 'local', state: 'sent' },
      );

      // Bob waits and gets it like SMTP mail: extracted code, inbound, via "send".
      const got = await json(await s.api(`/v1/inboxes/${bob.inboxId}/wait?timeoutSeconds=5`));
      const gotId = got.messageId ?? got.message?.messageId;
      assert.equal(sent.recipients[0].deliveredMessageId, gotId);
      const bobMsg = await json(await s.api(`/v1/inboxes/${bob.inboxId}/messages/${gotId}`));
      assert.equal(bobMsg.direction, 'inbound');
      assert.equal(bobMsg.via, 'send');
      assert.equal(bobMsg.subject, 'Grüße — your code');
      assert.equal(bobMsg.verification.otp, '482913');
      assert.equal(bobMsg.headerMessageId, sent.rfcMessageId);
      assert.equal(bobMsg.deliveries, undefined);
      const bobVerify = await json(await s.api(`/v1/inboxes/${bob.inboxId}/extract`));
      assert.equal(bobVerify.verification?.otp ?? bobVerify.otp, '482913');

      // Alice's copy: outbound, listed, its raw archived, its delivery states shown.
      const aliceList = await list(alice.inboxId);
      assert.deepEqual(
        aliceList.map((m) => [m.messageId, m.direction, m.verification.otp]),
        [[sent.messageId, 'outbound', null]],
      );
      const check = await s.server.parts.messages.list(alice.inboxId, 5);
      assert.equal(check[0]!.otp, '482913', 'the stored parse keeps it; only the views of the sent copy hide it');
      const aliceCopy = await json(await s.api(`/v1/inboxes/${alice.inboxId}/messages/${sent.messageId}`));
      assert.equal(aliceCopy.deliveries.length, 1);
      assert.equal(aliceCopy.deliveries[0].state, 'sent');
      assert.match(await raw(alice.inboxId, sent.messageId), /Your code is 482913/);

      // The sent code is never Alice's code: wait, extract, check and verify on her inbox see nothing.
      assert.equal((await s.api(`/v1/inboxes/${alice.inboxId}/wait?timeoutSeconds=0`)).status, 408);
      const aliceExtract = await json(await s.api(`/v1/inboxes/${alice.inboxId}/extract`));
      assert.equal(JSON.stringify(aliceExtract).includes('482913'), false, JSON.stringify(aliceExtract));
      const aliceVerify = await json(
        await s.api('/v1/agent/verify', { method: 'POST', json: { inboxId: alice.inboxId, timeoutSeconds: 1 } }),
      );
      assert.equal(JSON.stringify(aliceVerify).includes('482913'), false, JSON.stringify(aliceVerify));

      // Bob replies; Alice waits for it.
      const answered = await json(await reply(bob.inboxId, { messageId: gotId, text: 'Thanks, got 482913.' }), 202);
      assert.equal(answered.subject, 'Re: Grüße — your code');
      assert.equal(answered.inReplyTo, sent.rfcMessageId);
      assert.deepEqual(answered.references, [sent.rfcMessageId]);
      assert.equal(answered.recipients[0].address, alice.address);
      const back = await json(await s.api(`/v1/inboxes/${alice.inboxId}/wait?timeoutSeconds=5`));
      const backId = back.messageId ?? back.message?.messageId;
      const aliceGot = await json(await s.api(`/v1/inboxes/${alice.inboxId}/messages/${backId}`));
      assert.equal(aliceGot.direction, 'inbound');
      assert.equal(aliceGot.inReplyTo, sent.rfcMessageId);
      assert.deepEqual(aliceGot.references, [sent.rfcMessageId]);

      // Alice answers the reply: the chain grows, the subject is not "Re: Re:".
      const third = await json(await reply(alice.inboxId, { messageId: backId, text: 'Great.' }), 202);
      assert.equal(third.subject, 'Re: Grüße — your code');
      assert.deepEqual(third.references, [sent.rfcMessageId, answered.rfcMessageId]);
      assert.equal(third.inReplyTo, answered.rfcMessageId);
      await json(await s.api(`/v1/inboxes/${bob.inboxId}/wait?timeoutSeconds=5&since=${gotId}`));
      // Both inboxes hold the whole conversation as one thread of 3 (sent and received copies together).
      for (const who of [alice, bob]) {
        const threads = await json(await s.api(`/v1/inboxes/${who.inboxId}/threads`));
        assert.equal(threads.items.length, 1, `${who.address}: ${JSON.stringify(threads.items)}`);
        assert.equal(threads.items[0].messageCount, 3);
        const t = await json(await s.api(`/v1/inboxes/${who.inboxId}/threads/${threads.items[0].threadId}`));
        assert.deepEqual(
          t.messages.map((m: { subject: string }) => m.subject),
          ['Grüße — your code', 'Re: Grüße — your code', 'Re: Grüße — your code'],
        );
      }
      assert.deepEqual(
        (await list(bob.inboxId)).map((m) => m.direction),
        ['inbound', 'outbound', 'inbound'],
      );

      // Callbacks: each inbox was called for what it received (2 for Bob, 1 for Alice), never for what it sent.
      await receiver.waitFor(3);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.paths.filter((p) => p === '/alice').length, 1);
      assert.equal(receiver.paths.filter((p) => p === '/bob').length, 2);
    } finally {
      await receiver.stop();
    }
  });

  test('replyAll answers every participant but the inbox; reply-to wins; a reply to a sent message is refused', async () => {
    const a = await inbox();
    const b = await inbox();
    const c = await inbox();
    const d = await inbox();
    const sent = await json(
      await send(a.inboxId, { to: [b.address, c.address], cc: d.address, subject: 'plan', text: 'hi', replyTo: c.address }),
      202,
    );
    const bMsg = (await json(await s.api(`/v1/inboxes/${b.inboxId}/wait?timeoutSeconds=5`))) as Json;
    const bId = bMsg.messageId ?? bMsg.message?.messageId;
    const all = await json(await reply(b.inboxId, { messageId: bId, replyAll: true, text: 'all' }), 202);
    const byAddress = (x: string[], y: string[]) => (x[0]! < y[0]! ? -1 : 1);
    assert.deepEqual(
      all.recipients.map((r: Json) => [r.address, r.kind]).sort(byAddress),
      [
        [a.address, 'to'],
        [c.address, 'to'],
        [d.address, 'cc'],
      ].sort(byAddress),
    );
    const one = await json(await reply(b.inboxId, { messageId: bId, text: 'one' }), 202);
    assert.deepEqual(
      one.recipients.map((r: Json) => r.address),
      [c.address],
    );
    const refused = await json(await reply(a.inboxId, { messageId: sent.messageId, text: 'x' }), 400);
    assert.match(refused.detail, /this inbox sent/);
  });
});

describe('bad input: 400/403/404/413/501, nothing stored', () => {
  let a: Json;
  let b: Json;
  before(async () => {
    a = await inbox({ label: 'bad-a' });
    b = await inbox({ label: 'bad-b' });
  });

  const cases: Array<[string, () => Json, number, RegExp]> = [
    ['CR/LF in the subject', () => ({ to: b.address, subject: 'hi\r\nBcc: victim@example.com', text: 'x' }), 400, /subject/],
    ['LF in a display name', () => ({ to: `Bob\nBcc: v@example.com <${b.address}>`, text: 'x' }), 400, /to/],
    ['NUL in an address', () => ({ to: `${b.address}\u0000`, text: 'x' }), 400, /to/],
    ['CR in replyTo', () => ({ to: b.address, replyTo: `x@example.com\r\n`, text: 'x' }), 400, /replyTo/],
    ['an invalid address', () => ({ to: 'not-an-address', text: 'x' }), 400, /not an e-mail address/],
    ['a cc without a domain', () => ({ to: b.address, cc: ['bob@'], text: 'x' }), 400, /cc/],
    [
      '1,000 recipients',
      () => ({ to: Array.from({ length: 1000 }, (_, i) => `r${i}@inboxd.test`), text: 'x' }),
      400,
      /at most 100 recipients/,
    ],
    [
      '101 recipients across to, cc and bcc',
      () => ({
        to: Array.from({ length: 60 }, (_, i) => `t${i}@inboxd.test`),
        bcc: Array.from({ length: 41 }, (_, i) => `b${i}@inboxd.test`),
        text: 'x',
      }),
      400,
      /at most 100 recipients/,
    ],
    [
      'invalid contentBase64',
      () => ({ to: b.address, text: 'x', attachments: [{ filename: 'a.txt', contentBase64: 'not base64!' }] }),
      400,
      /base64/,
    ],
    [
      'a NUL in a file name',
      () => ({ to: b.address, text: 'x', attachments: [{ filename: 'a\u0000.txt', contentBase64: 'YQ==' }] }),
      400,
      /filename/,
    ],
    [
      'an attachment over --max-message-bytes',
      () => ({ to: b.address, text: 'x', attachments: [{ filename: 'big.bin', contentBase64: Buffer.alloc(5000, 1).toString('base64') }] }),
      413,
      /max-message-bytes/,
    ],
    [
      'attachments that compose over the limit',
      () => ({ to: b.address, text: 'x', attachments: [{ filename: 'big.bin', contentBase64: Buffer.alloc(3500, 1).toString('base64') }] }),
      413,
      /max-message-bytes/,
    ],
    ['an external recipient without a relay', () => ({ to: [b.address, 'someone@example.com'], text: 'x' }), 501, /--smtp-relay/],
    ['an unknown field', () => ({ to: b.address, text: 'x', from: 'ceo@example.com' }), 400, /from/],
  ];
  for (const [name, body, status, detail] of cases) {
    test(name, async () => {
      const p = await json(await send(a.inboxId, body()), status);
      assert.match(`${p.detail} ${JSON.stringify(p.errors ?? [])}`, detail);
    });
  }

  test('reply to a message of another inbox: 404', async () => {
    await json(await send(a.inboxId, { to: `third@inboxd.test`, text: 'x' }), 202);
    const c = await inbox();
    await json(await send(c.inboxId, { to: b.address, text: 'for b' }), 202);
    const bMsg = (await list(b.inboxId))[0]!;
    const p = await json(await reply(a.inboxId, { messageId: bMsg.messageId, text: 'x' }), 404);
    assert.match(p.detail, /no message/);
  });

  test('a read-only key gets 403, a key scoped to another label prefix 404', async () => {
    const ro = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } }), 201)).key;
    const other = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'o', scope: { labelPrefix: 'zzz-' } } }), 201))
      .key;
    await json(await send(a.inboxId, { to: b.address, text: 'x' }, ro), 403);
    await json(await send(a.inboxId, { to: b.address, text: 'x' }, other), 404);
    await json(await reply(a.inboxId, { messageId: 'msg_x', text: 'x' }, ro), 403);
  });

  test('none of the refused sends stored anything', async () => {
    // b got exactly the one message c sent; a holds only its one accepted send.
    assert.equal((await list(b.inboxId)).length, 1);
    assert.deepEqual(
      (await list(a.inboxId)).map((m) => m.direction),
      ['outbound'],
    );
  });
});

/** The `message.received` events of an inbox's SSE stream (from Last-Event-ID 0: the replay included) until `n` came. */
async function sseEvents(inboxId: string, n: number, lastEventId?: string): Promise<Array<{ event: string; data: Json }>> {
  const ac = new AbortController();
  const res = await s.api(`/v1/inboxes/${inboxId}/events`, {
    headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const out: Array<{ event: string; data: Json }> = [];
  let buf = '';
  const dec = new TextDecoder();
  while (out.length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event && data) out.push({ event, data: JSON.parse(data) as Json });
    }
  }
  ac.abort();
  return out;
}

describe('events and MCP', () => {
  test("SSE: the sender's stream shows no event for what it sent (live or replayed), only what it receives", async () => {
    const a = await inbox();
    const b = await inbox();
    const live = sseEvents(a.inboxId, 1);
    await new Promise((r) => setTimeout(r, 100));
    const sent = await json(await send(a.inboxId, { to: b.address, text: 'first' }), 202);
    const bId = sent.recipients[0].deliveredMessageId;
    const back = await json(await reply(b.inboxId, { messageId: bId, text: 'answer' }), 202);
    const [first] = await live;
    assert.equal(first!.event, 'message.received');
    assert.equal(first!.data.messageId, back.recipients[0].deliveredMessageId);
    assert.equal(first!.data.direction, 'inbound');
    const replayed = await sseEvents(a.inboxId, 1, '0');
    assert.equal(replayed[0]!.data.messageId, back.recipients[0].deliveredMessageId);
  });

  test('svc_send_message sends, and with replyToMessageId replies', async () => {
    const client = await mcpClient(s.url, s.key);
    try {
      const a = await inbox();
      const b = await inbox();
      const tool = (await client.listTools()).tools.find((t) => t.name === 'svc_send_message')!;
      assert.ok(tool.inputSchema.properties?.replyToMessageId);
      const r1 = (await client.callTool({
        name: 'svc_send_message',
        arguments: { inboxId: a.inboxId, to: b.address, subject: 'via mcp', text: 'Your code is 123987' },
      })) as Json;
      assert.equal(r1.isError, undefined, JSON.stringify(r1));
      // svc_check_email on the sender: the sent code is neither its newest code nor shown in its latest list.
      const check = (await client.callTool({ name: 'svc_check_email', arguments: { inboxId: a.inboxId } })) as Json;
      assert.equal(check.isError, undefined, JSON.stringify(check));
      assert.equal(JSON.stringify(check.structuredContent).includes('123987'), false, JSON.stringify(check.structuredContent));
      const sent = r1.structuredContent as Json;
      assert.equal(sent.recipients[0].state, 'sent');
      const bId = sent.recipients[0].deliveredMessageId;
      const r2 = (await client.callTool({
        name: 'svc_send_message',
        arguments: { inboxId: b.inboxId, replyToMessageId: bId, text: 'back' },
      })) as Json;
      assert.equal(r2.isError, undefined, JSON.stringify(r2));
      assert.equal((r2.structuredContent as Json).subject, 'Re: via mcp');
      assert.equal((r2.structuredContent as Json).inReplyTo, sent.rfcMessageId);
      const r3 = (await client.callTool({
        name: 'svc_send_message',
        arguments: { inboxId: b.inboxId, replyToMessageId: bId, to: 'x@inboxd.test', text: 'no' },
      })) as Json;
      assert.equal(r3.isError, true);
      assert.match(JSON.stringify(r3.content), /leave out to/);
    } finally {
      await client.close();
    }
  });
});

describe('unclaimed local recipients, counters', () => {
  test('a local address without an inbox keeps the mail unclaimed; an inbox created later claims it', async () => {
    const a = await inbox();
    const before = (await json(await s.api('/v1/stats'))).totals.messagesSent as number;
    const sent = await json(await send(a.inboxId, { to: 'later-claim@inboxd.test', subject: 'early', text: 'code 771234' }), 202);
    assert.match(sent.recipients[0].response, /unclaimed/);
    assert.equal(sent.recipients[0].state, 'sent');
    const later = await inbox({ localPart: 'later-claim' });
    const got = await json(await s.api(`/v1/inboxes/${later.inboxId}/wait?timeoutSeconds=5`));
    assert.equal(got.messageId ?? got.message?.messageId, sent.recipients[0].deliveredMessageId);
    assert.equal((await json(await s.api('/v1/stats'))).totals.messagesSent, before + 1);
  });
});

describe('--max-sends-per-minute', () => {
  test('the team over its send rate gets 429 with Retry-After, and nothing is stored', {}, async () => {
    const t = await startTestServer(['--max-sends-per-minute', '2']);
    try {
      const a = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const go = () => t.api(`/v1/inboxes/${a.inboxId}/send`, { method: 'POST', json: { to: 'peer@inboxd.test', text: 'x' } });
      // The limit counts per clock minute: the three sends must share one (a run that straddled a minute's end got
      // 202 for the third), so start well inside one.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
      await json(await go(), 202);
      await json(await go(), 202);
      const r = await go();
      const p = await json(r, 429);
      assert.match(p.detail, /--max-sends-per-minute/);
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.equal((await json(await t.api(`/v1/inboxes/${a.inboxId}/messages`))).items.length, 2);
    } finally {
      await t.stop();
    }
  });
});

describe('--accept-any-domain', () => {
  test('does not make other domains local: they need the relay (501 without one), served domains stay local', async () => {
    const t = await startTestServer(['--accept-any-domain']);
    try {
      const a = await json(await t.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
      const other = await json(await t.api('/v1/inboxes', { method: 'POST', json: { address: 'sink@any-other.test' } }), 201);
      const p = await json(await t.api(`/v1/inboxes/${a.inboxId}/send`, { method: 'POST', json: { to: other.address, text: 'x' } }), 501);
      assert.match(p.detail, /--smtp-relay/);
      assert.equal((await json(await t.api(`/v1/inboxes/${other.inboxId}/messages`))).items.length, 0);
      const ok = await json(
        await t.api(`/v1/inboxes/${a.inboxId}/send`, { method: 'POST', json: { to: 'peer@inboxd.test', text: 'x' } }),
        202,
      );
      assert.equal(ok.recipients[0].route, 'local');
    } finally {
      await t.stop();
    }
  });
});
