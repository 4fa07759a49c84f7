// Runs every hostile SMTP client against one inboxd (a child process) while a well-behaved client delivers a probe
// message every 200 ms; prints the probe's latency and the server's RSS, and checks that every probe was accepted
// and that memory stayed bounded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tempDir } from '../helpers/server.ts';
import { type Child, createInbox, listAll, pct, probe, startChild } from './lib.ts';
import * as attacks from './smtp-attacks.ts';

export interface AbuseScale {
  idle: number;
  idleAddresses: string[];
  idleHoldMs: number;
  slowlorisConnections: number;
  slowlorisMs: number;
  rcpts: number;
  garbageLines: number;
  commandLineBytes: number;
  junkBytes: number;
  dataConnections: number;
  dataBytes: number;
  dataHoldMs: number;
  floodTotal: number;
  floodParallel: number;
  /** Extra server flags (e.g. a higher total connection limit for 1,000 held connections from several addresses). */
  serverArgs: string[];
  maxRssMb: number;
}

export async function runAbuse(scale: AbuseScale): Promise<void> {
  const dir = tempDir('inboxd-abuse-');
  let srv: Child | null = null;
  try {
    srv = await startChild(dir, scale.serverArgs);
    const s = srv;
    const target = await createInbox(s, { label: 'abuse' });
    const probeInbox = await createInbox(s, { label: 'probe' });
    const idleRss = s.rssMb();
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, s.rssMb())), 100);
    const p = probe(s.smtp, probeInbox.address, 200);
    const results: attacks.AttackResult[] = [];
    const run = async (r: Promise<attacks.AttackResult>) => {
      const x = await r;
      results.push(x);
      console.log(`  ${x.name}: ${x.detail}`);
    };
    try {
      await run(attacks.idleConnections(s.smtp, scale.idle, scale.idleHoldMs, scale.idleAddresses));
      await Promise.all([
        run(attacks.slowloris(s.smtp, scale.slowlorisConnections, scale.slowlorisMs, '127.0.0.3')),
        run(attacks.manyRecipients(s.smtp, scale.rcpts, (i) => `r${i}@inboxd.test`, '127.0.0.4')),
        run(attacks.pipelinedGarbage(s.smtp, scale.garbageLines, '127.0.0.5')),
        run(attacks.hugeCommandLine(s.smtp, scale.commandLineBytes, '127.0.0.6')),
        run(attacks.binaryJunk(s.smtp, scale.junkBytes, '127.0.0.7')),
      ]);
      await run(
        attacks.dataWithoutEnd(s.smtp, scale.dataConnections, scale.dataBytes, target.address, scale.dataHoldMs, '127.0.0.8', () =>
          s.rssMb(),
        ),
      );
      await run(attacks.connectionFlood(s.smtp, scale.floodTotal, scale.floodParallel, '127.0.0.9'));
    } finally {
      clearInterval(sampler);
    }
    const { replies, ms } = await p.stop();
    console.log(
      `  probe (a normal client, one delivery every 200 ms throughout): ${replies.length} deliveries, latency p50 ${pct(ms, 50)} ms, p99 ${pct(ms, 99)} ms, max ${pct(ms, 100)} ms`,
    );
    console.log(`  server RSS: ${idleRss} MB idle, ${peakRss} MB peak, ${s.rssMb()} MB after`);
    const bad = replies.filter((r) => !r.startsWith('250'));
    assert.deepEqual(bad, [], 'every probe delivery was accepted');
    assert.ok(replies.length >= 5, 'the probe ran throughout');
    assert.ok(pct(ms, 100) < 15_000, `every probe delivery finished within 15 s (max ${pct(ms, 100)} ms)`);
    assert.ok(peakRss < scale.maxRssMb, `server RSS stayed under ${scale.maxRssMb} MB (peak ${peakRss} MB)`);
    // Still healthy after: the probes are all stored, /health answers, a fresh delivery works.
    assert.equal((await listAll(s, probeInbox.inboxId)).length, replies.length);
    assert.equal((await s.api('/health')).status, 200);
    assert.equal(await s.stop(), 0);
    srv = null;
  } finally {
    if (srv) await srv.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
