// Verify, open, extract, simulate, recipes, the agent hub, the rehearsal page and the self-test — over real HTTP,
// with real SMTP mail (nodemailer) and with simulated mail.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});
const post = (path: string, body: Json) => s.api(path, { method: 'POST', json: body });
const githubCode = (to: string, code: string) =>
  sendMail(s.server.smtpPort, {
    from: 'GitHub <noreply@github.com>',
    to,
    subject: `[GitHub] Please verify your device`,
    text: `Hey there!\n\nVerification code: ${code}\n\nIf you did not attempt to sign in, change your password. Sent from 192.0.2.14 on 2026-04-01 at 10:30.\n`,
  });

describe('POST /v1/agent/verify', () => {
  test('rule 1: only service → a fresh inbox and the address to type (use_address)', async () => {
    const r = await json(await post('/v1/agent/verify', { service: 'github' }));
    assert.equal(r.status, 'awaiting_message');
    assert.match(r.email.address, /@inboxd\.test$/);
    assert.match(r.email.inboxId, /^inb_/);
    assert.equal(r.agent.primaryAction.type, 'use_address');
    assert.equal(r.agent.primaryAction.value, r.email.address);
    assert.match(r.agent.primaryAction.instruction, /GitHub/);
    assert.equal(r.hasRaw, false);
  });

  test('rule 2: with inboxId it waits for real SMTP mail and returns the code as the primary action', async () => {
    const r1 = await json(await post('/v1/agent/verify', { service: 'github' }));
    const pending = post('/v1/agent/verify', { service: 'github', inboxId: r1.email.inboxId, timeoutSeconds: 10 });
    await new Promise((r) => setTimeout(r, 150));
    await githubCode(r1.email.address, '730481');
    const r = await json(await pending);
    assert.equal(r.status, 'verified');
    assert.equal(r.verification.otp, '730481');
    assert.deepEqual(r.agent.primaryAction.type, 'otp');
    assert.equal(r.agent.primaryAction.value, '730481');
    assert.match(r.agent.primaryAction.instruction, /730481/);
    assert.equal(r.hasRaw, true);
    assert.equal(r.hasAttachments, false);
    assert.equal(r.attachmentCount, 0);
    const raw = await s.api(new URL(r.rawUrl).pathname);
    assert.equal(raw.status, 200);
    assert.match(await raw.text(), /730481/);
    assert.equal(r.deleted, false);
  });

  test('rule 3: create and wait in one call; deleteAfter removes the inbox after answering', async () => {
    const pending = post('/v1/agent/verify', { service: 'github', timeoutSeconds: 10, localPart: 'one-call', deleteAfter: true });
    await new Promise((r) => setTimeout(r, 150));
    await githubCode('one-call@inboxd.test', '118822');
    const r = await json(await pending);
    assert.equal(r.status, 'verified');
    assert.equal(r.verification.otp, '118822');
    assert.equal(r.deleted, true);
    assert.equal((await s.api(`/v1/inboxes/${r.email.inboxId}`)).status, 404);
  });

  test('rule 3 streamed: inbox event at once, progress events, then the result', async () => {
    const res = await s.api('/v1/agent/verify', {
      method: 'POST',
      json: { service: 'slack', timeoutSeconds: 10 },
      headers: { accept: 'text/event-stream' },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    const events: Array<{ event: string; data: Json }> = [];
    let sent = false;
    while (!events.some((e) => e.event === 'result')) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Json;
        events.push({ event, data });
        if (event === 'inbox' && !sent) {
          sent = true;
          await new Promise((r) => setTimeout(r, 1200)); // let a progress tick pass
          await sim(data.inboxId, { scenario: 'magic_link', service: 'slack' });
        }
      }
    }
    assert.equal(events[0]!.event, 'inbox');
    assert.match(events[0]!.data.address, /@inboxd\.test$/);
    assert.ok(events.some((e) => e.event === 'progress' && e.data.timeoutSeconds === 10));
    const result = events.at(-1)!;
    assert.equal(result.event, 'result');
    assert.equal(result.data.status, 'verified');
    assert.equal(result.data.agent.primaryAction.type, 'link');
  });

  test('timeout → status timeout with a retry action; never 408', async () => {
    const r1 = await json(await post('/v1/agent/verify', { service: 'github' }));
    const r = await json(await post('/v1/agent/verify', { inboxId: r1.email.inboxId, timeoutSeconds: 1 }));
    assert.equal(r.status, 'timeout');
    assert.equal(r.agent.primaryAction.type, 'retry');
    assert.equal(r.agent.primaryAction.value, r1.email.inboxId);
  });

  test('mail without a code or link → received, manual with the rawUrl; deleteAfter keeps that inbox', async () => {
    const r1 = await json(await post('/v1/agent/verify', { service: 'github' }));
    await sim(r1.email.inboxId, { scenario: 'welcome', service: 'github' });
    const r = await json(await post('/v1/agent/verify', { inboxId: r1.email.inboxId, timeoutSeconds: 5, deleteAfter: true }));
    assert.equal(r.status, 'received');
    assert.equal(r.agent.primaryAction.type, 'manual');
    assert.equal(r.agent.primaryAction.value, r.rawUrl);
    assert.equal(r.deleted, false);
    assert.equal((await s.api(new URL(r.rawUrl).pathname)).status, 200);
  });

  test('runId sets the label agent-{runId}, listable by label', async () => {
    const r = await json(await post('/v1/agent/verify', { service: 'notion', runId: 'build-77' }));
    const list = await json(await s.api('/v1/inboxes?label=agent-build-77'));
    assert.deepEqual(
      list.items.map((i: Json) => i.inboxId),
      [r.email.inboxId],
    );
  });

  test('bad input: unknown service lists the valid names; timeoutSeconds 0, 121, "abc"; nothing to do; deleted inbox → 404', async () => {
    const unknown = await json(await post('/v1/agent/verify', { service: 'myspace' }), 400);
    assert.match(unknown.detail, /github, google, microsoft/);
    for (const t of [0, 121, 'abc', 1.5])
      assert.equal(
        (await json(await post('/v1/agent/verify', { service: 'github', timeoutSeconds: t }), 400)).errors[0].path,
        'timeoutSeconds',
      );
    assert.equal((await json(await post('/v1/agent/verify', {}), 400)).code, 'validation_failed');
    const r1 = await json(await post('/v1/agent/verify', { service: 'github' }));
    await s.api(`/v1/inboxes/${r1.email.inboxId}`, { method: 'DELETE' });
    assert.equal((await json(await post('/v1/agent/verify', { inboxId: r1.email.inboxId, timeoutSeconds: 1 }), 404)).code, 'not_found');
    assert.equal((await json(await post('/v1/agent/verify', { inboxId: r1.email.inboxId, label: 'x' }), 400)).code, 'validation_failed');
  });
});

