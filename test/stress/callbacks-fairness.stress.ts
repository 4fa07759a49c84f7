// Full-size callback fairness: six receiving hosts that never answer, each behind 50 different URLs, with the
// program's own limits (64 in flight, 8 per host). A seventh, fast host gets all of its 100 callbacks delivered
// while the slow hosts still hold their places; then the slow hosts are released and everything arrives.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PER_TARGET } from '../../src/events/callbacks.ts';
import { createInbox, HoldingReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

const SLOW_HOSTS = 6;
const PATHS_PER_SLOW_HOST = 50;
const FAST_INBOXES = 100;

describe('callback fairness at full size', () => {
  const slow: HoldingReceiver[] = [];
  let fast: HoldingReceiver;
  let s: TestServer;
  before(async () => {
    for (let i = 0; i < SLOW_HOSTS; i++) {
      const r = new HoldingReceiver(true);
      await r.start();
      slow.push(r);
    }
    fast = new HoldingReceiver(false);
    await fast.start();
    s = await startTestServer(
      ['--allow-http-callbacks', '--allow-private-callbacks', '--log-level', 'warn'],
      {},
      {
        events: { callbacks: { attemptTimeoutMs: 600_000 } },
      },
    );
  });
  after(async () => {
    await s.stop();
    for (const r of slow) await r.stop();
    await fast.stop();
  });

  test('slow hosts on many paths leave room for a fast host', { timeout: 600_000 }, async () => {
    const slowInboxes = [];
    for (const r of slow)
      for (let p = 0; p < PATHS_PER_SLOW_HOST; p++) slowInboxes.push(await createInbox(s, `${r.url}/hook/${p}?sig=${p}`));
    const fastInboxes = [];
    for (let i = 0; i < FAST_INBOXES; i++) fastInboxes.push(await createInbox(s, `${fast.url}/fast/${i}`));

    for (const inbox of slowInboxes) await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'slow', text: 'x' });
    for (const r of slow) await r.waitFor(MAX_PER_TARGET);
    for (const inbox of fastInboxes) await sendMail(s.server.smtpPort, { to: inbox.address, subject: 'fast', text: 'x' });
    await fast.waitFor(FAST_INBOXES);
    for (const r of slow) assert.equal(r.held.length, MAX_PER_TARGET, 'each slow host holds exactly its share');

    for (const r of slow) {
      while (r.paths.length < PATHS_PER_SLOW_HOST) {
        r.release();
        await r.waitFor(Math.min(r.paths.length + 1, PATHS_PER_SLOW_HOST));
        assert.ok(r.held.length <= MAX_PER_TARGET);
      }
      r.release();
    }
    for (const r of slow) assert.equal(new Set(r.paths).size, PATHS_PER_SLOW_HOST);
  });
});
