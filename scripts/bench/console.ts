// The console's weight and first paint (issue 32): the minified script and stylesheet as served, gzipped; then the
// built executable with 1,000 inboxes (each with one message), Debian's chromium opening the overview with the key
// already in the tab's session: the time from navigation start to the first paint, and to the overview drawn (the
// tiles of GET /v1/console/summary and the inbox list), median of several loads.
//
//   node scripts/bench/console.ts            → 1,000 inboxes, 9 loads
//   node scripts/bench/console.ts --quick    → 1,000 inboxes, 3 loads
//   node scripts/bench/console.ts --inboxes 5000
import os from 'node:os';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { bundleConsole } from '../../src/console/bundle.ts';
import { ADMIN_KEY, builtBinary, launchChromium, startServer } from '../../test/helpers/console.ts';
import { sendMail } from '../../test/helpers/smtp.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, inboxes: { type: 'string', default: '1000' }, loads: { type: 'string' } },
});
const INBOXES = Number(values.inboxes);
const LOADS = Number(values.loads ?? (values.quick ? 3 : 9));

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const gz = (s: string) => zlib.gzipSync(Buffer.from(s), { level: 9 }).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bundle = await bundleConsole();
console.log(
  `console script ${kb(Buffer.byteLength(bundle.js))} minified, ${kb(gz(bundle.js))} gzip; stylesheet ${kb(Buffer.byteLength(bundle.css))}, ${kb(gz(bundle.css))} gzip`,
);

const server = await startServer(builtBinary());
const browser = await launchChromium();
try {
  const t0 = performance.now();
  let made = 0;
  const one = async (i: number) => {
    const box = await server.api('/v1/inboxes', { method: 'POST', body: { label: `bench-${i % 20}` } });
    if (i % 10 === 0) await sendMail(server.smtpPort, { to: box.address, subject: `code ${i}`, text: `Your code is ${100000 + i}.` });
    made++;
  };
  for (let i = 0; i < INBOXES; i += 20) await Promise.all(Array.from({ length: Math.min(20, INBOXES - i) }, (_, k) => one(i + k)));
  console.log(`${made} inboxes (every tenth with a message) in ${Math.round(performance.now() - t0)} ms`);

  const paint: number[] = [];
  const drawn: number[] = [];
  const steps: Record<string, number[]> = {};
  for (let n = 0; n < LOADS + 1; n++) {
    const ctx = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    await ctx.addInitScript((key) => {
      sessionStorage.setItem('inboxd.console.key', key);
      // The moment the overview is drawn, taken in the page (not when the test driver next looks).
      const w = window as unknown as { __drawn?: number };
      new MutationObserver((_, obs) => {
        if (document.querySelector('.tiles .tile') && document.querySelector('[data-nav="inboxes"]')) {
          w.__drawn = performance.now();
          obs.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    }, ADMIN_KEY);
    const page = await ctx.newPage();
    await page.goto(`${server.base}/#/`);
    await page.waitForSelector('.tiles .tile');
    await page.waitForSelector('[data-nav="inboxes"]');
    const t = await page.evaluate(() => {
      const end = (re: RegExp) =>
        (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((e) => re.test(e.name))?.responseEnd ?? Number.NaN;
      return {
        drawn: (window as unknown as { __drawn?: number }).__drawn ?? Number.NaN,
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        script: end(/console\.[0-9a-f]+\.js$/),
        me: end(/\/v1\/me$/),
        summary: end(/\/v1\/console\/summary/),
        inboxes: end(/\/v1\/inboxes\?/),
      };
    });
    await ctx.close();
    if (n === 0) continue; // the first load warms the server's caches and chromium's
    paint.push(t.paint);
    drawn.push(t.drawn);
    for (const k of ['script', 'me', 'summary', 'inboxes'] as const) (steps[k] ??= []).push(t[k]);
  }
  const ms = (k: string) => Math.round(median(steps[k]!));
  console.log(
    `  on the way (median ms from navigation start to the response): script ${ms('script')}, GET /v1/me ${ms('me')}, GET /v1/console/summary ${ms('summary')}, GET /v1/inboxes ${ms('inboxes')}`,
  );
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(
    `overview with ${INBOXES} inboxes, median of ${LOADS} loads: first contentful paint ${Math.round(median(paint))} ms, overview drawn (tiles + inbox list) ${Math.round(median(drawn))} ms; load average ${load}, ${os.cpus().length} cores`,
  );
} finally {
  await browser.close();
  await server.stop();
}
