// The console's agent views (issue 32 part B) from the built executable in Debian's chromium: an agent run followed
// from start to succeeded with its live timeline (mail received and code extracted appear while the page is open,
// and link to the message); a workspace draft reviewed (each rule's verdict) and approved after an admin set the
// mode, with the send observed on a recording SMTP relay; a read-only key sees every action disabled with the reason
// and a label-scoped key sees only its prefix's runs and today items.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, browserSuite, chromiumMissing } from '../helpers/console.ts';
import { sendMail } from '../helpers/smtp.ts';

const missing = chromiumMissing();

describe('console: agent runs and the workspace', { skip: missing ?? false }, () => {
  const suite = browserSuite((relay) => ['--smtp-relay', relay.url, '--smtp-relay-tls-insecure']);

  async function open(key = ADMIN_KEY, hash = '#/'): Promise<Page> {
    const page = await suite.open(key);
    await page.evaluate((h) => (location.hash = h), hash);
    return page;
  }

  const as = async <T = any>(key: string, p: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const res = await fetch(suite.server.base + p, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : null,
    });
    const text = await res.text();
    assert.ok(res.ok, `${init.method ?? 'GET'} ${p} → ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const mint = async (body: unknown): Promise<string> => (await suite.server.api('/v1/team/keys', { method: 'POST', body })).key;

  test('an agent run is followed from start to succeeded; its timeline fills live and links to the message', async () => {
    const run = await suite.server.api('/v1/agent/runs', { method: 'POST', body: { goal: 'Sign up to Acme', services: ['Acme'] } });
    const page = await open(ADMIN_KEY, '#/runs');
    const row = await page.waitForSelector(`tr[data-run-id="${run.runId}"]`);
    assert.match((await row.textContent()) ?? '', /active.*Sign up to Acme.*Acme.*0 \/ 4/s);
    await page.click(`tr[data-run-id="${run.runId}"] a`);
    await page.waitForSelector('#run-title');
    await page.waitForSelector('.timeline [data-type="run.started"]');

    const report = (stepId: string, note?: string) =>
      suite.server.api(`/v1/agent/runs/${run.runId}/report`, {
        method: 'POST',
        body: { stepId, outcome: 'done', ...(note ? { note } : {}) },
      });
    const next = () => suite.server.api(`/v1/agent/runs/${run.runId}/next`, { method: 'POST' });
    const first = await next();
    assert.equal(first.step.kind, 'get_address');
    const address: string = first.service.address;
    await page.waitForSelector('.timeline [data-type="inbox.created"]');
    await report(first.step.stepId);
    await report((await next()).step.stepId, 'form submitted');
    const wait = await next();
    assert.equal(wait.step.kind, 'wait_for_mail');
    await page.waitForSelector('tr[data-step-id="1.submit_form"] [data-status="done"]');
    assert.match((await page.textContent('tr[data-step-id="1.submit_form"]')) ?? '', /form submitted/);

    // Mail arrives while the page is open: the timeline shows it without a reload.
    await sendMail(suite.server.smtpPort, {
      from: 'Acme <no-reply@acme.example>',
      to: address,
      subject: 'Your Acme code',
      text: 'Your verification code is 731904.',
    });
    const received = await page.waitForSelector('.timeline [data-type="message.received"]', { timeout: 15_000 });
    await page.waitForSelector('.timeline [data-type="code.extracted"]');
    assert.match((await received.textContent()) ?? '', /no-reply@acme\.example/);
    assert.doesNotMatch((await page.textContent('.timeline')) ?? '', /731904/, 'the timeline masks the code');
    const href = await received.$eval('a.to-message', (a) => a.getAttribute('href'));
    assert.match(href ?? '', new RegExp(`^#/inbox/${wait.service.inboxId}/m/msg_`));

    await report(wait.step.stepId);
    const use = await next();
    assert.equal(use.step.kind, 'use_verification');
    await report(use.step.stepId, 'code accepted');
    await page.waitForSelector('#run-title [data-status="succeeded"]', { timeout: 15_000 });
    await page.waitForSelector('.timeline [data-type="run.finished"]');
    const types = await page.$$eval('.timeline [data-type]', (els) => els.map((e) => e.getAttribute('data-type')));
    for (const t of ['run.started', 'inbox.created', 'step.started', 'message.received', 'code.extracted', 'step.done', 'run.finished'])
      assert.ok(types.includes(t), `timeline lacks ${t}: ${types.join(' ')}`);
    assert.equal(await page.locator('tr[data-step-id] [data-status="done"]').count(), 4);

    // The link opens the message in the inbox view, with its code.
    await page.click('.timeline [data-type="message.received"] a.to-message');
    await page.waitForSelector('#otp');
    assert.equal(await page.textContent('#otp'), '731904');
  });

  test('a draft is reviewed (each rule’s verdict) and approved under full_auto set by the admin: the relay gets the reply', async () => {
    const inbox = await suite.server.api('/v1/inboxes', { method: 'POST', body: { label: 'ws-e2e' } });
    await sendMail(suite.server.smtpPort, {
      from: 'Amy <amy@partner.example>',
      to: inbox.address,
      subject: 'Meeting',
      text: 'Can we meet on Tuesday?',
    });
    const got = await suite.server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    const messageId: string = got.messageId ?? got.message?.messageId;
    const draft = await suite.server.api('/v1/workspace/draft-reply', {
      method: 'POST',
      body: { inboxId: inbox.inboxId, messageId, engine: 'builtin', notes: ['Tuesday at 10 works for me'] },
    });
    assert.match(draft.draftId, /^drf_/);

    const page = await open(ADMIN_KEY, '#/workspace/policy');
    await page.waitForSelector('input[name="mode"][value="draft_only"]:checked');
    await page.check('input[name="mode"][value="full_auto"]');
    await page.click('#save-policy');
    await page.waitForSelector('#save-policy:disabled');
    assert.equal((await suite.server.api('/v1/workspace/policy')).mode, 'full_auto');

    await page.click('a[href="#/workspace"]');
    const item = await page.waitForSelector(`[data-today-id="${draft.draftId}"]`);
    assert.equal(await item.getAttribute('data-kind'), 'draft_awaiting_decision');
    await page.click(`[data-review="${draft.draftId}"]`);
    await page.waitForSelector(`.draft-review[data-draft-id="${draft.draftId}"] tr[data-rule]`);
    const rules = await page.$$eval(`.draft-review tr[data-rule]`, (rows) =>
      rows.map((r) => [r.getAttribute('data-rule'), r.getAttribute('data-passed')]),
    );
    assert.ok(rules.length >= 10, `every rule has a verdict: ${JSON.stringify(rules)}`);
    assert.deepEqual(Object.fromEntries(rules).not_role_or_noreply, 'true');
    assert.match((await page.textContent('.draft-review')) ?? '', /full_auto → sent/);

    page.once('dialog', (d) => void d.accept());
    await page.click(`[data-today-id="${draft.draftId}"] button[data-decision="approve"]`);
    await page.waitForSelector(`[data-decided="${draft.draftId}"]`);
    assert.match((await page.textContent(`[data-decided="${draft.draftId}"]`)) ?? '', /sent/);
    await suite.relay.whenReceived(1);
    assert.deepEqual(suite.relay.received[0]!.to, ['amy@partner.example']);
    assert.match(suite.relay.received[0]!.raw.toString(), /^Subject: Re: Meeting/m);
    // The decision is in the actions log.
    await page.click('a[href="#/workspace/actions"]');
    await page.waitForSelector('tr[data-type="sent"]');
    await suite.server.api('/v1/workspace/policy', { method: 'PUT', body: { mode: 'draft_only' } });
  });

  test('today: a reminder is snoozed and a conversation dismissed from the page; the reminders view follows', async () => {
    const inbox = await suite.server.api('/v1/inboxes', { method: 'POST', body: { label: 'today-e2e' } });
    await sendMail(suite.server.smtpPort, { from: 'cleo@partner.example', to: inbox.address, subject: 'Lunch?', text: 'Lunch on Friday?' });
    const got = await suite.server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    const reminder = await suite.server.api('/v1/workspace/reminders', {
      method: 'POST',
      body: { note: 'Call the venue', dueAt: new Date(Date.now() + 3600_000).toISOString() },
    });
    const page = await open(ADMIN_KEY, '#/workspace');
    await page.waitForSelector(`[data-today-id="${reminder.reminderId}"][data-kind="reminder_due"]`);
    await page.waitForSelector(`[data-today-id="${got.messageId}"][data-kind="awaiting_reply"]`);
    await page.selectOption(`[data-today-id="${reminder.reminderId}"] select`, 'week');
    await page.click(`[data-today-id="${reminder.reminderId}"] button[data-decision="snooze"]`);
    await page.waitForSelector(`[data-decided="${reminder.reminderId}"]`);
    assert.match((await page.textContent(`[data-decided="${reminder.reminderId}"]`)) ?? '', /snoozed/);
    await page.click(`[data-today-id="${got.messageId}"] button[data-decision="dismiss"]`);
    await page.waitForSelector(`[data-decided="${got.messageId}"]`);
    assert.match((await page.textContent(`[data-decided="${got.messageId}"]`)) ?? '', /dismissed/);
    await page.waitForSelector(`[data-today-id="${got.messageId}"]`, { state: 'detached' });
    await page.waitForSelector(`[data-today-id="${reminder.reminderId}"]`, { state: 'detached' });
    const snoozed = (await suite.server.api('/v1/workspace/reminders?status=snoozed')).items.find(
      (r: { reminderId: string }) => r.reminderId === reminder.reminderId,
    );
    assert.ok(Date.parse(snoozed.snoozedUntil) > Date.now() + 5 * 86_400_000, `snoozed until next week: ${snoozed.snoozedUntil}`);
    await page.click('a[href="#/workspace/reminders"]');
    await page.selectOption('#rem-status', 'snoozed');
    await page.waitForSelector(`tr[data-reminder-id="${reminder.reminderId}"]`);
  });

  test('a read-only key sees the actions disabled with the reason; a label-scoped key sees only its prefix', async () => {
    const inbox = await suite.server.api('/v1/inboxes', { method: 'POST', body: { label: 'ro-e2e' } });
    await sendMail(suite.server.smtpPort, { from: 'bob@partner.example', to: inbox.address, subject: 'Question', text: 'Are you coming?' });
    await suite.server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    const adminRun = await suite.server.api('/v1/agent/runs', { method: 'POST', body: { goal: 'admin run', services: ['github'] } });

    const readOnly = await mint({ label: 'ro', role: 'admin', scope: { readOnly: true } });
    const page = await open(readOnly, '#/workspace');
    await page.waitForSelector('[data-today-id]');
    const enabled = await page.$$eval('.today button[data-decision]', (bs) => bs.filter((b) => !(b as HTMLButtonElement).disabled).length);
    assert.equal(enabled, 0, 'no decision button is enabled for a read-only key');
    assert.match((await page.textContent('.today')) ?? '', /read-only/);
    await page.click('a[href="#/workspace/policy"]');
    await page.waitForSelector('.policy fieldset[disabled]');
    assert.match((await page.textContent('.policy .reason')) ?? '', /read-only/);
    await page.evaluate((id) => (location.hash = `#/runs/${id}`), adminRun.runId);
    const abandon = await page.waitForSelector('button:has-text("Mark abandoned")');
    assert.equal(await abandon.isDisabled(), true);

    const member = await mint({ label: 'member', role: 'member' });
    const pm = await open(member, '#/workspace/policy');
    await pm.waitForSelector('.policy fieldset[disabled]');
    assert.match((await pm.textContent('.policy .reason')) ?? '', /admin key/);

    const scoped = await mint({ label: 'scoped', role: 'member', scope: { labelPrefix: 'team-x-' } });
    const own = await as(scoped, '/v1/agent/runs', { method: 'POST', body: { goal: 'scoped run', services: ['github'] } });
    const ps = await open(scoped, '#/runs');
    await ps.waitForSelector(`tr[data-run-id="${own.runId}"]`);
    assert.equal(await ps.locator(`tr[data-run-id="${adminRun.runId}"]`).count(), 0);
    await ps.evaluate(() => (location.hash = '#/workspace'));
    await ps.waitForSelector('.today p.empty, .today [data-today-id]');
    assert.equal(await ps.locator(`[data-today-id]`).count(), 0, 'the admin label’s conversations are not shown');
  });
});
