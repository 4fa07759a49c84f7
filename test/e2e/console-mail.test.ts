// The console as a workbench (issue 32 part A), from the built executable in Debian's chromium: create an inbox,
// receive mail live, mark it read, delete a message, send, reply, simulate, clear and delete an inbox (confirmation
// where it destroys), release a message to a recording SMTP relay, the Checks tab's run-with-options, the Faults view,
// render-as-clients controls, "remember this key on this device", and what read-only and label-scoped keys see.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_KEY, browserSuite, chromiumMissing } from '../helpers/console.ts';
import { sendMail } from '../helpers/smtp.ts';

const missing = chromiumMissing();

describe('console: acting on mail', { skip: missing ?? false }, () => {
  const suite = browserSuite((relay) => [
    '--smtp-relay',
    relay.url,
    '--smtp-relay-tls-insecure',
    '--release-allow',
    '*@staging.example.com',
    '--allow-http-callbacks',
    '--allow-private-callbacks',
  ]);
  const { context, open } = suite;

  async function newInbox(label = 'mail-e2e'): Promise<{ inboxId: string; address: string }> {
    return suite.server.api('/v1/inboxes', { method: 'POST', body: { label } });
  }

  async function mintKey(scope: { labelPrefix?: string; readOnly?: boolean }): Promise<string> {
    return (await suite.server.api<{ key: string }>('/v1/team/keys', { method: 'POST', body: { label: 'console-mail', scope } })).key;
  }

  /** A label prefix's one rule: a short delay at DATA (fires on every message, harmless). */
  const prefixRule = (labelPrefix: string, ms: number) =>
    suite.server.api('/v1/faults', { method: 'PUT', body: { labelPrefix, rules: [{ stage: 'data', action: { type: 'delay', ms } }] } });

  const messages = async (inboxId: string) =>
    (
      await suite.server.api<{ items: Array<{ messageId: string; subject: string; seen: boolean; direction: string }> }>(
        `/v1/inboxes/${inboxId}/messages`,
      )
    ).items;

  async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('create an inbox, mail arrives live, mark read, delete a message (confirmed), simulate, send, reply, clear, delete the inbox', async () => {
    const page = await open();
    await page.click('#new-inbox');
    await page.fill('#ni-label', 'console-made');
    await page.fill('#ni-ttl', '90');
    await page.fill('#ni-callback', 'http://127.0.0.1:9/hook');
    await page.click('dialog.form-dialog button[type="submit"]');
    await page.waitForFunction(() => /^#\/inbox\/inb_/.test(location.hash));
    const inboxId = (await page.evaluate(() => location.hash)).split('/')[2]!;
    const made = await suite.server.api<{ address: string; label: string; ttlMinutes: number; callbackUrl: string }>(
      `/v1/inboxes/${inboxId}`,
    );
    assert.equal(made.label, 'console-made');
    assert.equal(made.ttlMinutes, 90);
    assert.equal(made.callbackUrl, 'http://127.0.0.1:9/hook');
    await page.waitForSelector('.live-live');
    await page.waitForSelector(`[data-inbox-id="${inboxId}"]`);

    // Mail arrives live; it is unread, and "Mark read" sets the read state IMAP and POP3 use.
    await sendMail(suite.server.smtpPort, { to: made.address, subject: 'First live one', text: 'code 551234' });
    await sendMail(suite.server.smtpPort, { to: made.address, subject: 'Second live one', text: 'hello' });
    await page.waitForSelector('[data-nav="messages"] >> text=First live one');
    await page.waitForSelector('[data-nav="messages"] >> text=Second live one');
    await page.waitForFunction(() => document.querySelector('.subnav a')?.textContent === 'Messages (2)');
    const first = (await messages(inboxId)).find((m) => m.subject === 'First live one')!;
    assert.equal(first.seen, false);
    await page.click(`[data-message-id="${first.messageId}"]`);
    await page.waitForSelector('#mark-seen >> text=Mark read');
    await page.click('#mark-seen');
    await page.waitForSelector('#mark-seen >> text=Mark unread');
    assert.equal((await messages(inboxId)).find((m) => m.messageId === first.messageId)!.seen, true);
    assert.equal(await page.getAttribute(`[data-message-id="${first.messageId}"]`, 'data-seen'), 'true');
    // The same from the keyboard: u toggles the read state.
    await page.keyboard.press('u');
    await page.waitForSelector('#mark-seen >> text=Mark read');
    assert.equal((await messages(inboxId)).find((m) => m.messageId === first.messageId)!.seen, false);
    await page.keyboard.press('u');
    await page.waitForSelector('#mark-seen >> text=Mark unread');

    // Download the .eml from the message header.
    const [eml] = await Promise.all([page.waitForEvent('download'), page.click('#download-eml')]);
    assert.equal(eml.suggestedFilename(), `${first.messageId}.eml`);

    // Delete asks first: Cancel keeps the message, confirming deletes it.
    await page.click('#delete-message');
    await page.waitForSelector('dialog.form-dialog[open] >> text=Delete this message?');
    // Focus starts on Cancel: Enter there destroys nothing.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel');
    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog.form-dialog', { state: 'detached' });
    assert.equal((await messages(inboxId)).length, 2);
    await page.keyboard.press('Delete');
    await page.click('dialog.form-dialog button.danger');
    await page.waitForSelector(`[data-message-id="${first.messageId}"]`, { state: 'detached' });
    assert.deepEqual(
      (await messages(inboxId)).map((m) => m.subject),
      ['Second live one'],
    );

    // Simulate a scenario: it arrives over the stream like any mail.
    await page.click('#simulate');
    await page.selectOption('#sim-scenario', 'otp');
    await page.fill('#sim-service', 'github');
    await page.click('dialog.form-dialog button[type="submit"]');
    await until('the simulated mail', async () => (await messages(inboxId)).length === 2);
    await page.waitForFunction(() => document.querySelectorAll('[data-nav="messages"]').length === 2);

    // Send to another local inbox: the sent copy is marked sent with its delivery state; the peer receives it.
    const peer = await newInbox();
    await page.click('#send');
    await page.fill('#send-to', peer.address);
    await page.fill('#send-subject', 'From the console');
    await page.fill('#send-text', 'Hello from the console');
    await page.click('dialog.form-dialog button[type="submit"]');
    const sentItem = await page.waitForSelector('[data-direction="outbound"] >> text=From the console');
    await sentItem.click();
    await page.waitForSelector('.deliveries li[data-state="sent"]');
    assert.equal(await page.$('#reply'), null, 'a sent message has no Reply');
    const got = await until('the peer copy', async () => (await messages(peer.inboxId)).find((m) => m.subject === 'From the console'));
    assert.equal(got.direction, 'inbound');

    // Reply from the peer inbox to that message, in the console: it arrives back in ours.
    await page.goto(`${suite.server.base}/#/inbox/${peer.inboxId}/m/${got.messageId}`);
    await page.click('#reply');
    await page.fill('#reply-text', 'Got it, thanks');
    await page.click('dialog.form-dialog button[type="submit"]');
    await until('the reply', async () =>
      (await messages(inboxId)).some((m) => m.subject === 'Re: From the console' && m.direction === 'inbound'),
    );

    // Clear asks first, then empties the inbox; delete inbox asks first and goes back to the overview.
    await page.goto(`${suite.server.base}/#/inbox/${inboxId}`);
    await page.waitForSelector('[data-nav="messages"]');
    await page.click('#clear-inbox');
    await page.waitForSelector('dialog.form-dialog[open] >> text=Clear this inbox?');
    await page.click('dialog.form-dialog button.danger');
    await page.waitForSelector('text=No mail yet.');
    assert.equal((await messages(inboxId)).length, 0);
    // The header's count is of the mail stored now, so it drops to 0 (the inbox's sequence does not).
    await page.waitForFunction(() => /\b0 received\b/.test(document.querySelector('.inbox-head')?.textContent ?? ''));
    await page.click('#delete-inbox');
    await page.click('dialog.form-dialog button.danger');
    await page.waitForFunction(() => location.hash === '#/');
    const gone = await fetch(`${suite.server.base}/v1/inboxes/${inboxId}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  });

  test('release sends the captured bytes to the recording relay (a target outside --release-allow is refused in the dialog); send goes through it too', async () => {
    const inbox = await newInbox();
    await sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'Release me', text: 'the captured body 7781' });
    const [m] = await until('the mail', async () => {
      const l = await messages(inbox.inboxId);
      return l.length ? l : null;
    });
    const page = await open();
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}/m/${m!.messageId}`);
    await page.click('#release');
    await page.fill('#release-to', 'someone@elsewhere.example');
    await page.click('dialog.form-dialog button[type="submit"]');
    const refusal = await page.waitForSelector('dialog.form-dialog [role="alert"]');
    assert.match((await refusal.textContent()) ?? '', /^403: .*staging\.example\.com/);
    assert.equal(suite.relay.received.length, 0);
    await page.fill('#release-to', 'dev@staging.example.com');
    await page.click('dialog.form-dialog button[type="submit"]');
    await suite.relay.whenReceived(1);
    assert.deepEqual(suite.relay.received[0]!.to, ['dev@staging.example.com']);
    assert.match(suite.relay.received[0]!.raw.toString(), /the captured body 7781/);
    await page.waitForSelector('.deliveries li[data-address="dev@staging.example.com"]');

    // Send to an address inboxd does not serve: through the relay, and the sent copy shows the relay's acceptance.
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}`);
    await page.click('#send');
    await page.fill('#send-to', 'partner@elsewhere.example');
    await page.fill('#send-subject', 'Through the relay');
    await page.fill('#send-text', 'relayed body 4410');
    await page.click('dialog.form-dialog button[type="submit"]');
    await suite.relay.whenReceived(2);
    assert.deepEqual(suite.relay.received[1]!.to, ['partner@elsewhere.example']);
    assert.match(suite.relay.received[1]!.raw.toString(), /relayed body 4410/);
    await (await page.waitForSelector('[data-direction="outbound"] >> text=Through the relay')).click();
    await until('the relay state on the page', async () => {
      const li = await page.$('.deliveries li[data-address="partner@elsewhere.example"]');
      if ((await li?.getAttribute('data-state')) === 'sent') return true;
      await page.reload();
      return false;
    });
    assert.match((await page.textContent('.deliveries li[data-state="sent"]')) ?? '', /relay/);
  });

  test('Checks tab: run with options runs only the ticked checks; findings link to their source line', async () => {
    const inbox = await newInbox();
    const body = [
      '<html><head><title>x</title></head>',
      '<body>',
      '<img src="https://shop.test/a.png">',
      '<script>y()</script>',
      '</body></html>',
    ].join('\n');
    await sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'Check options', html: body, text: 'x' });
    await until('the mail', async () => (await messages(inbox.inboxId)).length === 1);
    const page = await open();
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}`);
    await (await page.waitForSelector('[data-nav="messages"]')).click();
    await page.click('[role="tab"]#tab-checks');
    await page.click('.check-options summary');
    await page.check('.check-options input[value="html"]');
    await page.check('.check-options input[value="a11y"]');
    await page.click('#run-checks-options');
    await page.waitForSelector('.checks[data-status="failed"]');
    const sections = await page.$$eval('section.check', (els) => els.map((e) => e.getAttribute('data-check')));
    assert.deepEqual(sections.sort(), ['a11y', 'html']);
    assert.match((await page.textContent('.check-counts')) ?? '', /html\s*failed\s*1 E/);
    const script = await page.waitForSelector('section[data-check="html"] li[data-rule="script"]');
    assert.match((await script.textContent()) ?? '', /^error/);
    await (await script.$('a.jump'))!.click();
    assert.equal(await (await page.waitForSelector('ol.source-lines li.hit')).getAttribute('id'), 'src-html-L4');
  });

  test('Faults view: the rules in force for the inbox and its label, how often each fired, and the faults that fired', async () => {
    const inbox = await newInbox('faulty-1');
    await suite.server.api(`/v1/inboxes/${inbox.inboxId}/faults`, {
      method: 'PUT',
      body: { rules: [{ name: 'one 451', stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 1 } }] },
    });
    await prefixRule('faulty-', 1);
    await prefixRule('other-', 1);
    await assert.rejects(sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'refused once', text: 'x' }), /451/);
    await sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'accepted', text: 'x' });
    const page = await open();
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}/faults`);
    await page.waitForSelector('table.fault-rules');
    const rows = await page.$$eval('table.fault-rules tbody tr', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-scope'), ...Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())]),
    );
    assert.equal(rows.length, 2, JSON.stringify(rows));
    const own = rows.find((r) => r[0] === 'inbox')!;
    assert.deepEqual([own[1], own[2], own[3], own[5], own[6], own[7]], ['this inbox', 'one 451', 'rcpt', 'reply 451', 'first 1', '1']);
    assert.equal(rows.find((r) => r[0] === 'prefix')![1], 'label faulty-*');
    // Newest first: the delay of the label's rule on the accepted message, then the 451 of the inbox's rule.
    await page.waitForSelector('ul.fault-events li');
    const events = await page.$$eval('ul.fault-events li', (lis) => lis.map((li) => li.textContent?.replace(/\s+/g, ' ') ?? ''));
    assert.equal(events.length, 2, events.join(' | '));
    assert.match(events[0]!, /data\s*delay/);
    assert.match(events[1]!, /rcpt\s*reply\s*451/);
    await suite.server.api('/v1/faults?labelPrefix=faulty-', { method: 'DELETE' });
    await suite.server.api('/v1/faults?labelPrefix=other-', { method: 'DELETE' });
  });

  test('render as clients: widths, images off, dark, and the Gmail clipping point marked', async () => {
    const inbox = await newInbox();
    const filler = '<p>' + 'Lorem ipsum dolor sit amet. '.repeat(40) + '</p>\n';
    const big = `<html><head><style>@media (prefers-color-scheme: dark) { #top { color: rgb(1, 2, 3) } }</style></head><body><p id="top">Top</p><img id="logo" alt="Logo" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==">${filler.repeat(110)}<p id="end">End</p></body></html>`;
    await sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'Big newsletter', html: big, text: 'x' });
    await until('the mail', async () => (await messages(inbox.inboxId)).length === 1);
    const page = await open();
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}`);
    await (await page.waitForSelector('[data-nav="messages"]')).click();
    await page.waitForSelector('iframe.preview-frame');
    assert.match((await page.textContent('#clip-size')) ?? '', /of Gmail's 102 KB: clipped/);
    const frame = async () => (await (await page.waitForSelector('iframe.preview-frame')).contentFrame())!;
    let f = await frame();
    await f.waitForSelector('#inboxd-gmail-clip');
    // The mark sits between the top and the end: what follows it is what Gmail hides.
    const order = await f.evaluate(() => {
      const mark = document.getElementById('inboxd-gmail-clip')!;
      return [
        !!(document.getElementById('top')!.compareDocumentPosition(mark) & Node.DOCUMENT_POSITION_FOLLOWING),
        !!(mark.compareDocumentPosition(document.getElementById('end')!) & Node.DOCUMENT_POSITION_FOLLOWING),
      ];
    });
    assert.deepEqual(order, [true, true]);
    assert.equal(await f.evaluate(() => (document.getElementById('logo') as HTMLImageElement).naturalWidth), 1, 'images on by default');

    await page.click('[data-width="phone"]');
    assert.equal(await page.$eval('iframe.preview-frame', (e) => Math.round(e.getBoundingClientRect().width)), 375);
    await page.click('[data-width="tablet"]');
    assert.equal(await page.$eval('iframe.preview-frame', (e) => Math.round(e.getBoundingClientRect().width)), 768);

    await page.click('#preview-images');
    f = await frame();
    await f.waitForLoadState('load');
    assert.equal(await f.evaluate(() => (document.getElementById('logo') as HTMLImageElement).naturalWidth), 0, 'images off: not drawn');

    assert.notEqual(await f.evaluate(() => getComputedStyle(document.getElementById('top')!).color), 'rgb(1, 2, 3)');
    await page.click('#preview-dark');
    f = await frame();
    await f.waitForLoadState('load');
    assert.equal(await f.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(18, 18, 18)');
    assert.equal(
      await f.evaluate(() => getComputedStyle(document.getElementById('top')!).color),
      'rgb(1, 2, 3)',
      "the mail's dark-mode CSS applies",
    );
  });

  test('"Remember this key on this device" is off by default; ticked, a new tab is signed in; Forget key removes it', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await page.goto(`${suite.server.base}/`);
    assert.equal(await page.isChecked('#remember'), false);
    await page.fill('#key', ADMIN_KEY);
    await page.check('#remember');
    await page.press('#key', 'Enter');
    await page.waitForSelector('header.top');
    assert.deepEqual(await page.evaluate(() => Object.values(localStorage).filter((v) => v.startsWith('ibx_'))), [ADMIN_KEY]);
    const tab = await ctx.newPage();
    await tab.goto(`${suite.server.base}/`);
    await tab.waitForSelector('header.top');
    await tab.click('text=Forget key');
    await tab.waitForSelector('#key');
    assert.deepEqual(await tab.evaluate(() => Object.values(localStorage).filter((v) => v.startsWith('ibx_'))), []);
  });

  test('a read-only key sees every action that changes mail disabled, with the reason', async () => {
    const inbox = await newInbox();
    await sendMail(suite.server.smtpPort, { to: inbox.address, subject: 'Read only', text: 'x' });
    const [m] = await until('the mail', async () => {
      const l = await messages(inbox.inboxId);
      return l.length ? l : null;
    });
    const page = await open(await mintKey({ readOnly: true }));
    await page.goto(`${suite.server.base}/#/inbox/${inbox.inboxId}/m/${m!.messageId}`);
    await page.waitForSelector('#delete-message');
    const actions = await page.$$eval('button[data-action]', (bs) =>
      bs.map((b) => ({ id: b.id, disabled: (b as HTMLButtonElement).disabled, title: b.getAttribute('title') })),
    );
    assert.deepEqual(actions.map((a) => a.id).sort(), [
      'clear-inbox',
      'delete-inbox',
      'delete-message',
      'mark-seen',
      'new-inbox',
      'release',
      'reply',
      'send',
      'simulate',
    ]);
    for (const a of actions) {
      assert.equal(a.disabled, true, `${a.id} must be disabled`);
      assert.match(a.title ?? '', /read-only/, a.id);
    }
    assert.match((await page.textContent('#why-read-only')) ?? '', /This key is read-only/);
    await page.click('[role="tab"]#tab-checks');
    assert.equal(await page.isDisabled('#run-checks'), true);
    // Download stays: reading is allowed.
    assert.equal(await page.isDisabled('#download-eml'), false);
  });

  test('a label-scoped key sees only its prefix: inbox list, search hits, faults, and new inboxes start with it', async () => {
    const a = await newInbox('team-a-1');
    const b = await newInbox('team-b-1');
    await sendMail(suite.server.smtpPort, { to: a.address, subject: 'scoped zebra A', text: 'zebra' });
    await sendMail(suite.server.smtpPort, { to: b.address, subject: 'scoped zebra B', text: 'zebra' });
    await until('both', async () => (await messages(a.inboxId)).length === 1 && (await messages(b.inboxId)).length === 1);
    await prefixRule('team-b-', 1);
    await prefixRule('team-a-', 2);
    const page = await open(await mintKey({ labelPrefix: 'team-a-' }));
    await page.waitForSelector(`[data-inbox-id="${a.inboxId}"]`);
    const listed = await page.$$eval('[data-nav="inboxes"] .badge', (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(listed.length > 0 && listed.every((l) => l.startsWith('team-a-')), listed.join());
    await page.fill('#search', 'zebra');
    await page.press('#search', 'Enter');
    await page.waitForSelector('text=scoped zebra A');
    assert.equal(await page.$('text=scoped zebra B'), null);
    await page.goto(`${suite.server.base}/#/inbox/${a.inboxId}/faults`);
    await page.waitForSelector('table.fault-rules');
    const scopes = await page.$$eval('table.fault-rules td:first-child', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(scopes, ['label team-a-*']);
    await page.goto(`${suite.server.base}/#/inbox/${b.inboxId}`);
    await page.waitForSelector('.error, .note');
    assert.equal(await page.$('#inbox-address'), null, 'an inbox outside the scope does not open');
    await page.click('#new-inbox');
    assert.equal(await page.inputValue('#ni-label'), 'team-a-');
    await page.fill('#ni-label', 'team-a-new');
    await page.click('dialog.form-dialog button[type="submit"]');
    await page.waitForFunction(() => /^#\/inbox\/inb_/.test(location.hash));
    await suite.server.api('/v1/faults?labelPrefix=team-a-', { method: 'DELETE' });
    await suite.server.api('/v1/faults?labelPrefix=team-b-', { method: 'DELETE' });
  });
});
