// Outbound at full size against a fussy relay: 1,000 sends of 5 recipients each; the relay answers RCPT with 250, a
// one-time 451 (greylisting) or 550, by recipient. Every delivery ends `sent` or `failed` (never lost, never stuck),
// each recipient the relay took was acknowledged exactly once, and the 550s are exactly the failed ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRelay } from '../helpers/relay.ts';
import { startTestServer } from '../helpers/server.ts';

const SENDS = 1000;
const RCPTS = 5;

test('1,000 sends to a flaky relay: every delivery ends sent or failed, none twice', async () => {
  const relay = await startRelay();
  const deferred = new Set<string>();
  relay.refuse = (rcpt) => {
    const n = Number(/(\d+)@/.exec(rcpt)?.[1] ?? 0);
    if (n % 7 === 0) return '550 5.1.1 no such user';
    if (n % 3 === 0 && !deferred.has(rcpt)) {
      deferred.add(rcpt);
      return '451 4.7.1 greylisted, try again';
    }
    return null;
  };
  const s = await startTestServer(
    ['--smtp-relay', relay.url, '--smtp-relay-tls-insecure', '--max-sends-per-minute', '0', '--log-level', 'warn'],
    {},
    { outbound: { tuning: { retryDelaysMs: [50, 100, 200, 400, 800] } } },
  );
  try {
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as { inboxId: string };
    let r = 0;
    for (let i = 0; i < SENDS; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, async () => {
          const to = Array.from({ length: RCPTS }, () => `u${r++}@example.com`);
          const res = await s.api(`/v1/inboxes/${inbox.inboxId}/send`, { method: 'POST', json: { to, subject: 'stress', text: 'x' } });
          assert.equal(res.status, 202, await res.clone().text());
        }),
      );
    }
    const db = s.server.parts.store.sqlite!;
    const count = (state: string) =>
      (db.prepare('select count(*) n from outbound_deliveries where state = ?').get(state) as { n: number }).n;
    const deadline = Date.now() + 300_000;
    while (count('queued') > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    assert.equal(count('queued'), 0);
    const total = SENDS * RCPTS;
    const expectFailed = Array.from({ length: total }, (_, n) => n).filter((n) => n % 7 === 0).length;
    assert.equal(count('failed'), expectFailed);
    assert.equal(count('sent'), total - expectFailed);
    const acked = new Map<string, number>();
    for (const m of relay.received) for (const t of m.to) acked.set(t, (acked.get(t) ?? 0) + 1);
    assert.equal(acked.size, total - expectFailed);
    for (const [rcpt, n] of acked) assert.equal(n, 1, `${rcpt} acknowledged ${n} times`);
  } finally {
    await s.stop();
    await relay.close();
  }
});
