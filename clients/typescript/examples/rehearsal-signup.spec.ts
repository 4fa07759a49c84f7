// An example Playwright test: sign up on inboxd's own rehearsal page with a fresh inbox, read the code from the
// verification mail, type it, and see the page confirm. Run it with `npx playwright test` and INBOXD_URL and
// INBOXD_KEY set. (In inboxd's own `npm test` this file runs through test/e2e/clients-typescript.test.ts, with
// playwright-core and Debian's chromium standing in for the @playwright/test runner.)

import { type InboxFixtures, inboxFixture } from '@inboxd/client/playwright';
import { test as base, expect } from '@playwright/test';

const test = base.extend<InboxFixtures>(inboxFixture());

test('signs up on the rehearsal page with the emailed code', async ({ page, inbox }) => {
  await page.goto(`${process.env.INBOXD_URL}/v1/agent/test`);
  await page.fill('#email', inbox.address);
  await page.click('button[type=submit]');

  const { code, action } = await inbox.verify({ timeoutSeconds: 30 });
  expect(action.type).toBe('otp');
  await page.fill('#code', code ?? '');
  await page.click('button[type=submit]');

  await expect(page.locator('#result')).toHaveAttribute('data-result', 'verified');
});
