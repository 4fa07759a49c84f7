// POP3 per inbox (issue 29) over a raw dialogue: the maildrop is the inbox's received mail; another team's inbox, an
// inbox outside a key's label scope and an unknown key are refused alike; a read-only key reads but cannot delete;
// DELE takes effect at QUIT only, RSET undoes it.
// not @cluster: the listener runs on the first instance only and its sessions are that process's
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--pop3-port', '0']);
});
after(() => s?.stop());

/** Sends each command and reads its answer (multi-line answers up to the "." line). */
async function dialogue(cmds: string[]): Promise<string[]> {
  const sock = net.connect(s.server.pop3Port!, '127.0.0.1');
  sock.setEncoding('latin1');
  let buf = '';
  const waiters: Array<() => void> = [];
  sock.on('data', (d: string) => {
    buf += d;
    for (const w of waiters.splice(0)) w();
  });
  const read = async (multi: boolean): Promise<string> => {
    for (;;) {
      const end = multi && buf.startsWith('+OK') ? buf.indexOf('\r\n.\r\n') : buf.indexOf('\r\n');
      if (end >= 0) {
        const n = multi && buf.startsWith('+OK') ? end + 5 : end + 2;
        const out = buf.slice(0, n);
        buf = buf.slice(n);
        return out;
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const out = [await read(false)];
  for (const c of cmds) {
    sock.write(`${c}\r\n`);
    out.push(
      await read(/^(LIST|UIDL|RETR|TOP|CAPA)( \d+ \d+| \d+ \d+)?$|^(LIST|UIDL|CAPA)$|^(RETR|TOP) /.test(c) && !/^(LIST|UIDL) \d+$/.test(c)),
    );
  }
  sock.destroy();
  return out;
}

async function inboxWithMail(key = s.key, label?: string): Promise<{ inboxId: string; address: string }> {
  const inbox = (await json(await s.api('/v1/inboxes', { method: 'POST', json: label ? { label } : {}, key }), 201)) as {
    inboxId: string;
    address: string;
  };
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'one', text: 'first' });
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'two', text: 'second' });
  return inbox;
}

async function count(inboxId: string, key = s.key): Promise<number> {
  return ((await json(await s.api(`/v1/inboxes/${inboxId}/messages`, { key }))).items as unknown[]).length;
}

test('other teams, other scopes and unknown keys are refused alike', async () => {
  const other = await teamAdminKey(s, 'popother');
  const theirs = await inboxWithMail(other);
  const mine = await inboxWithMail(s.key, 'ci-b/1');
  const scoped = (await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label: 'scoped', scope: { labelPrefix: 'ci-a/' } } }),
    201,
  )) as { key: string };
  const answers = [];
  for (const [user, pass] of [
    [theirs.address, s.key],
    [mine.address, other],
    [mine.address, scoped.key],
    [mine.address, 'ibx_NotAKey000000000000000000000000'],
    ['nobody@inboxd.test', s.key],
  ])
    answers.push((await dialogue([`USER ${user}`, `PASS ${pass}`]))[2]);
  assert.equal(new Set(answers).size, 1, `one answer for every refusal: ${answers.join(' | ')}`);
  assert.match(answers[0]!, /^-ERR \[AUTH\] invalid credentials/);
  const ok = await dialogue([`USER ${theirs.address}`, `PASS ${other}`, 'STAT', 'QUIT']);
  assert.match(ok[3]!, /^\+OK 2 \d+/);
});

test('DELE takes effect at QUIT, RSET undoes it, and a read-only key cannot delete', async () => {
  const inbox = await inboxWithMail();
  const r = await dialogue([`USER ${inbox.address}`, `PASS ${s.key}`, 'DELE 1', 'STAT', 'RSET', 'STAT', 'DELE 2', 'LIST', 'QUIT']);
  assert.match(r[4]!, /^\+OK 1 /, 'a marked message leaves STAT');
  assert.match(r[6]!, /^\+OK 2 /, 'RSET unmarks');
  assert.match(r[8]!, /^\+OK 1 messages\r\n1 \d+\r\n\.\r\n$/);
  assert.match(r[9]!, /^\+OK 1 messages deleted/);
  assert.equal(await count(inbox.inboxId), 1);
  const ro = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', scope: { readOnly: true } } }), 201)) as {
    key: string;
  };
  const r2 = await dialogue([`USER ${inbox.address}`, `PASS ${ro.key}`, 'RETR 1', 'DELE 1', 'QUIT']);
  assert.match(r2[3]!, /^\+OK \d+ octets\r\n[\s\S]*Subject: /);
  assert.match(r2[4]!, /^-ERR this key is read-only/);
  assert.equal(await count(inbox.inboxId), 1);
});

test('an access token (OAuth client_credentials) logs in like its key; a token of a scoped key keeps the scope', async () => {
  const inbox = await inboxWithMail(s.key, 'ci-a/7');
  const tokenOf = async (key: string) =>
    (
      (await json(
        await s.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', client_secret: key } }),
      )) as { access_token: string }
    ).access_token;
  const ok = await dialogue([`USER ${inbox.address}`, `PASS ${await tokenOf(s.key)}`, 'STAT', 'QUIT']);
  assert.match(ok[2]!, /^\+OK .* has 2 messages/);
  const other = (await json(
    await s.api('/v1/team/keys', { method: 'POST', json: { label: 'scoped-b', scope: { labelPrefix: 'ci-b/' } } }),
    201,
  )) as { key: string };
  const refused = await dialogue([`USER ${inbox.address}`, `PASS ${await tokenOf(other.key)}`]);
  assert.match(refused[2]!, /^-ERR \[AUTH\]/);
});
