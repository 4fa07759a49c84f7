// Every view of the browser console, light and dark, for the README and reviews: builds dist/inboxd (if needed),
// starts it on free ports with sample data (inboxes, received and sent mail, a thread, a callback, agent runs,
// workspace drafts and reminders), drives Debian's chromium and writes `<view>.png` and `<view>-dark.png`.
// A view this build lacks (an older server, or a tab another change adds) is skipped and named at the end.
//
//   node scripts/console-screenshots.ts               → docs/console/*.png
//   node scripts/console-screenshots.ts --out /tmp/x  → elsewhere
//   node scripts/console-screenshots.ts --only run,workspace
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, builtBinary, launchChromium, type Running, recorder, root, startServer } from '../test/helpers/console.ts';
import { sendMail } from '../test/helpers/smtp.ts';

interface View {
  name: string;
  hash: string | ((d: Sample) => string);
  /** Waited for before the picture; a view whose selector never shows is skipped. */
  ready: string;
  /** Steps after the page is ready (open a tab, a dialog …). */
  act?: (page: Page, d: Sample) => Promise<void>;
  /** Not signed in (the sign-in page). */
  signedOut?: boolean;
}

interface Sample {
  inboxId: string;
  messageId: string;
  threadId: string | null;
  runId: string;
  activeRunId: string;
  draftId: string;
}

const click = (selector: string, shown: string) => async (page: Page) => {
  await page.click(selector);
  await page.waitForSelector(shown, { timeout: 5000 });
};
const messageHash = (d: Sample) => `#/inbox/${d.inboxId}/m/${d.messageId}`;
const clickTab = (id: string, ready: string) => async (page: Page) => {
  await page.click(`#tab-${id}`);
  await page.waitForSelector(ready, { timeout: 5000 });
};

export const VIEWS: View[] = [
  { name: 'sign-in', hash: '#/', ready: '#key', signedOut: true },
  { name: 'overview', hash: '#/', ready: '.dashboard .tiles' },
  { name: 'message', hash: messageHash, ready: 'iframe.preview-frame' },
  ...(
    [
      ['text', 'pre.text'],
      ['links', '#panel-links'],
      ['headers', '#panel-headers'],
      ['raw', 'pre.raw'],
      ['attachments', '#panel-attachments'],
      ['checks', '#panel-checks'],
    ] as const
  ).map(([tab, shown]): View => ({ name: `message-${tab}`, hash: messageHash, ready: `#tab-${tab}`, act: clickTab(tab, shown) })),
  // The checks tab with a report: the offline checks run on the sample message first.
  {
    name: 'message-checks-report',
    hash: messageHash,
    ready: '#tab-checks',
    act: async (page) => {
      await clickTab('checks', '#run-checks')(page);
      await page.click('#run-checks');
      await page.waitForSelector('ul.check-counts', { timeout: 30_000 });
    },
  },
  // Render as clients (phone width), and the dialogs of acting on mail: taken when the build has them.
  { name: 'message-phone', hash: messageHash, ready: '[data-width="phone"]', act: click('[data-width="phone"]', 'iframe.preview-frame') },
  { name: 'message-release', hash: messageHash, ready: '#release', act: click('#release', 'dialog[open]') },
  { name: 'new-inbox', hash: '#/', ready: '#new-inbox', act: click('#new-inbox', 'dialog[open]') },
  { name: 'send', hash: (d) => `#/inbox/${d.inboxId}`, ready: '#send', act: click('#send', 'dialog[open]') },
  { name: 'faults', hash: (d) => `#/inbox/${d.inboxId}/faults`, ready: 'section.faults table.fault-rules' },
  { name: 'inbox-threads', hash: (d) => `#/inbox/${d.inboxId}/threads`, ready: '[data-thread-id]' },
  { name: 'thread', hash: (d) => `#/inbox/${d.inboxId}/thread/${d.threadId}`, ready: '.thread, [data-thread-id]' },
  { name: 'callbacks', hash: (d) => `#/inbox/${d.inboxId}/callbacks`, ready: 'main table.grid, main .empty' },
  { name: 'threads', hash: '#/threads', ready: '[data-thread-id]' },
  { name: 'search', hash: '#/search?q=code', ready: 'main [data-nav]' },
  { name: 'keys', hash: '#/keys', ready: 'table.grid' },
  { name: 'audit', hash: '#/audit', ready: 'table.grid' },
  {
    name: 'shortcuts',
    hash: '#/',
    ready: '.dashboard',
    act: async (page) => {
      await page.keyboard.press('?');
      await page.waitForSelector('dialog.help[open]');
    },
  },
  { name: 'runs', hash: '#/runs', ready: '.runs-table' },
  { name: 'run', hash: (d) => `#/runs/${d.runId}`, ready: '.timeline [data-type="run.finished"]' },
  { name: 'run-active', hash: (d) => `#/runs/${d.activeRunId}`, ready: '.timeline [data-type="inbox.created"]' },
  {
    name: 'workspace',
    hash: '#/workspace',
    ready: '.today-item',
    act: async (page, d) => {
      await page.click(`[data-review="${d.draftId}"]`);
      await page.waitForSelector('.draft-review tr[data-rule]');
    },
  },
  { name: 'workspace-policy', hash: '#/workspace/policy', ready: '.policy fieldset' },
  { name: 'workspace-reminders', hash: '#/workspace/reminders', ready: '[data-reminder-id]' },
  { name: 'workspace-actions', hash: '#/workspace/actions', ready: '[data-action-id]' },
];