async function sim(inboxId: string, body: Json): Promise<Json> {
  return json(await post(`/v1/inboxes/${inboxId}/simulate`, body), 201);
}

describe('POST /v1/inboxes/open', () => {
  test('mail sent before the call (unclaimed) is claimed, and with since (the form was sent then) extracted, and the inbox deleted', async () => {
    const formSubmittedAt = new Date(Date.now() - 1000).toISOString();
    await githubCode('signup-42@inboxd.test', '552907');
    const r = await json(
      await post('/v1/inboxes/open', {
        service: 'github',
        localPart: 'signup-42',
        timeoutSeconds: 5,
        expectFrom: 'github.com',
        since: formSubmittedAt,
      }),
    );
    assert.equal(r.status, 'verified');
    assert.equal(r.verification.otp, '552907');
    assert.equal(r.deleted, true);
    assert.equal((await s.api(`/v1/inboxes/${r.email.inboxId}`)).status, 404);
  });

  test('mail planted for an address just before its inbox exists is claimed but not handed out by open, verify or wait-and-extract', async () => {
    // Someone who guessed the address sends a fake code a moment before the inbox is created.
    await githubCode('planted-1@inboxd.test', '111111');
    await new Promise((r) => setTimeout(r, 5));
    const opened = await json(
      await post('/v1/inboxes/open', { service: 'github', localPart: 'planted-1', timeoutSeconds: 1, deleteAfter: false }),
    );
    assert.equal(opened.status, 'timeout', JSON.stringify(opened.verification));
    const inboxId = opened.email.inboxId;
    assert.equal((await json(await post('/v1/agent/verify', { inboxId, timeoutSeconds: 1 }))).status, 'timeout');
    const c = await mcpClient(s.url, s.key);
    try {
      assert.equal((await callOk(c, 'svc_wait_and_extract', { inboxId, timeoutSeconds: 1 })).status, 'timeout');
    } finally {
      await c.close();
    }
    // The planted message is in the inbox for anyone who reads it, marked by its time.
    const listed = await json(await s.api(`/v1/inboxes/${inboxId}/messages`));
    assert.equal(listed.items.length, 1);
    // The real mail, sent after the inbox was made, is the one handed out.
    const pending = post('/v1/agent/verify', { inboxId, timeoutSeconds: 10 });
    await new Promise((r) => setTimeout(r, 150));
    await githubCode('planted-1@inboxd.test', '222222');
    assert.equal((await json(await pending)).verification.otp, '222222');
  });

  test('with a callbackUrl the inbox it creates returns its callbackSecret once', async () => {
    const t = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks']);
    try {
      const pending = t.api('/v1/inboxes/open', {
        method: 'POST',
        json: { localPart: 'with-hook', callbackUrl: 'http://127.0.0.1:9/hook', timeoutSeconds: 5 },
      });
      await new Promise((r) => setTimeout(r, 150));
      await sendMail(t.server.smtpPort, { to: 'with-hook@inboxd.test', subject: 'Your code', text: 'Your verification code is 771234.' });
      const r = await json(await pending);
      assert.equal(r.verification.otp, '771234');
      assert.match(r.callbackSecret, /^whsec_/);
    } finally {
      await t.stop();
    }
  });

  test('subjectContains filters; deleteAfter false keeps the inbox; timeout is a status', async () => {
    const pending = post('/v1/inboxes/open', {
      localPart: 'open-filter',
      subjectContains: 'sign in',
      timeoutSeconds: 10,
      deleteAfter: false,
      label: 'qa-run',
    });
    await new Promise((r) => setTimeout(r, 150));
    await sendMail(s.server.smtpPort, { to: 'open-filter@inboxd.test', subject: 'Newsletter', text: 'Code 123456 for nothing' });
    await sendMail(s.server.smtpPort, {
      to: 'open-filter@inboxd.test',
      subject: 'Your sign in code',
      text: 'Your verification code is 246810.',
    });
    const r = await json(await pending);
    assert.equal(r.verification.otp, '246810');
    assert.equal(r.deleted, false);
    const t = await json(await post('/v1/inboxes/open', { timeoutSeconds: 1 }));
    assert.equal(t.status, 'timeout');
    // A timed-out open keeps its inbox (even with deleteAfter) so the retry action's inboxId works (CONTRACT §4).
    assert.equal(t.deleted, false);
    assert.equal((await s.api(`/v1/inboxes/${t.email.inboxId}`)).status, 200);
    assert.equal((await json(await post('/v1/inboxes/open', { timeoutSeconds: 121 }), 400)).code, 'validation_failed');
  });
});

