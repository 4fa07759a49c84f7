// Screenshots of the console's main views for the README: builds dist/inboxd (if needed), starts it on free ports
// with sample mail, drives Debian's chromium, writes PNGs, stops everything it started.
//
//   node scripts/screenshots.ts                 → docs/console/*.png
//   node scripts/screenshots.ts --out /tmp/x    → elsewhere (the browser test does this)
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_KEY, builtBinary, launchChromium, root, startServer } from '../test/helpers/console.ts';
import { sendMail } from '../test/helpers/smtp.ts';

export async function takeScreenshots(outDir: string, bin = builtBinary()): Promise<string[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const server = await startServer(bin);
  const browser = await launchChromium().catch(async (e: unknown) => {
    await server.stop();
    throw e;
  });
  const written: string[] = [];
  try {
    const inbox = await server.api('/v1/inboxes', { method: 'POST', body: { label: 'ci-run-4821' } });
    const other = await server.api('/v1/inboxes', { method: 'POST', body: { label: 'ci-run-4822' } });
    // A sent message too, so the list shows both directions.
    await server.api(`/v1/inboxes/${inbox.inboxId}/send`, {
      method: 'POST',
      body: { to: other.address, subject: 'Test order 4821', text: 'One test order, please.' },
    });
    await sendMail(server.smtpPort, {
      from: 'Acme <no-reply@acme.example>',
      to: inbox.address,
      subject: 'Welcome to Acme',
      text: 'Thanks for signing up. Nothing to do here.',
    });
    await sendMail(server.smtpPort, {
      from: 'Acme Security <security@acme.example>',
      to: inbox.address,
      subject: 'Your Acme verification code',
      text: 'Your verification code is 482913.\nIt expires in 10 minutes.\n\nOr confirm with https://acme.example/verify?t=Zx81',
      html:
        '<div style="font-family:sans-serif;max-width:480px;margin:auto;border:1px solid #ddd;padding:24px;border-radius:8px">' +
        '<h2 style="color:#3b2bd1">Confirm your email</h2><p>Your verification code is</p>' +
        '<p style="font-size:32px;letter-spacing:6px;font-weight:bold">482913</p>' +
        '<p><a href="https://acme.example/verify?t=Zx81" style="background:#3b2bd1;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none">Confirm</a></p>' +
        '<img src="https://tracker.example/open.gif" width="1" height="1" alt=""></div>',
    });
    const wait = await server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&subjectContains=verification`);
    // The overview needs GET /v1/console/summary; a build without it gets no overview picture.
    const summary = await fetch(`${server.base}/v1/console/summary`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    await summary.arrayBuffer();

    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport: { width: 1360, height: 820 }, deviceScaleFactor: 1 });
      try {
        const page = await ctx.newPage();
        await page.goto(`${server.base}/`);
        if (scheme === 'light') {
          await page.screenshot({ path: path.join(outDir, 'sign-in.png') });
          written.push('sign-in.png');
        }
        await page.fill('#key', ADMIN_KEY);
        await page.press('#key', 'Enter');
        await page.waitForSelector('header.top');
        if (scheme === 'light' && summary.ok) {
          await page.waitForSelector('[data-nav="recent"]');
          await page.screenshot({ path: path.join(outDir, 'overview.png') });
          written.push('overview.png');
        }
        await page.goto(`${server.base}/#/inbox/${inbox.inboxId}/m/${wait.messageId}`);
        const frame = await (await page.waitForSelector('iframe.preview-frame')).contentFrame();
        await frame?.waitForLoadState('load');
        await page.waitForSelector('.live-live');
        const name = scheme === 'light' ? 'message.png' : 'message-dark.png';
        await page.screenshot({ path: path.join(outDir, name) });
        written.push(name);
        if (scheme === 'light') {
          await page.keyboard.press('2');
          await page.waitForSelector('pre.text mark');
          await page.screenshot({ path: path.join(outDir, 'message-text.png') });
          await page.keyboard.press('?');
          await page.waitForSelector('dialog.help[open]');
          await page.screenshot({ path: path.join(outDir, 'shortcuts.png') });
          await page.keyboard.press('Escape');
          await page.goto(`${server.base}/#/keys`);
          await page.waitForSelector('table.grid');
          await page.screenshot({ path: path.join(outDir, 'keys.png') });
          written.push('message-text.png', 'shortcuts.png', 'keys.png');
        }
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  return written;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = path.resolve(values.out ?? path.join(root, 'docs/console'));
  takeScreenshots(out).then(
    (files) => console.log(`wrote ${files.map((f) => path.join(path.relative(process.cwd(), out) || '.', f)).join(', ')}`),
    (e: unknown) => {
      console.error(`screenshots failed: ${(e as Error)?.stack ?? String(e)}`);
      process.exit(1);
    },
  );
}
