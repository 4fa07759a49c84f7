// Hostile input to the IMAP and POP3 listeners (issue 29) is bounded: a literal over the limit gets no continuation
// and closes the connection, as do an overlong line, a command flood past the budget and connections past the
// per-address cap; a literal within the limit is read. The caps are the SMTP ones (--smtp-max-connections-per-ip,
// --smtp-max-commands), set low here.
// not @cluster: connection and command caps are counted per instance
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startImap } from '../../../src/imap/server.ts';
import { MailAccess } from '../../../src/inboxes/mail-access.ts';
import { createLogger } from '../../../src/log.ts';
import { json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

const noLog = createLogger({ level: 'silent', format: 'json' });

let s: TestServer;

before(async () => {
  s = await startTestServer(['--imap-port', '0', '--pop3-port', '0', '--smtp-max-connections-per-ip', '5', '--smtp-max-commands', '50']);
});
after(() => s?.stop());

/** A raw connection: everything read so far, whether the server closed it, and a wait for a pattern. */
function connect(port: number) {
  const sock = net.connect(port, '127.0.0.1');
  const state = { text: '', closed: false };
  sock.setEncoding('latin1');
  sock.on('data', (d: string) => (state.text += d));
  sock.on('close', () => (state.closed = true));
  sock.on('error', () => undefined);
  const until = async (test: () => boolean, what: string, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; got:\n${state.text.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    sock,
    state,
    write: (d: string | Buffer) => sock.write(d),
    waitFor: (re: RegExp, ms?: number) => until(() => re.test(state.text), String(re), ms),
    waitClosed: (ms?: number) => until(() => state.closed, 'the server to close the connection', ms),
  };
}

test('an IMAP literal over the limit gets no continuation; the connection is closed', async () => {
  const c = connect(s.server.imapPort!);
  await c.waitFor(/^\* OK/);
  c.write('a1 LOGIN {999999999}\r\n');
  await c.waitFor(/a1 BAD \[TOOBIG\]/);
  await c.waitClosed();
  assert.doesNotMatch(c.state.text, /^\+ /m, 'no continuation request was sent');
  // A non-synchronising literal over the limit is refused the same way, before its bytes are read.
  const d = connect(s.server.imapPort!);
  await d.waitFor(/^\* OK/);
  d.write(`a2 LOGIN {70000+}\r\n${'x'.repeat(1000)}`);
  await d.waitFor(/a2 BAD \[TOOBIG\]/);
  await d.waitClosed();
});

test('an IMAP literal within the limit is read after a continuation request', async () => {
  const inbox = (await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201)) as { address: string };
  const c = connect(s.server.imapPort!);
  await c.waitFor(/^\* OK/);
  c.write(`a1 LOGIN {${inbox.address.length}}\r\n`);
  await c.waitFor(/^\+ /m);
  c.write(`${inbox.address} "${s.key}"\r\n`);
  await c.waitFor(/a1 OK/);
  c.write('a2 LOGOUT\r\n');
  await c.waitClosed();
});

test('an overlong IMAP or POP3 line closes the connection', async () => {
  const c = connect(s.server.imapPort!);
  await c.waitFor(/^\* OK/);
  c.write(`a1 NOOP ${'x'.repeat(100 * 1024)}`);
  await c.waitFor(/\* BYE \[TOOBIG\] line longer than/);
  await c.waitClosed();
  const p = connect(s.server.pop3Port!);
  await p.waitFor(/^\+OK/);
  p.write('x'.repeat(4096));
  await p.waitFor(/-ERR line longer than 1024 bytes/);
  await p.waitClosed();
});

test('a flood of commands past the budget is cut off', async () => {
  const c = connect(s.server.imapPort!);
  await c.waitFor(/^\* OK/);
  c.write(Array.from({ length: 500 }, (_, i) => `n${i} NOOP\r\n`).join(''));
  await c.waitFor(/\* BYE too many commands/);
  await c.waitClosed();
  const oks = c.state.text.match(/^n\d+ OK/gm)?.length ?? 0;
  assert.ok(oks <= 51, `${oks} commands were answered`);
  const p = connect(s.server.pop3Port!);
  await p.waitFor(/^\+OK/);
  p.write('NOOP\r\n'.repeat(500));
  await p.waitFor(/-ERR \[SYS\/TEMP\] more than 50 commands/);
  await p.waitClosed();
});

test('connections past the per-address cap are refused, and room comes back when they close', async () => {
  for (const [port, greeting, refusal] of [
    [s.server.imapPort!, /^\* OK/, /\* BYE \[UNAVAILABLE\] too many connections/],
    [s.server.pop3Port!, /^\+OK/, /-ERR \[SYS\/TEMP\] too many connections/],
  ] as const) {
    const held = [];
    for (let i = 0; i < 5; i++) {
      const c = connect(port);
      await c.waitFor(greeting);
      held.push(c);
    }
    const extra = connect(port);
    await extra.waitFor(refusal);
    await extra.waitClosed();
    for (const c of held) c.sock.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = connect(port);
    await again.waitFor(greeting);
    again.sock.destroy();
  }
});

test('login and idle timeouts end sessions; an idling session hears of a REST delete', async () => {
  const { services, parts } = s.server;
  const access = new MailAccess({
    authenticate: (secret) => services.keyAuth.authenticate(secret),
    inboxes: services.inboxes,
    messageService: services.inboxMessages,
    messages: parts.messages,
    blobs: parts.blobs,
    writer: parts.writer,
    subscribe: (id, fn) => parts.bus.subscribe(id, fn),
    now: () => Date.now(),
  });
  const imap = await startImap({ host: '127.0.0.1', port: 0, loginTimeoutMs: 300, idleTimeoutMs: 1500, idlePollMs: 100 }, access, noLog);
  try {
    const lazy = connect(imap.port);
    await lazy.waitFor(/^\* OK/);
    const t0 = Date.now();
    lazy.write('a1 NOOP\r\n');
    await lazy.waitFor(/\* BYE login timeout/, 2000);
    await lazy.waitClosed();
    assert.ok(Date.now() - t0 < 1500);

    const inbox = (await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201)) as { inboxId: string; address: string };
    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'to delete', text: 'x' });
    const [msg] = (await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`))).items as Array<{ messageId: string }>;
    const c = connect(imap.port);
    await c.waitFor(/^\* OK/);
    c.write(`a1 LOGIN ${inbox.address} ${s.key}\r\na2 SELECT INBOX\r\na3 IDLE\r\n`);
    await c.waitFor(/^\+ idling/m);
    await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${msg!.messageId}`, { method: 'DELETE' }));
    await c.waitFor(/^\* 1 EXPUNGE\r\n\* 0 EXISTS/m, 2000);
    await c.waitFor(/\* BYE autologout/, 3000);
    await c.waitClosed();
  } finally {
    await imap.close();
  }
});

test('APPEND is refused before its message is sent, and the session goes on', async () => {
  const inbox = (await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201)) as { address: string };
  const c = connect(s.server.imapPort!);
  await c.waitFor(/^\* OK/);
  c.write(`a1 LOGIN ${inbox.address} ${s.key}\r\n`);
  await c.waitFor(/a1 OK/);
  c.write('a2 APPEND Sent (\\Seen) {10000000}\r\n');
  await c.waitFor(/a2 NO \[CANNOT\]/);
  c.write('a3 NOOP\r\n');
  await c.waitFor(/a3 OK/);
  assert.doesNotMatch(c.state.text, /^\+ /m);
  assert.equal(c.state.closed, false);
  c.sock.destroy();
});
