// Limits on kept mail (issue 11): --max-messages-per-inbox holds on every path (parallel SMTP sessions racing for
// the last slot, simulate, the rehearsal page, claimed unclaimed mail); unclaimed mail is capped per address and in
// total; a new inbox claims only mail that arrived shortly before it (--unclaimed-claim-seconds).
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** A raw SMTP session driven step by step, so several can be held at the same point (all past RCPT, then DATA). */
async function session(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let buf = '';
  let lines: string[] = [];
  let waiter: (() => void) | null = null;
  socket.on('data', (d) => {
    buf += d.toString('latin1');
    let i: number;
    while ((i = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      lines.push(line);
      if (line[3] === ' ' && waiter) {
        const w = waiter;
        waiter = null;
        w();
      }
    }
  });
  const reply = () =>
    new Promise<string>((resolve) => {
      const done = () => {
        const last = lines[lines.length - 1]!;
        lines = [];
        resolve(last);
      };
      if (lines.length > 0 && lines[lines.length - 1]![3] === ' ') done();
      else waiter = done;
    });
  await reply();
  return {
    async cmd(line: string): Promise<string> {
      socket.write(line + '\r\n');
      return reply();
    },
    close: () => socket.destroy(),
  };
}

/** Opens n sessions to `to`, all past RCPT, then sends the DATA of all at once; returns each final reply. */
async function race(port: number, to: string, n: number): Promise<string[]> {
  const sessions = await Promise.all(Array.from({ length: n }, () => session(port)));
  try {
    for (const s of sessions) {
      await s.cmd('EHLO racer');
      await s.cmd('MAIL FROM:<racer@example.com>');
      assert.match(await s.cmd(`RCPT TO:<${to}>`), /^250 /, 'every session passes the early check');
      assert.match(await s.cmd('DATA'), /^354 /);
    }
    return await Promise.all(sessions.map((s, i) => s.cmd(`Subject: race ${i}\r\n\r\nbody ${i}\r\n.`)));
  } finally {
    for (const s of sessions) s.close();
  }
}

/** The reply to RCPT TO (the early check). */
async function rcpt(port: number, to: string): Promise<string> {
  const c = await session(port);
  try {
    await c.cmd('EHLO t');
    await c.cmd('MAIL FROM:<a@example.com>');
    return await c.cmd(`RCPT TO:<${to}>`);
  } finally {
    c.close();
  }
}

/** One message to `to`; the reply to RCPT if it refused, else the reply after DATA. */
async function deliver(port: number, to: string, subject = 'hi'): Promise<string> {
  const c = await session(port);
  try {
    await c.cmd('EHLO t');
    await c.cmd('MAIL FROM:<a@example.com>');
    const r = await c.cmd(`RCPT TO:<${to}>`);
    if (!r.startsWith('250 ')) return r;
    await c.cmd('DATA');
    return await c.cmd(`Subject: ${subject}\r\n\r\nhello ${crypto.randomUUID()}\r\n.`);
  } finally {
    c.close();
  }
}
const unique = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@inboxd.test`;

describe('--max-messages-per-inbox on every path', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--max-messages-per-inbox', '3', '--max-unclaimed-per-address', '10']);
  });
  after(() => s.stop());
  const create = async (body: Json = {}) => json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
  const countOf = async (id: string) => (await json(await s.api(`/v1/inboxes/${id}/messages`))).items.length;

  test('parallel SMTP sessions racing for the last slot: exactly one is stored, the rest get 452 4.2.2', async () => {
    const inbox = await create();
    for (let i = 0; i < 2; i++) assert.match(await deliver(s.server.smtpPort, inbox.address), /^250 /);
    const replies = await race(s.server.smtpPort, inbox.address, 6);
    assert.equal(replies.filter((r) => r.startsWith('250 ')).length, 1, replies.join('\n'));
    for (const r of replies.filter((x) => !x.startsWith('250 '))) assert.match(r, /^452 4\.2\.2 mailbox full: .*--max-messages-per-inbox/);
    assert.equal(await countOf(inbox.inboxId), 3);
    assert.match(await rcpt(s.server.smtpPort, inbox.address), /^452 4\.2\.2 mailbox full/, 'and RCPT answers early from now on');
  });

  test('simulate into a full inbox → 409 conflict, nothing stored', async () => {
    const inbox = await create();
    for (let i = 0; i < 3; i++) await json(await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: {} }), 201);
    const res = await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: {} });
    assert.equal(res.status, 409);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    const p = (await res.json()) as Json;
    assert.equal(p.code, 'conflict');
    assert.match(p.detail, /mailbox full: .* limit of 3 messages \(--max-messages-per-inbox\)/);
    assert.equal(await countOf(inbox.inboxId), 3);
  });

  test('parallel simulate calls cannot pass the limit either', async () => {
    const inbox = await create();
    const res = await Promise.all(
      Array.from({ length: 8 }, () => s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: {} })),
    );
    assert.deepEqual(res.map((r) => r.status).sort(), [201, 201, 201, 409, 409, 409, 409, 409]);
    assert.equal(await countOf(inbox.inboxId), 3);
  });

  test('the rehearsal page into a full inbox → 409 conflict, nothing stored', async () => {
    const inbox = await create();
    const signup = () =>
      fetch(`${s.url}/v1/agent/test/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `email=${encodeURIComponent(inbox.address)}`,
      });
    for (let i = 0; i < 3; i++) assert.equal((await signup()).status, 200);
    const res = await signup();
    assert.equal(res.status, 409);
    assert.match(((await res.json()) as Json).detail, /mailbox full/);
    assert.equal(await countOf(inbox.inboxId), 3);
  });

  test('an inbox claims at most the limit of unclaimed mail (the newest); the rest stays unclaimed', async () => {
    const address = unique('claim');
    for (let i = 0; i < 5; i++) assert.match(await deliver(s.server.smtpPort, address, `claim ${i}`), /^250 /);
    const inbox = await create({ address });
    const items = (await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items;
    assert.deepEqual(
      items.map((m: Json) => m.subject),
      ['claim 4', 'claim 3', 'claim 2'],
    );
    assert.match(await rcpt(s.server.smtpPort, address), /^452 4\.2\.2 mailbox full/);
    const sim = await s.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: {} });
    assert.equal(sim.status, 409);
  });
});