/** Inboxes, mail both ways, a thread, a callback, a finished and an active run, drafts, a reminder. */
async function seed(server: Running, hook: string): Promise<Sample> {
  const inbox = await server.api('/v1/inboxes', { method: 'POST', body: { label: 'e2e-checkout', callbackUrl: `${hook}/hook` } });
  const peer = await server.api('/v1/inboxes', { method: 'POST', body: { label: 'e2e-support' } });
  await server.api(`/v1/inboxes/${inbox.inboxId}/send`, {
    method: 'POST',
    body: { to: peer.address, subject: 'Where is order 1207?', text: 'Hello support, order 1207 has not arrived yet.' },
  });
  const brand = 'font-family:Helvetica,Arial,sans-serif';
  const button = 'display:inline-block;background:#0b7a5c;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none';
  for (const m of [
    {
      from: 'Northwind <hello@northwind.example>',
      subject: 'Your Northwind account is ready',
      text: 'Welcome aboard. Your first order ships free.',
    },
    {
      from: 'Northwind Accounts <accounts@northwind.example>',
      subject: 'Northwind sign-in: verification code',
      text: 'Use 482913 to finish signing in (valid 10 minutes).\nOr open https://northwind.example/login/confirm?c=Qe7m',
      html:
        `<table role="presentation" width="100%" style="${brand};background:#f4f7f6;padding:24px"><tr><td align="center">` +
        '<table role="presentation" width="460" style="background:#fff;border-radius:10px;padding:28px">' +
        '<tr><td><img src="cid:logo@northwind.example" width="40" height="40" alt="Northwind"></td></tr>' +
        '<tr><td><h1 style="font-size:22px;color:#0b7a5c">Finish signing in</h1><p>Use this code:</p>' +
        '<p style="font-size:30px;font-weight:700;letter-spacing:8px">482913</p>' +
        `<p><a href="https://northwind.example/login/confirm?c=Qe7m" style="${button}">Sign in</a></p>` +
        '<img src="https://pixel.northwind.example/o.gif" width="1" height="1" alt=""></td></tr></table></td></tr></table>',
      attachments: [
        { filename: 'logo.png', content: fs.readFileSync(path.join(root, 'docs/console/sign-in.png')), cid: 'logo@northwind.example' },
        { filename: 'terms.txt', content: 'Terms of service, version 4.\n', contentType: 'text/plain' },
      ],
    },
  ])
    await sendMail(server.smtpPort, { to: inbox.address, ...m });
  const wait = await server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&subjectContains=verification%20code`);
  // A fault rule that refused one delivery (the Faults view); a server without fault rules just has no picture of it.
  await fetch(`${server.base}/v1/inboxes/${inbox.inboxId}/faults`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      rules: [{ name: 'greylist once', stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 1 } }],
    }),
  }).then((r) => r.arrayBuffer());
  await sendMail(server.smtpPort, { to: inbox.address, subject: 'Retried delivery', text: 'Second try.' }).catch(() => undefined);
  await sendMail(server.smtpPort, { to: inbox.address, subject: 'Retried delivery', text: 'Second try.' });
  // A conversation waiting for a reply, with a draft, and a reminder.
  await sendMail(server.smtpPort, {
    from: 'Dana Lee <dana@partner.example>',
    to: inbox.address,
    subject: 'Meeting next week',
    text: 'Hi,\n\ncould we meet on Tuesday to go through the test plan? Please confirm the time.\n\nDana',
  });
  const meeting = await server.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10&subjectContains=Meeting`);
  await sendMail(server.smtpPort, {
    from: 'Sam Ortiz <sam@vendor.example>',
    to: inbox.address,
    subject: 'Quote for 40 seats',
    text: 'Hello,\n\nwhat is your budget for the 40 seats? Do you need the invoice by Friday?\n\nSam',
  });
  const draft = await server.api('/v1/workspace/draft-reply', {
    method: 'POST',
    body: { inboxId: inbox.inboxId, messageId: meeting.messageId, engine: 'builtin', notes: ['Tuesday at 10:00 works for the test plan'] },
  });
  await server.api('/v1/workspace/reminders', {
    method: 'POST',
    body: { note: 'Send the test plan to Dana', dueAt: new Date(Date.now() + 3 * 3600_000).toISOString(), kind: 'deadline' },
  });
  await server.api('/v1/workspace/actions', { method: 'POST', body: { type: 'wait', note: 'waiting for the vendor’s quote' } });

  // A run from start to succeeded, and one still at work.
  const run = await server.api('/v1/agent/runs', {
    method: 'POST',
    body: { goal: 'Create the GitHub test account', services: ['github'] },
  });
  const next = () => server.api(`/v1/agent/runs/${run.runId}/next`, { method: 'POST' });
  const report = (stepId: string, note?: string) =>
    server.api(`/v1/agent/runs/${run.runId}/report`, { method: 'POST', body: { stepId, outcome: 'done', ...(note ? { note } : {}) } });
  const first = await next();
  await report(first.step.stepId);
  await report((await next()).step.stepId, 'form submitted');
  const waitStep = await next();
  await sendMail(server.smtpPort, {
    from: 'GitHub <noreply@github.com>',
    to: first.service.address,
    subject: '[GitHub] Please verify your device',
    text: 'Verification code: 731904\n\nIf you did not sign in, change your password.',
  });
  await server.api(`/v1/inboxes/${waitStep.service.inboxId}/wait?timeoutSeconds=10`);
  await report(waitStep.step.stepId);
  await report((await next()).step.stepId, 'code accepted');
  const active = await server.api('/v1/agent/runs', {
    method: 'POST',
    body: { goal: 'Sign up to Slack and Linear for the onboarding test', services: ['slack', 'Linear'] },
  });
  await server.api(`/v1/agent/runs/${active.runId}/next`, { method: 'POST' });
  return {
    inboxId: inbox.inboxId,
    messageId: wait.messageId,
    threadId: meeting.threadId ?? null,
    runId: run.runId,
    activeRunId: active.runId,
    draftId: draft.draftId,
  };
}

