// `inboxd faults set|list|clear|timeline` for shell steps: a rule from flags or JSON, its effect on SMTP, the timeline,
// usage errors (exit 2) and refusals by the server.
// not @cluster: drives the CLI against one server URL; rules.test.ts covers rules set on two instances
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FAULTS_FLAGS } from '../../../src/client/faults.ts';
import { runCli } from '../../helpers/cli.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { smtpDialogue } from '../../helpers/smtp.ts';

let s: TestServer;
const cli = (args: string[]) => runCli(['faults', ...args], { env: { INBOXD_URL: s.url, INBOXD_KEY: s.key }, timeoutMs: 30_000 });
const rcpt = async (address: string) => {
  const lines = await smtpDialogue(s.server.smtpPort, ['EHLO t.example', 'MAIL FROM:<app@sender.example>', `RCPT TO:<${address}>`]);
  return lines.filter((l) => l[3] === ' ')[3] ?? '';
};

before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

test('set from flags, the SMTP effect, list, timeline, clear', async () => {
  const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'cli-1' } }), 201);
  const set = await cli(['set', '--inbox', box.address, '--reply', '451', '--enhanced', '4.7.1', '--text', 'try later', '--first', '1']);
  assert.equal(set.code, 0, set.stderr);
  const rules = (JSON.parse(set.stdout) as Json).rules;
  assert.deepEqual(rules[0].action, { type: 'reply', code: 451, enhanced: '4.7.1', text: 'try later' });
  assert.deepEqual(rules[0].mode, { type: 'first', n: 1 });
  assert.equal(await rcpt(box.address), '451 4.7.1 try later');
  assert.match(await rcpt(box.address), /^250 /);
  const list = await cli(['list', '--inbox', box.inboxId]);
  assert.equal((JSON.parse(list.stdout) as Json).items[0].fired, 1);
  const tl = await cli(['timeline', box.address]);
  assert.equal(tl.code, 0, tl.stderr);
  const items = (JSON.parse(tl.stdout) as Json).items as Json[];
  assert.deepEqual(
    items.map((i) => i.fault?.code),
    [451],
  );
  const clear = await cli(['clear', '--inbox', box.address]);
  assert.deepEqual(JSON.parse(clear.stdout), { deleted: 1 });
});

test('set from JSON for a label prefix, and a rate limit from flags', async () => {
  const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'cli-json-1' } }), 201);
  const r = await cli(['set', '--label-prefix', 'cli-json-', '--rules', '[{"stage":"rcpt","action":{"type":"reply","code":550}}]']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(await rcpt(box.address), /^550 /);
  const rl = await cli(['set', '--label-prefix', 'cli-json-', '--rate-limit', '1/60']);
  assert.equal(rl.code, 0, rl.stderr);
  assert.match(await rcpt(box.address), /^250 /);
  assert.match(await rcpt(box.address), /^421 4\.7\.0 rate limit/);
  assert.equal((await cli(['clear', '--label-prefix', 'cli-json-'])).code, 0);
});

test('usage errors exit 2, the server refusing the rules exits 2 with its reason, --help lists every flag', async () => {
  const none = await cli(['set']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /give the rules one way/);
  const two = await cli(['set', '--reply', '451', '--disconnect']);
  assert.equal(two.code, 2);
  assert.match((await cli(['explode'])).stderr, /unknown subcommand 'explode'/);
  const bad = await cli(['set', '--delay', '999999']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /30000/);
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  for (const flag of Object.keys(FAULTS_FLAGS)) assert.match(help.stdout, new RegExp(`^  ${flag}( |$)`, 'm'), flag);
  const top = await runCli(['--help']);
  assert.match(top.stdout, /inboxd faults set\|list\|clear\|timeline/);
});