describe('simulate, extract, presets', () => {
  test('every scenario goes through ingest and extracts as expected', async () => {
    const inbox = await json(await post('/v1/inboxes', {}), 201);
    const cases: Array<[string, string]> = [
      ['otp', 'otp'],
      ['magic_link', 'link'],
      ['otp_and_link', 'otp'],
      ['welcome', 'manual'],
      ['attachment_only', 'manual'],
    ];
    for (const [scenario, type] of cases) {
      for (const service of ['github', 'atlassian', 'x', undefined]) {
        const d = await sim(inbox.inboxId, { scenario, ...(service ? { service } : {}) });
        const x = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract?messageId=${d.messageId}`));
        assert.equal(x.agent.primaryAction.type, type, `${scenario}/${service}`);
        assert.equal(x.verification.otp, d.expected.otp, `${scenario}/${service}`);
        assert.equal(x.verification.primaryLink, d.expected.primaryLink, `${scenario}/${service}`);
        if (scenario === 'attachment_only') assert.equal(x.hasAttachments, true);
      }
    }
    const custom = await sim(inbox.inboxId, {
      scenario: 'custom',
      from: 'QA <qa@example.com>',
      subject: 'Your PIN',
      text: 'Your PIN is 4821.',
    });
    const latest = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract`));
    assert.equal(latest.message.messageId, custom.messageId);
    assert.equal(latest.verification.otp, '4821');
  });

  test('simulate and extract errors', async () => {
    const inbox = await json(await post('/v1/inboxes', {}), 201);
    assert.equal((await json(await post(`/v1/inboxes/${inbox.inboxId}/simulate`, { scenario: 'custom' }), 400)).code, 'validation_failed');
    assert.match((await json(await post(`/v1/inboxes/${inbox.inboxId}/simulate`, { scenario: 'phishing' }), 400)).detail, /magic_link/);
    assert.equal((await json(await post('/v1/inboxes/inb_nope/simulate', {}), 404)).code, 'not_found');
    const empty = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract`));
    assert.equal(empty.status, 'awaiting_message');
    assert.equal((await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract?messageId=msg_nope`), 404)).code, 'not_found');
    const presets = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract/presets`));
    assert.deepEqual(
      presets.items.map((p: Json) => p.preset),
      ['2fa', 'invoice', 'receipt'],
    );
  });
});

describe('recipes and the hub', () => {
  test('25 recipes; one by name; unknown → 400 listing names', async () => {
    const all = await json(await s.api('/v1/agent/recipes'));
    assert.equal(all.items.length, 25);
    for (const r of all.items) assert.ok(r.steps.length >= 2 && r.senderDomains.length >= 1, r.service);
    const gh = await json(await s.api('/v1/agent/recipes/github'));
    assert.equal(gh.displayName, 'GitHub');
    assert.match((await json(await s.api('/v1/agent/recipes/friendster'), 400)).detail, /github/);
  });

  test('GET /v1/agent is open and names testUrl and autotestUrl', async () => {
    const hub = await json(await s.api('/v1/agent', { key: null }));
    assert.equal(hub.services.length, 25);
    assert.ok(hub.testUrl.endsWith('/v1/agent/test'));
    assert.ok(hub.autotestUrl.endsWith('/v1/agent/autotest'));
    assert.deepEqual(hub.verify.actionTypes, ['use_address', 'otp', 'link', 'manual', 'retry']);
  });

  test('the self-test passes', async () => {
    const r = await json(await s.api('/v1/agent/autotest'));
    assert.equal(r.pass, true, JSON.stringify(r.steps));
    assert.ok(r.steps.length >= 4);
  });
});

describe('rehearsal page (testUrl)', () => {
  const form = (path: string, fields: Record<string, string>) =>
    fetch(s.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  test('sign up with an inbox address, read the mailed code, type it back; the magic link works too', async () => {
    const page = await fetch(`${s.url}/v1/agent/test`);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /name="email"/);
    const v = await json(await post('/v1/agent/verify', { service: 'github' }));
    const signup = await form('/v1/agent/test/signup', { email: v.email.address });
    const html = await signup.text();
    const session = /name="session" value="([^"]+)"/.exec(html)![1]!;
    const r = await json(await post('/v1/agent/verify', { inboxId: v.email.inboxId, timeoutSeconds: 5 }));
    assert.equal(r.status, 'verified');
    assert.match(r.verification.primaryLink, /\/v1\/agent\/test\/magic\?session=/);
    const wrong = await (
      await form('/v1/agent/test/confirm', { session, code: '000000' === r.verification.otp ? '111111' : '000000' })
    ).text();
    assert.match(wrong, /is not the code we sent/);
    const ok = await (await form('/v1/agent/test/confirm', { session, code: r.verification.otp })).text();
    assert.match(ok, /data-result="verified"/);
    const magic = await (await fetch(r.verification.primaryLink.replace(/^http:\/\/localhost/, 'http://127.0.0.1'))).text();
    assert.match(magic, /data-result="verified"/);
    // An address nobody has gets the very same page as an inbox's (the open page does not tell which exist).
    const same = (page: string, address: string) => page.replace(/value="[0-9a-f]+"/, 'value="S"').replace(address, 'A');
    const unknown = await (await form('/v1/agent/test/signup', { email: 'nobody@example.com' })).text();
    assert.equal(same(unknown, 'nobody@example.com'), same(html, v.email.address));
    const forged = await (await fetch(`${s.url}/v1/agent/test/magic?session=${session}&token=forged`)).text();
    assert.match(forged, /data-result="failed"/);
  });
});
