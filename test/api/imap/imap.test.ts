// IMAP4rev1 per inbox (issue 29) with imapflow, a real client: login with the inbox address and a key, INBOX and Sent,
// FETCH (envelope, structure, source, sections), SEARCH, \Seen as the read state shown over REST, delete through
// \Deleted + EXPUNGE, IDLE woken by an SMTP delivery, and refusals for other teams' and other scopes' inboxes.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

let s: TestServer;
let imapPort = 0;

before(async () => {
  s = await startTestServer(['--imap-port', '0']);
  imapPort = s.server.imapPort!;
});
after(() => s?.stop());

function client(user: string, pass: string): ImapFlow {
  return new ImapFlow({ host: '127.0.0.1', port: imapPort, secure: false, auth: { user, pass }, logger: false, verifyOnly: false });
}

async function newInbox(body: Record<string, unknown> = {}, key?: string): Promise<{ inboxId: string; address: string }> {
  return (await json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201)) as {
    inboxId: string;
    address: string;
  };
}

async function waitFor(inboxId: string, n: number): Promise<Array<{ messageId: string; seen: boolean }>> {
  for (let i = 0; i < 100; i++) {
    const list =
      (await json(await s.api(`/v1/inboxes/${inboxId}/messages`))).messages ?? (await json(await s.api(`/v1/inboxes/${inboxId}/messages`)));
    const items = (Array.isArray(list) ? list : list.items) as Array<{ messageId: string; seen: boolean }>;
    if (items.length >= n) return items;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`inbox ${inboxId} did not get ${n} messages`);
}

