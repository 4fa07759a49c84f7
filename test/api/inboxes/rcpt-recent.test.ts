// On PostgreSQL the RCPT check is a round trip, so an address whose inbox it saw lately is welcomed without one when no
// per-inbox limit applies (src/inboxes/recent.ts). What must still hold: a deletion on this instance is seen at once,
// and mail to a deleted inbox's address meets the unclaimed limits at RCPT again.
// not @cluster: one instance on its own PostgreSQL (another instance sees a deletion within the documented 2 s)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { type PgServer, postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail, smtpDialogue } from '../../helpers/smtp.ts';

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
const skip = missing ?? false;

let pg: PgServer;
let s: TestServer;
before(async () => {
  if (skip) return;
  pg = await startPostgres();
  s = await startTestServer(['--max-unclaimed-per-address', '1'], {}, { database: await pg.createDatabase('rcpt') });
});
after(async () => {
  await s?.stop();
  await pg?.stop();
});

const rcpt = async (to: string) =>
  (await smtpDialogue(s.server.smtpPort, ['EHLO t', 'MAIL FROM:<a@example.com>', `RCPT TO:<${to}>`, 'QUIT'])).at(-2)!;

test('a deleted inbox is forgotten at once: its address meets the unclaimed limit at RCPT', { skip }, async () => {
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  for (let i = 0; i < 3; i++) await sendMail(s.server.smtpPort, { to: inbox.address, subject: `m${i}`, text: 'x' });
  assert.match(await rcpt(inbox.address), /^250 /, 'the inbox takes its mail');
  assert.equal((await s.api(`/v1/inboxes/${inbox.inboxId}`, { method: 'DELETE' })).status, 200);
  // No inbox now: the mail is kept unclaimed, one message per address at most.
  await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'unclaimed', text: 'x' });
  assert.match(await rcpt(inbox.address), /^452 4\.2\.2 too much unclaimed mail/);
});
