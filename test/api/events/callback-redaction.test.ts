// Callback URLs may carry credentials (userinfo, ?token=…): only admin keys that are not read-only see them in
// full; member and read-only keys see them redacted in every answer — inbox get/list/create, the delivery log, MCP.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { HoldingReceiver } from '../../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let rx: HoldingReceiver;
let member: string;
let readOnlyAdmin: string;

const SECRETS = ['hunter2', 's3cr3t-token', 'sig-value-42', 'api-key-value'];
const assertRedacted = (what: unknown, where: string) => {
  const text = JSON.stringify(what);
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} shows ${secret}: ${text}`);
  assert.match(text, /REDACTED/, where);
};

before(async () => {
  rx = new HoldingReceiver(false);
  await rx.start();
  s = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks']);
  member = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'm', role: 'member' } }), 201)).key;
  readOnlyAdmin = (
    await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'ro', role: 'admin', scope: { readOnly: true } } }), 201)
  ).key;
});
after(async () => {
  await s.stop();
  await rx.stop();
});

describe('callback URL credentials', () => {
  test('admins see the URL in full; member and read-only keys see it redacted everywhere', async () => {
    const callbackUrl = `${rx.url.replace('http://', 'http://bob:hunter2@')}/hook?token=s3cr3t-token&sig=sig-value-42&api_key=api-key-value&page=2`;
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'red', callbackUrl } }), 201);
    assert.equal(inbox.callbackUrl, callbackUrl, 'the admin who set it sees it');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}`))).callbackUrl, callbackUrl);

    await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'hello', text: 'code 123456' });
    await rx.waitFor(1);
    let attempts: Json;
    do attempts = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/callbacks`));
    while (attempts.items.length === 0);
    assert.equal(attempts.items[0].url, callbackUrl);

    for (const [name, key] of [
      ['member', member],
      ['read-only admin', readOnlyAdmin],
    ] as const) {
      const got = await json(await s.api(`/v1/inboxes/${inbox.inboxId}`, { key }));
      assertRedacted(got, `${name} GET inbox`);
      assert.equal(
        got.callbackUrl,
        `${rx.url.replace('http://', 'http://REDACTED@')}/hook?token=REDACTED&sig=REDACTED&api_key=REDACTED&page=2`,
      );
      assertRedacted(await json(await s.api('/v1/inboxes?label=red', { key })), `${name} list`);
      assertRedacted(await json(await s.api(`/v1/inboxes/${inbox.inboxId}/callbacks`, { key })), `${name} callbacks`);

      const client = await mcpClient(s.url, key);
      try {
        for (const tool of ['svc_get_inbox', 'svc_check_email', 'svc_diagnose_inbox']) {
          const r = await client.callTool({ name: tool, arguments: { inboxId: inbox.inboxId } });
          assert.notEqual(r.isError, true, JSON.stringify(r));
          assertRedacted(r, `${name} MCP ${tool}`);
        }
      } finally {
        await client.close();
      }
    }

    // A member creating an inbox gets the same redacted view back (one rule for every answer).
    const own = await json(await s.api('/v1/inboxes', { method: 'POST', key: member, json: { callbackUrl } }), 201);
    assertRedacted(own.callbackUrl, 'member create');
  });
});
