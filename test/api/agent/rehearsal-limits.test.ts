// The rehearsal signup page is open without a key: wrong codes are limited per signup (then it is locked) and
// per client address, and so are signups (each one mails an inbox).
// not @cluster: counts on one instance; across instances: test/api/auth/cluster-limits.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IP_LIMITS, MAX_WRONG_CODES } from '../../../src/agent/rehearsal.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

const form = (path: string, fields: Record<string, string>) =>
  fetch(s.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

async function signup(address: string): Promise<string> {
  const html = await (await form('/v1/agent/test/signup', { email: address })).text();
  return /name="session" value="([^"]+)"/.exec(html)![1]!;
}

/** The code mailed to the inbox: the newest message's extracted OTP. */
async function mailedCode(inboxId: string): Promise<string> {
  const r = await s.api('/v1/agent/verify', { method: 'POST', json: { inboxId, timeoutSeconds: 5 } });
  const body = (await r.json()) as { verification: { otp: string } };
  return body.verification.otp;
}

describe('rehearsal page limits', () => {
  test(`a signup is locked after ${MAX_WRONG_CODES} wrong codes, even for the right code; then the client address is limited`, async () => {
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as { inboxId: string; address: string };
    const session = await signup(inbox.address);
    const code = await mailedCode(inbox.inboxId);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i < MAX_WRONG_CODES; i++)
      assert.match(await (await form('/v1/agent/test/confirm', { session, code: wrong })).text(), /is not the code we sent/);
    const locking = await form('/v1/agent/test/confirm', { session, code: wrong });
    assert.equal(locking.headers.get('x-inboxd-result'), '423');
    assert.match(await locking.text(), /locked after 5 wrong codes/);
    const right = await (await form('/v1/agent/test/confirm', { session, code })).text();
    assert.match(right, /locked after 5 wrong codes/);
    assert.doesNotMatch(right, /data-result="verified"/);

    // Guessing across sessions: the client address runs out of wrong attempts (tries on a locked one count too).
    let used = MAX_WRONG_CODES + 1;
    while (used < IP_LIMITS.wrong) {
      const r = await form('/v1/agent/test/confirm', { session: `nosuchsession${used}`, code: wrong });
      assert.equal(r.status, 200);
      used++;
    }
    const limited = await form('/v1/agent/test/confirm', { session, code });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.match(((await limited.json()) as { detail: string }).detail, /too many wrong rehearsal codes/);
    assert.equal((await fetch(`${s.url}/v1/agent/test/magic?session=x&token=y`)).status, 429);
  });

  test('signups per client address are limited (each one mails an inbox)', async () => {
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as { address: string };
    for (let i = 1; i < IP_LIMITS.signup; i++) assert.equal((await form('/v1/agent/test/signup', { email: inbox.address })).status, 200);
    const r = await form('/v1/agent/test/signup', { email: inbox.address });
    assert.equal(r.status, 429);
    assert.match(((await r.json()) as { detail: string }).detail, /too many rehearsal signups/);
  });
});