/** Opens the view (signed in with the admin key, or signed out), waits for it, does its step, takes the picture. */
async function shoot(page: Page, base: string, v: View, d: Sample, file: string): Promise<void> {
  await page.goto(`${base}/`);
  if (!v.signedOut) {
    await page.evaluate((key) => sessionStorage.setItem('inboxd.console.key', key), ADMIN_KEY);
    await page.goto(`${base}/${typeof v.hash === 'string' ? v.hash : v.hash(d)}`);
    await page.reload();
    await page.waitForSelector('header.top');
  } else {
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
  }
  await page.waitForSelector(v.ready, { timeout: 8000 });
  await v.act?.(page, d);
  // Fonts, the preview frame and a live stream's first answer settle.
  await page.waitForTimeout(300);
  await page.screenshot({ path: file });
}

export async function consoleScreenshots(
  outDir: string,
  only: string[] | null = null,
  bin = builtBinary(),
): Promise<{ written: string[]; skipped: string[] }> {
  fs.mkdirSync(outDir, { recursive: true });
  const hook = await recorder();
  const server = await startServer(bin, ['--allow-http-callbacks', '--allow-private-callbacks']);
  const browser = await launchChromium().catch(async (e: unknown) => {
    await server.stop();
    await hook.close();
    throw e;
  });
  const written: string[] = [];
  const skipped: string[] = [];
  try {
    const d = await seed(server, hook.url);
    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport: { width: 1360, height: 820 }, deviceScaleFactor: 1 });
      try {
        const page = await ctx.newPage();
        for (const v of VIEWS) {
          if (only && !only.includes(v.name)) continue;
          const file = `${v.name}${scheme === 'dark' ? '-dark' : ''}.png`;
          // Twice at most: on a loaded machine a view can miss its moment once.
          for (let attempt = 1; attempt <= 2; attempt++) {
            try {
              await shoot(page, server.base, v, d, path.join(outDir, file));
              written.push(file);
              break;
            } catch (e) {
              if (attempt === 2) skipped.push(`${file} (${((e as Error).message ?? String(e)).split('\n')[0]})`);
            }
          }
        }
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
    await server.stop();
    await hook.close();
  }
  return { written, skipped };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, only: { type: 'string' } } });
  const out = path.resolve(values.out ?? path.join(root, 'docs/console'));
  consoleScreenshots(out, values.only ? values.only.split(',') : null).then(
    ({ written, skipped }) => {
      console.log(`wrote ${written.length} pictures to ${path.relative(process.cwd(), out) || '.'}: ${written.join(', ')}`);
      if (skipped.length) console.log(`skipped (the view is not in this build, or did not show):\n  ${skipped.join('\n  ')}`);
    },
    (e: unknown) => {
      console.error(`screenshots failed: ${(e as Error)?.stack ?? String(e)}`);
      process.exit(1);
    },
  );
}