describe('unclaimed mail caps', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--max-unclaimed-per-address', '2', '--max-unclaimed', '5']);
  });
  after(() => s.stop());

  test('per address: beyond the cap RCPT answers 452 4.2.2; parallel sessions cannot pass it at DATA', async () => {
    const a = unique('flood');
    const replies = await race(s.server.smtpPort, a, 4);
    assert.equal(replies.filter((r) => r.startsWith('250 ')).length, 2, replies.join('\n'));
    for (const r of replies.filter((x) => !x.startsWith('250 ')))
      assert.match(r, /^452 4\.2\.2 too much unclaimed mail for .*--max-unclaimed-per-address/);
    assert.match(await rcpt(s.server.smtpPort, a), /^452 4\.2\.2 too much unclaimed mail/);
    assert.ok(
      s.logs.some((l) => l.includes('mail refused by a limit')),
      'refusals are logged',
    );
  });

  test('in total: beyond the cap unclaimed mail is refused, mail for existing inboxes still flows', async () => {
    // 2 are kept from the test before; 3 more fill the total of 5.
    for (let i = 0; i < 3; i++) assert.match(await deliver(s.server.smtpPort, unique('fill')), /^250 /);
    assert.match(await rcpt(s.server.smtpPort, unique('more')), /^452 4\.2\.2 unclaimed mail storage is full: .*--max-unclaimed\)/);
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    assert.match(await deliver(s.server.smtpPort, inbox.address), /^250 /);
  });
});

describe('unclaimed total cap with several recipients in one message', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--max-unclaimed', '2']);
  });
  after(() => s.stop());

  test('RCPT counts the recipients already accepted in the transaction: the one over the cap gets 452, the rest are delivered', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    assert.match(await deliver(s.server.smtpPort, unique('first')), /^250 /); // 1 of 2 unclaimed
    const c = await session(s.server.smtpPort);
    try {
      await c.cmd('EHLO t');
      await c.cmd('MAIL FROM:<a@example.com>');
      assert.match(await c.cmd(`RCPT TO:<${inbox.address}>`), /^250 /);
      assert.match(await c.cmd(`RCPT TO:<${unique('second')}>`), /^250 /, 'fills the cap');
      // Before the fix this RCPT passed too and the whole message was then refused at commit with 452 — a sender
      // retrying it would loop, and the inbox recipient never got it.
      assert.match(await c.cmd(`RCPT TO:<${unique('third')}>`), /^452 4\.2\.2 unclaimed mail storage is full/);
      await c.cmd('DATA');
      assert.match(await c.cmd('Subject: to three\r\n\r\nhello\r\n.'), /^250 /);
      // A new transaction on the same connection starts a new count (and the cap is now full).
      await c.cmd('MAIL FROM:<a@example.com>');
      assert.match(await c.cmd(`RCPT TO:<${unique('fourth')}>`), /^452 4\.2\.2/);
    } finally {
      c.close();
    }
    const got = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
    assert.deepEqual(
      got.items.map((m: Json) => m.subject),
      ['to three'],
    );
  });
});

describe('claim window', () => {
  let s: TestServer;
  let now = Date.UTC(2030, 0, 1);
  before(async () => {
    s = await startTestServer(['--unclaimed-claim-seconds', '120'], {}, { clock: { now: () => now } });
  });
  after(() => s.stop());

  test('mail planted long before the inbox is not handed to it; mail from just before is', async () => {
    const planted = unique('victim');
    assert.match(await deliver(s.server.smtpPort, planted), /^250 /);
    now += 5 * 60_000; // within the 15-minute unclaimed TTL, outside the 2-minute claim window
    const victim = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: planted } }), 201);
    assert.equal((await json(await s.api(`/v1/inboxes/${victim.inboxId}/messages`))).items.length, 0);
    const v = await json(await s.api(`/v1/inboxes/${victim.inboxId}/extract`));
    assert.equal(v.status, 'awaiting_message');

    const raced = unique('raced');
    assert.match(await deliver(s.server.smtpPort, raced), /^250 /);
    now += 90_000; // the form was submitted just before the inbox was created
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { address: raced } }), 201);
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items.length, 1);
  });
});
