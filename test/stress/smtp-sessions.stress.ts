// Sessions that never end, full size: 500 connections from five addresses each send NOOP once a second forever —
// within the command budget, so only the default session lifetime (--smtp-max-session-seconds 600) ends them. Every
// one is closed with 421 4.7.0 at that limit, and a normal client keeps delivering the whole time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createInbox, killAll, listAll, probe, RawSmtp, sleep, startChild } from './lib.ts';

after(killAll);

const ADDRESSES = ['127.0.0.2', '127.0.0.12', '127.0.0.22', '127.0.0.32', '127.0.0.42'];
const PER_ADDRESS = 100;
const NOOP_EVERY_MS = 1000;

async function noopForever(port: number, localAddress: string): Promise<{ lines: string[]; noops: number }> {
  const s = new RawSmtp(port, { localAddress });
  await s.connected();
  await s.reply(30_000);
  await s.cmd('EHLO hold.example', 30_000);
  let noops = 0;
  while (!s.closed) {
    const r = await s.cmd('NOOP', 30_000);
    if (r.startsWith('250')) noops++;
    else break;
    await sleep(NOOP_EVERY_MS);
  }
  // the 421 closes the connection; wait for the close to be seen
  for (let i = 0; i < 100 && !s.closed; i++) await sleep(50);
  s.destroy();
  return { lines: s.lines, noops };
}

test('NOOP-forever sessions are all closed at the default lifetime; mail is delivered meanwhile', { timeout: 15 * 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-sessions-'));
  const srv = await startChild(dir, ['--smtp-max-connections', '2000']);
  try {
    const inbox = await createInbox(srv);
    const t0 = Date.now();
    const holders = ADDRESSES.flatMap((a) => Array.from({ length: PER_ADDRESS }, () => noopForever(srv.smtp, a)));
    const p = probe(srv.smtp, inbox.address, 500);
    const results = await Promise.all(holders);
    const heldS = (Date.now() - t0) / 1000;
    const { replies } = await p.stop();

    const lasts = results.map((r) => r.lines.at(-1) ?? '');
    const notAtLifetime = lasts.filter((l) => !/^421 4\.7\.0 .*session lasted its limit of 600 s/.test(l));
    assert.deepEqual(notAtLifetime.slice(0, 5), [], `${notAtLifetime.length} sessions ended otherwise`);
    assert.ok(
      results.every((r) => r.noops < 1000),
      'closed by the lifetime, not the command budget',
    );
    assert.ok(
      replies.length > 0 && replies.every((r) => r.startsWith('250')),
      `probe replies: ${replies.filter((r) => !r.startsWith('250')).slice(0, 5)}`,
    );
    assert.equal((await listAll(srv, inbox.inboxId)).length, replies.length, 'every probe message stored');
    console.log(
      `  ${results.length} NOOP sessions held ${heldS.toFixed(0)} s, ${Math.min(...results.map((r) => r.noops))}-${Math.max(...results.map((r) => r.noops))} NOOPs each, all closed with 421 4.7.0; ${replies.length} probe deliveries, all 250`,
    );
    assert.equal(await srv.stop(), 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