test('imapflow logs in, lists INBOX and Sent, fetches, searches, marks seen and deletes', async () => {
  const inbox = await newInbox();
  await sendMail(s.server.smtpPort, {
    to: inbox.address,
    subject: 'Your code 123456',
    text: 'Hello\r\n.leading dot line\r\n',
    html: '<p>Hello</p>',
    attachments: [{ filename: 'a.txt', content: 'attached' }],
  });
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'Second', text: 'two' });
  await waitFor(inbox.inboxId, 2);
  // A sent copy for the Sent folder.
  await json(
    await s.api(`/v1/inboxes/${inbox.inboxId}/send`, { method: 'POST', json: { to: inbox.address, subject: 'Sent one', text: 'x' } }),
    202,
  );
  await waitFor(inbox.inboxId, 4);

  const c = client(inbox.address, s.key);
  await c.connect();
  try {
    const boxes = await c.list();
    assert.deepEqual(boxes.map((b) => b.path).sort(), ['INBOX', 'Sent']);
    assert.equal(boxes.find((b) => b.path === 'Sent')?.specialUse, '\\Sent');
    const lock = await c.getMailboxLock('INBOX');
    try {
      const mb = c.mailbox as { exists: number; uidValidity: bigint; uidNext: number };
      assert.equal(mb.exists, 3, 'two SMTP messages and the copy the inbox received from itself');
      const all = [];
      for await (const m of c.fetch('1:*', { uid: true, flags: true, envelope: true, bodyStructure: true, size: true, internalDate: true }))
        all.push(m);
      assert.equal(all.length, 3);
      assert.ok(all[0]!.uid < all[1]!.uid && all[1]!.uid < all[2]!.uid, 'UIDs ascend');
      assert.equal(all[0]!.envelope?.subject, 'Your code 123456');
      assert.equal(all[0]!.envelope?.from?.[0]?.address, 'sender@example.com');
      assert.equal(all[0]!.envelope?.to?.[0]?.address, inbox.address);
      assert.equal(all[0]!.bodyStructure?.type, 'multipart/mixed');
      const kids = all[0]!.bodyStructure?.childNodes ?? [];
      assert.equal(kids[1]?.disposition, 'attachment');
      assert.equal(kids[1]?.dispositionParameters?.filename, 'a.txt');
      assert.equal(all[0]!.flags?.has('\\Seen'), false);

      const one = await c.fetchOne(String(all[0]!.uid), { source: true, bodyParts: ['1', '2'], headers: ['subject'] }, { uid: true });
      assert.ok(one);
      assert.match(one.source!.toString(), /Subject: Your code 123456/);
      assert.match(one.headers!.toString(), /^Subject: Your code 123456\r\n/);
      assert.equal(
        one.bodyParts?.get('2')?.toString('base64') ? Buffer.from(one.bodyParts.get('2')!.toString(), 'base64').toString() : '',
        'attached',
      );
      // imapflow reads with BODY.PEEK: nothing is marked seen yet.
      assert.deepEqual(
        await c.search({ seen: false }, { uid: true }),
        all.map((m) => m.uid),
      );
      assert.deepEqual(await c.search({ subject: 'second' }, { uid: true }), [all[1]!.uid]);
      assert.deepEqual(await c.search({ from: 'sender@example' }, { uid: true }), [all[0]!.uid, all[1]!.uid]);
      assert.deepEqual(
        await c.search({ since: new Date(Date.now() - 86_400_000) }, { uid: true }),
        all.map((m) => m.uid),
      );
      assert.deepEqual(await c.search({ uid: `${all[1]!.uid}:*` }, { uid: true }), [all[1]!.uid, all[2]!.uid]);

      assert.ok(await c.messageFlagsAdd(String(all[0]!.uid), ['\\Seen'], { uid: true }));
      assert.deepEqual(await c.search({ seen: true }, { uid: true }), [all[0]!.uid]);
      const rest = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
      const items = rest.items as Array<{ subject: string; seen: boolean }>;
      assert.equal(items.find((m) => m.subject === 'Your code 123456')?.seen, true, 'REST shows the read state');
      assert.equal(items.find((m) => m.subject === 'Second')?.seen, false);

      assert.ok(await c.messageDelete(String(all[1]!.uid), { uid: true }));
      const after = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`));
      const left = after.items as Array<{ subject: string }>;
      assert.equal(left.filter((m) => m.subject === 'Second').length, 0, 'EXPUNGE deleted it in inboxd');
    } finally {
      lock.release();
    }
    const sent = await c.getMailboxLock('Sent');
    try {
      const msgs = [];
      for await (const m of c.fetch('1:*', { envelope: true })) msgs.push(m);
      assert.deepEqual(
        msgs.map((m) => m.envelope?.subject),
        ['Sent one'],
      );
    } finally {
      sent.release();
    }
  } finally {
    await c.logout();
  }
});

test('IDLE is woken by an SMTP delivery', async () => {
  const inbox = await newInbox();
  const c = client(inbox.address, s.key);
  await c.connect();
  try {
    await c.mailboxOpen('INBOX');
    const woke = new Promise<number>((resolve) => c.on('exists', () => resolve(performance.now())));
    void c.idle().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    // On two instances the mail arrives at the other one: the PostgreSQL fan-out wakes this IDLE.
    await sendMail((s.peer ?? s.server).smtpPort, { to: inbox.address, subject: 'wake up', text: 'x' });
    const t1 = performance.now();
    const at = await woke;
    const ms = Math.max(0, at - t1);
    console.log(
      `IDLE woke ${ms.toFixed(1)} ms after the SMTP 250${s.peer ? ' of the other instance' : ''} (${(at - t0).toFixed(1)} ms after the send began)`,
    );
    assert.ok(ms < 1000, `IDLE woke after ${ms} ms`);
  } finally {
    await c.logout();
  }
});

test("another team's inbox, an inbox outside a key's label scope and a wrong key are refused", async () => {
  const other = await teamAdminKey(s, 'imapother');
  const theirs = await newInbox({}, other);
  const mine = await newInbox({ label: 'ci-b/1' });
  const scoped = await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label: 'scoped', scope: { labelPrefix: 'ci-a/' } } }),
    201,
  );
  for (const [user, pass] of [
    [theirs.address, s.key],
    [mine.address, other],
    [mine.address, scoped.key as string],
    [mine.address, 'ibx_NotAKey000000000000000000000000'],
  ] as const) {
    const c = client(user, pass);
    await assert.rejects(c.connect(), (e: Error & { authenticationFailed?: boolean }) => e.authenticationFailed === true);
    c.close();
  }
  const ok = client(theirs.address, other);
  await ok.connect();
  await ok.logout();
});

test('UTF-8 subjects come back intact and can be searched (imapflow sends them as literals)', async () => {
  const inbox = await newInbox();
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'Grüße aus Köln 🎉', text: 'Servus' });
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'plain', text: 'x' });
  await waitFor(inbox.inboxId, 2);
  const c = client(inbox.address, s.key);
  await c.connect();
  try {
    await c.mailboxOpen('INBOX');
    const hits = (await c.search({ subject: 'köln' }, { uid: true })) as number[];
    assert.equal(hits.length, 1);
    const m = await c.fetchOne(String(hits[0]), { envelope: true }, { uid: true });
    assert.equal(m ? m.envelope?.subject : null, 'Grüße aus Köln 🎉');
    assert.deepEqual(await c.search({ body: 'servus' }, { uid: true }), hits);
  } finally {
    await c.logout();
  }
});
