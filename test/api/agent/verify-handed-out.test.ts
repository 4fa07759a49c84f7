// A second verify on an inbox whose code was already handed out (issue 27): it still waits for newer mail (CONTRACT
// §4: a resent code must not be missed), but says at once (a `handed_out` stream event) and in its timeout answer that
// the mail did arrive and was handed out, and how to get it again (`since`) — not "no mail reached the address".
// The REST answer and the MCP tools answer the same.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const verify = (body: Json) => s.api('/v1/agent/verify', { method: 'POST', json: body });

async function inboxWithHandedOutCode(code: string): Promise<{ inboxId: string; address: string; messageId: string }> {
  const r = await json(await verify({ service: 'github' }));
  await sendMail(s.server.smtpPort, {
    from: 'GitHub <noreply@github.com>',
    to: r.email.address,
    subject: '[GitHub] Please verify your device',
    text: `Verification code: ${code}\n`,
  });
  const first = await json(await verify({ service: 'github', inboxId: r.email.inboxId, timeoutSeconds: 10 }));
  assert.equal(first.verification.otp, code);
  return { ...r.email, messageId: first.message.messageId };
}

test('REST: the timeout answer says the code was handed out and how to get it again', async () => {
  const box = await inboxWithHandedOutCode('481516');
  const again = await json(await verify({ inboxId: box.inboxId, timeoutSeconds: 1 }));
  assert.equal(again.status, 'timeout');
  assert.equal(again.alreadyHandedOut.messageId, box.messageId);
  assert.match(again.alreadyHandedOut.since, /^\d{4}-\d\d-\d\dT/);
  const text = again.agent.primaryAction.instruction as string;
  assert.doesNotMatch(text, /^No mail reached/);
  assert.match(text, /already handed out/);
  assert.ok(text.includes(box.messageId), text);
  assert.ok(text.includes(`since: "${again.alreadyHandedOut.since}"`), text);
  // The hint works: with that since, the same code is handed out again, at once.
  const t0 = Date.now();
  const back = await json(await verify({ inboxId: box.inboxId, timeoutSeconds: 10, since: again.alreadyHandedOut.since }));
  assert.equal(back.status, 'verified');
  assert.equal(back.verification.otp, '481516');
  assert.ok(Date.now() - t0 < 3000);
});

test('REST stream: the handed_out event comes at once, before the wait ends', async () => {
  const box = await inboxWithHandedOutCode('271828');
  const t0 = Date.now();
  const res = await s.api('/v1/agent/verify', {
    method: 'POST',
    json: { inboxId: box.inboxId, timeoutSeconds: 3 },
    headers: { accept: 'text/event-stream' },
  });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('event: handed_out')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  const early = Date.now() - t0;
  await reader.cancel();
  assert.ok(text.includes('event: handed_out'), text);
  assert.ok(early < 2000, `the event came after ${early} ms`);
  const data = JSON.parse(/event: handed_out\ndata: (.*)\n/.exec(text)![1]!);
  assert.equal(data.messageId, box.messageId);
});

test('MCP: svc_wait_and_extract and svc_verify_signup answer the same', async () => {
  const box = await inboxWithHandedOutCode('314159');
  const c = await mcpClient(s.url, s.key);
  try {
    for (const tool of ['svc_wait_and_extract', 'svc_verify_signup']) {
      const r = await callOk(c, tool, { inboxId: box.inboxId, timeoutSeconds: 1 });
      assert.equal(r.status, 'timeout', tool);
      assert.equal(r.alreadyHandedOut.messageId, box.messageId, tool);
      assert.match(r.agent.primaryAction.instruction, /already handed out/, tool);
    }
  } finally {
    await c.close();
  }
});

test('an inbox that never got mail still says no mail reached it', async () => {
  const r = await json(await verify({ service: 'github' }));
  const again = await json(await verify({ inboxId: r.email.inboxId, timeoutSeconds: 1 }));
  assert.equal(again.status, 'timeout');
  assert.equal(again.alreadyHandedOut, undefined);
  assert.match(again.agent.primaryAction.instruction, /^No mail reached/);
});
