// Session limits: a client that keeps a connection busy with NOOP/RSET forever is closed at the lifetime or command
// budget with 421 4.7.0, while a normal session on the same server delivers.
// not @cluster: SMTP session limits are per instance; talks to one instance
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail, smtpDialogue } from '../../helpers/smtp.ts';

/** Sends NOOP whenever the previous reply arrives, until the server closes; returns every reply line. */
function noopForever(port: number, pauseMs: number): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const lines: string[] = [];
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 2);
        setTimeout(() => {
          if (!socket.destroyed) socket.write('NOOP\r\n');
        }, pauseMs);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(lines));
  });
}

const logLines = (s: TestServer) => s.logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Json);

describe('SMTP session limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--smtp-max-commands', '20', '--smtp-max-session-seconds', '2']);
  });
  after(() => s.stop());

  test('a session over --smtp-max-commands gets 421 4.7.0 and is closed', async () => {
    const lines = await noopForever(s.server.smtpPort, 0);
    assert.equal(lines.filter((l) => l.startsWith('250')).length, 20, lines.join('\n'));
    assert.match(lines.at(-1)!, /^421 4\.7\.0 .*limit of 20 commands/);
    assert.ok(logLines(s).some((l) => l.msg === 'smtp session closed at its limit' && l.limit === 'commands' && l.level === 'info'));
  });

  test('a slow NOOP session is closed at --smtp-max-session-seconds; mail is delivered meanwhile', async () => {
    const held = noopForever(s.server.smtpPort, 200);
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const sent = await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'meanwhile', text: 'x' });
    assert.match(sent.response, /^250 /);
    const lines = await held;
    assert.ok(lines.filter((l) => l.startsWith('250')).length < 20, 'closed by the lifetime, not the budget');
    assert.match(lines.at(-1)!, /^421 4\.7\.0 .*session lasted its limit of 2 s/);
  });

  test('the command budget starts again at each delivered message: a long batch on one connection is not cut', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const batch = Array.from({ length: 10 }, (_, i) => [
      'MAIL FROM:<batch@example.com>',
      `RCPT TO:<${inbox.address}>`,
      'DATA',
      `Subject: batch ${i}\r\n\r\nmessage ${i}\r\n.`,
    ]).flat();
    // 41 commands on one connection with a budget of 20: each message's 250 starts the count again.
    const r = await smtpDialogue(s.server.smtpPort, ['EHLO batch', ...batch, 'QUIT']);
    assert.equal(r.filter((l) => /^250 .*(queued|accepted|stored|Ok)/i.test(l) || /^250 2\.0\.0/.test(l)).length >= 10, true, r.join('\n'));
    assert.ok(!r.some((l) => l.startsWith('421')), r.join('\n'));
    const list = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages`), 200);
    assert.equal(list.items.length, 10);
  });

  test('within the limits a session works as before', async () => {
    const r = await smtpDialogue(s.server.smtpPort, ['EHLO x', 'NOOP', 'RSET', 'QUIT']);
    assert.ok(
      r.some((l) => l.startsWith('221')),
      r.join('\n'),
    );
  });
});
